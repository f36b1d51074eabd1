#include "host_timing/clock_sync.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "host_timing/statistics.hpp"

namespace ncp2::timing {

BurstEstimate estimate_burst(std::span<const Exchange> burst, double drift_ppm, double drift_bound_ppm,
                             const SyncOptions& options) {
  if (burst.empty()) throw std::invalid_argument("clock sync: a burst without exchanges");
  std::int64_t rtt_min = std::numeric_limits<std::int64_t>::max();
  std::int64_t rtt_max_all = 0;
  for (const Exchange& e : burst) {
    if (e.rtt_ns() < 0) throw std::invalid_argument("clock sync: an exchange received before it was sent");
    rtt_min = std::min(rtt_min, e.rtt_ns());
    rtt_max_all = std::max(rtt_max_all, e.rtt_ns());
  }
  std::vector<Exchange> kept;
  kept.reserve(burst.size());
  const double limit = options.discard_factor * static_cast<double>(rtt_min);
  for (const Exchange& e : burst)
    if (static_cast<double>(e.rtt_ns()) <= limit) kept.push_back(e);

  BurstEstimate b;
  b.kept = kept.size();
  b.discarded = burst.size() - kept.size();
  std::vector<double> rtts(kept.size());
  std::transform(kept.begin(), kept.end(), rtts.begin(),
                 [](const Exchange& e) { return static_cast<double>(e.rtt_ns()); });
  const Summary s = summarize(rtts);
  b.rtt.min = s.min;
  b.rtt.mean = s.mean;
  b.rtt.max = s.max;
  b.rtt.max_all = static_cast<double>(rtt_max_all);
  b.rtt.mode = histogram_mode(rtts, std::max(1.0, s.min / 20.0));

  // The best exchanges: smallest round trips first (stable: earlier first on ties).
  std::stable_sort(kept.begin(), kept.end(),
                   [](const Exchange& x, const Exchange& y) { return x.rtt_ns() < y.rtt_ns(); });
  const auto fraction =
      static_cast<std::size_t>(std::ceil(options.best_fraction * static_cast<double>(kept.size())));
  const std::size_t used = std::clamp<std::size_t>(fraction, 1, std::max<std::size_t>(options.max_best, 1));
  b.used = std::min(used, kept.size());
  b.ref_local_ns = kept.front().mid_local_ns();

  const double drift = drift_ppm * 1e-6;
  const double drift_error = drift_bound_ppm * 1e-6;
  std::vector<double> corrected(b.used), uncertainty(b.used);
  for (std::size_t i = 0; i < b.used; ++i) {
    const Exchange& e = kept[i];
    const double from_ref = e.mid_local_ns() - b.ref_local_ns;
    corrected[i] = e.offset_ns() - drift * from_ref;
    // Half the round trip; the drift over the moment within the round trip the master answered
    // at; the drift estimate's error over the distance to the reference time.
    uncertainty[i] = static_cast<double>(e.rtt_ns()) / 2.0 * (1.0 + std::abs(drift) + drift_error) +
                     drift_error * std::abs(from_ref);
  }
  b.offset_ns = std::accumulate(corrected.begin(), corrected.end(), 0.0) / static_cast<double>(b.used);
  b.bound_ns = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < b.used; ++i)
    b.bound_ns = std::min(b.bound_ns, std::abs(b.offset_ns - corrected[i]) + uncertainty[i]);
  return b;
}

SyncEstimate estimate_sync(std::span<const Exchange> first, std::span<const Exchange> second,
                           const SyncOptions& options) {
  SyncEstimate s;
  s.first = estimate_burst(first, 0, options.prior_drift_bound_ppm, options);
  if (second.empty()) {
    s.offset_ns = s.first.offset_ns;
    s.offset_bound_ns = s.first.bound_ns;
    s.ref_local_ns = s.first.ref_local_ns;
    return s;
  }
  s.has_drift = true;
  auto drift_of = [](const BurstEstimate& a, const BurstEstimate& b, double& bound_ppm) {
    const double span = b.ref_local_ns - a.ref_local_ns;
    if (!(span > 0)) throw std::invalid_argument("clock sync: the second burst is not after the first");
    bound_ppm = (a.bound_ns + b.bound_ns) / span * 1e6;
    return (b.offset_ns - a.offset_ns) / span * 1e6;
  };
  s.second = estimate_burst(second, 0, options.prior_drift_bound_ppm, options);
  double bound = 0;
  const double drift = drift_of(s.first, s.second, bound);
  s.first = estimate_burst(first, drift, bound, options);
  s.second = estimate_burst(second, drift, bound, options);
  s.drift_ppm = drift_of(s.first, s.second, s.drift_bound_ppm);
  s.offset_ns = s.second.offset_ns;
  s.offset_bound_ns = s.second.bound_ns;
  s.ref_local_ns = s.second.ref_local_ns;
  return s;
}

}  // namespace ncp2::timing
