#pragma once
// The points on this host's cores, N at a time (`ncp2 sweep -j N`), each a process group of its
// own (real_machine/subprocess.hpp), its output in its log file.
#include <chrono>

#include "sweep/executor.hpp"

namespace ncp2::sweep {

// The cores this process may run on (sched_getaffinity; at least 1): the default -j.
int available_cores();

class LocalExecutor final : public PointExecutor {
 public:
  // `jobs_at_once` >= 1. `grace`: how long a point stopped by Ctrl-C (SIGTERM) may take to write its
  // partial results before its whole group is killed.
  explicit LocalExecutor(int jobs_at_once, std::chrono::milliseconds grace = std::chrono::seconds(5));
  // The heaviest points first: the last ones to end are then short, and the cores stay busy.
  void run(const std::vector<PointJob>& jobs, const std::atomic<bool>& stop,
           const ExecutorObserver& observer) override;
  [[nodiscard]] int parallelism() const override { return jobs_at_once_; }

 private:
  int jobs_at_once_;
  std::chrono::milliseconds grace_;
};

}  // namespace ncp2::sweep
