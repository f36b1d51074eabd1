// The run session: one run from its configuration to its published files.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "carnival/run_reader.hpp"
#include "run/run_session.hpp"

namespace ncp2::run {
namespace {

namespace fs = std::filesystem;

class RunSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("run-session-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("NCP2_HISTORY", (dir_ / "history.jsonl").c_str(), 1);
  }
  void TearDown() override {
    ::setenv("NCP2_HISTORY", "", 1);
    fs::remove_all(dir_);
  }
  static dsm::SystemConfig machine(int nodes) {
    dsm::SystemConfig c = dsm::default_config(emu::MachineKind::Ncp2);
    c.machine.nodes = nodes;
    return c;
  }
  SessionOptions sor() const {
    SessionOptions o;
    o.workload = "sor";
    o.preset = "small";
    return o;
  }
  fs::path dir_;
};

TEST_F(RunSessionTest, WritesTheDatabaseAndTheStatisticsAndMovesTheProfileOut) {
  SessionOptions o = sor();
  o.db = (dir_ / "run.db").string();
  o.stats_json = (dir_ / "stats.json").string();
  RunSession session(machine(4), o);
  RunOutcome outcome = session.run();
  ASSERT_TRUE(outcome.ok()) << outcome.diagnosis;
  ASSERT_TRUE(outcome.profile.has_value());
  const std::size_t cells = outcome.profile->profile.size();
  session.write_stats(outcome);
  const StoredDatabase stored = session.write_database(outcome);
  EXPECT_EQ(stored.profile_cells, cells);
  EXPECT_FALSE(outcome.profile.has_value()) << "the run data went into the file, not into a copy";
  const carnival::RunData back = carnival::read_run(o.db);
  EXPECT_EQ(back.run.status, "complete");
  EXPECT_EQ(back.profile.size(), cells);
  EXPECT_EQ(back.run.virtual_time_ps, emu::to_ps(outcome.timed_end));
  std::ifstream in(o.stats_json);
  EXPECT_EQ(nlohmann::json::parse(in)["virtual_time_ps"], emu::to_ps(outcome.timed_end));
}

TEST_F(RunSessionTest, RefusesBeforeRunningWhatWouldLoseOrMisplaceResults) {
  SessionOptions o = sor();
  o.db = (dir_ / "taken.db").string();
  std::ofstream(o.db) << "earlier results";
  EXPECT_THROW(RunSession(machine(2), o), SessionError);
  o.db = (dir_ / "no-such-dir" / "x.db").string();
  EXPECT_THROW(RunSession(machine(2), o), SessionError);
  SessionOptions unknown = sor();
  unknown.workload = "no-such-workload";
  EXPECT_THROW(RunSession(machine(2), unknown), SessionError);
  SessionOptions bad = sor();
  bad.params = {"rows=1"};
  EXPECT_THROW(RunSession(machine(2), bad), SessionError);
  std::ifstream kept(dir_ / "taken.db");
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "earlier results");
}

TEST_F(RunSessionTest, TheBaselineGivesTheOneNodeTimeAndIsRecorded) {
  SessionOptions o = sor();
  o.baseline = true;
  RunSession session(machine(4), o);
  int baselines = 0;
  SessionObserver observer;
  observer.phase_started = [&](SessionPhase phase, const std::optional<HistoryEntry>&) {
    baselines += phase == SessionPhase::Baseline ? 1 : 0;
  };
  const RunOutcome outcome = session.run(observer);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(baselines, 1);
  ASSERT_TRUE(session.one_node().has_value());
  EXPECT_GT(session.one_node()->virtual_ps, emu::to_ps(outcome.timed_end)) << "4 nodes are faster than 1";
  RunSession again(machine(4), o);  // the history knows the 1-node time now: no second baseline
  baselines = 0;
  EXPECT_TRUE(again.run(observer).ok());
  EXPECT_EQ(baselines, 0);
  EXPECT_EQ(again.one_node()->virtual_ps, session.one_node()->virtual_ps);
}

}  // namespace
}  // namespace ncp2::run
