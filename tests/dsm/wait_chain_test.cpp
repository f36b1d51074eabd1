// Wait characterizations: the stamp chain of each wait folded into the paper's Table 1.
#include <gtest/gtest.h>

#include "tests/dsm/harness.hpp"

namespace ncp2::dsm {
namespace {
using namespace emu::literals;
using testing::Harness;
using testing::machine;
using W = WaitPart;

const WaitRecord* find_wait(const std::vector<WaitRecord>& waits, int node, Operation op) {
  for (const auto& w : waits)
    if (emu::index(w.node) == node && w.operation == op) return &w;
  return nullptr;
}

// Node 1 reads a page homed at node 0, nothing else happening: every interval of the paper's
// figure 1 predicted from the configuration alone.
TEST(WaitChain, Ncp2PageFetchIntervalsMatchTheConfiguration) {
  Harness h(machine(emu::MachineKind::Ncp2, 2));
  h.run([](Process& p) {
    auto a = p.alloc<std::int64_t>("a", 512);
    if (p.id() == 1) (void)p.view(a).get(0);
  });
  const WaitRecord* w = find_wait(h.waits, 1, Operation::PageFault);
  ASSERT_NE(w, nullptr);
  const auto& c = h.cfg;
  const double dma = std::min(c.cp.dma_bandwidth, c.memory.bus_bandwidth);
  auto net = [&](std::int64_t payload) {
    return 2 * c.network.link_latency + c.network.switch_delay +
           emu::transfer_time(payload + c.network.header_bytes, c.network.link_bandwidth);
  };
  const std::int64_t request = 8;
  const std::int64_t reply = c.memory.page_size + 8;
  const WaitBreakdown b = fold_wait(w->chain, w->node, true);
  EXPECT_EQ(b.by_interval[1], 0_ps);  // the local CP was idle
  EXPECT_EQ(b.by_interval[2], c.cp.cost_of("local_page_request") + emu::transfer_time(request, dma));
  EXPECT_EQ(b.by_interval[3], net(request));
  EXPECT_EQ(b.by_interval[4], 0_ps);
  EXPECT_EQ(b.by_interval[5], c.cp.cost_of("remote_page_request") +
                                  emu::transfer_time(request + c.network.header_bytes, dma) +  // request in
                                  emu::transfer_time(reply, dma));                             // page out
  for (int i = 6; i <= 9; ++i) EXPECT_EQ(b.by_interval[static_cast<std::size_t>(i)], 0_ps) << i;
  EXPECT_EQ(b.by_interval[10], net(reply));
  EXPECT_EQ(b.by_interval[11], 0_ps);
  EXPECT_EQ(b.by_interval[12],
            c.cp.cost_of("page_reply") + emu::transfer_time(reply + c.network.header_bytes, dma));
  EXPECT_EQ(b.by_interval[13], c.pp.interrupt_overhead + c.pp.notification_handler);
  EXPECT_EQ(b[W::SyncDelay], 0_ps);
  EXPECT_EQ(b.total, w->end - w->start);
  emu::Duration sum{0};
  for (int i = 1; i <= 13; ++i) sum += b.by_interval[static_cast<std::size_t>(i)];
  EXPECT_EQ(sum, b.total);
}

// On treadmarks the remote side is the PP, entered by interrupt: PPRWait and PPRComp carry the
// remote work and the CP rows are the PPs' own protocol work.
TEST(WaitChain, TreadMarksPageFetchIsMadeOfRemoteInterrupts) {
  Harness h(machine(emu::MachineKind::TreadMarks, 2));
  h.run([](Process& p) {
    auto a = p.alloc<std::int64_t>("a", 512);
    if (p.id() == 1) (void)p.view(a).get(0);
  });
  const WaitRecord* w = find_wait(h.waits, 1, Operation::PageFault);
  ASSERT_NE(w, nullptr);
  const auto& c = h.cfg;
  const WaitBreakdown b = fold_wait(w->chain, w->node, false);
  EXPECT_EQ(b[W::PPRWait], c.pp.interrupt_overhead);
  EXPECT_GT(b[W::PPRComp], c.pp.receive_overhead + c.pp.send_overhead);  // + copies
  EXPECT_EQ(b[W::CPRWait], 0_ps);
  EXPECT_EQ(b[W::CPRComp], 0_ps);
  EXPECT_EQ(b[W::CPLWait], c.pp.interrupt_overhead);  // the reply's interrupt at home
  EXPECT_GT(b[W::CPLComp], c.pp.send_overhead + c.pp.receive_overhead);
  EXPECT_EQ(b.total, w->end - w->start);
}

TEST(WaitChain, BarrierDelayIsAttributedToTheLastArrival) {
  for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    Harness h(machine(kind, 4));
    h.run([](Process& p) {
      if (p.id() == 2) p.compute(1_ms);  // the straggler
      p.barrier(0);
    });
    int checked = 0;
    for (const auto& w : h.waits) {
      if (w.operation != Operation::Barrier || w.object != 0 || emu::index(w.node) == 2) continue;
      const WaitBreakdown b = fold_wait(w.chain, w.node, kind == emu::MachineKind::Ncp2);
      EXPECT_TRUE(b.has_cause);
      EXPECT_EQ(emu::index(b.cause), 2);
      // Arrivals travel the same path, so a non-manager waits the straggler's extra millisecond,
      // less the time its own arrival queued behind the others' at the manager (simultaneous
      // arrivals are handled one by one by the manager PP's barrier handler: at most two here).
      // The manager's delay counts from its own, local, earlier arrival.
      if (emu::index(w.node) != 0) {
        EXPECT_LE(b[W::SyncDelay], 1_ms);
        EXPECT_GT(b[W::SyncDelay], 1_ms - 2 * (h.cfg.pp.interrupt_overhead + h.cfg.pp.receive_overhead +
                                               h.cfg.dsm.protocol_handler + 5_us));
      } else {
        EXPECT_GE(b[W::SyncDelay], 1_ms);
        EXPECT_LT(b[W::SyncDelay], 1_ms + 50_us);
      }
      EXPECT_EQ(b.total, w.end - w.start);
      ++checked;
    }
    EXPECT_EQ(checked, 3);
    // The straggler itself waited only for the protocol.
    for (const auto& w : h.waits) {
      if (w.operation == Operation::Barrier && w.object == 0 && emu::index(w.node) == 2) {
        EXPECT_EQ(fold_wait(w.chain, w.node, kind == emu::MachineKind::Ncp2)[W::SyncDelay], 0_ps);
      }
    }
  }
}

TEST(WaitChain, Ncp2BarrierRunsThroughTheManagersPp) {
  Harness h(machine(emu::MachineKind::Ncp2, 3));
  h.run([](Process& p) { p.barrier(0); });
  for (const auto& w : h.waits) {
    if (w.operation != Operation::Barrier || w.object != 0 || emu::index(w.node) == 0) continue;
    const WaitBreakdown b = fold_wait(w.chain, w.node, true);
    EXPECT_EQ(b.total, w.end - w.start);
    EXPECT_GT(b[W::CPLComp], 0_ps);
    EXPECT_GT(b[W::CPComm], 0_ps);
    EXPECT_GT(b[W::CPRComp], 0_ps);
    EXPECT_GE(b[W::PPRWait], h.cfg.pp.interrupt_overhead);  // the barrier handler, by interrupt
    EXPECT_GT(b[W::PPRComp], 0_ps);
    EXPECT_GT(b[W::PPLWait], 0_ps);
    for (int i : {1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13})
      EXPECT_GE(b.by_interval[static_cast<std::size_t>(i)], 0_ps);
  }
}

TEST(WaitChain, LockWaitForTheHolderIsSynchronizationDelayCausedByIt) {
  for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    Harness h(machine(kind, 3));
    h.run([](Process& p) {
      if (p.id() == 2) {
        auto g = p.lock(1);
        p.barrier(0);
        p.compute(500_us);  // holds the lock while node 0 asks for it
      } else {
        p.barrier(0);
        if (p.id() == 0) {
          auto g = p.lock(1);
        }
      }
    });
    const WaitRecord* w = find_wait(h.waits, 0, Operation::LockAcquire);
    ASSERT_NE(w, nullptr);
    const WaitBreakdown b = fold_wait(w->chain, w->node, kind == emu::MachineKind::Ncp2);
    EXPECT_TRUE(b.has_cause);
    EXPECT_EQ(emu::index(b.cause), 2);
    EXPECT_GT(b[W::SyncDelay], 400_us);
    EXPECT_EQ(b.total, w->end - w->start);
  }
}

TEST(WaitChain, EveryWaitOfAMixedRunFoldsExactly) {
  for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    Harness h(machine(kind, 5));
    h.run([](Process& p) {
      auto a = p.alloc<std::int32_t>("a", 3000);
      auto v = p.view(a);
      for (int round = 0; round < 3; ++round) {
        for (auto i = static_cast<std::size_t>(p.id()); i < a.size(); i += 5) v.set(i, v.get(i) + round);
        {
          auto g = p.lock(static_cast<std::uint32_t>(round));
          v.set(7, v.get(7) + 1);
        }
        p.barrier(0);
      }
    });
    ASSERT_GT(h.waits.size(), 20u);
    for (const auto& w : h.waits) {
      const WaitBreakdown b = fold_wait(w.chain, w.node, kind == emu::MachineKind::Ncp2);
      EXPECT_EQ(b.total, w.end - w.start) << to_string(w.operation);
      for (auto d : b.by_category) EXPECT_GE(d, 0_ps);
      EXPECT_EQ(w.chain.dropped(), 0u);
    }
  }
}

}  // namespace
}  // namespace ncp2::dsm
