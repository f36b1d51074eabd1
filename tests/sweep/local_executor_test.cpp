// The points on this host's cores (sweep/local_executor.hpp), on small shell commands: exit codes
// and logs, -j, the heaviest first, Ctrl-C (the whole process group stopped), a command that
// cannot start.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "sweep/local_executor.hpp"

namespace ncp2::sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class LocalExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ncp2-executor-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  PointJob shell(std::size_t point, const std::string& script, double weight = 1) const {
    return {point, {"/bin/sh", "-c", script}, log(point), weight};
  }
  std::string log(std::size_t point) const {
    return (dir_ / ("p" + std::to_string(point) + ".log")).string();
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
};

struct Seen {
  std::mutex mutex;
  std::vector<std::size_t> started;
  std::map<std::size_t, PointRun> finished;
  int running = 0;
  int most_running = 0;

  ExecutorObserver observer() {
    ExecutorObserver o;
    o.started = [this](std::size_t p) {
      started.push_back(p);
      most_running = std::max(most_running, ++running);
    };
    o.finished = [this](std::size_t p, const PointRun& r) {
      finished[p] = r;
      if (r.problem.empty()) --running;
    };
    return o;
  }
};

TEST_F(LocalExecutorTest, RunsEveryJobAndKeepsItsExitCodeAndOutput) {
  LocalExecutor executor(2);
  const std::vector<PointJob> jobs = {shell(0, "echo zero; exit 0"), shell(1, "echo one >&2; exit 3"),
                                      shell(2, "kill -KILL $$")};
  const std::atomic<bool> stop{false};
  Seen seen;
  executor.run(jobs, stop, seen.observer());
  ASSERT_EQ(seen.finished.size(), 3U);
  EXPECT_EQ(seen.finished[0].end, RunEnd::Exited);
  EXPECT_EQ(seen.finished[0].exit_code, 0);
  EXPECT_EQ(seen.finished[1].exit_code, 3);
  EXPECT_EQ(seen.finished[2].exit_code, -1);  // killed by a signal
  EXPECT_EQ(read(log(0)), "zero\n");
  EXPECT_EQ(read(log(1)), "one\n");
  EXPECT_GT(seen.finished[0].wall_s, 0.0);
}

TEST_F(LocalExecutorTest, RunsAtMostJAtOnceAndTheHeaviestFirst) {
  LocalExecutor executor(2);
  std::vector<PointJob> jobs;
  for (std::size_t i = 0; i < 6; ++i) jobs.push_back(shell(i, "sleep 0.3", static_cast<double>(i % 3 + 1)));
  const std::atomic<bool> stop{false};
  Seen seen;
  const auto start = Clock::now();
  executor.run(jobs, stop, seen.observer());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(seen.most_running, 2);
  EXPECT_EQ(seen.finished.size(), 6U);
  // Three rounds of two, not six one after the other.
  EXPECT_LT(seconds, 6 * 0.3);
  EXPECT_GE(seconds, 3 * 0.3);
  // Weights 1 2 3 1 2 3: the two of weight 3 first, then 2, then 1 (stable among equals).
  EXPECT_EQ(seen.started, (std::vector<std::size_t>{2, 5, 1, 4, 0, 3}));
}

TEST_F(LocalExecutorTest, StopEndsTheRunningGroupsAndStartsNoMore) {
  LocalExecutor executor(2, std::chrono::milliseconds(300));
  const std::string pids = (dir_ / "pids").string();
  // Each job leaves a child of its own that ignores SIGTERM: only the group's SIGKILL ends it.
  const std::string stubborn = "trap '' TERM; sleep 30 & echo $! >> " + pids + "; wait";
  const std::vector<PointJob> jobs = {shell(0, stubborn), shell(1, stubborn), shell(2, "exit 0")};
  std::atomic<bool> stop{false};
  Seen seen;
  ExecutorObserver observer = seen.observer();
  std::size_t stopping = 0;
  observer.stopping = [&stopping](std::size_t running) { stopping = running; };
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    stop = true;
  });
  const auto start = Clock::now();
  executor.run(jobs, stop, observer);
  stopper.join();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5.0);
  EXPECT_EQ(stopping, 2U);
  ASSERT_EQ(seen.finished.size(), 2U);  // the third never started
  EXPECT_EQ(seen.finished[0].end, RunEnd::Interrupted);
  EXPECT_EQ(seen.finished[1].end, RunEnd::Interrupted);
  std::ifstream in(pids);
  int alive = 0;
  for (pid_t pid = 0; in >> pid;) {
    // Killed, then reaped by whoever adopted it: gone, or at most a zombie for a moment.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::array<std::string, 3> fields;  // pid, (name), state
    if (stat >> fields[0] >> fields[1] >> fields[2] && fields[2] != "Z") ++alive;
  }
  EXPECT_EQ(alive, 0);
}

TEST_F(LocalExecutorTest, ACommandThatCannotStartIsReportedAndTheOthersRun) {
  LocalExecutor executor(1);
  const std::vector<PointJob> jobs = {{0, {"/bin/true"}, (dir_ / "no/such/dir/p0.log").string(), 1},
                                      {1, {"/no/such/program"}, log(1), 1},
                                      shell(2, "exit 0")};
  const std::atomic<bool> stop{false};
  Seen seen;
  executor.run(jobs, stop, seen.observer());
  ASSERT_EQ(seen.finished.size(), 3U);
  EXPECT_NE(seen.finished[0].problem.find("no/such/dir/p0.log"), std::string::npos);
  EXPECT_EQ(seen.finished[1].exit_code, 127);
  EXPECT_NE(read(log(1)).find("cannot run /no/such/program"), std::string::npos);
  EXPECT_EQ(seen.finished[2].exit_code, 0);
}

}  // namespace
}  // namespace ncp2::sweep
