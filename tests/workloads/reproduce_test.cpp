// `ncp2 reproduce` (workloads/reproduce.hpp): the published tables as the issue lists them, the
// period presets loading, and a run of a table giving a value per row.
#include "workloads/reproduce.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "dsm/config.hpp"
#include "workloads/workload.hpp"

namespace ncp2::workloads {
namespace {

const std::string kConfigs = std::string(NCP2_SOURCE_DIR) + "/configs";

TEST(Reproduce, Usenix94HasThePublishedSpeedupsOfBothNetworks) {
  const auto rows = published_rows("usenix94");
  ASSERT_EQ(rows.size(), 8U);
  std::map<std::pair<std::string, std::string>, double> published;
  for (const auto& r : rows) {
    published[{r.network, r.workload}] = r.published;
    EXPECT_EQ(r.nodes, 8);
    EXPECT_EQ(r.quantity, Quantity::Speedup);
    EXPECT_EQ(r.machine, "treadmarks");
  }
  EXPECT_EQ(published.at({"atm", "jacobi"}), 7.4);
  EXPECT_EQ(published.at({"atm", "tsp"}), 7.2);
  EXPECT_EQ(published.at({"atm", "quicksort"}), 6.3);
  EXPECT_EQ(published.at({"atm", "water"}), 4.0);
  EXPECT_EQ(published.at({"ethernet", "jacobi"}), 5.5);
  EXPECT_EQ(published.at({"ethernet", "tsp"}), 6.5);
  EXPECT_EQ(published.at({"ethernet", "quicksort"}), 4.2);
  EXPECT_EQ(published.at({"ethernet", "water"}), 2.1);
}

TEST(Reproduce, Sc95AndSbacPad96) {
  const auto sc95 = published_rows("sc95");
  ASSERT_EQ(sc95.size(), 3U);
  EXPECT_EQ(sc95[0].params, (std::vector<std::string>{"interior=nonzero"}));
  EXPECT_EQ(sc95[0].published, 6.80);
  EXPECT_EQ(sc95[1].published, 4.58);
  EXPECT_EQ(sc95[2].workload, "barnes");
  const auto gain = published_rows("sbacpad96");
  ASSERT_FALSE(gain.empty());
  for (const auto& r : gain) {
    EXPECT_EQ(r.quantity, Quantity::Gain);
    EXPECT_EQ(r.nodes, 16);
    EXPECT_EQ(r.published, 0.52);
  }
  EXPECT_TRUE(published_rows("nope").empty());
  EXPECT_THROW((void)reproduce("nope", {kConfigs, {}, {}}), WorkloadError);
}

TEST(Reproduce, EveryPresetOfEveryTableLoads) {
  for (const auto& table : reproducible_tables())
    for (const auto& r : published_rows(table)) {
      dsm::SystemConfig c = dsm::default_config(emu::MachineKind::TreadMarks);
      EXPECT_NO_THROW(dsm::apply_toml_file(c, kConfigs + "/" + r.config)) << r.config;
      EXPECT_FALSE(r.source.empty());
      EXPECT_FALSE(r.cite.empty());
    }
  dsm::SystemConfig atm = dsm::default_config(emu::MachineKind::TreadMarks);
  dsm::apply_toml_file(atm, kConfigs + "/decstation-atm-1994.toml");
  EXPECT_EQ(atm.pp.clock_mhz, 40.0);  // the paper's 40 MHz R3000
}

TEST(Reproduce, ATableRunsAndGivesAValuePerRow) {
  ReproduceOptions options{kConfigs, {2}, {}};
  const auto rows = reproduce("sc95", options);
  ASSERT_EQ(rows.size(), 3U);
  for (const auto& r : rows) {
    EXPECT_EQ(r.nodes, 2);
    ASSERT_TRUE(r.emulated.has_value()) << r.problem;
    EXPECT_GT(*r.emulated, 0.5);
    EXPECT_LT(*r.emulated, 2.5);  // a speedup on 2 nodes
    ASSERT_TRUE(r.ratio().has_value());
    EXPECT_DOUBLE_EQ(*r.ratio(), *r.emulated / r.row.published);
  }
}

}  // namespace
}  // namespace ncp2::workloads
