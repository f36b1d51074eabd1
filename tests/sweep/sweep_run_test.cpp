// One invocation of a sweep (sweep/sweep_run.hpp) with an executor that runs nothing: a point's
// earlier attempt is cleared only as the executor launches the point again, never before (an
// earlier Slurm job may still be running the point and writing its log), and a point the executor
// never launches keeps its files.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sweep/grid.hpp"
#include "sweep/point_command.hpp"
#include "sweep/sweep_run.hpp"

namespace ncp2::sweep {
namespace {

namespace fs = std::filesystem;

// Launches only `launch` (of the jobs given), recording whether each point's earlier log was still
// there before and gone after `launching`, then reports every job failed.
class RecordingExecutor final : public PointExecutor {
 public:
  RecordingExecutor(std::string dir, std::vector<Point> points, std::size_t launch)
      : dir_(std::move(dir)), points_(std::move(points)), launch_(launch) {}
  void run(const std::vector<PointJob>& jobs, const std::atomic<bool>&,
           const ExecutorObserver& observer) override {
    for (const PointJob& job : jobs) {
      seen_before_all_.push_back(exists(job.point));
      if (job.point != launch_) continue;
      if (observer.launching) observer.launching(job.point);
      cleared_on_launch_ = !exists(job.point);
    }
    for (const PointJob& job : jobs)
      if (observer.finished) observer.finished(job.point, PointRun{RunEnd::Exited, 1, 0, {}});
  }
  [[nodiscard]] int parallelism() const override { return 1; }
  [[nodiscard]] bool exists(std::size_t point) const {
    return fs::exists(fs::path(dir_) / point_files(points_[point]).log);
  }
  std::vector<bool> seen_before_all_;
  bool cleared_on_launch_ = false;

 private:
  std::string dir_;
  std::vector<Point> points_;
  std::size_t launch_;
};

TEST(SweepRun, AnEarlierAttemptIsClearedOnlyAsThePointIsLaunchedAgain) {
  const fs::path dir = fs::temp_directory_path() / ("ncp2-sweep-run-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SweepSpec spec;
  spec.target = "counter";
  spec.nodes = {1, 2};
  spec.machines = {"ncp2"};
  SweepOptions options;
  options.out_dir = dir.string();
  options.ncp2 = "/bin/false";
  const std::vector<Point> points = expand_grid(spec);
  ASSERT_EQ(points.size(), 2U);
  // A first invocation makes the folder a sweep's; its points fail (nothing is run).
  RecordingExecutor first(options.out_dir, points, 99);
  const std::atomic<bool> stop{false};
  (void)run_sweep(spec, options, first, stop, {});
  // Earlier attempts' logs, as a still-running job would be writing them.
  for (const Point& p : points) std::ofstream(dir / point_files(p).log) << "an earlier attempt\n";
  RecordingExecutor again(options.out_dir, points, 1);
  (void)run_sweep(spec, options, again, stop, {});
  EXPECT_EQ(again.seen_before_all_, (std::vector<bool>{true, true})) << "cleared before the executor ran";
  EXPECT_TRUE(again.cleared_on_launch_) << "the launched point's earlier log must go as it is launched";
  EXPECT_TRUE(again.exists(0)) << "a point not launched keeps its files";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ncp2::sweep
