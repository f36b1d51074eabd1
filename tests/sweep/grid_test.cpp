// The sweep's grid (sweep/grid.hpp) and its points' command lines (sweep/point_command.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "sweep/grid.hpp"
#include "sweep/point_command.hpp"

namespace ncp2::sweep {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const GridError& e) {
    return e.what();
  }
  return "(no error)";
}

SweepSpec two_by_two() {
  SweepSpec spec;
  spec.target = "sor";
  spec.nodes = {1, 2, 4};
  spec.machines = {"ncp2", "treadmarks"};
  spec.settings = {{"network.link_latency", {"1us", "5us"}}, {"cp.clock_mhz", {"25", "50", "100"}}};
  return spec;
}

TEST(SweepLists, SplitsCommaSeparatedValuesInOrder) {
  EXPECT_EQ(split_list("4,1,2", "--nodes"), (std::vector<std::string>{"4", "1", "2"}));
  EXPECT_EQ(split_list("ncp2", "--machine"), (std::vector<std::string>{"ncp2"}));
}

TEST(SweepLists, RefusesEmptyListsEmptyItemsAndRepeats) {
  EXPECT_NE(message_of([] { (void)split_list("", "--nodes"); }).find("--nodes: the list is empty"),
            std::string::npos);
  EXPECT_NE(message_of([] { (void)split_list("1,,2", "--nodes"); }).find("has an empty value"),
            std::string::npos);
  EXPECT_NE(message_of([] { (void)split_list("1,2,", "--nodes"); }).find("has an empty value"),
            std::string::npos);
  EXPECT_NE(
      message_of([] { (void)split_list("1us,2us,1us", "--set k"); }).find("--set k: 1us is given twice"),
      std::string::npos);
}

TEST(SweepLists, AxisIsKeyAndValues) {
  const SettingAxis axis = parse_axis("network.link_latency=100ns,1 us");
  EXPECT_EQ(axis.key, "network.link_latency");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"100ns", "1 us"}));
  EXPECT_NE(message_of([] { (void)parse_axis("network.link_latency"); }).find("expected KEY=V1,V2"),
            std::string::npos);
  EXPECT_NE(message_of([] { (void)parse_axis("=1us"); }).find("expected KEY=V1,V2"), std::string::npos);
  EXPECT_NE(message_of([] { (void)parse_axis("network.link_latency="); }).find("the list is empty"),
            std::string::npos);
}

TEST(SweepGrid, IsTheCartesianProductEachPointOnce) {
  const std::vector<Point> points = expand_grid(two_by_two());
  ASSERT_EQ(points.size(), 3U * 2U * 2U * 3U);
  std::set<std::tuple<std::string, int, std::string, std::string>> seen;
  std::set<std::string> names;
  for (const Point& p : points) {
    ASSERT_EQ(p.settings.size(), 2U);
    EXPECT_EQ(p.settings[0].key, "network.link_latency");
    EXPECT_EQ(p.settings[1].key, "cp.clock_mhz");
    seen.insert({p.machine, p.nodes, p.settings[0].value, p.settings[1].value});
    names.insert(p.name);
  }
  EXPECT_EQ(seen.size(), points.size());
  EXPECT_EQ(names.size(), points.size());
}

TEST(SweepGrid, MachinesOutermostThenSettingsThenNodes) {
  const std::vector<Point> points = expand_grid(two_by_two());
  // A curve's points follow one another from 1 node up.
  EXPECT_EQ(points[0].nodes, 1);
  EXPECT_EQ(points[1].nodes, 2);
  EXPECT_EQ(points[2].nodes, 4);
  EXPECT_EQ(points[2].settings[1].value, "25");
  EXPECT_EQ(points[3].settings[1].value, "50");  // the last axis varies fastest
  EXPECT_EQ(points[3].settings[0].value, "1us");
  EXPECT_EQ(points[9].settings[0].value, "5us");
  EXPECT_TRUE(
      std::all_of(points.begin(), points.begin() + 18, [](const Point& p) { return p.machine == "ncp2"; }));
  EXPECT_TRUE(std::all_of(points.begin() + 18, points.end(),
                          [](const Point& p) { return p.machine == "treadmarks"; }));
}

TEST(SweepGrid, NamesHoldTheVaryingKeysOnly) {
  SweepSpec spec = two_by_two();
  spec.settings.push_back({"network.topology", {"star"}});
  const std::vector<Point> points = expand_grid(spec);
  EXPECT_EQ(points[4].name, "ncp2-n2-network.link_latency=1us-cp.clock_mhz=50");
  EXPECT_EQ(settings_text(points[4]), "network.link_latency=1us;cp.clock_mhz=50;network.topology=star");
  SweepSpec plain;
  plain.target = "counter";
  plain.nodes = {8};
  plain.machines = {"treadmarks"};
  const std::vector<Point> one = expand_grid(plain);
  ASSERT_EQ(one.size(), 1U);
  EXPECT_EQ(one[0].name, "treadmarks-n8");
  EXPECT_EQ(settings_text(one[0]), "");
}

TEST(SweepGrid, NamesAreSafeFileNamesAndNeverShared) {
  SweepSpec spec;
  spec.target = "sor";
  spec.nodes = {2};
  spec.machines = {"ncp2"};
  spec.settings = {{"network.link_bandwidth", {"1 GB/s", "200MB/s"}}};
  const std::vector<Point> points = expand_grid(spec);
  EXPECT_EQ(points[0].name, "ncp2-n2-network.link_bandwidth=1_GB_s");
  EXPECT_EQ(points[1].name, "ncp2-n2-network.link_bandwidth=200MB_s");
  spec.settings = {{"network.link_bandwidth", {"1 GB/s", "1 GB s"}}};
  EXPECT_NE(message_of([&] { (void)expand_grid(spec); }).find("share the file name"), std::string::npos);
}

TEST(SweepGridHash, IgnoresTheOrderOfTheListsAndSeesEverythingElse) {
  const SweepSpec spec = two_by_two();
  SweepSpec reordered = spec;
  reordered.nodes = {4, 1, 2};
  reordered.machines = {"treadmarks", "ncp2"};
  std::reverse(reordered.settings.begin(), reordered.settings.end());
  std::reverse(reordered.settings[0].values.begin(), reordered.settings[0].values.end());
  EXPECT_EQ(grid_hash(spec), grid_hash(reordered));
  EXPECT_EQ(grid_hash(spec).size(), 16U);
  SweepSpec other = spec;
  other.nodes = {1, 2, 8};
  EXPECT_NE(grid_hash(spec), grid_hash(other));
  other = spec;
  other.program_args = {"258"};
  EXPECT_NE(grid_hash(spec), grid_hash(other));
  other = spec;
  other.run_options = {"--seed", "7"};
  EXPECT_NE(grid_hash(spec), grid_hash(other));
  other = spec;
  other.settings[0].values.emplace_back("10us");
  EXPECT_NE(grid_hash(spec), grid_hash(other));
  other = spec;
  other.target = "jacobi";
  EXPECT_NE(grid_hash(spec), grid_hash(other));
}

TEST(SweepGridHash, ChangesWhenAContentFileChanges) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "ncp2-sweep-grid-test.toml";
  std::ofstream(file) << "[network]\nlink_latency = \"1us\"\n";
  SweepSpec spec = two_by_two();
  spec.content_files = {file.string()};
  const std::string before = grid_hash(spec);
  EXPECT_EQ(before, grid_hash(spec));
  std::ofstream(file) << "[network]\nlink_latency = \"2us\"\n";
  EXPECT_NE(before, grid_hash(spec));
  std::filesystem::remove(file);
  EXPECT_NE(message_of([&] { (void)grid_hash(spec); }).find("cannot read it"), std::string::npos);
}

TEST(SweepPointCommand, IsAnNcp2RunWritingIntoTheFolder) {
  SweepSpec spec = two_by_two();
  spec.target = "/abs/prog";
  spec.program_args = {"258", "-v"};
  spec.run_options = {"--seed", "3"};
  const Point p = expand_grid(spec)[4];
  const std::vector<std::string> argv = point_command("/bin/ncp2", spec, p, "/data/sw");
  const std::vector<std::string> expected = {"/bin/ncp2",
                                             "run",
                                             "/abs/prog",
                                             "--nodes",
                                             "2",
                                             "--machine",
                                             "ncp2",
                                             "--set",
                                             "network.link_latency=1us",
                                             "--set",
                                             "cp.clock_mhz=50",
                                             "--seed",
                                             "3",
                                             "--db",
                                             "/data/sw/points/" + p.name + ".db",
                                             "--stats-json",
                                             "/data/sw/points/" + p.name + ".json",
                                             "--no-history",
                                             "--progress",
                                             "never",
                                             "--",
                                             "258",
                                             "-v"};
  EXPECT_EQ(argv, expected);
  const PointFiles files = point_files(p);
  EXPECT_EQ(files.db, "points/" + p.name + ".db");
  EXPECT_EQ(files.log, "points/" + p.name + ".log");
}

}  // namespace
}  // namespace ncp2::sweep
