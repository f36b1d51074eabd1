// Slurm's answers read, and a point's command line written for its task (sweep/slurm_tasks.hpp);
// sbatch missing said before anything (sweep/slurm.hpp). No cluster needed.
#include "sweep/slurm_tasks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "real_machine/subprocess.hpp"
#include "sweep/slurm.hpp"

namespace ncp2::sweep {
namespace {

TEST(SlurmTasks, SqueueLinesGiveEachTaskItsState) {
  const auto tasks =
      parse_squeue_tasks("0|COMPLETED\n3|FAILED\n1|RUNNING\n2|PENDING\nsqueue: warning: x\n\n");
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_EQ(tasks.at(0).state, "COMPLETED");
  EXPECT_EQ(tasks.at(1).state, "RUNNING");
  EXPECT_EQ(tasks.at(2).state, "PENDING");
  EXPECT_EQ(tasks.at(3).state, "FAILED");
  EXPECT_FALSE(tasks.at(3).exit_code);
  // A pending array not expanded (squeue without -r) names no one task: nothing is made up.
  EXPECT_TRUE(parse_squeue_tasks("N/A|PENDING\n").empty());
}

TEST(SlurmTasks, SacctLinesGiveStateAndExitCodeOfThisJobsTasksOnly) {
  const auto tasks = parse_sacct_tasks(
      "12_0|COMPLETED|0:0\n12_1|CANCELLED by "
      "0|0:15\n12_2|FAILED|3:0\n13_0|FAILED|1:0\n12_[4-7]|PENDING|0:0\n",
      "12");
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks.at(0).exit_code, 0);
  EXPECT_EQ(tasks.at(1).state, "CANCELLED");
  EXPECT_FALSE(tasks.at(1).exit_code) << "killed by signal 15: no exit code of its own";
  EXPECT_EQ(tasks.at(2).state, "FAILED");
  EXPECT_EQ(tasks.at(2).exit_code, 3);
}

TEST(SlurmTasks, ActiveStatesAreWaitedForFinalOnesNot) {
  for (const char* state :
       {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED", "REQUEUED", "SOMETHING_NEW"})
    EXPECT_TRUE(is_active_state(state)) << state;
  for (const char* state :
       {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED"})
    EXPECT_FALSE(is_active_state(state)) << state;
}

TEST(SlurmTasks, TheLogNamesWhySlurmEndedATask) {
  EXPECT_EQ(
      state_from_log("x\nslurmstepd: error: *** JOB 7 ON vm CANCELLED AT 2026-11-28T23:00:23 DUE TO TIME "
                     "LIMIT ***\n"),
      "TIMEOUT");
  EXPECT_EQ(state_from_log("slurmstepd-vm: error: *** JOB 7 ON vm CANCELLED AT 2026-11-28T23:00:23 ***\n"),
            "CANCELLED");
  EXPECT_EQ(state_from_log("*** JOB 9 ON n1 CANCELLED AT 2026-11-28T23:00:23 DUE TO NODE FAILURE ***"),
            "NODE_FAIL");
  EXPECT_FALSE(state_from_log("ncp2: error: no such workload\n"));
}

TEST(SlurmTasks, SbatchParsableAnswerGivesTheJobId) {
  EXPECT_EQ(job_id_from_sbatch("4711\n"), "4711");
  EXPECT_EQ(job_id_from_sbatch("sbatch: warning: something\n4711;cluster2\n"), "4711");
  EXPECT_FALSE(job_id_from_sbatch("sbatch: error: Batch job submission failed: Invalid account\n"));
}

TEST(SlurmTasks, StatusFileGivesExitCodeAndWallTime) {
  const auto done = parse_task_exit("3 1700000000.250000 1700000002.750000\n");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->exit_code, 3);
  EXPECT_DOUBLE_EQ(done->wall_s, 2.5);
  EXPECT_EQ(parse_task_exit("0\n")->exit_code, 0);
  EXPECT_FALSE(parse_task_exit(""));
  EXPECT_FALSE(parse_task_exit("x 1 2"));
}

// What bash's `eval "set -- LINE"` (the job's script) gives back from a points-file line.
std::vector<std::string> words_bash_reads(const std::string& line) {
  const real::CommandResult r =
      real::run_command({"bash", "-c", R"(eval "set -- $1"; printf '%s\0' "$@")", "-", line});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> words;
  for (std::size_t at = 0, end = 0; (end = r.output.find('\0', at)) != std::string::npos; at = end + 1)
    words.push_back(r.output.substr(at, end - at));
  return words;
}

TEST(SlurmTasks, PointsFileLineGivesBackEveryWordThroughBash) {
  const std::vector<std::string> argv{
      "/opt/ncp2 dir/ncp2",        "run", "it's", "$HOME", "`id`", "a*b", "", "x;y|z", "--set",
      "network.link_latency=200ns"};
  const std::string line = points_file_line("/sweep/points/p 1.log", argv);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  std::vector<std::string> expected{"/sweep/points/p 1.log"};
  expected.insert(expected.end(), argv.begin(), argv.end());
  EXPECT_EQ(words_bash_reads(line), expected);
  EXPECT_EQ(words_bash_reads(points_file_line("", {"true"})), (std::vector<std::string>{"-", "true"}));
}

TEST(SlurmTasks, PointsFileRefusesAWordNoLineCanHold) {
  EXPECT_THROW((void)points_file_line("log", {"ncp2", "a\nb"}), SlurmError);
  EXPECT_THROW((void)points_file_line("log", {}), SlurmError);
}

TEST(SlurmTasks, SbatchMissingIsSaidBeforeAnything) {
  const std::string saved = getenv("PATH") ? getenv("PATH") : "";
  ASSERT_EQ(setenv("PATH", "/nonexistent-ncp2-test", 1), 0);
  try {
    check_slurm_commands();
    ADD_FAILURE() << "no error without sbatch on PATH";
  } catch (const SlurmError& e) {
    EXPECT_NE(std::string(e.what()).find("sbatch is not on PATH"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("without --slurm"), std::string::npos) << e.what();
  }
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace
}  // namespace ncp2::sweep
