#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emulator/kernel.hpp"

namespace ncp2::emu {
namespace {
using namespace literals;

TEST(Kernel, EventsRunInTimeOrderAndAdvanceNow) {
  Kernel k;
  std::vector<std::int64_t> seen;
  k.at(kTimeZero + 5_us, [&k, &seen] { seen.push_back(to_ps(k.now())); });
  k.at(kTimeZero + 1_us, [&k, &seen] {
    seen.push_back(to_ps(k.now()));
    k.after(1_us, [&k, &seen] { seen.push_back(to_ps(k.now())); });
  });
  const RunResult r = k.run();
  EXPECT_EQ(r.status, RunStatus::Completed);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1'000'000, 2'000'000, 5'000'000}));
  EXPECT_EQ(r.end_time, kTimeZero + 5_us);
  EXPECT_EQ(r.events, 3u);
}

TEST(Kernel, PollHookRunsEvery1024EventsAndEvery1024FastForwards) {
  int polls = 0;
  KernelOptions options;
  options.on_poll = [&polls] { ++polls; };
  Kernel k(options);
  for (int i = 0; i < 3000; ++i) k.at(kTimeZero + nanoseconds(i), [] {});
  k.run();
  EXPECT_EQ(polls, 3);  // before events 0, 1024 and 2048

  // A lone fiber that only computes creates no event after its start: it is polled anyway.
  polls = 0;
  Kernel lone(options);
  lone.spawn("computing", [&lone] {
    for (int i = 0; i < 5000; ++i) ASSERT_TRUE(lone.try_advance(1_ns));
  });
  lone.run();
  EXPECT_EQ(polls, 1 + 4);  // the start event, then fast-forwards 1024, 2048, 3072 and 4096
}

TEST(Kernel, SchedulingInThePastIsAnError) {
  Kernel k;
  k.at(kTimeZero + 2_us, [&k] { k.at(kTimeZero + 1_us, [] {}); });
  EXPECT_THROW(k.run(), std::logic_error);
}

TEST(Kernel, FiberSuspendsUntilResumedAtAGivenTime) {
  Kernel k;
  std::vector<std::int64_t> trace;
  FiberId id{};
  id = k.spawn("worker", [&] {
    trace.push_back(to_ps(k.now()));
    k.resume_at(id, k.now() + 3_us);
    k.suspend_current("a timer");
    trace.push_back(to_ps(k.now()));
  });
  const RunResult r = k.run();
  EXPECT_EQ(r.status, RunStatus::Completed);
  EXPECT_EQ(trace, (std::vector<std::int64_t>{0, 3'000'000}));
  EXPECT_TRUE(k.fiber_finished(id));
}

TEST(Kernel, FibersInterleaveDeterministically) {
  auto run_once = [] {
    Kernel k;
    std::string log;
    std::vector<FiberId> ids(3);
    for (int i = 0; i < 3; ++i) {
      ids[static_cast<std::size_t>(i)] = k.spawn("f" + std::to_string(i), [&, i] {
        for (int step = 0; step < 3; ++step) {
          log += static_cast<char>('a' + i);
          k.resume_at(ids[static_cast<std::size_t>(i)], k.now() + microseconds(i + 1));
          k.suspend_current("sleeping");
        }
      });
    }
    k.run();
    return log;
  };
  const std::string first = run_once();
  EXPECT_EQ(first, run_once());
  EXPECT_EQ(first, "abcabacbc");  // from the wake-up periods 1, 2, 3 us (ties: earlier scheduled first)
}

TEST(Kernel, DeadlockNamesEachBlockedFiberAndWhatItWaitsFor) {
  Kernel k;
  k.spawn("node 0 PP", [&] { k.suspend_current("lock 3"); });
  k.spawn("node 1 PP", [&] { k.suspend_current("barrier 0"); });
  k.spawn("node 2 PP", [] {});
  const RunResult r = k.run();
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  ASSERT_EQ(r.blocked.size(), 2u);
  EXPECT_EQ(r.blocked[0].name, "node 0 PP");
  EXPECT_EQ(r.blocked[0].waiting_for, "lock 3");
  EXPECT_EQ(r.blocked[1].name, "node 1 PP");
  EXPECT_NE(r.diagnosis.find("deadlock"), std::string::npos);
  EXPECT_NE(r.diagnosis.find("node 1 PP: barrier 0"), std::string::npos);
}

struct CountsDestructions {
  int* counter;
  ~CountsDestructions() { ++*counter; }
};

TEST(Kernel, TearingDownUnwindsBlockedFibers) {
  int destroyed = 0;
  {
    Kernel k;
    k.spawn("stuck", [&] {
      CountsDestructions guard{&destroyed};
      k.suspend_current("forever");
    });
    EXPECT_EQ(k.run().status, RunStatus::Deadlock);
    EXPECT_EQ(destroyed, 0);
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(Kernel, ExceptionInAFiberPropagatesFromRun) {
  Kernel k;
  k.spawn("thrower", [] { throw std::runtime_error("workload failed"); });
  k.spawn("other", [&] { k.suspend_current("nothing"); });
  try {
    k.run();
    FAIL() << "run() should rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "workload failed");
  }
}

TEST(Kernel, ExceptionInAnEventPropagatesFromRun) {
  Kernel k;
  k.at(kTimeZero + 1_us, [] { throw std::runtime_error("bad event"); });
  EXPECT_THROW(k.run(), std::runtime_error);
}

TEST(Kernel, TimeLimitStopsBeforeLaterEvents) {
  Kernel k;
  int ran = 0;
  k.at(kTimeZero + 1_us, [&ran] { ++ran; });
  k.at(kTimeZero + 10_us, [&ran] { ++ran; });
  const RunResult r = k.run(kTimeZero + 5_us);
  EXPECT_EQ(r.status, RunStatus::TimeLimit);
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(k.pending_events(), 1u);
  EXPECT_EQ(k.run().status, RunStatus::Completed);  // and it can continue
  EXPECT_EQ(ran, 2);
}

TEST(Kernel, FiberSpawnedFromAnEventStartsAtThatTime) {
  Kernel k;
  std::int64_t started = -1;
  k.at(kTimeZero + 7_us, [&] { k.spawn("late", [&] { started = to_ps(k.now()); }); });
  EXPECT_EQ(k.run().status, RunStatus::Completed);
  EXPECT_EQ(started, 7'000'000);
}

TEST(Kernel, LargeCallablesRunFromKernelOwnedSlots) {
  Kernel k;
  std::string seen;
  const std::string big(200, 'x');
  k.at_function(kTimeZero + 1_us, [&seen, big] { seen = big; });
  k.run();
  EXPECT_EQ(seen, big);
}

TEST(Kernel, TraceDigestIsReproducibleAndSensitive) {
  auto digest = [](std::int64_t delay_ns) {
    KernelOptions o;
    o.trace_hash = true;
    Kernel k(o);
    for (int i = 0; i < 10; ++i)
      k.at(kTimeZero + nanoseconds(delay_ns * i), [&k, i] { k.trace(1, static_cast<std::uint64_t>(i)); });
    k.run();
    return k.trace_digest();
  };
  EXPECT_EQ(digest(5), digest(5));
  EXPECT_NE(digest(5), digest(6));
}

TEST(Kernel, SuspendOutsideAFiberIsAnError) {
  Kernel k;
  EXPECT_THROW(k.suspend_current("x"), std::logic_error);
}

}  // namespace
}  // namespace ncp2::emu
