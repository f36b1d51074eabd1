// Per-scope counter totals around the measured model's stretches, on a real DSM run (the dsm
// test harness), and their table in the run database.
#include <cstring>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "carnival/model.hpp"
#include "carnival/run_reader.hpp"
#include "carnival/scope.hpp"
#include "carnival/store.hpp"
#include "emulator/fiber_sanitizer.hpp"  // NCP2_ASAN
#include "harness.hpp"
#include "perf_counters/perf_group.hpp"
#include "perf_counters/scope_counters.hpp"
#include "temp_dir.hpp"

namespace ncp2::counters {
namespace {

// Stands in for the measured model: every stretch costs 1 us of target time.
class FixedMeter final : public dsm::ComputeMeter {
 public:
  void begin(dsm::NodeId) override { ++begins; }
  emu::Duration end_stretch(dsm::NodeId) override {
    ++ends;
    return std::chrono::microseconds(1);
  }
  void resume(dsm::NodeId) override {}
  void finish(dsm::NodeId) override {}
  std::string set_external(dsm::NodeId) override { return "not in this test"; }
  emu::Duration external_duration(dsm::NodeId, std::uint64_t) override { return emu::Duration{0}; }
  int begins = 0;
  int ends = 0;
};

// A stretch in scope "faults" touches 8 MB of fresh memory; one in scope "spin" only computes.
void body(dsm::Process& p) {
  {
    CARNIVAL_SCOPE(p, "faults");
    std::vector<char> block(8u << 20);
    std::memset(block.data(), 1, block.size());
    p.compute(std::chrono::microseconds(1));  // a DSM entry: the stretch ends in this scope
  }
  {
    CARNIVAL_SCOPE(p, "spin");
    volatile std::uint64_t sink = 0;
    for (std::uint64_t i = 0; i < 3'000'000; ++i) sink = sink + i;
    p.compute(std::chrono::microseconds(1));
  }
}

std::uint32_t scope_id(const char* name) {
  for (const auto* site : carnival::scope_sites())
    if (std::strcmp(site->name, name) == 0) return site->id;
  return 0;
}

class ScopeCountersTest : public carnival::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    if (!probe_event("page-faults").available) GTEST_SKIP() << "page-faults cannot be counted here";
  }
};

TEST_F(ScopeCountersTest, CountsGoToTheScopeWhereTheStretchEnds) {
  dsm::testing::Harness h(dsm::testing::machine(emu::MachineKind::Ncp2, 2));
  FixedMeter inner;
  ScopeCounterMeter meter(inner, {"page-faults", "task-clock", "no-such-event"},
                          [&h](dsm::NodeId n) { return h.cluster.pp(n).attribution().scope; });
  h.dsm.set_compute_meter(&meter);
  ASSERT_EQ(h.run(body).status, emu::RunStatus::Completed);
  EXPECT_EQ(inner.begins, 2);
  EXPECT_EQ(meter.stretches(), static_cast<std::uint64_t>(inner.ends));
  ASSERT_EQ(meter.events().size(), 3u);
  EXPECT_FALSE(meter.events()[2].available);

  std::map<std::pair<std::uint32_t, std::string>, double> by_scope;  // summed over the nodes
  for (const auto& r : meter.rows()) {
    ASSERT_TRUE(r.value.has_value()) << r.event;
    by_scope[{r.scope, r.event}] += *r.value;
    EXPECT_NE(r.event, "no-such-event");
  }
  const std::uint32_t faults = scope_id("faults");
  const std::uint32_t spin = scope_id("spin");
  ASSERT_NE(faults, 0u);
  ASSERT_NE(spin, 0u);
  // 8 MB of new pages per node: about 2 x 2048 faults (fewer with huge pages, never none).
  const double faults_in_faults = by_scope[{faults, "page-faults"}];
  EXPECT_GT(faults_in_faults, 100.0);
#if !defined(NCP2_ASAN)
  // Under ASan the spin faults too: the 8 MB freed before it sit in ASan's quarantine and its
  // shadow memory is touched anew, so "spin only computes" does not hold there.
  EXPECT_LT((by_scope[{spin, "page-faults"}]), faults_in_faults / 10);
#endif
  EXPECT_GT((by_scope[{spin, "task-clock"}]), 0.0);
}

TEST_F(ScopeCountersTest, TheTotalsGoIntoTheRunDatabase) {
  carnival::RunData data;
  data.run.workload = "test";
  data.run.machine = "ncp2";
  data.run.nodes = 1;
  carnival::write_run(path("run.db"), data);
  EventStatus pf;
  pf.name = "page-faults";
  pf.available = true;
  pf.group_index = 0;
  EventStatus missing;
  missing.name = "instructions";
  missing.reason = "not supported here";
  const std::vector<ScopeCounterRow> rows = {{0, 0, "page-faults", 12.0},
                                             {0, 3, "page-faults", std::nullopt}};
  append_scope_counters(path("run.db"), {pf, missing}, rows);
  const auto back = read_scope_counters(path("run.db"));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].value, 12.0);
  EXPECT_EQ(back[1].scope, 3u);
  EXPECT_FALSE(back[1].value.has_value());
  EXPECT_EQ(carnival::read_run(path("run.db")).run.workload, "test");  // still a readable run
  EXPECT_THROW(append_scope_counters(path("run.db"), {pf}, rows), carnival::StoreError);
  EXPECT_THROW(append_scope_counters(path("none.db"), {pf}, rows), carnival::StoreError);
}

}  // namespace
}  // namespace ncp2::counters
