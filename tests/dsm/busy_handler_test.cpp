// A real node's server shares its computing program's core (issue 43, pp.busy_handler_*): a
// request to a node whose program computes waits for the scheduler's delay, or until the program
// blocks in a protocol entry of its own, whichever comes first; a server quiet for long enough
// waits the quiet delay; a node that waits serves at once; all 0 changes nothing; a prompt share
// serves that share of the waits as a quiet server's, drawn reproducibly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {

using testing::Harness;
using testing::machine;

constexpr std::int64_t kPsPerUs = std::int64_t{1000} * 1000;
emu::Duration us(std::int64_t n) { return emu::Duration{n * kPsPerUs}; }
double in_us(emu::Duration d) { return static_cast<double>(emu::to_ps(d)) / kPsPerUs; }

struct Timing {
  double page_miss_us = 0;  // node 1's read of a page homed at node 0, while node 0 computes
};

// Node 0 computes `compute_us`, then (if `then_barrier`) enters a barrier at once; node 1 reads one
// of node 0's pages `after_us` after the first barrier (node 0's server ran there).
Timing run(const SystemConfig& config, std::int64_t compute_us, std::int64_t after_us) {
  Harness h(config);
  Timing t;
  const auto result = h.run([&](Process& p) {
    auto page = p.view(p.alloc<std::int32_t>("page", 1024));
    p.barrier(0);
    if (p.id() == 0) p.compute(us(compute_us));
    if (p.id() == 1) {
      p.compute(us(after_us));
      const emu::TimePoint start = h.kernel.now();
      (void)page.get(0);
      t.page_miss_us = in_us(h.kernel.now() - start);
    }
    p.barrier(1);
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  return t;
}

SystemConfig real_node(const std::string& delay, const std::string& quiet, const std::string& after) {
  SystemConfig c = machine(emu::MachineKind::TreadMarks, 2);
  apply_override(c, "pp.busy_handler_delay=" + delay);
  apply_override(c, "pp.busy_handler_delay_quiet=" + quiet);
  apply_override(c, "pp.busy_handler_quiet_after=" + after);
  return c;
}

TEST(BusyHandler, ARequestToAComputingNodeWaitsForTheScheduler) {
  const double plain = run(machine(emu::MachineKind::TreadMarks, 2), 20000, 1000).page_miss_us;
  const double busy = run(real_node("3ms", "300us", "0s"), 20000, 1000).page_miss_us;
  EXPECT_NEAR(busy - plain, 3000, 1) << "plain " << plain << " us, busy " << busy << " us";
}

TEST(BusyHandler, TheWaitEndsWhenTheProgramEntersTheProtocol) {
  const double plain = run(machine(emu::MachineKind::TreadMarks, 2), 2000, 1000).page_miss_us;
  // Node 0 computes until 2 ms, then enters barrier 1: its server takes the request there, 1 ms
  // after it arrived (not 3 ms).
  const double busy = run(real_node("3ms", "3ms", "0s"), 2000, 1000).page_miss_us;
  EXPECT_GT(busy - plain, 900);
  EXPECT_LT(busy - plain, 1100) << "the wait should end at node 0's barrier";
}

TEST(BusyHandler, AQuietServerWaitsTheQuietDelay) {
  const double plain = run(machine(emu::MachineKind::TreadMarks, 2), 40000, 10000).page_miss_us;
  const double quiet = run(real_node("3ms", "300us", "5ms"), 40000, 10000).page_miss_us;
  EXPECT_NEAR(quiet - plain, 300, 1);
  const double recent = run(real_node("3ms", "300us", "5ms"), 40000, 1000).page_miss_us;
  EXPECT_NEAR(recent - run(machine(emu::MachineKind::TreadMarks, 2), 40000, 1000).page_miss_us, 3000, 1);
}

TEST(BusyHandler, AWaitingNodeServesAtOnce) {
  // Node 0 computes nothing: it waits in barrier 1 when the request comes.
  const double plain = run(machine(emu::MachineKind::TreadMarks, 2), 0, 1000).page_miss_us;
  const double busy = run(real_node("3ms", "300us", "0s"), 0, 1000).page_miss_us;
  EXPECT_DOUBLE_EQ(busy, plain);
}

// Node 1 reads `rounds` pages of node 0's, each 1 ms after a barrier, while node 0 computes 20 ms:
// each read's time (µs).
std::vector<double> busy_reads(const SystemConfig& config, int rounds) {
  Harness h(config);
  std::vector<double> times;
  const auto result = h.run([&](Process& p) {
    auto pages = p.view(p.alloc<std::int32_t>("pages", 1024 * static_cast<std::size_t>(rounds)));
    for (int r = 0; r < rounds; ++r) {
      p.barrier(0);
      if (p.id() == 0) p.compute(us(20000));
      if (p.id() == 1) {
        p.compute(us(1000));
        const emu::TimePoint start = h.kernel.now();
        (void)pages.get(1024 * static_cast<std::size_t>(r));
        times.push_back(in_us(h.kernel.now() - start));
      }
    }
    p.barrier(1);
  });
  EXPECT_EQ(result.status, emu::RunStatus::Completed) << result.diagnosis;
  return times;
}

TEST(BusyHandler, APromptShareServesThatShareOfTheWaitsAsAQuietServer) {
  constexpr int kRounds = 60;
  SystemConfig config = real_node("3ms", "300us", "0s");
  const std::vector<double> none = busy_reads(config, kRounds);
  apply_override(config, "pp.busy_handler_prompt_share=0.4");
  const std::vector<double> mixed = busy_reads(config, kRounds);
  EXPECT_EQ(busy_reads(config, kRounds), mixed) << "the draws must be the same in every run";
  int prompt = 0;
  for (int r = 0; r < kRounds; ++r) {
    // Either the full wait or the quiet one: 2.7 ms less, nothing in between.
    const double saved = none[static_cast<std::size_t>(r)] - mixed[static_cast<std::size_t>(r)];
    EXPECT_TRUE(std::abs(saved) < 1 || std::abs(saved - 2700) < 1)
        << "round " << r << " saved " << saved << " us";
    if (saved > 1) ++prompt;
  }
  // 0.4 of 60 draws: 24 expected; a fair sequence stays within about 3 standard deviations (3.8 each).
  EXPECT_GT(prompt, 12);
  EXPECT_LT(prompt, 36);
  apply_override(config, "pp.busy_handler_prompt_share=1");
  for (double t : busy_reads(config, 4)) EXPECT_NEAR(t, none.front() - 2700, 1);
}

}  // namespace
}  // namespace ncp2::dsm
