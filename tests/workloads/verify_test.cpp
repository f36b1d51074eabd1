// Every workload computes the right result on both machines and at several node counts, with laws
// on its synchronization and a deterministic outcome.
#include <array>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "run/runner.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

dsm::SystemConfig machine(emu::MachineKind kind, int nodes) {
  dsm::SystemConfig c = dsm::default_config(kind);
  c.machine.nodes = nodes;
  return c;
}

RunOutcome run_small(const std::string& name, emu::MachineKind kind, int nodes, std::uint64_t seed = 1,
                     std::vector<std::string> assignments = {}) {
  const Workload& w = find_workload(name);
  return run_workload(machine(kind, nodes), w, w.resolve("small", assignments), seed);
}

using Case = std::tuple<std::string, emu::MachineKind, int>;

// Every registered workload: a new one is tested here without listing it.
std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& w : all_workloads()) names.push_back(w.name);
  return names;
}

class EveryWorkload : public ::testing::TestWithParam<Case> {};

TEST_P(EveryWorkload, VerifiesWithTheSmallPreset) {
  const auto& [name, kind, nodes] = GetParam();
  const RunOutcome o = run_small(name, kind, nodes);
  ASSERT_EQ(o.status, RunStatus::Completed) << o.diagnosis;
  EXPECT_TRUE(o.verified) << o.verification;
  EXPECT_TRUE(o.ok());
  EXPECT_GT(o.timed_end, emu::kTimeZero);
  EXPECT_GE(o.end_time, o.timed_end);
  ASSERT_EQ(o.node_stats.size(), static_cast<std::size_t>(nodes));
  ASSERT_EQ(o.interrupts.size(), static_cast<std::size_t>(nodes));
  // Every node completes every barrier episode, the exit barrier included.
  for (const auto& s : o.node_stats) EXPECT_EQ(s.barriers, o.barrier_episodes);
  EXPECT_LT(o.wall_seconds, 1.0) << "the small preset must stay fast";
  if (nodes == 1) {
    EXPECT_EQ(o.totals().messages, 0u);
    EXPECT_EQ(o.network_messages, 0u);
  } else {
    EXPECT_GT(o.totals().messages, 0u);
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::get<0>(info.param);
  for (char& c : name)
    if (c == '-') c = '_';
  return name + "_" + std::string(emu::to_string(std::get<1>(info.param))) + "_" +
         std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(SmallPreset, EveryWorkload,
                         ::testing::Combine(::testing::ValuesIn(workload_names()),
                                            ::testing::Values(emu::MachineKind::Ncp2,
                                                              emu::MachineKind::TreadMarks),
                                            ::testing::Values(1, 2, 3, 4, 8)),
                         case_name);

constexpr std::array kBoth = {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks};

TEST(Phases, BarrierEpisodesArePhasesPlusTheExitBarrier) {
  for (auto kind : kBoth) {
    for (int phases : {1, 2, 5}) {
      for (int nodes : {1, 3, 4}) {
        const RunOutcome o = run_small("phases", kind, nodes, 1, {"phases=" + std::to_string(phases)});
        ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
        EXPECT_EQ(o.barrier_episodes, static_cast<std::uint64_t>(phases) + 1);
        EXPECT_EQ(o.totals().barriers, static_cast<std::uint64_t>(phases) + 1);
      }
    }
  }
}

TEST(FalseSharing, TwoBarriersPerRoundPlusTheExitBarrier) {
  for (auto kind : kBoth) {
    const RunOutcome o = run_small("false-sharing", kind, 4, 1, {"rounds=5"});
    ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
    EXPECT_EQ(o.totals().barriers, 2u * 5 + 1);
    EXPECT_GT(o.totals().twins, 0u);          // several writers per page...
    EXPECT_GT(o.totals().diffs_created, 0u);  // ...merged by diffs
  }
}

TEST(Counter, EveryIncrementAcquiresTheLock) {
  for (auto kind : kBoth) {
    for (bool sum_ids : {true, false}) {
      const Workload& w = find_workload("counter");
      const Params params = w.resolve(
          "small",
          std::vector<std::string>{"iterations=7", "lock=5", sum_ids ? "sum_ids=true" : "sum_ids=false"});
      const RunOutcome o = run_workload(machine(kind, 3), w, params, 1);
      ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
      const auto t = o.totals();
      EXPECT_EQ(t.lock_acquires, 3u * 7);
      EXPECT_EQ(t.barriers, 1u);  // the exit barrier only
    }
  }
}

// The plain barrier run (bench/scale): only barrier messages, 2(n-1) per episode with the exit
// barrier, no page traffic; the release check sees every node arrive.
TEST(Barrier, OnlyBarrierMessagesTwoPerNodeAndEpisode) {
  for (auto kind : kBoth) {
    for (int nodes : {1, 2, 7}) {
      const Workload& w = find_workload("barrier");
      const Params params = w.resolve("small", std::vector<std::string>{"episodes=5", "skew_us=3"});
      const RunOutcome o = run_workload(machine(kind, nodes), w, params, 1);
      ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
      EXPECT_EQ(o.verification, fmt::format("{} nodes passed 5 barrier episodes together", nodes));
      const auto t = o.totals();
      EXPECT_EQ(o.barrier_episodes, 6u);  // with the exit barrier
      EXPECT_EQ(t.barriers, 6u);          // the totals count episodes, not node arrivals
      EXPECT_EQ(t.messages, std::uint64_t{12} * static_cast<std::uint64_t>(nodes - 1));
      EXPECT_EQ(t.messages_by_purpose[dsm::kBarrierArrival] + t.messages_by_purpose[dsm::kBarrierRelease],
                t.messages);
      EXPECT_EQ(t.page_faults, 0u);
      EXPECT_GT(o.peak_rss_kib, 0u);
    }
  }
}

TEST(Workloads, DeterministicRunsAndSeededData) {
  for (const char* name : {"phases", "false-sharing"}) {
    const RunOutcome a = run_small(name, emu::MachineKind::Ncp2, 4, 7);
    const RunOutcome b = run_small(name, emu::MachineKind::Ncp2, 4, 7);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a.timed_end, b.timed_end) << name;
    EXPECT_EQ(a.events, b.events) << name;
    EXPECT_EQ(a.totals().bytes, b.totals().bytes) << name;
    const RunOutcome c = run_small(name, emu::MachineKind::Ncp2, 4, 8);
    EXPECT_TRUE(c.ok()) << name << ": " << c.verification;
  }
}

TEST(Workloads, EveryPresetIsValidForEightNodes) {
  for (const auto& w : all_workloads()) {
    ASSERT_TRUE(w.presets.contains("small")) << w.name;
    ASSERT_TRUE(w.presets.contains("paper")) << w.name;
    for (const auto& [preset, values] : w.presets) {
      for (const auto& [param, value] : values) {
        const ParamSpec* spec = w.find_parameter(param);
        ASSERT_NE(spec, nullptr) << w.name << " preset " << preset << " sets unknown " << param;
        EXPECT_EQ(spec->type, type_of(value)) << w.name << "." << param;
      }
      EXPECT_NO_THROW(w.check(w.resolve(preset, {}), 8)) << w.name << " " << preset;
    }
    EXPECT_NO_THROW(w.check(w.defaults(), 8)) << w.name;
    for (const auto& spec : w.parameters)
      EXPECT_EQ(type_of(spec.default_value), spec.type) << w.name << "." << spec.name;
  }
}

}  // namespace
}  // namespace ncp2::workloads
