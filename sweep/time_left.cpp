// The estimate of a sweep's time left (sweep/time_left.hpp).
#include "sweep/time_left.hpp"

#include <algorithm>
#include <cmath>

namespace ncp2::sweep {

void TimeLeft::finished(int nodes, double seconds) {
  const double x = nodes;
  n_ += 1;
  sum_x_ += x;
  sum_y_ += seconds;
  sum_xx_ += x * x;
  sum_xy_ += x * seconds;
}

std::optional<double> TimeLeft::expected(int nodes) const {
  if (n_ == 0) return std::nullopt;
  const double mean_x = sum_x_ / n_;
  const double mean_y = sum_y_ / n_;
  const double var_x = sum_xx_ / n_ - mean_x * mean_x;
  // One node count so far: seconds proportional to the nodes.
  if (var_x <= 1e-9 * std::max(1.0, mean_x * mean_x)) return mean_y * nodes / std::max(mean_x, 1.0);
  // Least squares, kept non-negative: a point never costs less than nothing.
  const double slope = std::max(0.0, (sum_xy_ / n_ - mean_x * mean_y) / var_x);
  const double intercept = std::max(0.0, mean_y - slope * mean_x);
  return intercept + slope * nodes;
}

std::optional<double> TimeLeft::estimate(const std::vector<int>& pending_nodes,
                                         const std::vector<Running>& running, int parallelism) const {
  if (n_ == 0) return std::nullopt;
  double work = 0;
  double longest = 0;
  for (const int nodes : pending_nodes) {
    const double s = *expected(nodes);
    work += s;
    longest = std::max(longest, s);
  }
  for (const Running& r : running) {
    const double s = std::max(0.0, *expected(r.nodes) - r.elapsed_s);
    work += s;
    longest = std::max(longest, s);
  }
  return std::max(longest, work / std::max(1, parallelism));
}

}  // namespace ncp2::sweep
