#include <vector>

#include <gtest/gtest.h>

#include "emulator/command_processor.hpp"

namespace ncp2::emu {
namespace {
using namespace literals;

struct CpFixture : ::testing::Test {
  Kernel kernel;
  MemoryBus bus{533e6};
  CommandTable table;
  CommandKind a = table.add("a", 1_us);
  CommandKind b = table.add("b", 2_us);
  CommandProcessor cp{kernel, node_id(3), table, bus, 100e6};
};

TEST_F(CpFixture, CommandsRunInFifoOrderWithTheirConfiguredCosts) {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t>* out = &starts;
  auto record = [out](WorkContext& ctx, Message*) { out->push_back(to_ps(ctx.start())); };
  kernel.at(kTimeZero, [&] {
    for (CommandKind k : {a, b, a}) cp.submit(Command{k, nullptr, record});
  });
  // A command arriving while the third runs (3..4 us) waits for it.
  kernel.at(kTimeZero + 3500_ns, [&] { cp.submit(Command{a, nullptr, record}); });
  kernel.run();
  EXPECT_EQ(starts, (std::vector<std::int64_t>{0, to_ps(1_us), to_ps(3_us), to_ps(4_us)}));
  EXPECT_EQ(cp.stats().commands, 4u);
  EXPECT_EQ(cp.stats().busy, 5_us);
  EXPECT_EQ(cp.stats().queue_wait, 1_us + 3_us + 500_ns);
  EXPECT_EQ(cp.stats().max_queue, 2u);  // the first started at once
}

TEST_F(CpFixture, LaterCommandsWaitForTheRunningOne) {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t>* out = &starts;
  auto record = [out](WorkContext& ctx, Message*) { out->push_back(to_ps(ctx.start())); };
  kernel.at(kTimeZero, [&] { cp.submit(Command{b, nullptr, record}); });
  kernel.at(kTimeZero + 500_ns, [&] { cp.submit(Command{a, nullptr, record}); });
  kernel.at(kTimeZero + 5_us, [&] { cp.submit(Command{a, nullptr, record}); });  // CP idle again
  kernel.run();
  EXPECT_EQ(starts, (std::vector<std::int64_t>{0, to_ps(2_us), to_ps(5_us)}));
}

TEST_F(CpFixture, DmaTimeIsBytesOverTheSlowerOfEngineAndBus) {
  std::int64_t end = -1;
  std::int64_t* out = &end;
  kernel.at(kTimeZero, [&] {
    cp.submit(Command{a, nullptr, [out](WorkContext& ctx, Message*) {
                        ctx.transfer(4096);  // 4096 B at min(100 MB/s, 533 MB/s) = 40.96 us
                        *out = to_ps(ctx.now());
                      }});
  });
  std::int64_t next_start = -1;
  std::int64_t* next = &next_start;
  kernel.at(kTimeZero + 2_us, [&] {
    cp.submit(Command{a, nullptr, [next](WorkContext& ctx, Message*) { *next = to_ps(ctx.start()); }});
  });
  kernel.run();
  EXPECT_EQ(end, to_ps(1_us) + to_ps(40960_ns));
  EXPECT_EQ(next_start, end);  // the CP was busy with the DMA until then
}

TEST_F(CpFixture, DmaWaitsForTheMemoryBusWhenThePpUsesIt) {
  // The PP holds the bus for 10 us (1000 B at 100 MB/s) from t = 0.
  bus.transfer(kTimeZero, 1000, 100e6);
  std::int64_t end = -1;
  std::int64_t* out = &end;
  kernel.at(kTimeZero, [&] {
    cp.submit(Command{a, nullptr, [out](WorkContext& ctx, Message*) {
                        ctx.transfer(100);  // ready at 1 us, bus free at 10 us, 1 us of transfer
                        *out = to_ps(ctx.now());
                      }});
  });
  kernel.run();
  EXPECT_EQ(end, to_ps(11_us));
  EXPECT_EQ(bus.contention_wait(), 9_us);
}

TEST_F(CpFixture, MessagesAreStampedWhenQueuedAndStarted) {
  MessagePool pool;
  Message* m = pool.acquire();
  kernel.at(kTimeZero, [&] { cp.submit(Command{b, nullptr, {}}); });
  kernel.at(kTimeZero + 1_us, [&] { cp.submit(Command{a, m, {}}); });
  kernel.run();
  const auto stamps = m->chain.stamps();
  ASSERT_EQ(stamps.size(), 2u);
  EXPECT_EQ(stamps[0].point, StampPoint::CpQueued);
  EXPECT_EQ(stamps[0].time, kTimeZero + 1_us);
  EXPECT_EQ(stamps[1].point, StampPoint::CpStarted);
  EXPECT_EQ(stamps[1].time, kTimeZero + 2_us);
  EXPECT_EQ(stamps[1].node, node_id(3));
  EXPECT_EQ(stamps[1].resource, Resource::CP);
}

}  // namespace
}  // namespace ncp2::emu
