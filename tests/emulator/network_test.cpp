#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "emulator/network.hpp"

namespace ncp2::emu {
namespace {
using namespace literals;

// A network on its own, recording when each message's tail arrives.
struct NetworkHarness {
  explicit NetworkHarness(int nodes, NetworkConfig cfg = default_machine_config(MachineKind::Ncp2).network)
      : config(cfg), network(kernel, config, nodes) {
    network.set_deliver([this](Message* m) { arrivals[m->id] = kernel.now(); });
  }
  std::uint64_t send_at(TimePoint t, int from, int to, std::uint32_t bytes) {
    Message* m = pool.acquire();
    m->source = node_id(from);
    m->destination = node_id(to);
    m->payload_bytes = bytes;
    kernel.at(t, [this, m] { network.send(m, kernel.now()); });
    return m->id;
  }
  Duration arrival(std::uint64_t id) { return arrivals.at(id) - kTimeZero; }

  Kernel kernel;
  NetworkConfig config;
  Network network;
  MessagePool pool;
  std::map<std::uint64_t, TimePoint> arrivals;
};

Duration serialization(const NetworkConfig& c, std::int64_t payload) {
  return transfer_time(payload + c.header_bytes, c.link_bandwidth);
}

TEST(Network, OneSwitchMessageTakesLatencyPlusSerializationPlusSwitchDelay) {
  NetworkHarness h(8);
  const auto id = h.send_at(kTimeZero, 2, 5, 4096);
  h.kernel.run();
  const NetworkConfig& c = h.config;
  // The path is two cables (node -> switch -> node) and one switch.
  const Duration expected = 2 * c.link_latency + c.switch_delay + serialization(c, 4096);
  EXPECT_EQ(h.arrival(id), expected);
  EXPECT_EQ(h.network.uncontended_time(node_id(2), node_id(5), 4096), expected);
  // With the defaults: 200 ns of cables, 500 ns switch, 4112 B at 160 MB/s = 25.7 us.
  EXPECT_EQ(expected, 200_ns + 500_ns + 25700_ns);
}

TEST(Network, TwoSendersToOneOutputPortSerialize) {
  NetworkHarness h(8);
  const auto first = h.send_at(kTimeZero, 1, 0, 1000);
  const auto second = h.send_at(kTimeZero, 2, 0, 1000);
  h.kernel.run();
  const Duration alone = h.network.uncontended_time(node_id(1), node_id(0), 1000);
  EXPECT_EQ(h.arrival(first), alone);
  EXPECT_EQ(h.arrival(second), alone + serialization(h.config, 1000));
  EXPECT_EQ(h.network.total_contention(), serialization(h.config, 1000));
  EXPECT_EQ(h.network.ejection_stats(node_id(0)).messages, 2u);
}

TEST(Network, DisjointPairsDoNotContendInTheCrossbar) {
  NetworkHarness h(8);
  const auto a = h.send_at(kTimeZero, 1, 2, 1000);
  const auto b = h.send_at(kTimeZero, 3, 4, 1000);
  h.kernel.run();
  EXPECT_EQ(h.arrival(a), h.arrival(b));
  EXPECT_EQ(h.network.total_contention(), 0_ps);
}

TEST(Network, OneSenderSerializesOnItsOwnLink) {
  NetworkHarness h(8);
  const auto a = h.send_at(kTimeZero, 1, 2, 1000);
  const auto b = h.send_at(kTimeZero, 1, 3, 1000);
  h.kernel.run();
  EXPECT_EQ(h.arrival(b) - h.arrival(a), serialization(h.config, 1000));
  EXPECT_EQ(h.network.injection_stats(node_id(1)).contention, serialization(h.config, 1000));
}

TEST(Network, LoopbackUsesNoCable) {
  NetworkHarness h(4);
  const auto id = h.send_at(kTimeZero + 3_us, 2, 2, 100);
  h.kernel.run();
  EXPECT_EQ(h.arrival(id), 3_us);
}

TEST(Network, CascadedTreeAddsTwoSwitchesPerLevelCrossed) {
  // 16 nodes on 8-port switches: leaves of 7 nodes (n0-6, n7-13, n14-15) under one root.
  NetworkConfig c = default_machine_config(MachineKind::Ncp2).network;
  c.topology = Topology::Tree;
  NetworkHarness h(16, c);
  EXPECT_EQ(h.network.switch_count(), 4);
  EXPECT_EQ(h.network.switches_between(node_id(0), node_id(6)), 1);
  EXPECT_EQ(h.network.switches_between(node_id(0), node_id(7)), 3);
  EXPECT_EQ(h.network.switches_between(node_id(15), node_id(0)), 3);
  const auto near = h.send_at(kTimeZero, 0, 6, 256);
  const auto far = h.send_at(kTimeZero + 100_us, 0, 7, 256);
  h.kernel.run();
  EXPECT_EQ(h.arrival(near), 2 * c.link_latency + c.switch_delay + serialization(c, 256));
  EXPECT_EQ(h.arrival(far) - 100_us, 4 * c.link_latency + 3 * c.switch_delay + serialization(c, 256));
}

TEST(Network, LargeTreesCascadeMoreLevels) {
  NetworkHarness h(64);  // auto: 10 leaves, 2 middle switches, 1 root
  EXPECT_EQ(h.network.switch_count(), 13);
  EXPECT_EQ(h.network.switches_between(node_id(0), node_id(63)), 5);
}

TEST(Network, ChainCrossesEverySwitchInBetween) {
  NetworkConfig c = default_machine_config(MachineKind::Ncp2).network;
  c.topology = Topology::Chain;
  NetworkHarness h(20, c);  // 6 nodes per switch: s0 n0-5, s1 n6-11, s2 n12-17, s3 n18-19
  EXPECT_EQ(h.network.switch_count(), 4);
  EXPECT_EQ(h.network.switches_between(node_id(0), node_id(19)), 4);
  const auto id = h.send_at(kTimeZero, 0, 19, 64);
  h.kernel.run();
  EXPECT_EQ(h.arrival(id), 5 * c.link_latency + 4 * c.switch_delay + serialization(c, 64));
}

TEST(Network, StarTooSmallForTheNodesIsAConfigurationError) {
  NetworkConfig c = default_machine_config(MachineKind::Ncp2).network;
  c.topology = Topology::Star;
  Kernel k;
  EXPECT_THROW(Network(k, c, 9), ConfigError);
}

TEST(Network, MessageToANonexistentNodeIsRejected) {
  NetworkHarness h(4);
  Message* m = h.pool.acquire();
  m->source = node_id(0);
  m->destination = node_id(9);
  EXPECT_THROW(h.network.send(m, kTimeZero), std::out_of_range);
}

TEST(Network, InjectionAndDeliveryAreStamped) {
  NetworkHarness h(4);
  Message* m = h.pool.acquire();
  m->source = node_id(0);
  m->destination = node_id(1);
  m->payload_bytes = 8;
  h.kernel.at(kTimeZero + 1_us, [&h, m] { h.network.send(m, h.kernel.now()); });
  h.kernel.run();
  const auto stamps = m->chain.stamps();
  ASSERT_EQ(stamps.size(), 2u);
  EXPECT_EQ(stamps[0].point, StampPoint::Injected);
  EXPECT_EQ(stamps[0].time, kTimeZero + 1_us);
  EXPECT_EQ(stamps[0].node, node_id(0));
  EXPECT_EQ(stamps[1].point, StampPoint::Delivered);
  EXPECT_EQ(stamps[1].time, kTimeZero + 1_us + h.network.uncontended_time(node_id(0), node_id(1), 8));
  EXPECT_EQ(stamps[1].node, node_id(1));
}

}  // namespace
}  // namespace ncp2::emu
