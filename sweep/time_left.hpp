#pragma once
// The estimate of a sweep's time left, from the points finished so far: their host seconds fitted
// as a + b × nodes (a program's node processes, the emulation's events grow with the nodes), then
// the points still to run spread over the cores.
#include <optional>
#include <vector>

namespace ncp2::sweep {

class TimeLeft {
 public:
  // A point of `nodes` nodes took `seconds` (finished, failed or not).
  void finished(int nodes, double seconds);
  // The expected seconds of a point of `nodes` nodes; none before any point finished.
  [[nodiscard]] std::optional<double> expected(int nodes) const;

  struct Running {
    int nodes = 0;
    double elapsed_s = 0;
  };
  // Seconds until the last point ends: the work left over `parallelism` cores, and never less than
  // the longest single point left. None before any point finished.
  [[nodiscard]] std::optional<double> estimate(const std::vector<int>& pending_nodes,
                                               const std::vector<Running>& running, int parallelism) const;

 private:
  double n_ = 0, sum_x_ = 0, sum_y_ = 0, sum_xx_ = 0, sum_xy_ = 0;
};

}  // namespace ncp2::sweep
