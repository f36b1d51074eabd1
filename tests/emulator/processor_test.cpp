#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "emulator/processor.hpp"

namespace ncp2::emu {
namespace {
using namespace literals;

struct ProcessorFixture : ::testing::Test {
  Kernel kernel;
  MemoryBus bus{533e6};
  Processor pp{kernel, node_id(0), "node 0 PP", 2_us, bus, 100e6};
};

TEST_F(ProcessorFixture, ComputeTakesExactlyItsDuration) {
  std::int64_t after = -1;
  pp.start([&] {
    pp.compute(100_us);
    after = to_ps(kernel.now());
  });
  EXPECT_EQ(kernel.run().status, RunStatus::Completed);
  EXPECT_EQ(after, to_ps(100_us));
  EXPECT_EQ(pp.finish_time(), kTimeZero + 100_us);
  EXPECT_EQ(pp.state(), PpState::Finished);
}

TEST_F(ProcessorFixture, InterruptExtendsComputationByHandlerPlusOverhead) {
  std::int64_t after = -1;
  std::int64_t handler_start = -1;
  pp.start([&] {
    pp.compute(100_us);
    after = to_ps(kernel.now());
  });
  kernel.at(kTimeZero + 30_us, [&] {
    pp.interrupt([&handler_start](WorkContext& ctx) {
      handler_start = to_ps(ctx.now());
      ctx.spend(5_us);
    });
  });
  kernel.run();
  EXPECT_EQ(handler_start, to_ps(32_us));         // interrupt time + overhead
  EXPECT_EQ(after, to_ps(100_us + 5_us + 2_us));  // extended by handler + overhead
  EXPECT_EQ(pp.stats().interrupts, 1u);
  EXPECT_EQ(pp.stats().handlers, 5_us);
}

TEST_F(ProcessorFixture, QueuedInterruptsRunOneAfterAnotherEachWithItsOverhead) {
  std::int64_t after = -1;
  std::vector<std::int64_t> starts;
  pp.start([&] {
    pp.compute(100_us);
    after = to_ps(kernel.now());
  });
  for (auto at : {30_us, 31_us}) {
    kernel.at(kTimeZero + at, [&] {
      pp.interrupt([&starts](WorkContext& ctx) {
        starts.push_back(to_ps(ctx.now()));
        ctx.spend(5_us);
      });
    });
  }
  kernel.run();
  EXPECT_EQ(starts, (std::vector<std::int64_t>{to_ps(32_us), to_ps(39_us)}));
  EXPECT_EQ(after, to_ps(100_us + 2 * (5_us + 2_us)));
}

// pp.drain_interrupts: the second handler, queued while the first runs, is served by the same
// interrupt (no second overhead); a handler arriving after the last one ended pays it again.
TEST_F(ProcessorFixture, ADrainingInterruptServesQueuedHandlersWithoutASecondOverhead) {
  pp.drain_queued_interrupts(true);
  std::int64_t after = -1;
  std::vector<std::int64_t> starts;
  pp.start([&] {
    pp.compute(100_us);
    after = to_ps(kernel.now());
  });
  for (auto at : {30_us, 31_us, 60_us}) {
    kernel.at(kTimeZero + at, [&] {
      pp.interrupt([&starts](WorkContext& ctx) {
        starts.push_back(to_ps(ctx.now()));
        ctx.spend(5_us);
      });
    });
  }
  kernel.run();
  EXPECT_EQ(starts, (std::vector<std::int64_t>{to_ps(32_us), to_ps(37_us), to_ps(62_us)}));
  EXPECT_EQ(after, to_ps(100_us + 3 * 5_us + 2 * 2_us));
  EXPECT_EQ(pp.stats().interrupt_overhead, 2 * 2_us);
}

TEST_F(ProcessorFixture, WakeDuringAHandlerResumesWhenTheHandlerEnds) {
  std::int64_t resumed = -1;
  pp.start([&] {
    pp.wait("a message");
    resumed = to_ps(kernel.now());
  });
  kernel.at(kTimeZero + 9_us, [&] { pp.interrupt([](WorkContext& ctx) { ctx.spend(5_us); }); });
  kernel.at(kTimeZero + 12_us, [&] { pp.wake(); });  // handler runs 11..16 us
  kernel.run();
  EXPECT_EQ(resumed, to_ps(16_us));
}

TEST_F(ProcessorFixture, WakeBeforeWaitIsNotLost) {
  std::int64_t resumed = -1;
  pp.start([&] {
    pp.compute(10_us);
    pp.wait("already signalled");
    resumed = to_ps(kernel.now());
  });
  kernel.at(kTimeZero + 5_us, [&] { pp.wake(); });
  EXPECT_EQ(kernel.run().status, RunStatus::Completed);
  EXPECT_EQ(resumed, to_ps(10_us));
}

TEST_F(ProcessorFixture, HandlerCanWakeItsOwnWaitingProcessor) {
  std::int64_t resumed = -1;
  pp.start([&] {
    pp.wait("notification");
    resumed = to_ps(kernel.now());
  });
  kernel.at(kTimeZero + 1_us, [&] {
    pp.interrupt([this](WorkContext& ctx) {
      ctx.spend(3_us);
      pp.wake();
    });
  });
  kernel.run();
  EXPECT_EQ(resumed, to_ps(1_us + 2_us + 3_us));
}

TEST_F(ProcessorFixture, InterruptsAreServedAfterTheWorkloadFinished) {
  int served = 0;
  pp.start([&] { pp.compute(1_us); });
  kernel.at(kTimeZero + 5_us, [&] { pp.interrupt([&served](WorkContext&) { ++served; }); });
  EXPECT_EQ(kernel.run().status, RunStatus::Completed);
  EXPECT_EQ(served, 1);
  EXPECT_EQ(pp.finish_time(), kTimeZero + 1_us);
}

TEST_F(ProcessorFixture, HandlerCopiesOverTheMemoryBus) {
  std::int64_t end = -1;
  pp.start([] {});
  kernel.at(kTimeZero, [&] {
    pp.interrupt([&end](WorkContext& ctx) {
      ctx.transfer(1000);  // 1000 B at min(100 MB/s copy, 533 MB/s bus) = 10 us
      end = to_ps(ctx.now());
    });
  });
  kernel.run();
  EXPECT_EQ(end, to_ps(2_us + 10_us));
}

TEST_F(ProcessorFixture, ComputeOutsideItsFiberIsAnError) {
  pp.start([] {});
  EXPECT_THROW(pp.compute(1_us), std::logic_error);
}

TEST_F(ProcessorFixture, WaitingForeverIsReportedAsDeadlock) {
  pp.start([&] { pp.wait("lock 7"); });
  const RunResult r = kernel.run();
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  ASSERT_EQ(r.blocked.size(), 1u);
  EXPECT_EQ(r.blocked[0].name, "node 0 PP");
  EXPECT_EQ(r.blocked[0].waiting_for, "lock 7");
}

}  // namespace
}  // namespace ncp2::emu
