#pragma once
// How a sweep's points run: the seam between the sweep (its grid, folder and database) and the
// place the command lines run. Here: on this host's cores (sweep/local_executor.hpp); a batch
// system implements the same interface. Whatever runs them, a point's results are its files, and
// sweep/gather.hpp reads them.
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ncp2::sweep {

// One point to run: its command line (sweep/point_command.hpp) and where its output goes.
struct PointJob {
  std::size_t point = 0;  // the point's index in the sweep
  std::vector<std::string> argv;
  std::string log_path;  // absolute
  double weight = 1;     // its expected cost relative to the others (its node count)
};

enum class RunEnd {
  NotStarted,   // the sweep stopped before it started
  Exited,       // it ended by itself: see exit_code
  Interrupted,  // the sweep stopped it (Ctrl-C)
};

struct PointRun {
  RunEnd end = RunEnd::NotStarted;
  int exit_code = -1;   // when Exited: the command's exit code, -1 when a signal killed it
  double wall_s = 0;    // from its start to its end
  std::string problem;  // why it could not be started ("" when it was)
};

struct ExecutorObserver {
  // Right before a point's command is launched or submitted: what an earlier attempt left of it
  // goes then, not before (an earlier Slurm job may still be running the point, writing its log).
  std::function<void(std::size_t point)> launching;
  std::function<void(std::size_t point)> started;
  std::function<void(std::size_t point, const PointRun&)> finished;  // for every job that started
  std::function<void()> tick;  // now and then while points run (a progress line)
  // A stop began (Ctrl-C) with this many points running, which are being stopped.
  std::function<void(std::size_t running)> stopping;
};

class PointExecutor {
 public:
  virtual ~PointExecutor() = default;
  // Runs every job and returns when all have ended. When `stop` becomes true it starts no more,
  // stops those running (they finish Interrupted) and returns.
  virtual void run(const std::vector<PointJob>& jobs, const std::atomic<bool>& stop,
                   const ExecutorObserver& observer) = 0;
  // How many points run at once (the estimate of the time left divides by it).
  [[nodiscard]] virtual int parallelism() const = 0;
};

}  // namespace ncp2::sweep
