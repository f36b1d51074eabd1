#include "scheduling/contention.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::sched {

namespace {

// A job alone never quite fills the bus: a trace that asks B or more is taken at this
// utilization (L stays finite). The survey's most demanding application used 79 %.
constexpr double kMaxSoloUtilization = 0.999;

}  // namespace

double calibrated_queueing(Bandwidth capacity, Bandwidth peak, int threads, Bandwidth solo) {
  const double u = solo / capacity;
  const double offered = peak.per_us() * threads;
  if (!(u > 0 && u < 1) || !(solo.per_us() <= offered))
    throw std::invalid_argument(fmt::format(
        "cannot calibrate the bus: {} threads that issue {:g}/us each cannot draw {:g} of {:g}/us alone",
        threads, peak.per_us(), solo.per_us(), capacity.per_us()));
  // threads x peak / L(u) = u B  =>  L(u) = offered / solo  =>  k = (L - 1)(1 - u) / u.
  return (offered / solo.per_us() - 1) * (1 - u) / u;
}

double survey_queueing() {
  return calibrated_queueing(Bandwidth(kSurveyBusCapacity), Bandwidth(kDefaultThreadPeak), 2,
                             Bandwidth(kSurveyMostDemandingAlone));
}

ContentionModel::ContentionModel(Bandwidth capacity, Bandwidth peak_per_thread, double queueing)
    : capacity_(capacity), peak_per_thread_(peak_per_thread), queueing_(queueing) {
  if (!(capacity.per_us() > 0)) throw std::invalid_argument("the bus capacity must be more than 0");
  if (!(peak_per_thread.per_us() > 0))
    throw std::invalid_argument("the peak bandwidth of a thread must be more than 0");
  if (!(queueing > 0 && std::isfinite(queueing)))
    throw std::invalid_argument("the queueing constant must be more than 0");
}

double ContentionModel::latency(double u) const { return 1 + queueing_ * u / (1 - u); }

ContentionModel::Solo ContentionModel::solo_of(const BusLoad& load) const {
  const double u = std::min(load.demand / capacity_, kMaxSoloUtilization);
  const double l = latency(u);
  const double offered = peak_per_thread_.per_us() * std::max(load.threads, 1);
  return {std::clamp(load.demand.per_us() * l / offered, 0.0, 1.0), l};
}

double ContentionModel::utilization(std::span<const BusLoad> loads) const {
  return utilization(loads, solos_of(loads));
}

std::vector<ContentionModel::Solo> ContentionModel::solos_of(std::span<const BusLoad> loads) const {
  std::vector<Solo> solo;
  solo.reserve(loads.size());
  for (const auto& l : loads) solo.push_back(solo_of(l));
  return solo;
}

double ContentionModel::utilization(std::span<const BusLoad> loads, std::span<const Solo> solo) const {
  // excess(u) = served(u) - u B falls strictly from >= 0 at u = 0 to -B as u -> 1: one root.
  const auto excess = [&](double u) {
    const double l = latency(u);
    double served = 0;
    for (std::size_t i = 0; i < loads.size(); ++i)
      served += loads[i].demand.per_us() / (1 - solo[i].stall + solo[i].stall * l / solo[i].latency);
    return served - u * capacity_.per_us();
  };
  double low = 0;
  double high = 1;
  for (int i = 0; i < 200 && high - low > 1e-13; ++i) {
    const double mid = (low + high) / 2;
    (excess(mid) > 0 ? low : high) = mid;
  }
  return low;
}

std::vector<JobShare> ContentionModel::shares(std::span<const BusLoad> loads) const {
  std::vector<JobShare> out;
  out.reserve(loads.size());
  if (loads.size() == 1) {  // alone: its trace, exactly (no bisection rounding)
    out.push_back({1.0, loads[0].demand});
    return out;
  }
  const std::vector<Solo> solo = solos_of(loads);  // once: the bisection and the shares use them
  const double l = latency(utilization(loads, solo));
  for (std::size_t i = 0; i < loads.size(); ++i) {
    // Never faster than alone: below the job's own solo utilization the others add no delay.
    const double stretch = std::max(1.0, l / solo[i].latency);
    const double rate = 1 / (1 - solo[i].stall + solo[i].stall * stretch);
    out.push_back({rate, loads[i].demand * rate});
  }
  return out;
}

Bandwidth ContentionModel::bus_bound_solo(int threads) const {
  const double offered = peak_per_thread_.per_us() * std::max(threads, 1);
  // offered / L(u) = u B: bisection on u.
  double low = 0;
  double high = 1;
  for (int i = 0; i < 200 && high - low > 1e-13; ++i) {
    const double mid = (low + high) / 2;
    (offered / latency(mid) > mid * capacity_.per_us() ? low : high) = mid;
  }
  return capacity_ * low;
}

}  // namespace ncp2::sched
