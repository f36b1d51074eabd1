// The node and network model end to end: messages through the CPs (ncp2) or the PPs' software
// path (treadmarks), with times predicted from the configuration alone.
#include <gtest/gtest.h>

#include "emulator/traffic_patterns.hpp"

namespace ncp2::emu {
namespace {
using namespace literals;

MachineConfig machine(MachineKind kind, int nodes) {
  MachineConfig c = default_machine_config(kind);
  c.machine.nodes = nodes;
  return c;
}

TrafficOptions pattern(TrafficPattern p, int rounds, std::uint32_t bytes = 64) {
  TrafficOptions o;
  o.pattern = p;
  o.rounds = rounds;
  o.payload_bytes = bytes;
  return o;
}

TEST(Traffic, SameRunTwiceGivesAnIdenticalEventTrace) {
  for (MachineKind kind : {MachineKind::Ncp2, MachineKind::TreadMarks}) {
    TrafficOptions o = pattern(TrafficPattern::Barrier, 5);
    o.trace_hash = true;
    o.compute_between_rounds = 3_us;
    const TrafficResult a = run_traffic(machine(kind, 8), o);
    const TrafficResult b = run_traffic(machine(kind, 8), o);
    EXPECT_EQ(a.trace_digest, b.trace_digest);
    EXPECT_EQ(a.run.end_time, b.run.end_time);
    EXPECT_EQ(a.run.events, b.run.events);
    MachineConfig slower = machine(kind, 8);
    slower.network.link_latency += 1_ps;
    EXPECT_NE(run_traffic(slower, o).trace_digest, a.trace_digest);
  }
}

TEST(Traffic, FastForwardChangesNoResult) {
  for (MachineKind kind : {MachineKind::Ncp2, MachineKind::TreadMarks}) {
    TrafficOptions o = pattern(TrafficPattern::Barrier, 4);
    o.compute_between_rounds = 7_us;
    o.record_messages = true;
    const TrafficResult fast = run_traffic(machine(kind, 6), o);
    o.fast_forward = false;
    const TrafficResult slow = run_traffic(machine(kind, 6), o);
    EXPECT_EQ(fast.run.end_time, slow.run.end_time);
    EXPECT_LT(fast.run.events, slow.run.events);  // it did skip work
    ASSERT_EQ(fast.records.size(), slow.records.size());
    for (std::size_t i = 0; i < fast.records.size(); ++i) {
      ASSERT_EQ(fast.records[i].stamps.size(), slow.records[i].stamps.size());
      for (std::size_t j = 0; j < fast.records[i].stamps.size(); ++j)
        EXPECT_EQ(fast.records[i].stamps[j].time, slow.records[i].stamps[j].time);
    }
    for (std::size_t n = 0; n < fast.nodes.size(); ++n) EXPECT_EQ(fast.nodes[n].finish, slow.nodes[n].finish);
  }
}

TEST(Traffic, BarrierRoundCostsTwoMessagesPerOtherNode) {
  for (MachineKind kind : {MachineKind::Ncp2, MachineKind::TreadMarks}) {
    for (int n = 1; n <= 9; ++n) {
      const TrafficResult r = run_traffic(machine(kind, n), pattern(TrafficPattern::Barrier, 3));
      EXPECT_EQ(r.run.status, RunStatus::Completed) << r.run.diagnosis;
      EXPECT_EQ(r.messages, std::uint64_t{3} * 2 * static_cast<std::uint64_t>(n - 1)) << "n=" << n;
    }
  }
}

// One ping-pong round on ncp2, step by step from the configuration: the PP posts SEND_MESSAGE,
// the CP executes it (cost + DMA of the payload), the network carries it, the receiving CP
// executes RECEIVE_MESSAGE (cost + DMA of payload and header) and interrupts its PP, whose
// notification handler wakes the waiting fiber. The pong retraces the same steps.
TEST(Traffic, Ncp2PingPongRoundTripMatchesTheConfiguration) {
  const MachineConfig c = machine(MachineKind::Ncp2, 2);
  const std::int64_t bytes = 64;
  const double dma = std::min(c.cp.dma_bandwidth, c.memory.bus_bandwidth);
  const Duration one_way = c.pp.command_post + c.cp.cost_of("send_message") + transfer_time(bytes, dma) +
                           2 * c.network.link_latency + c.network.switch_delay +
                           transfer_time(bytes + c.network.header_bytes, c.network.link_bandwidth) +
                           c.cp.cost_of("receive_message") +
                           transfer_time(bytes + c.network.header_bytes, dma) + c.pp.interrupt_overhead +
                           c.pp.notification_handler;
  const TrafficResult r = run_traffic(c, pattern(TrafficPattern::PingPong, 1, bytes));
  ASSERT_EQ(r.run.status, RunStatus::Completed) << r.run.diagnosis;
  EXPECT_EQ(r.nodes[0].finish, kTimeZero + 2 * one_way);
  EXPECT_EQ(r.nodes[1].finish, kTimeZero + one_way + c.pp.command_post);
  EXPECT_EQ(r.nodes[0].cp_commands, 2u);  // send the ping, receive the pong
  EXPECT_EQ(r.nodes[1].interrupts, 1u);
}

// The same on treadmarks: no CP; the sender's PP runs the software send path and copies the
// payload; the receiver's PP is interrupted and runs the receive path, copying payload + header.
TEST(Traffic, TreadMarksPingPongRoundTripMatchesTheConfiguration) {
  const MachineConfig c = machine(MachineKind::TreadMarks, 2);
  const std::int64_t bytes = 64;
  const double copy = std::min(c.pp.copy_bandwidth, c.memory.bus_bandwidth);
  const Duration one_way =
      c.pp.send_overhead + transfer_time(bytes, copy) + 2 * c.network.link_latency + c.network.switch_delay +
      transfer_time(bytes + c.network.header_bytes, c.network.link_bandwidth) + c.pp.interrupt_overhead +
      c.pp.receive_overhead + transfer_time(bytes + c.network.header_bytes, copy);
  const TrafficResult r = run_traffic(c, pattern(TrafficPattern::PingPong, 1, bytes));
  ASSERT_EQ(r.run.status, RunStatus::Completed) << r.run.diagnosis;
  EXPECT_EQ(r.nodes[0].finish, kTimeZero + 2 * one_way);
  EXPECT_EQ(r.nodes[0].cp_commands, 0u);
  EXPECT_EQ(r.nodes[1].interrupts, 1u);
}

TEST(Traffic, RecordedChainsAreOrderedInTime) {
  TrafficOptions o = pattern(TrafficPattern::Barrier, 2);
  o.record_messages = true;
  for (MachineKind kind : {MachineKind::Ncp2, MachineKind::TreadMarks}) {
    const TrafficResult r = run_traffic(machine(kind, 5), o);
    ASSERT_EQ(r.records.size(), 16u);
    for (const auto& m : r.records) {
      ASSERT_GE(m.stamps.size(), 4u);
      EXPECT_EQ(m.stamps.front().point, StampPoint::Issued);
      EXPECT_EQ(m.stamps.back().point, StampPoint::PpHandlerStart);
      for (std::size_t i = 1; i < m.stamps.size(); ++i) EXPECT_LE(m.stamps[i - 1].time, m.stamps[i].time);
    }
  }
}

TEST(Traffic, ManyNodesOnCascadedSwitchesComplete) {
  const TrafficResult r = run_traffic(machine(MachineKind::Ncp2, 64), pattern(TrafficPattern::Barrier, 2));
  EXPECT_EQ(r.run.status, RunStatus::Completed);
  EXPECT_EQ(r.messages, 2u * 2u * 63u);
  EXPECT_GT(r.network_contention, 0_ps);  // 63 arrivals share node 0's link
}

}  // namespace
}  // namespace ncp2::emu
