#include "scheduling/contention.hpp"

#include <algorithm>
#include <stdexcept>

namespace ncp2::sched {

namespace {

// Served bandwidth of all jobs at stretch x.
double served_at(std::span<const BusLoad> loads, std::span<const double> stall, double x) {
  double sum = 0;
  for (std::size_t i = 0; i < loads.size(); ++i)
    sum += loads[i].demand.per_us() / (1 - stall[i] + stall[i] * x);
  return sum;
}

}  // namespace

ContentionModel::ContentionModel(Bandwidth capacity, Bandwidth peak_per_thread)
    : capacity_(capacity), peak_per_thread_(peak_per_thread) {
  if (!(capacity.per_us() > 0)) throw std::invalid_argument("the bus capacity must be more than 0");
  if (!(peak_per_thread.per_us() > 0))
    throw std::invalid_argument("the peak bandwidth of a thread must be more than 0");
}

double ContentionModel::stall_fraction(const BusLoad& load) const {
  const double peak = peak_per_thread_.per_us() * std::max(load.threads, 1);
  return std::clamp(load.demand.per_us() / peak, 0.0, 1.0);
}

double ContentionModel::transfer_stretch(std::span<const BusLoad> loads) const {
  Bandwidth total;
  for (const auto& l : loads) total += l.demand;
  if (total <= capacity_) return 1;
  std::vector<double> stall;
  stall.reserve(loads.size());
  for (const auto& l : loads) stall.push_back(stall_fraction(l));
  // served_at decreases with x. Each term d / (1 - s + s x) is at most max(d, threads x peak) / x
  // (s = d / (threads x peak), clamped to 1), so the root lies in [1, sum of those / B].
  // Bisection: exact enough, and deterministic.
  double bound = 0;
  for (const auto& l : loads)
    if (l.demand.per_us() > 0)
      bound += std::max(l.demand.per_us(), peak_per_thread_.per_us() * std::max(l.threads, 1));
  double low = 1;
  double high = std::max(1.0, bound / capacity_.per_us());
  for (int i = 0; i < 100 && high - low > 1e-10 * high; ++i) {
    const double mid = (low + high) / 2;
    (served_at(loads, stall, mid) > capacity_.per_us() ? low : high) = mid;
  }
  return high;
}

std::vector<JobShare> ContentionModel::shares(std::span<const BusLoad> loads) const {
  const double x = transfer_stretch(loads);
  std::vector<JobShare> out;
  out.reserve(loads.size());
  for (const auto& l : loads) {
    const double s = stall_fraction(l);
    const double rate = 1 / (1 - s + s * x);
    out.push_back({rate, l.demand * rate});
  }
  return out;
}

}  // namespace ncp2::sched
