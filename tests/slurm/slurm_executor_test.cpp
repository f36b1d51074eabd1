// The sweep's Slurm backend (sweep/slurm.hpp) on a real one-node Slurm cluster: run under
// tests/slurm/with_one_node_slurm.sh, which starts it and sets SLURM_CONF (skipped without it).
// The points are the sweep's own command lines (sweep/point_command.hpp) of a built-in workload,
// gathered as the sweep gathers them (sweep/gather.hpp); failures are real ones (an exit code, a
// task cancelled with scancel); resuming submits only what is missing and never a job twice.
#include "sweep/slurm.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "real_machine/subprocess.hpp"
#include "sweep/gather.hpp"
#include "sweep/grid.hpp"
#include "sweep/point_command.hpp"

namespace ncp2::sweep {
namespace {

namespace fs = std::filesystem;

class SlurmExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("SLURM_CONF") == nullptr)
      GTEST_SKIP() << "no Slurm cluster: run under tests/slurm/with_one_node_slurm.sh";
    const char* ncp2 = std::getenv("NCP2_BIN");
    ASSERT_NE(ncp2, nullptr) << "NCP2_BIN: the ncp2 executable the points run";
    ncp2_ = ncp2;
    dir_ = fs::temp_directory_path() / fmt_name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / kPointsFolder);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  static std::string fmt_name() {
    return "ncp2-slurm-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
           "-" + std::to_string(::getpid());
  }

  // jacobi at its small preset on 1, 2, 3 and 4 nodes of the NCP2: the sweep's own command lines.
  std::vector<PointJob> jacobi_jobs() {
    spec_.target = "jacobi";
    spec_.nodes = {1, 2, 3, 4};
    spec_.machines = {"ncp2"};
    spec_.run_options = {"--preset", "small"};
    points_ = expand_grid(spec_);
    std::vector<PointJob> jobs;
    for (std::size_t i = 0; i < points_.size(); ++i)
      jobs.push_back({i, point_command(ncp2_, spec_, points_[i], dir_.string()),
                      (dir_ / point_files(points_[i]).log).string(), static_cast<double>(points_[i].nodes)});
    return jobs;
  }

  SlurmOptions options() const {
    SlurmOptions o;
    o.sweep_dir = dir_;
    o.poll_interval = std::chrono::milliseconds(300);
    return o;
  }

  std::size_t submissions() const {
    std::size_t n = 0;
    std::error_code ec;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_ / "slurm" / "submissions", ec)) ++n;
    return n;
  }

  std::string job_id(int submission) const {
    std::ifstream in(dir_ / "slurm" / "submissions" / std::to_string(submission) / "job_id");
    std::string id;
    in >> id;
    return id;
  }

  // Runs the executor, recording what it reports.
  struct Reported {
    std::map<std::size_t, PointRun> finished;
    std::vector<std::size_t> started;
    std::string progress;
  };
  Reported run(SlurmExecutor& executor, std::ostringstream& progress, const std::vector<PointJob>& jobs,
               const std::atomic<bool>& stop, std::function<void(std::size_t)> on_start = {},
               std::function<void()> on_tick = {}) {
    Reported r;
    ExecutorObserver observer;
    observer.started = [&](std::size_t point) {
      r.started.push_back(point);
      if (on_start) on_start(point);
    };
    observer.finished = [&](std::size_t point, const PointRun& run) {
      EXPECT_FALSE(r.finished.contains(point)) << "point " << point << " reported twice";
      r.finished[point] = run;
    };
    observer.tick = [&] {
      if (on_tick) on_tick();
    };
    executor.run(jobs, stop, observer);
    r.progress = progress.str();
    return r;
  }

  std::string ncp2_;
  fs::path dir_;
  SweepSpec spec_;
  std::vector<Point> points_;
};

TEST_F(SlurmExecutorTest, FourPointsRunAsOneArrayAndAreGathered) {
  const std::vector<PointJob> jobs = jacobi_jobs();
  std::ostringstream progress;
  SlurmExecutor executor(options(), progress);
  const std::atomic<bool> stop{false};
  const Reported r = run(executor, progress, jobs, stop);
  EXPECT_EQ(submissions(), 1u);
  EXPECT_NE(r.progress.find("submitted 4 points as slurm job " + job_id(1)), std::string::npos) << r.progress;
  EXPECT_TRUE(executor.failures().empty()) << r.progress;
  ASSERT_EQ(r.finished.size(), 4u) << r.progress;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    EXPECT_EQ(r.finished.at(i).end, RunEnd::Exited);
    EXPECT_EQ(r.finished.at(i).exit_code, 0) << points_[i].name;
    EXPECT_GT(r.finished.at(i).wall_s, 0) << "the task's time, from its status file";
    const PointRecord record = gather_point(dir_.string(), points_[i], r.finished.at(i));
    EXPECT_EQ(record.status, PointStatus::Done) << points_[i].name << ": " << record.message;
    EXPECT_EQ(record.verified, true) << points_[i].name;
    EXPECT_TRUE(point_complete(dir_.string(), points_[i])) << points_[i].name;
  }
  // The heaviest point went first in the array (task 0 is the 4-node point).
  std::ifstream first_line(dir_ / "slurm" / "submissions" / "1" / "points");
  std::string line;
  std::getline(first_line, line);
  EXPECT_NE(line.find("--nodes 4 "), std::string::npos) << line;
  EXPECT_GE(executor.parallelism(), 1);

  // Resumed: everything complete, nothing submitted.
  std::ostringstream again_progress;
  SlurmOptions again_options = options();
  again_options.is_complete = [&](std::size_t i) { return point_complete(dir_.string(), points_[i]); };
  SlurmExecutor again(again_options, again_progress);
  const Reported none = run(again, again_progress, {}, stop);
  EXPECT_EQ(submissions(), 1u);
  EXPECT_TRUE(none.finished.empty());

  // One point's files gone: only that point is submitted again.
  // (the sweep removes a point's files before it runs again: sweep/sweep_folder.hpp)
  for (const std::string& file :
       {point_files(points_[2]).db, point_files(points_[2]).stats_json, point_files(points_[2]).log})
    fs::remove(dir_ / file);
  std::vector<PointJob> missing;
  for (const PointJob& job : jobs)
    if (!point_complete(dir_.string(), points_[job.point])) missing.push_back(job);
  ASSERT_EQ(missing.size(), 1u);
  std::ostringstream third_progress;
  SlurmExecutor third(again_options, third_progress);
  const Reported one = run(third, third_progress, missing, stop);
  EXPECT_EQ(submissions(), 2u);
  EXPECT_NE(one.progress.find("submitted 1 points"), std::string::npos) << one.progress;
  ASSERT_EQ(one.finished.size(), 1u);
  EXPECT_EQ(one.finished.begin()->first, 2u);
  EXPECT_TRUE(point_complete(dir_.string(), points_[2]));
}

TEST_F(SlurmExecutorTest, FailedAndCancelledPointsAreReportedWithTheirReason) {
  std::vector<PointJob> jobs = jacobi_jobs();
  jobs.resize(2);
  // Point 0 fails at once: a parameter out of range (ncp2 run exits 2, its message in the log).
  jobs[0].argv.insert(jobs[0].argv.begin() + 2, {"--param", "iterations=0"});
  // Point 1 runs until it is cancelled.
  jobs[1].argv = {"sleep", "120"};
  // Equal weights: the array's tasks in the points' order (task 1 is point 1).
  for (PointJob& job : jobs) job.weight = 1;
  std::ostringstream progress;
  SlurmExecutor executor(options(), progress);
  const std::atomic<bool> stop{false};
  const Reported r = run(executor, progress, jobs, stop, [&](std::size_t point) {
    if (point == 1) (void)real::run_command({"scancel", job_id(1) + "_1"});
  });
  ASSERT_EQ(r.finished.size(), 2u) << r.progress;
  EXPECT_EQ(r.finished.at(0).exit_code, 2);
  EXPECT_EQ(r.finished.at(1).exit_code, -1) << "cancelled: no exit code";
  ASSERT_EQ(executor.failures().size(), 2u) << r.progress;
  std::map<std::string, SlurmFailure> by_state;
  for (const SlurmFailure& f : executor.failures()) by_state[f.state] = f;
  ASSERT_TRUE(by_state.contains("FAILED")) << r.progress;
  ASSERT_TRUE(by_state.contains("CANCELLED")) << r.progress;
  EXPECT_EQ(by_state["FAILED"].exit_code, 2);
  EXPECT_NE(by_state["FAILED"].log_tail.find("iterations"), std::string::npos) << by_state["FAILED"].log_tail;
  EXPECT_FALSE(by_state["CANCELLED"].exit_code);
  EXPECT_NE(r.progress.find("CANCELLED: cancelled (scancel"), std::string::npos) << r.progress;
  EXPECT_NE(r.progress.find("FAILED, exit code 2"), std::string::npos) << r.progress;
  // What the sweep stores for each: the failure's words.
  const PointRecord failed = gather_point(dir_.string(), points_[0], r.finished.at(0));
  EXPECT_EQ(failed.status, PointStatus::Failed);
  EXPECT_NE(failed.message.find("iterations"), std::string::npos) << failed.message;
  const PointRecord cancelled = gather_point(dir_.string(), points_[1], r.finished.at(1));
  EXPECT_EQ(cancelled.status, PointStatus::Failed);
  EXPECT_NE(cancelled.message.find("CANCELLED"), std::string::npos) << cancelled.message;
}

TEST_F(SlurmExecutorTest, AJobStillRunningIsWaitedForNotSubmittedAgain) {
  std::vector<PointJob> jobs = jacobi_jobs();
  jobs.resize(2);
  // Each point sleeps a little, then runs the sweep's command: the first invocation stops waiting
  // while they run.
  for (PointJob& job : jobs) {
    std::vector<std::string> argv{"bash", "-c", "sleep 3; exec \"$@\"", "-"};
    argv.insert(argv.end(), job.argv.begin(), job.argv.end());
    job.argv = argv;
  }
  std::ostringstream progress;
  SlurmExecutor executor(options(), progress);
  std::atomic<bool> stop{false};
  const Reported first = run(executor, progress, jobs, stop, {}, [&] { stop = true; });
  EXPECT_NE(first.progress.find("stopped waiting: slurm job " + job_id(1) + " goes on"), std::string::npos)
      << first.progress;
  ASSERT_EQ(submissions(), 1u);

  std::ostringstream again_progress;
  SlurmOptions again_options = options();
  again_options.is_complete = [&](std::size_t i) { return point_complete(dir_.string(), points_[i]); };
  SlurmExecutor again(again_options, again_progress);
  const std::atomic<bool> go_on{false};
  const Reported second = run(again, again_progress, jobs, go_on);
  EXPECT_EQ(submissions(), 1u) << "the running job was submitted again:\n" << second.progress;
  EXPECT_NE(second.progress.find("slurm job " + job_id(1) + " of an earlier submission is still on its way"),
            std::string::npos)
      << second.progress;
  ASSERT_EQ(second.finished.size(), 2u) << second.progress;
  for (const auto& [point, run] : second.finished) {
    EXPECT_EQ(run.exit_code, 0) << second.progress;
    EXPECT_TRUE(point_complete(dir_.string(), points_[point]));
  }
}

TEST_F(SlurmExecutorTest, SbatchRefusingTheJobIsAnErrorAndLeavesNoSubmission) {
  SlurmOptions o = options();
  o.sbatch_args = {"--partition=no-such-partition"};
  std::ostringstream progress;
  SlurmExecutor executor(o, progress);
  const std::atomic<bool> stop{false};
  try {
    (void)run(executor, progress, jacobi_jobs(), stop);
    ADD_FAILURE() << "no error for a partition that does not exist";
  } catch (const SlurmError& e) {
    EXPECT_NE(std::string(e.what()).find("sbatch did not submit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("partition"), std::string::npos) << e.what();
  }
  EXPECT_EQ(submissions(), 0u);
  o.sbatch_args = {"--array=0-3"};
  SlurmExecutor array_given(o, progress);
  EXPECT_THROW((void)run(array_given, progress, jacobi_jobs(), stop), SlurmError);
}

}  // namespace
}  // namespace ncp2::sweep
