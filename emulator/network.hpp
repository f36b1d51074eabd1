#pragma once
// The interconnect: directed cables with bandwidth and latency, joined by crossbar switches
// (Myrinet-like, 8 ports). Routing is virtual cut-through with buffering in the switches: a
// message's head crosses each cable after that cable is free, the cable stays busy for the
// message's serialization time, and the head waits the switch delay inside each switch. So
// contention appears where it does in a crossbar — at switch output ports and node links — and an
// uncontended B-byte message through one switch takes
//     2 x link_latency + switch_delay + (B + header) / bandwidth.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "emulator/config.hpp"
#include "emulator/ids.hpp"
#include "emulator/kernel.hpp"
#include "emulator/message.hpp"

namespace ncp2::emu {

struct CableStats {
  std::uint64_t messages = 0;
  std::int64_t bytes = 0;
  Duration busy{0};
  Duration contention{0};  // total time heads waited for this cable
};

class Network {
 public:
  using Deliver = std::function<void(Message*)>;

  Network(Kernel& kernel, const NetworkConfig& config, int nodes);

  // Delivery callback: called at the time the message's tail reaches its destination.
  void set_deliver(Deliver deliver) { deliver_ = std::move(deliver); }

  // Injects `m` (source and destination set) at time `when` (>= now). A message to its own node
  // is delivered at `when` without touching the network.
  void send(Message* m, TimePoint when);

  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int switch_count() const { return switches_; }
  // Switches crossed between two nodes (0 for a node to itself).
  [[nodiscard]] int switches_between(NodeId a, NodeId b) const;
  // Time an isolated message of `payload_bytes` takes from injection to tail delivery.
  [[nodiscard]] Duration uncontended_time(NodeId a, NodeId b, std::int64_t payload_bytes) const;
  [[nodiscard]] std::string describe() const;

  [[nodiscard]] std::uint64_t messages() const { return messages_; }
  [[nodiscard]] std::int64_t bytes() const { return bytes_; }
  [[nodiscard]] Duration total_contention() const;
  [[nodiscard]] const CableStats& injection_stats(NodeId n) const;
  [[nodiscard]] const CableStats& ejection_stats(NodeId n) const;

 private:
  TransferTimeMemo serialization_;  // of a message's wire bytes on a link
  struct Cable {
    int to_switch = -1;  // switch at the far end, or -1 when it ends at a node
    TimePoint free_at = kTimeZero;
    CableStats stats;
  };

  void build(Topology topology);
  int add_switch();
  void connect_node(int node, int sw);
  void connect_switches(int a, int b);
  void compute_routes();
  // The head of `m` is ready to enter `cable` at `head_time`.
  void cross(Message* m, std::uint32_t cable, TimePoint head_time);
  [[nodiscard]] std::uint32_t next_cable(int at_switch, NodeId destination) const;

  Kernel& kernel_;
  NetworkConfig config_;
  int nodes_;
  int switches_ = 0;
  std::vector<int> switch_ports_used_;
  std::vector<Cable> cables_;
  std::vector<std::uint32_t> injection_;  // node -> cable node->switch
  std::vector<std::uint32_t> ejection_;   // node -> cable switch->node
  std::vector<int> node_switch_;          // node -> its switch
  // adjacency: per switch, (neighbour switch, cable id toward it)
  std::vector<std::vector<std::pair<int, std::uint32_t>>> links_;
  // Routing table: (switch * switches + target switch) -> first cable on a shortest path.
  std::vector<std::uint32_t> next_hop_;
  Deliver deliver_;
  std::uint64_t messages_ = 0;
  std::int64_t bytes_ = 0;
};

}  // namespace ncp2::emu
