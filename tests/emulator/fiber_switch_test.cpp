// The kernel's own stack switch (emulator/fiber_switch.hpp) and the kernel's fibers built on it:
// resume/suspend, registers and floating-point values live across switches, stack alignment,
// exceptions inside fibers, cancellation, many fibers.
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emulator/fiber_switch.hpp"
#include "emulator/kernel.hpp"

namespace ncp2::emu {
namespace {

namespace fs = fiber_switch;

// A raw fiber on a heap stack, for the switch alone (the kernel's fibers have guarded stacks).
struct RawFiber {
  fs::Context main;
  fs::Context self;
  std::vector<std::uint64_t> stack = std::vector<std::uint64_t>(std::size_t{64} * 1024 / 8);
  std::uint64_t rounds = 0;
  double product = 1.0;
  std::string formatted;
  void* entry_from = nullptr;
};

RawFiber* g_raw = nullptr;  // the entry function's way to its fiber in these tests

// Counts rounds, keeps values in registers across switches, and formats a double (printf's SSE
// code faults on a misaligned stack).
[[noreturn]] void raw_entry(fs::Context* from, fs::Context* self) {
  RawFiber& f = *g_raw;
  f.entry_from = from;
  EXPECT_EQ(self, &f.self);
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), "%.3f", 2.5);
  f.formatted = text.data();
  double local = 1.0;
  std::uint64_t mixed = 7;
  for (;;) {
    ++f.rounds;
    local *= 1.5;
    mixed = mixed * 31 + f.rounds;
    f.product = local + static_cast<double>(mixed % 1000);
    fs::switch_to(f.self, f.main);
    if (local > 1e300) local = 1.0;
  }
}

TEST(FiberSwitch, RoundTripsKeepBothSidesValues) {
  RawFiber f;
  g_raw = &f;
  fs::prepare(f.self, f.stack.data() + f.stack.size(), &raw_entry);
  double main_value = 0.25;
  std::uint64_t main_count = 3;
  double expected_local = 1.0;
  std::uint64_t expected_mixed = 7;
  for (std::uint64_t i = 1; i <= 100000; ++i) {
    fs::switch_to(f.main, f.self);
    main_value += 0.5;
    main_count = main_count * 3 + 1;
    expected_local *= 1.5;
    if (expected_local > 1e300) expected_local = 1.0;
    expected_mixed = expected_mixed * 31 + i;
    ASSERT_EQ(f.rounds, i);
  }
  EXPECT_EQ(f.entry_from, &f.main);
  EXPECT_EQ(f.formatted, "2.500");
  EXPECT_DOUBLE_EQ(main_value, 0.25 + 0.5 * 100000);
  EXPECT_NE(main_count, 3U);
  EXPECT_GT(f.product, 0.0);
  g_raw = nullptr;
}

// --- The kernel's fibers -------------------------------------------------------------------

int recurse_and_suspend(Kernel& k, int depth, long double& acc) {
  const long double here = acc + depth;
  if (depth == 0) {
    k.suspend_current("bottom of the recursion");
    acc = here * 2;
    return 0;
  }
  const int below = recurse_and_suspend(k, depth - 1, acc);
  acc += here;  // uses a value computed before the suspension below
  return below + 1;
}

TEST(FiberSwitch, DeepStackAndLongDoubleSurviveSuspension) {
  Kernel k;
  long double acc = 0.5L;
  int depth = -1;
  const FiberId id = k.spawn("deep", [&] { depth = recurse_and_suspend(k, 500, acc); });
  k.at(at_ps(1000), [&k, id] { k.resume(id); });
  const RunResult r = k.run();
  EXPECT_EQ(r.status, RunStatus::Completed);
  EXPECT_EQ(depth, 500);
  // acc after the bottom: 0.5*2 = 1; then each level d adds 0.5 + d.
  long double expected = 1.0L;
  for (int d = 1; d <= 500; ++d) expected += 0.5L + d;
  EXPECT_EQ(acc, expected);
}

TEST(FiberSwitch, ExceptionsThrownAndCaughtInsideFibersAcrossSwitches) {
  Kernel k;
  int caught = 0;
  for (int i = 0; i < 4; ++i) {
    k.spawn("thrower " + std::to_string(i), [&k, &caught, i] {
      for (int round = 0; round < 50; ++round) {
        try {
          k.resume_at(k.current_fiber(), k.now() + Duration(i + 1));
          k.suspend_current("round");
          throw std::runtime_error("round " + std::to_string(round));
        } catch (const std::runtime_error& e) {
          if (std::string(e.what()) == "round " + std::to_string(round)) ++caught;
        }
      }
    });
  }
  EXPECT_EQ(k.run().status, RunStatus::Completed);
  EXPECT_EQ(caught, 200);
}

TEST(FiberSwitch, CancellationUnwindsSuspendedAndSkipsUnstartedFibers) {
  int destroyed = 0;
  int bodies_started = 0;
  struct Guard {
    explicit Guard(int* count) : count_(count) {}
    ~Guard() { ++*count_; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    int* count_;
  };
  {
    Kernel k;
    for (int i = 0; i < 3; ++i)
      k.spawn("blocked", [&] {
        ++bodies_started;
        const Guard g{&destroyed};
        k.suspend_current("forever");
      });
    EXPECT_EQ(k.run().status, RunStatus::Deadlock);
    // Spawned after the run, never started: cancelled without running its body.
    k.spawn("never started", [&] { ++bodies_started; });
    k.cancel_unfinished_fibers();
    EXPECT_EQ(destroyed, 3);
    for (std::size_t i = 0; i < k.fiber_count(); ++i)
      EXPECT_TRUE(k.fiber_finished(FiberId(static_cast<std::uint32_t>(i))));
  }
  EXPECT_EQ(bodies_started, 3);
}

TEST(FiberSwitch, ExceptionEscapingAFiberStopsTheRunAndUnwindsTheOthers) {
  int unwound = 0;
  Kernel k;
  k.spawn("waits", [&] {
    try {
      k.suspend_current("forever");
    } catch (const FiberCancelled&) {
      ++unwound;
      throw;
    }
  });
  k.spawn("fails", [&] {
    k.resume_at(k.current_fiber(), k.now() + Duration(5));
    k.suspend_current("a moment");
    throw std::invalid_argument("failed in a fiber");
  });
  EXPECT_THROW(k.run(), std::invalid_argument);
  EXPECT_EQ(unwound, 1);
}

TEST(FiberSwitch, ManyFibersInterleaveInTimeOrder) {
  constexpr int kFibers = 2000;
  constexpr int kRounds = 20;
  KernelOptions options;
  options.fiber_stack_bytes = std::size_t{32} * 1024;
  Kernel k(options);
  std::vector<int> order;
  order.reserve(std::size_t{kFibers} * kRounds);
  std::vector<std::uint64_t> sums(kFibers, 0);
  for (int i = 0; i < kFibers; ++i) {
    k.spawn("f" + std::to_string(i), [&k, &order, &sums, i] {
      auto local = static_cast<std::uint64_t>(i);
      for (int round = 0; round < kRounds; ++round) {
        order.push_back(i);
        local = local * 6364136223846793005ULL + 1442695040888963407ULL;
        // Fiber i wakes every (i % 7 + 1) ns: a mix of ties and distinct times.
        k.resume_at(k.current_fiber(), k.now() + Duration((i % 7 + 1) * 1000));
        k.suspend_current("its next round");
      }
      sums[static_cast<std::size_t>(i)] = local;
    });
  }
  EXPECT_EQ(k.run().status, RunStatus::Completed);
  ASSERT_EQ(order.size(), std::size_t{kFibers} * kRounds);
  for (int i = 0; i < kFibers; ++i) {
    auto expected = static_cast<std::uint64_t>(i);
    for (int round = 0; round < kRounds; ++round)
      expected = expected * 6364136223846793005ULL + 1442695040888963407ULL;
    ASSERT_EQ(sums[static_cast<std::size_t>(i)], expected) << "fiber " << i;
  }
  // The first round runs in spawn order (all at time zero).
  for (int i = 0; i < kFibers; ++i) ASSERT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(FiberSwitch, ResumeAfterEventRunsTheFiberBeforeTheNextEvent) {
  Kernel k;
  std::vector<std::string> log;
  const FiberId id = k.spawn("f", [&] {
    log.emplace_back("fiber starts");
    k.suspend_current("the event");
    log.emplace_back("fiber resumed");
  });
  k.at(at_ps(10), [&] {
    log.emplace_back("event");
    k.resume_after_event(id);
  });
  k.at(at_ps(10), [&] { log.emplace_back("next event"); });
  EXPECT_EQ(k.run().status, RunStatus::Completed);
  EXPECT_EQ(log, (std::vector<std::string>{"fiber starts", "event", "fiber resumed", "next event"}));
}

TEST(FiberSwitch, ResumeAfterEventRejectsMisuse) {
  Kernel k;
  const FiberId a = k.spawn("a", [&] { k.suspend_current("forever"); });
  const FiberId b = k.spawn("b", [&] { k.suspend_current("forever"); });
  k.at(at_ps(10), [&] {
    k.resume_after_event(a);
    k.resume_after_event(b);  // a second one in the same event
  });
  EXPECT_THROW(k.run(), std::logic_error);
  Kernel k2;
  const FiberId done = k2.spawn("done", [] {});
  k2.at(at_ps(10), [&] { k2.resume_after_event(done); });
  EXPECT_THROW(k2.run(), std::logic_error);
}

}  // namespace
}  // namespace ncp2::emu
