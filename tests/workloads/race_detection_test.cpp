// Data-race detection on the typed API (issue 16): races reported with both nodes, lines, the
// allocation and vector times; race-free programs report nothing; the time model is unchanged.
#include <gtest/gtest.h>

#include "run/runner.hpp"
#include "tests/workloads/custom_workload.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

using testing::custom;
using testing::Lambdas;
using testing::machine;

constexpr std::array kBoth = {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks};
constexpr const char* kThisFile = "tests/workloads/race_detection_test.cpp";

RunOptions detecting() {
  RunOptions o;
  o.detect_races = true;
  return o;
}

void alloc(dsm::Process& p, Lambdas& self) {
  self.array = p.alloc<std::int64_t>("shared counts", 1024);
  p.barrier(0);
}

const Lambdas::Body kPass = [](dsm::Process&, Lambdas& self) { self.set(true, "fine"); };

int g_write_line = 0;  // the line of the racing statement, taken where it is written

TEST(RaceDetection, TwoNodesWritingTheSameWordRaceWithBothLinesAndTheAllocation) {
  for (auto kind : kBoth) {
    const Workload w = custom(
        [](dsm::Process& p, Lambdas& self) {
          alloc(p, self);
          g_write_line = __LINE__ + 1;
          if (p.id() < 2) p.view(self.array).set(3, p.id());
        },
        kPass);
    const RunOutcome o = run_workload(machine(kind, 3), w, w.defaults(), 1, detecting());
    EXPECT_EQ(o.status, RunStatus::Completed);
    ASSERT_TRUE(o.races_checked);
    ASSERT_EQ(o.races.size(), 1u);
    const carnival::RaceRow& r = o.races[0];
    EXPECT_EQ(r.region, "shared counts");
    EXPECT_EQ(r.offset, 3 * sizeof(std::int64_t));
    EXPECT_FALSE(r.address.has_value());  // the typed API has no program addresses
    EXPECT_EQ(r.first.node, 0);
    EXPECT_EQ(r.second.node, 1);
    EXPECT_TRUE(r.first.writes);
    EXPECT_TRUE(r.second.writes);
    EXPECT_EQ(r.first.file, kThisFile);
    EXPECT_EQ(r.first.line, g_write_line);
    EXPECT_EQ(r.second.line, g_write_line);
    EXPECT_EQ(r.first.vector_time.size(), 3u);
    EXPECT_GE(r.first.interval, 2u);  // after the barrier
    EXPECT_FALSE(o.verified);         // never "verified" with races, whatever the check said
    EXPECT_NE(o.verification.find("completed with 1 data race"), std::string::npos) << o.verification;
    EXPECT_FALSE(o.ok());
  }
}

TEST(RaceDetection, AReadOfAnotherNodesUnorderedWriteRaces) {
  int read_line = 0;
  int write_line = 0;
  const Workload w = custom(
      [&](dsm::Process& p, Lambdas& self) {
        alloc(p, self);
        const auto v = p.view(self.array);
        if (p.id() == 2) {
          write_line = __LINE__ + 1;
          v.set(100, 7);
        } else if (p.id() == 0) {
          read_line = __LINE__ + 1;
          for (std::int64_t x : v.read_span(96, 8)) (void)x;
        }
      },
      kPass);
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.defaults(), 1, detecting());
  ASSERT_EQ(o.races.size(), 1u);
  EXPECT_EQ(o.races[0].first.node, 0);
  EXPECT_FALSE(o.races[0].first.writes);
  EXPECT_EQ(o.races[0].first.line, read_line);
  EXPECT_EQ(o.races[0].second.node, 2);
  EXPECT_TRUE(o.races[0].second.writes);
  EXPECT_EQ(o.races[0].second.line, write_line);
  EXPECT_EQ(o.races[0].offset, 100 * sizeof(std::int64_t));
}

TEST(RaceDetection, TheSameLockOrdersButDifferentLocksDoNot) {
  for (const std::uint32_t second_lock : {1U, 2U}) {
    const Workload w = custom(
        [second_lock](dsm::Process& p, Lambdas& self) {
          alloc(p, self);
          const auto lock = p.lock(p.id() == 0 ? 1U : second_lock);
          const auto v = p.view(self.array);
          v.set(0, v.get(0) + 1);
        },
        kPass);
    const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.defaults(), 1, detecting());
    EXPECT_EQ(o.status, RunStatus::Completed);
    if (second_lock == 1) {
      EXPECT_TRUE(o.races.empty());
      EXPECT_TRUE(o.ok()) << o.verification;
    } else {  // node 0 under lock 1 against each of nodes 1-3 under lock 2 (they are ordered among
              // themselves)
      EXPECT_EQ(o.races.size(), 3u);
      for (const auto& r : o.races) EXPECT_EQ(r.first.node, 0);
    }
  }
}

TEST(RaceDetection, BarriersSeparatePhasesButNotWhatIsBetweenTheSameTwo) {
  const Workload w = custom(
      [](dsm::Process& p, Lambdas& self) {
        alloc(p, self);
        const auto v = p.view(self.array);
        if (p.id() == 0) v.set(5, 1);  // phase 1: node 0 writes
        p.barrier(0);
        (void)v.get(5);  // phase 2: everyone reads it: ordered
        p.barrier(0);
        if (p.id() == 1) v.set(6, 1);  // phase 3: node 1 writes byte 48..55, node 2 reads 48..55
        if (p.id() == 2) (void)v.get(6);
      },
      kPass);
  const RunOutcome o =
      run_workload(machine(emu::MachineKind::TreadMarks, 3), w, w.defaults(), 1, detecting());
  ASSERT_EQ(o.races.size(), 1u);
  EXPECT_EQ(o.races[0].first.node, 1);
  EXPECT_EQ(o.races[0].second.node, 2);
}

TEST(RaceDetection, DetectionChangesNoVirtualTimeAndRaceFreeWorkloadsReportNothing) {
  for (const char* name : {"sor", "quicksort", "is", "barnes", "water", "tsp", "counter", "false-sharing"}) {
    const Workload& w = find_workload(name);
    const RunOutcome plain = run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.defaults(), 1);
    const RunOutcome checked =
        run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.defaults(), 1, detecting());
    EXPECT_FALSE(plain.races_checked);
    EXPECT_TRUE(checked.races_checked);
    EXPECT_TRUE(checked.races.empty()) << name << ": " << checked.races.size() << " races, first at "
                                       << (checked.races.empty() ? "" : checked.races[0].first.file);
    EXPECT_TRUE(checked.ok()) << name << ": " << checked.verification;
    EXPECT_EQ(plain.timed_end, checked.timed_end) << name;
    EXPECT_EQ(plain.events, checked.events) << name;
  }
}

TEST(RaceDetection, ManyOccurrencesOfOneRaceAreOneReportWithItsCount) {
  const Workload w = custom(
      [](dsm::Process& p, Lambdas& self) {
        alloc(p, self);
        const auto v = p.view(self.array);
        for (int round = 0; round < 5; ++round) {
          v.set(static_cast<std::size_t>(round), p.id());  // both nodes, same element, every round
          p.barrier(0);
        }
      },
      kPass);
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 2), w, w.defaults(), 1, detecting());
  ASSERT_EQ(o.races.size(), 1u);
  EXPECT_EQ(o.races[0].occurrences, 5u);
  EXPECT_EQ(o.race_pairs, 5u);
}

TEST(RaceDetection, TheVerificationAfterTheExitBarrierIsNotCounted) {
  const Workload w = custom([](dsm::Process& p, Lambdas& self) { alloc(p, self); },
                            [](dsm::Process& p, Lambdas& self) {
                              p.view(self.array).set(0, p.id());  // every node, after Tmk_exit
                              self.set(true, "fine");
                            });
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 3), w, w.defaults(), 1, detecting());
  EXPECT_TRUE(o.races.empty());
  EXPECT_TRUE(o.ok());
}

}  // namespace
}  // namespace ncp2::workloads
