#include "emulator/config.hpp"
#include "emulator/config_internal.hpp"

#include <cmath>

#include <fmt/format.h>

namespace ncp2::emu {

using namespace std::string_view_literals;

std::string_view to_string(MachineKind k) { return k == MachineKind::Ncp2 ? "ncp2" : "treadmarks"; }

std::string_view to_string(Topology t) {
  switch (t) {
    case Topology::Auto:
      return "auto";
    case Topology::Star:
      return "star";
    case Topology::Tree:
      return "tree";
    case Topology::Chain:
      return "chain";
  }
  return "auto";
}

Duration CpConfig::cost_of(std::string_view command) const {
  auto it = command_cost.find(command);
  if (it == command_cost.end())
    throw ConfigError(
        fmt::format("no cost configured for CP command '{}' (key cp.command_cost.{})", command, command));
  return it->second;
}

MachineConfig default_machine_config(MachineKind kind) {
  using namespace literals;
  MachineConfig c;
  c.machine.kind = kind;
  c.machine.nodes = 8;

  c.pp.clock_mhz = 100.0;
  c.pp.interrupt_overhead = 4_us;  // ~400 cycles of a 100 MHz PowerPC 604 under a Unix kernel
  c.pp.command_post = 200_ns;
  c.pp.notification_handler = 1_us;
  c.pp.send_overhead = 15_us;
  c.pp.receive_overhead = 15_us;
  c.pp.copy_bandwidth = 100e6;

  c.cp.clock_mhz = 100.0;
  c.cp.dma_bandwidth = 132e6;  // a 32-bit, 33 MHz PCI-class I/O bus
  for (const auto& cmd : config_detail::kCommandDefaults)
    c.cp.command_cost[std::string(cmd.name)] = nanoseconds(cmd.ns);

  c.memory.bus_bandwidth = 533e6;  // 64-bit 60X bus at 66 MHz
  c.memory.dram_mb = 32;
  c.memory.l2_kb = 256;
  c.memory.page_size = 4096;
  c.memory.word_size = 4;

  c.network.link_bandwidth = 1.28e9 / 8;  // 1.28 Gbit/s = 160 MB/s
  c.network.link_latency = 100_ns;
  c.network.switch_delay = 500_ns;
  c.network.switch_ports = 8;
  c.network.topology = Topology::Auto;
  c.network.header_bytes = 16;

  c.emulator.fiber_stack_kb = 256;
  return c;
}

void validate(const MachineConfig& c) {
  auto fail = [](std::string_view key, const std::string& why) {
    throw ConfigError(fmt::format("key '{}': {}", key, why));
  };
  auto positive_bw = [&](std::string_view key, double v) {
    if (!(v > 0) || !std::isfinite(v)) fail(key, fmt::format("bandwidth must be positive, got {}", v));
  };
  auto non_negative = [&](std::string_view key, Duration d) {
    if (d.count() < 0) fail(key, "duration must not be negative");
  };
  if (c.machine.nodes < 1)
    fail("machine.nodes", fmt::format("at least 1 node is needed, got {}", c.machine.nodes));
  if (c.machine.nodes > kMaxNodes)
    fail("machine.nodes", fmt::format("at most {} nodes are supported, got {}", kMaxNodes, c.machine.nodes));
  if (!(c.pp.clock_mhz > 0)) fail("pp.clock_mhz", "clock must be positive");
  if (!(c.cp.clock_mhz > 0)) fail("cp.clock_mhz", "clock must be positive");
  non_negative("pp.interrupt_overhead", c.pp.interrupt_overhead);
  non_negative("pp.command_post", c.pp.command_post);
  non_negative("pp.notification_handler", c.pp.notification_handler);
  non_negative("pp.send_overhead", c.pp.send_overhead);
  non_negative("pp.receive_overhead", c.pp.receive_overhead);
  non_negative("pp.message_per_byte", c.pp.message_per_byte);
  non_negative("pp.busy_handler_delay", c.pp.busy_handler_delay);
  non_negative("pp.busy_handler_delay_quiet", c.pp.busy_handler_delay_quiet);
  non_negative("pp.busy_handler_quiet_after", c.pp.busy_handler_quiet_after);
  positive_bw("pp.copy_bandwidth", c.pp.copy_bandwidth);
  positive_bw("cp.dma_bandwidth", c.cp.dma_bandwidth);
  for (const auto& [name, cost] : c.cp.command_cost) non_negative("cp.command_cost." + name, cost);
  positive_bw("memory.bus_bandwidth", c.memory.bus_bandwidth);
  if (c.memory.word_size <= 0 || (c.memory.word_size & (c.memory.word_size - 1)) != 0)
    fail("memory.word_size", fmt::format("must be a positive power of two, got {}", c.memory.word_size));
  if (c.memory.page_size < c.memory.word_size || c.memory.page_size % c.memory.word_size != 0 ||
      (c.memory.page_size & (c.memory.page_size - 1)) != 0)
    fail("memory.page_size",
         fmt::format("must be a power of two and a multiple of the word size, got {}", c.memory.page_size));
  if (c.memory.dram_mb <= 0) fail("memory.dram_mb", "must be positive");
  if (c.memory.l2_kb < 0) fail("memory.l2_kb", "must not be negative");
  positive_bw("network.link_bandwidth", c.network.link_bandwidth);
  non_negative("network.link_latency", c.network.link_latency);
  non_negative("network.switch_delay", c.network.switch_delay);
  if (c.network.header_bytes < 0) fail("network.header_bytes", "must not be negative");
  const int ports = c.network.switch_ports;
  if (ports < 2) fail("network.switch_ports", fmt::format("a switch needs at least 2 ports, got {}", ports));
  const int n = c.machine.nodes;
  switch (c.network.topology) {
    case Topology::Star:
      if (n > ports)
        fail("network.topology", fmt::format("a star has one switch of {} ports and cannot connect {} "
                                             "nodes; use \"tree\", \"chain\" or \"auto\"",
                                             ports, n));
      break;
    case Topology::Tree:
    case Topology::Auto:
      if (n > ports && ports < 3)
        fail("network.topology",
             fmt::format("cascading switches needs at least 3 ports per switch, got {}", ports));
      break;
    case Topology::Chain:
      if (n > ports && ports < 3)
        fail("network.topology",
             fmt::format("a chain of switches needs at least 3 ports per switch, got {}", ports));
      break;
  }
  if (c.emulator.fiber_stack_kb < 16)
    fail("emulator.fiber_stack_kb",
         fmt::format("at least 16 KiB are needed, got {}", c.emulator.fiber_stack_kb));
}

}  // namespace ncp2::emu