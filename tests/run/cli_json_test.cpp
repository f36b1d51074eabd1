// The ncp2 executable's JSON outputs, parsed as a consumer would: `ncp2 workloads --json` and
// `ncp2 run --stats-json FILE`.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/run_command.hpp"

namespace {

using Result = ncp2::testing::CommandResult;
Result run(const std::string& args) { return ncp2::testing::run_ncp2(args); }

TEST(CliJson, WorkloadsListParses) {
  const Result r = run("workloads --json");
  ASSERT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_GE(j.size(), 3u);
  std::set<std::string> names;
  for (const auto& w : j) names.insert(w["name"].get<std::string>());
  EXPECT_TRUE(names.contains("counter") && names.contains("phases") && names.contains("false-sharing"));
}

TEST(CliJson, StatsFileParsesAndObeysItsLaws) {
  const auto dir = std::filesystem::temp_directory_path() / ("ncp2-cli-json-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "stats.json";
  const Result r =
      run("run phases --nodes 3 --machine treadmarks --preset small --param phases=3 --seed 5 --stats-json " +
          file.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
  std::ifstream in(file);
  const auto j = nlohmann::json::parse(in);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(j["workload"], "phases");
  EXPECT_EQ(j["machine"], "treadmarks");
  EXPECT_EQ(j["nodes"], 3);
  EXPECT_EQ(j["seed"], 5);
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["parameters"]["phases"], 3);
  EXPECT_EQ(j["totals"]["barriers"], 3 + 1);  // phases + the exit barrier
  EXPECT_GT(j["virtual_time_ps"].get<std::int64_t>(), 0);
  std::uint64_t messages = 0;
  for (const auto& n : j["per_node"]) messages += n["messages"].get<std::uint64_t>();
  EXPECT_EQ(j["totals"]["messages"].get<std::uint64_t>(), messages);
}

}  // namespace
