#include "emulator/network.hpp"

#include <deque>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::emu {

namespace {
constexpr std::uint32_t kNoCable = std::numeric_limits<std::uint32_t>::max();
}

Network::Network(Kernel& kernel, const NetworkConfig& config, int nodes)
    : kernel_(kernel), config_(config), nodes_(nodes) {
  if (nodes < 1) throw std::invalid_argument("a network needs at least one node");
  injection_.assign(static_cast<std::size_t>(nodes), kNoCable);
  ejection_.assign(static_cast<std::size_t>(nodes), kNoCable);
  node_switch_.assign(static_cast<std::size_t>(nodes), -1);
  build(config.topology);
  compute_routes();
}

int Network::add_switch() {
  switch_ports_used_.push_back(0);
  links_.emplace_back();
  return switches_++;
}

void Network::connect_node(int node, int sw) {
  auto& used = switch_ports_used_[static_cast<std::size_t>(sw)];
  if (used >= config_.switch_ports)
    throw ConfigError("internal: switch port overflow while building topology");
  ++used;
  node_switch_[static_cast<std::size_t>(node)] = sw;
  injection_[static_cast<std::size_t>(node)] = static_cast<std::uint32_t>(cables_.size());
  cables_.push_back(Cable{sw, kTimeZero, {}});
  ejection_[static_cast<std::size_t>(node)] = static_cast<std::uint32_t>(cables_.size());
  cables_.push_back(Cable{-1, kTimeZero, {}});
}

void Network::connect_switches(int a, int b) {
  for (int s : {a, b}) {
    auto& used = switch_ports_used_[static_cast<std::size_t>(s)];
    if (used >= config_.switch_ports)
      throw ConfigError("internal: switch port overflow while building topology");
    ++used;
  }
  links_[static_cast<std::size_t>(a)].emplace_back(b, static_cast<std::uint32_t>(cables_.size()));
  cables_.push_back(Cable{b, kTimeZero, {}});
  links_[static_cast<std::size_t>(b)].emplace_back(a, static_cast<std::uint32_t>(cables_.size()));
  cables_.push_back(Cable{a, kTimeZero, {}});
}

void Network::build(Topology topology) {
  const int ports = config_.switch_ports;
  if (nodes_ <= ports || topology == Topology::Star) {
    if (nodes_ > ports)
      throw ConfigError(
          fmt::format("key 'network.topology': a star of {} ports cannot connect {} nodes", ports, nodes_));
    const int sw = add_switch();
    for (int n = 0; n < nodes_; ++n) connect_node(n, sw);
    return;
  }
  if (ports < 3)
    throw ConfigError(
        fmt::format("key 'network.switch_ports': cascading switches needs at least 3 ports, got {}", ports));
  if (topology == Topology::Chain) {
    // Switches in a line; each keeps two ports for its neighbours (the ends use one of them).
    const int per_switch = ports - 2;
    int node = 0;
    int previous = -1;
    while (node < nodes_) {
      const int sw = add_switch();
      if (previous >= 0) connect_switches(previous, sw);
      const int take = std::min(per_switch, nodes_ - node);
      for (int i = 0; i < take; ++i) connect_node(node++, sw);
      previous = sw;
    }
    return;
  }
  // Tree (and auto): leaf switches hold ports-1 nodes and one uplink; parents group ports-1
  // children, until one root can take all remaining children on its `ports` ports.
  std::vector<int> level;  // switches of the current level
  for (int node = 0; node < nodes_;) {
    const int sw = add_switch();
    const int take = std::min(ports - 1, nodes_ - node);
    for (int i = 0; i < take; ++i) connect_node(node++, sw);
    level.push_back(sw);
  }
  while (level.size() > 1) {
    std::vector<int> parents;
    const std::size_t group =
        level.size() <= static_cast<std::size_t>(ports) ? level.size() : static_cast<std::size_t>(ports - 1);
    for (std::size_t i = 0; i < level.size(); i += group) {
      const int parent = add_switch();
      for (std::size_t j = i; j < std::min(level.size(), i + group); ++j) connect_switches(level[j], parent);
      parents.push_back(parent);
    }
    level = std::move(parents);
  }
}

void Network::compute_routes() {
  const auto S = static_cast<std::size_t>(switches_);
  next_hop_.assign(S * S, kNoCable);
  // BFS from every switch; record the first cable taken from the source. Deterministic: the
  // adjacency lists are built in a fixed order.
  for (std::size_t src = 0; src < S; ++src) {
    std::vector<std::uint32_t> first(S, kNoCable);
    std::vector<bool> seen(S, false);
    std::deque<std::size_t> frontier{src};
    seen[src] = true;
    while (!frontier.empty()) {
      const std::size_t at = frontier.front();
      frontier.pop_front();
      for (const auto& [next, cable] : links_[at]) {
        const auto nx = static_cast<std::size_t>(next);
        if (seen[nx]) continue;
        seen[nx] = true;
        first[nx] = at == src ? cable : first[at];
        frontier.push_back(nx);
      }
    }
    for (std::size_t dst = 0; dst < S; ++dst) next_hop_[src * S + dst] = first[dst];
  }
}

std::uint32_t Network::next_cable(int at_switch, NodeId destination) const {
  const int target = node_switch_[static_cast<std::size_t>(index(destination))];
  if (target == at_switch) return ejection_[static_cast<std::size_t>(index(destination))];
  return next_hop_[static_cast<std::size_t>(at_switch) * static_cast<std::size_t>(switches_) +
                   static_cast<std::size_t>(target)];
}

void Network::send(Message* m, TimePoint when) {
  if (index(m->destination) < 0 || index(m->destination) >= nodes_ || index(m->source) >= nodes_)
    throw std::out_of_range(fmt::format("message from node {} to node {}: no such node (cluster of {})",
                                        index(m->source), index(m->destination), nodes_));
  m->wire_bytes = m->payload_bytes + static_cast<std::uint32_t>(config_.header_bytes);
  m->serialization = serialization_(m->wire_bytes, config_.link_bandwidth);
  ++messages_;
  bytes_ += m->wire_bytes;
  if (m->source == m->destination) {
    // Loopback inside the node's interface: no cable is used.
    if (when == kernel_.now()) {
      m->chain.add(when, StampPoint::Delivered, Resource::CP, m->destination);
      deliver_(m);
    } else {
      kernel_.at(when, [this, m] {
        m->chain.add(kernel_.now(), StampPoint::Delivered, Resource::CP, m->destination);
        deliver_(m);
      });
    }
    return;
  }
  // The injection cable is used only by its own node, whose sends are serialized (one CP, or
  // one PP): reserving it ahead of the clock keeps the order, so no event is needed here.
  cross(m, injection_[static_cast<std::size_t>(index(m->source))], when);
}

void Network::cross(Message* m, std::uint32_t cable_id, TimePoint head_time) {
  Cable& cable = cables_[cable_id];
  const TimePoint start = std::max(head_time, cable.free_at);
  cable.free_at = start + m->serialization;
  cable.stats.messages += 1;
  cable.stats.bytes += m->wire_bytes;
  cable.stats.busy += m->serialization;
  cable.stats.contention += start - head_time;
  if (cable_id == injection_[static_cast<std::size_t>(index(m->source))])
    m->chain.add(start, StampPoint::Injected, Resource::CP, m->source);
  const TimePoint head_arrival = start + config_.link_latency;
  if (cable.to_switch >= 0) {
    const std::uint32_t next = next_cable(cable.to_switch, m->destination);
    kernel_.at(head_arrival + config_.switch_delay, [this, m, next] { cross(m, next, kernel_.now()); });
  } else {
    kernel_.at(head_arrival + m->serialization, [this, m] {
      m->chain.add(kernel_.now(), StampPoint::Delivered, Resource::CP, m->destination);
      kernel_.trace(0xDE, m->id, static_cast<std::uint64_t>(index(m->destination)));
      deliver_(m);
    });
  }
}

int Network::switches_between(NodeId a, NodeId b) const {
  if (a == b) return 0;
  int count = 0;
  std::uint32_t cable = injection_[static_cast<std::size_t>(index(a))];
  while (cables_[cable].to_switch >= 0) {
    ++count;
    cable = next_cable(cables_[cable].to_switch, b);
  }
  return count;
}

Duration Network::uncontended_time(NodeId a, NodeId b, std::int64_t payload_bytes) const {
  if (a == b) return Duration{0};
  const int switches = switches_between(a, b);
  const Duration serialization = transfer_time(payload_bytes + config_.header_bytes, config_.link_bandwidth);
  return (switches + 1) * config_.link_latency + switches * config_.switch_delay + serialization;
}

std::string Network::describe() const {
  std::string out = fmt::format("{} node(s), {} switch(es) of {} ports, {} cables", nodes_, switches_,
                                config_.switch_ports, cables_.size());
  for (int s = 0; s < switches_; ++s) {
    std::string attached;
    for (int n = 0; n < nodes_; ++n)
      if (node_switch_[static_cast<std::size_t>(n)] == s) attached += fmt::format(" n{}", n);
    for (const auto& [other, cable] : links_[static_cast<std::size_t>(s)])
      attached += fmt::format(" s{}", other);
    out += fmt::format("\n  switch s{}:{}", s, attached);
  }
  return out;
}

Duration Network::total_contention() const {
  Duration total{0};
  for (const auto& c : cables_) total += c.stats.contention;
  return total;
}

const CableStats& Network::injection_stats(NodeId n) const {
  return cables_.at(injection_.at(static_cast<std::size_t>(index(n)))).stats;
}
const CableStats& Network::ejection_stats(NodeId n) const {
  return cables_.at(ejection_.at(static_cast<std::size_t>(index(n)))).stats;
}

}  // namespace ncp2::emu
