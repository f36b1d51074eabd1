// The host's load on a real node's costs (validation/load_factor.hpp).
#include "validation/load_factor.hpp"

#include <cmath>
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

namespace {

// The mean |log(emulated / measured)| over the operations read, with the costs emulated.
std::pair<double, std::map<std::string, double>> log_error(const dsm::SystemConfig& config,
                                                           std::span<const FitParameter> parameters,
                                                           const CostModel& model,
                                                           const std::map<std::string, double>& loaded,
                                                           double factor) {
  std::map<std::string, double> costs = model(with_load_factor(config, parameters, factor));
  double sum = 0;
  int count = 0;
  for (const auto& [operation, measured] : loaded) {
    const auto it = costs.find(operation);
    if (!reads_the_load(operation) || it == costs.end() || !(measured > 0) || !(it->second > 0)) continue;
    sum += std::abs(std::log(it->second / measured));
    ++count;
  }
  return {count == 0 ? -1 : sum / count, std::move(costs)};
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
  auto [mean, costs] = log_error(config, parameters, model, loaded, fit.factor);
  fit.mean_log_error = mean;
  for (const auto& [operation, us] : costs)
    if (loaded.contains(operation)) fit.reproduced[operation] = us;
  return fit;
}

}  // namespace ncp2::validation
