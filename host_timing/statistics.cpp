#include "host_timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace ncp2::timing {

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const auto index = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[index];
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.count = n;
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  s.p99 = percentile_sorted(sorted, 99.0);
  return s;
}

double histogram_mode(std::span<const double> samples, double bin_width) {
  if (samples.empty()) return 0;
  if (!(bin_width > 0)) throw std::invalid_argument("histogram_mode: the bin width must be positive");
  const double lo = *std::min_element(samples.begin(), samples.end());
  // Sorted bin indices rather than an array of bins: a width tiny against the range costs nothing.
  std::vector<std::size_t> index(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i)
    index[i] = static_cast<std::size_t>(std::floor((samples[i] - lo) / bin_width));
  std::sort(index.begin(), index.end());
  std::size_t best_bin = 0, best_count = 0;
  for (std::size_t i = 0; i < index.size();) {
    std::size_t j = i;
    while (j < index.size() && index[j] == index[i]) ++j;
    if (j - i > best_count) {
      best_count = j - i;
      best_bin = index[i];
    }
    i = j;
  }
  return lo + (static_cast<double>(best_bin) + 0.5) * bin_width;
}

}  // namespace ncp2::timing
