// `ncp2 schedule` run as a user would: the JSON's shape, the files, and the refusals.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace {

using ncp2::testing::run_ncp2;
namespace fs = std::filesystem;

// A fresh directory for one test's files, removed after it.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ncp2-schedule-test-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

TEST(ScheduleCommand, JsonHasExactlyTheRowsAndTheBus) {
  const auto r = run_ncp2("schedule --set C --policy latest-quantum --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.size(), 2U);
  ASSERT_TRUE(j.contains("rows") && j.contains("bus"));
  ASSERT_EQ(j["rows"].size(), 12U);  // per characterized program: the baseline, then the policy
  int baseline_rows = 0;
  for (const auto& row : j["rows"]) {
    std::set<std::string> keys;
    for (const auto& [k, v] : row.items()) keys.insert(k);
    EXPECT_EQ(keys, (std::set<std::string>{"set", "application", "policy", "turnaround_s", "improvement_pct",
                                           "baseline"}));
    EXPECT_EQ(row["set"], "C");
    EXPECT_EQ(row["baseline"], "native-threads");  // named in each row
    EXPECT_GT(row["turnaround_s"].get<double>(), 0);
    if (row["policy"] == "native-threads") {
      ++baseline_rows;
      EXPECT_EQ(row["improvement_pct"].get<double>(), 0.0);
    } else {
      EXPECT_EQ(row["policy"], "latest-quantum");
    }
  }
  EXPECT_EQ(baseline_rows, 6);
  ASSERT_EQ(j["bus"].size(), 12U);
  EXPECT_FALSE(j["bus"][0]["served"].empty());
}

TEST(ScheduleCommand, TheSameCommandGivesTheSameResults) {
  const auto a = run_ncp2("schedule --set B --policy iabw --json");
  const auto b = run_ncp2("schedule --set B --policy iabw --json");
  ASSERT_EQ(a.status, 0);
  EXPECT_EQ(a.out, b.out);
}

TEST(ScheduleCommand, AllWritesTheDatabaseAndThePlots) {
  const TempDir dir;
  const std::string db = (dir.path / "s.db").string();
  const std::string svg = (dir.path / "s.svg").string();
  const auto r = run_ncp2("schedule --all --set A --db " + db + " --plot " + svg);
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("iabw-peak"), std::string::npos);
  EXPECT_NE(r.out.find("bus utilization over time"), std::string::npos);
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(handle, "SELECT count(*) FROM schedule_results", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 42);  // 6 programs x (the baseline + 6 policies)
  sqlite3_finalize(s);
  sqlite3_close(handle);
  std::ifstream in(svg);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("<svg", 0), 0U);
  // A set named twice runs once.
  const auto twice = run_ncp2("schedule --set C --set C --policy native --json");
  ASSERT_EQ(twice.status, 0);
  EXPECT_EQ(nlohmann::json::parse(twice.out)["rows"].size(), 12U);
  // An existing database is kept without --force.
  EXPECT_EQ(run_ncp2("schedule --set A --policy native --db " + db).status, 2);
}

TEST(ScheduleCommand, ARecordedTraceIsASet) {
  const TempDir dir;
  const std::string trace = (dir.path / "app.trace").string();
  std::ofstream(trace) << "ncp2-bandwidth-trace 1\nname app\nthreads 2\nstep_us 10000\ndata\n20\n2\n20\n2\n";
  const auto r = run_ncp2("schedule --set " + trace + " --mix B --policy quanta-window --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 2U);  // the baseline's row, then the policy's
  EXPECT_EQ(j["rows"][1]["application"], "app");
  EXPECT_EQ(j["rows"][1]["set"], trace);
  EXPECT_EQ(j["rows"][1]["policy"], "quanta-window");
}

// The path from a real command to the scheduler: `ncp2 counters --trace` writes what
// `ncp2 schedule --set FILE` reads. task-clock stands in for a cache-miss event: it is counted
// everywhere, VMs included.
TEST(ScheduleCommand, CountersWriteATraceTheSchedulerReads) {
  const TempDir dir;
  const std::string trace = (dir.path / "sleep.trace").string();
  const auto counted =
      run_ncp2("counters --period 10ms --summary --trace " + trace +
               " --trace-event task-clock --trace-scale 0.001 --trace-threads 2 -- sleep 0.2");
  ASSERT_EQ(counted.status, 0);
  std::ifstream in(trace);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "ncp2-bandwidth-trace 1");
  const auto r = run_ncp2("schedule --set " + trace + " --policy latest-quantum --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 2U);
  EXPECT_EQ(j["rows"][1]["application"], "sleep");
  // An event that was not requested cannot make a trace: said, exit 1, no file.
  const std::string other = (dir.path / "other.trace").string();
  EXPECT_EQ(
      run_ncp2("counters --summary --trace " + other + " --trace-event cycles-of-nothing -- true").status, 1);
  EXPECT_FALSE(fs::exists(other));
}

TEST(ScheduleCommand, GroupsPrintTheBusAndSlowdownOfEachApplication) {
  const auto r = run_ncp2("schedule --experiment groups --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["groups"].size(), 24U);  // 6 programs x 4 groups
  EXPECT_NEAR(j["calibration"]["two_bus_bound_threads_alone"].get<double>(), 23.31, 1e-6);
  std::set<std::string> groups;
  for (const auto& row : j["groups"]) {
    groups.insert(row["group"].get<std::string>());
    EXPECT_GT(row["bus_per_us"].get<double>(), 0);
    EXPECT_GE(row["slowdown"].get<double>(), 1.0 - 1e-9);
  }
  EXPECT_EQ(groups, (std::set<std::string>{"alone", "two instances", "with 2 BBMA", "with 2 nBBMA"}));
  const auto text = run_ncp2("schedule --experiment groups");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("with 2 nBBMA"), std::string::npos);
  EXPECT_NE(text.out.find("23.31"), std::string::npos);
}

TEST(ScheduleCommand, BadInputIsAUsageError) {
  const TempDir dir;
  const std::string bad = (dir.path / "bad.trace").string();
  std::ofstream(bad) << "not a trace\n";
  for (const std::string& args :
       std::vector<std::string>{"schedule --set D --policy native",
                                "schedule --set A --policy fastest",
                                "schedule --set A",
                                "schedule --policy native",
                                "schedule --set A --policy native --quantum 0ms",
                                "schedule --set A --policy native --quantum 100",
                                "schedule --set A --policy native --bus 0",
                                "schedule --set A --policy native --bus -1",
                                "schedule --set A --policy native --bus 0.01",
                                "schedule --set A --policy native --window 0",
                                "schedule --set A --policy native --processors 1",
                                "schedule --set A --all --policy native",
                                "schedule --set A --policy native --mix Z",
                                "schedule --set A --policy native --plot x.gif",
                                "schedule --set " + bad + " --policy native",
                                "schedule --set /nonexistent/x.trace --policy native",
                                "schedule --set A --policy native --queueing 0",
                                "schedule --set A --policy native --queueing -1",
                                "schedule --experiment nonsense",
                                "schedule --set A --policy native --fair-share-slack -1",
                                "schedule --set A --policy native --split-progress 1.5",
                                "schedule --experiment groups --all",
                                "schedule --experiment groups --db x.db",
                                "schedule --experiment groups --set /nonexistent/x.trace",
                                "schedule --experiment groups --processors 3"})
    EXPECT_EQ(run_ncp2(args).status, 2) << args;
}

}  // namespace
