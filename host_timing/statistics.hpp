#pragma once
// Summary statistics of timing samples (read costs, round-trip times): min, median, mean, p99,
// max, and the mode of a histogram, as the papers report them (seeds 000/001).
#include <cstddef>
#include <span>

namespace ncp2::timing {

struct Summary {
  std::size_t count = 0;
  double min = 0;
  double median = 0;  // mean of the two middle values when count is even
  double mean = 0;
  double p99 = 0;  // nearest rank: the smallest sample with at least 99% of the samples <= it
  double max = 0;
};

// Summary of `samples` (any order; not modified). All fields 0 when empty.
[[nodiscard]] Summary summarize(std::span<const double> samples);

// Nearest-rank percentile (0 < p <= 100) of samples already sorted ascending; 0 when empty.
[[nodiscard]] double percentile_sorted(std::span<const double> sorted, double p);

// The mode of a histogram of `samples` with bins of `bin_width` starting at the minimum: the
// centre of the fullest bin (the lowest such bin on a tie). 0 when empty; bin_width must be > 0.
[[nodiscard]] double histogram_mode(std::span<const double> samples, double bin_width);

}  // namespace ncp2::timing
