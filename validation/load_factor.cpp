// The host's load on a real node's costs (validation/load_factor.hpp).
#include "validation/load_factor.hpp"

#include <cmath>
#include <tuple>
#include <utility>

namespace ncp2::validation {

bool scaled_by_load(const FitParameter& p) {
  for (const std::string& key : p.keys)
    if (key.starts_with("pp.busy_handler")) return false;
  return true;
}

dsm::SystemConfig with_load_factor(dsm::SystemConfig config, std::span<const FitParameter> parameters,
                                   double factor) {
  if (factor == 1) return config;  // untouched: a value's round trip through its unit could move it
  for (const FitParameter& p : parameters)
    if (scaled_by_load(p)) set_parameter(config, p, parameter_value(config, p) * factor);
  return config;
}

bool reads_the_load(const std::string& operation) {
  return !operation.starts_with("busy-request-") && operation != "lock-burst";
}

std::pair<double, std::map<std::string, double>> loaded_reproduction(
    const dsm::SystemConfig& config, const CostModel& model, const std::map<std::string, double>& loaded) {
  std::map<std::string, double> costs = model(config);
  double sum = 0;
  int count = 0;
  for (const auto& [operation, measured] : loaded) {
    const auto it = costs.find(operation);
    if (!reads_the_load(operation) || it == costs.end() || !(measured > 0) || !(it->second > 0)) continue;
    sum += std::abs(std::log(it->second / measured));
    ++count;
  }
  std::map<std::string, double> made;
  for (const auto& [operation, us] : costs)
    if (loaded.contains(operation)) made[operation] = us;
  return {count == 0 ? -1 : sum / count, std::move(made)};
}

namespace {

// The mean |log(emulated / measured)| over the operations read, with the costs emulated.
std::pair<double, std::map<std::string, double>> log_error(const dsm::SystemConfig& config,
                                                           std::span<const FitParameter> parameters,
                                                           const CostModel& model,
                                                           const std::map<std::string, double>& loaded,
                                                           double factor) {
  return loaded_reproduction(with_load_factor(config, parameters, factor), model, loaded);
}

}  // namespace

LoadFit fit_load_factor(const dsm::SystemConfig& config, std::span<const FitParameter> parameters,
                        const CostModel& model, const std::map<std::string, double>& loaded) {
  if (loaded.empty()) return {};  // a calibration on 2 nodes: no emulated run for nothing
  const auto error = [&](double log_factor) {
    return log_error(config, parameters, model, loaded, std::exp(log_factor)).first;
  };
  if (error(0) < 0) return {};
  // Golden-section search: the error is unimodal in the factor (every scaled cost grows with it).
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double low = 0, high = std::log(8.0);
  double a = high - (golden * (high - low)), b = low + (golden * (high - low));
  double error_a = error(a), error_b = error(b);
  constexpr double kTolerance = 0.002;  // in log(factor): 0.2 %
  while (high - low > kTolerance) {
    if (error_a <= error_b) {
      high = b;
      b = a;
      error_b = error_a;
      a = high - (golden * (high - low));
      error_a = error(a);
    } else {
      low = a;
      a = b;
      error_a = error_b;
      b = low + (golden * (high - low));
      error_b = error(b);
    }
  }
  LoadFit fit;
  fit.factor = std::exp((low + high) / 2);
  std::tie(fit.mean_log_error, fit.reproduced) = log_error(config, parameters, model, loaded, fit.factor);
  return fit;
}

LoadedFit fit_loaded_costs(const dsm::SystemConfig& scaled, std::span<const FitParameter> parameters,
                           const CostModel& model, const std::map<std::string, double>& loaded) {
  LoadedFit fit;
  fit.config = scaled;
  for (const FitParameter& p : parameters) fit.values.push_back(parameter_value(scaled, p));
  std::map<std::string, double> targets;
  for (const auto& [operation, us] : loaded)
    if (reads_the_load(operation) && !is_check_only(operation) && us > 0) targets[operation] = us;
  if (targets.empty()) return fit;  // a calibration on 2 nodes: nothing loaded to fit to
  std::vector<FitParameter> free;
  std::vector<std::size_t> at;
  for (std::size_t j = 0; j < parameters.size(); ++j)
    if (scaled_by_load(parameters[j])) {
      free.push_back(parameters[j]);
      at.push_back(j);
    }
  const FitOutcome outcome = fit_costs(scaled, model, targets, free);
  fit.config = outcome.config;
  for (std::size_t k = 0; k < at.size(); ++k) fit.values[at[k]] = outcome.values[k];
  std::tie(fit.mean_log_error, fit.reproduced) = loaded_reproduction(fit.config, model, loaded);
  return fit;
}

}  // namespace ncp2::validation
