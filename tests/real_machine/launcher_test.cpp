// The mpirun command of real runs without running it: the command line, hostfiles, finding mpirun.
#include "real_machine/launcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <unistd.h>

#include <sys/stat.h>

#include "real_machine/scoped_env.hpp"

namespace ncp2::real {
namespace {

using Argv = std::vector<std::string>;

bool contains(const Argv& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

MpiLaunch launch_of(int nodes) {
  MpiLaunch launch;
  launch.nodes = nodes;
  launch.node_command = {"ncp2-node", "--program", "./prog"};
  return launch;
}

MpiEnvironment local_env(int cores) {
  MpiEnvironment env;
  env.mpirun = "/usr/bin/mpirun";
  env.cores = cores;
  return env;
}

TEST(MpirunArgv, LocalOneNode) {
  const Argv expected{"/usr/bin/mpirun", "-np", "1", "--bind-to", "core", "ncp2-node", "--program", "./prog"};
  EXPECT_EQ(mpirun_argv(launch_of(1), local_env(2)), expected);
}

TEST(MpirunArgv, OversubscribesOnlyAboveTheCoresHere) {
  EXPECT_FALSE(contains(mpirun_argv(launch_of(2), local_env(2)), "--oversubscribe"));
  EXPECT_FALSE(contains(mpirun_argv(launch_of(4), local_env(4)), "--oversubscribe"));
  const Argv four = mpirun_argv(launch_of(4), local_env(2));
  EXPECT_TRUE(contains(four, "--oversubscribe"));
  EXPECT_EQ(four[2], "4");
  EXPECT_FALSE(contains(four, "--tag-output"));
}

// Placement: a node per core here, each node bound to its core; more nodes than cores, on other
// hosts or inside Slurm, unbound; the user's own --bind-to alone.
TEST(MpirunArgv, BindsEachNodeToACoreOnlyWhenThereIsOneEach) {
  const auto binding = [](const Argv& argv) {
    const auto at = std::find(argv.begin(), argv.end(), "--bind-to");
    return at == argv.end() || at + 1 == argv.end() ? std::string("(none given)") : *(at + 1);
  };
  EXPECT_EQ(binding(mpirun_argv(launch_of(2), local_env(2))), "core");
  EXPECT_EQ(binding(mpirun_argv(launch_of(3), local_env(2))), "none");
  MpiEnvironment slurm = local_env(8);
  slurm.slurm_allocation = true;
  EXPECT_EQ(binding(mpirun_argv(launch_of(2), slurm)), "none");
  MpiLaunch chosen = launch_of(2);
  chosen.extra_mpirun_args = split_shell_words("--bind-to socket");
  const Argv argv = mpirun_argv(chosen, local_env(2));
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--bind-to"), 1);
  EXPECT_EQ(binding(argv), "socket");
}

TEST(MpirunArgv, InsideSlurmMpirunCountsTheAllocation) {
  MpiEnvironment env = local_env(2);
  env.slurm_allocation = true;
  const Argv argv = mpirun_argv(launch_of(8), env);
  EXPECT_FALSE(contains(argv, "--oversubscribe"));
  EXPECT_FALSE(contains(argv, "--hostfile"));
}

// Slurm's tasks per node, as Open MPI's mpirun counts its slots in an allocation.
TEST(SlurmTaskSlots, SumsEveryNodesTasks) {
  EXPECT_EQ(slurm_task_slots("2"), 2);
  EXPECT_EQ(slurm_task_slots("2(x3),1"), 7);
  EXPECT_EQ(slurm_task_slots("1(x2)"), 2);
  EXPECT_FALSE(slurm_task_slots(""));
  EXPECT_FALSE(slurm_task_slots("2(x"));
  EXPECT_FALSE(slurm_task_slots("two"));
  EXPECT_FALSE(slurm_task_slots("0"));
}

// More nodes than the allocation's tasks: refused before mpirun (which would refuse later, in
// words that read as a failed run), unless the user's mpirun options place the ranks.
TEST(DetectEnvironment, SlurmAllocationTooSmallIsSaidBeforeLaunching) {
  const testing::ScopedEnv job("SLURM_JOB_ID", "77");
  const testing::ScopedEnv tasks("SLURM_TASKS_PER_NODE", "1(x2)");
  MpiLaunch launch = launch_of(2);
  launch.node_command = {"/bin/true"};
  EXPECT_EQ(detect_environment(launch).slurm_slots, 2);
  launch.nodes = 3;
  try {
    (void)detect_environment(launch);
    ADD_FAILURE() << "3 nodes in an allocation of 2 tasks";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 task slot(s)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("salloc -n 3"), std::string::npos) << e.what();
  }
  launch.extra_mpirun_args = {"--oversubscribe"};
  EXPECT_NO_THROW((void)detect_environment(launch));
}

TEST(MpirunArgv, HostfileWithEnoughSlots) {
  MpiEnvironment env = local_env(1);
  env.hostfile = parse_hostfile("a slots=2\nb slots=2\n", "/tmp/hosts");
  const Argv argv = mpirun_argv(launch_of(4), env);
  const Argv expected{"/usr/bin/mpirun", "-np",        "4",         "--bind-to", "none",
                      "--hostfile",      "/tmp/hosts", "ncp2-node", "--program", "./prog"};
  EXPECT_EQ(argv, expected);
}

TEST(MpirunArgv, HostfileWithTooFewSlots) {
  MpiEnvironment env = local_env(64);
  env.hostfile = parse_hostfile("a slots=2\nb\n", "/tmp/hosts");  // b counts as one slot
  EXPECT_FALSE(contains(mpirun_argv(launch_of(3), env), "--oversubscribe"));
  EXPECT_TRUE(contains(mpirun_argv(launch_of(4), env), "--oversubscribe"));
}

TEST(MpirunArgv, EnvironmentAndExtraArguments) {
  MpiLaunch launch = launch_of(2);
  launch.environment = {{"NCP2_RUN_DIR", "/tmp/run 1"}, {"NCP2_SEED", "7"}};
  launch.extra_mpirun_args = split_shell_words("--mca btl tcp,self --display-map");
  const Argv expected{"/usr/bin/mpirun", "-np",       "2",         "--bind-to", "core", "-x",
                      "NCP2_RUN_DIR",    "-x",        "NCP2_SEED", "--mca",     "btl",  "tcp,self",
                      "--display-map",   "ncp2-node", "--program", "./prog"};
  EXPECT_EQ(mpirun_argv(launch, local_env(2)), expected);
}

TEST(MpirunEnvironment, RootConsentOnlyForRoot) {
  MpiLaunch launch = launch_of(2);
  launch.environment = {{"NCP2_SEED", "7"}};
  MpiEnvironment env = local_env(2);
  EXPECT_EQ(mpirun_environment(launch, env), (std::vector<EnvironmentEntry>{{"NCP2_SEED", "7"}}));
  env.root = true;
  const std::vector<EnvironmentEntry> expected{
      {"NCP2_SEED", "7"}, {"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
  EXPECT_EQ(mpirun_environment(launch, env), expected);
  EXPECT_EQ(mpirun_argv(launch, env), mpirun_argv(launch, local_env(2)));  // nothing on the command line
}

TEST(SplitShellWords, QuotesAndEscapes) {
  EXPECT_EQ(split_shell_words("  --mca  btl 'tcp, self' \"a \\\"b\\\"\" c\\ d ''  "),
            (Argv{"--mca", "btl", "tcp, self", "a \"b\"", "c d", ""}));
  EXPECT_TRUE(split_shell_words("   ").empty());
  EXPECT_THROW(split_shell_words("--mca 'btl"), LaunchError);
}

TEST(Hostfile, CommentsSlotsAndMaxSlots) {
  const Hostfile file =
      parse_hostfile("# cluster\n\nnode1 slots=4 max_slots=8  # big\n  node2\nnode3 slots=2\n", "h");
  ASSERT_EQ(file.hosts.size(), 3U);
  EXPECT_EQ(file.hosts[0].host, "node1");
  EXPECT_EQ(file.hosts[0].slots, 4);
  EXPECT_EQ(file.hosts[0].max_slots, 8);
  EXPECT_EQ(file.hosts[1].host, "node2");
  EXPECT_EQ(file.hosts[1].slots, 0);
  EXPECT_EQ(file.listed_slots(), 7);
  EXPECT_EQ(file.max_processes(), std::nullopt);
  EXPECT_EQ(parse_hostfile("a max_slots=2\nb max_slots=3", "h").max_processes(), 5);
}

void expect_error(const std::string& text, const std::string& part) {
  try {
    parse_hostfile(text, "/etc/hosts.mpi");
    ADD_FAILURE() << "no error for: " << text;
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Hostfile, BadLinesNameTheLine) {
  expect_error("a slots=2\nb slots=two\n", "/etc/hosts.mpi line 2");
  expect_error("a slots=2\nb slots=two\n", "'two' is not a positive count");
  expect_error("# x\na slots=0\n", "line 2");
  expect_error("a cores=3\n", "unknown setting 'cores'");
  expect_error("a b\n", "line 1: expected 'host [slots=N] [max_slots=N]'");
}

TEST(Hostfile, MissingOrEmptyFile) {
  try {
    read_hostfile("/nonexistent/ncp2-hosts");
    ADD_FAILURE();
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ncp2-hosts: No such file"), std::string::npos)
        << e.what();
  }
  const auto empty = std::filesystem::temp_directory_path() / "ncp2-empty-hostfile";
  std::ofstream(empty) << "# nothing\n";
  EXPECT_THROW(read_hostfile(empty.string()), LaunchError);
  std::filesystem::remove(empty);
}

TEST(Hostfile, TooManyNodesForMaxSlotsFailsBeforeLaunching) {
  const auto path = std::filesystem::temp_directory_path() / "ncp2-max-hostfile";
  std::ofstream(path) << "a slots=1 max_slots=1\nb slots=1 max_slots=1\n";
  MpiLaunch launch = launch_of(3);
  launch.hostfile = path.string();
  EXPECT_THROW(detect_environment(launch), LaunchError);
  std::filesystem::remove(path);
}

TEST(DetectEnvironment, ThisMachine) {
  const testing::ScopedEnv no_slurm("SLURM_JOB_ID", std::nullopt);
  MpiLaunch launch = launch_of(2);
  launch.node_command = {"/bin/true"};
  const MpiEnvironment env = detect_environment(launch);
  EXPECT_GE(env.cores, 1);
  EXPECT_LE(env.cores, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_EQ(env.root, geteuid() == 0);
  EXPECT_FALSE(env.slurm_allocation);
  EXPECT_FALSE(env.hostfile);
  const testing::ScopedEnv slurm("SLURM_JOB_ID", "1234");
  EXPECT_TRUE(detect_environment(launch).slurm_allocation);
}

std::string find_error(const std::string& explicit_path) {
  try {
    return "found " + find_mpirun(explicit_path);
  } catch (const LaunchError& e) {
    return e.what();
  }
}

TEST(FindMpirun, MissingNcp2Mpirun) {
  const testing::ScopedEnv env("NCP2_MPIRUN", "/nonexistent/mpirun");
  const std::string message = find_error("");
  EXPECT_NE(message.find("NCP2_MPIRUN (/nonexistent/mpirun)"), std::string::npos) << message;
  EXPECT_NE(message.find("openmpi-bin"), std::string::npos) << message;
}

TEST(FindMpirun, RefusesMpich) {
  const auto script = std::filesystem::temp_directory_path() / "ncp2-hydra-mpirun";
  std::ofstream(script) << "#!/bin/sh\necho 'HYDRA build details:'\necho '    Version: 4.0.2'\n";
  chmod(script.c_str(), 0755);
  const testing::ScopedEnv env("NCP2_MPIRUN", script.string());
  const std::string message = find_error("");
  EXPECT_NE(message.find("MPICH"), std::string::npos) << message;
  EXPECT_NE(message.find("only Open MPI is supported"), std::string::npos) << message;
  std::filesystem::remove(script);
}

TEST(FindMpirun, NoneOnPath) {
  const testing::ScopedEnv unset("NCP2_MPIRUN", std::nullopt);
  const testing::ScopedEnv path("PATH", "/nonexistent/bin");
  const std::string message = find_error("");
  EXPECT_NE(message.find("no mpirun on PATH"), std::string::npos) << message;
  EXPECT_NE(message.find("openmpi-bin"), std::string::npos) << message;
}

TEST(FindMpirun, FindsOpenMpi) {
  const testing::ScopedEnv unset("NCP2_MPIRUN", std::nullopt);
  const std::string message = find_error("");
  EXPECT_EQ(message.rfind("found /", 0), 0U) << message;
  EXPECT_EQ(find_error("mpirun"), message);
}

}  // namespace
}  // namespace ncp2::real
