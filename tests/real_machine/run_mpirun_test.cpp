// run_mpirun really launching ranks: exit statuses, a missing command, the environment, signals,
// and two hosts on this machine (two_hosts.hpp) as the issue asks.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include "real_machine/launcher.hpp"
#include "real_machine/two_hosts.hpp"

namespace ncp2::real {
namespace {

namespace fs = std::filesystem;

// A fresh directory the ranks write to, one file per rank.
struct RankOutput {
  fs::path dir;
  RankOutput() {
    std::string pattern = (fs::temp_directory_path() / "ncp2-ranks-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
  }
  ~RankOutput() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;
  RankOutput(RankOutput&&) = delete;
  RankOutput& operator=(RankOutput&&) = delete;

  // A node command writing "rank local_rank $NCP2_TEST_VALUE" to DIR/rank.N.
  std::vector<std::string> command() const {
    return {"/bin/sh", "-c",
            "echo $OMPI_COMM_WORLD_RANK $OMPI_COMM_WORLD_LOCAL_RANK \"$NCP2_TEST_VALUE\" >" + dir.string() +
                "/rank.$OMPI_COMM_WORLD_RANK"};
  }
  // Rank -> its line.
  std::map<int, std::string> lines() const {
    std::map<int, std::string> out;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream in(entry.path());
      std::string line;
      std::getline(in, line);
      out[std::stoi(entry.path().extension().string().substr(1))] = line;
    }
    return out;
  }
};

TEST(RunMpirun, ExitStatusOfTheRanks) {
  MpiLaunch launch;
  launch.nodes = 2;
  launch.node_command = {"/bin/sh", "-c", "exit 3"};
  EXPECT_EQ(run_mpirun(launch), 3);
  launch.node_command = {"/bin/true"};
  EXPECT_EQ(run_mpirun(launch), 0);
}

TEST(RunMpirun, MissingLocalCommandIsALaunchError) {
  MpiLaunch launch;
  launch.nodes = 2;
  launch.node_command = {"/nonexistent/ncp2-node"};
  try {
    run_mpirun(launch);
    ADD_FAILURE() << "launched a missing command";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ncp2-node"), std::string::npos) << e.what();
  }
  launch.node_command = {"ncp2-no-such-agent"};
  EXPECT_THROW(run_mpirun(launch), LaunchError);
}

TEST(RunMpirun, MissingHostfileFailsBeforeLaunching) {
  MpiLaunch launch;
  launch.nodes = 2;
  launch.hostfile = "/nonexistent/hostfile";
  launch.node_command = {"/bin/true"};
  EXPECT_THROW(run_mpirun(launch), LaunchError);
}

TEST(RunMpirun, FourRanksOversubscribedWithEnvironment) {
  const RankOutput out;
  MpiLaunch launch;
  launch.nodes = 4;  // more than the 2 cores of CI machines: needs --oversubscribe
  launch.node_command = out.command();
  launch.environment = {{"NCP2_TEST_VALUE", "a b"}};
  ASSERT_EQ(run_mpirun(launch), 0);
  const auto lines = out.lines();
  ASSERT_EQ(lines.size(), 4U);
  for (const auto& [rank, line] : lines)
    EXPECT_EQ(line, std::to_string(rank) + " " + std::to_string(rank) + " a b");
}

// The test: ranks on two hosts through a hostfile, all on this machine.
TEST(RunMpirun, TwoHostsThroughAHostfile) {
  const testing::TwoHosts hosts(2);
  const RankOutput out;
  MpiLaunch launch;
  launch.nodes = 4;
  launch.hostfile = hosts.hostfile;
  launch.extra_mpirun_args = hosts.mpirun_args;
  launch.node_command = out.command();
  launch.environment = {{"NCP2_TEST_VALUE", "x"}};
  ASSERT_EQ(run_mpirun(launch), 0);
  // One orted per host, each started through the fake agent...
  EXPECT_EQ(hosts.agent_hosts(), (std::vector<std::string>{"ncp2-fake-a", "ncp2-fake-b"}));
  // ...so ranks 0,1 are the first host's local ranks 0,1 and ranks 2,3 the second's.
  const std::map<int, std::string> expected{{0, "0 0 x"}, {1, "1 1 x"}, {2, "2 0 x"}, {3, "3 1 x"}};
  EXPECT_EQ(out.lines(), expected);
}

TEST(RunMpirun, TwoHostsFailureStatus) {
  const testing::TwoHosts hosts(1);
  MpiLaunch launch;
  launch.nodes = 2;
  launch.hostfile = hosts.hostfile;
  launch.extra_mpirun_args = hosts.mpirun_args;
  launch.node_command = {"/nonexistent/ncp2-node"};  // not checked here: it could exist on the hosts
  EXPECT_NE(run_mpirun(launch), 0);
  launch.node_command = {"/bin/sh", "-c", "exit $((OMPI_COMM_WORLD_RANK + 4))"};
  const int status = run_mpirun(launch);
  EXPECT_TRUE(status == 4 || status == 5) << status;
}

TEST(RunMpirun, ForwardsSigtermToMpirun) {
  const RankOutput out;
  MpiLaunch launch;
  launch.nodes = 2;
  launch.node_command = {"/bin/sh", "-c",
                         "touch " + out.dir.string() + "/rank.$OMPI_COMM_WORLD_RANK; exec sleep 60"};
  auto running = std::async(std::launch::async, [&launch] { return run_mpirun(launch); });
  const auto start = std::chrono::steady_clock::now();
  while (out.lines().size() < 2 && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(out.lines().size(), 2U) << "the ranks did not start";
  kill(getpid(), SIGTERM);  // our handler forwards it to mpirun, which ends the ranks
  ASSERT_EQ(running.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "mpirun still running";
  EXPECT_NE(running.get(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(50));
}

}  // namespace
}  // namespace ncp2::real
