// The configuration keys: a data table (one entry per key, with its meaning and source).
#include "emulator/config.hpp"
#include "emulator/config_internal.hpp"

#include <fmt/format.h>

namespace ncp2::emu::config_detail {

const std::array<CommandDefault, 11> kCommandDefaults = {{
    {"send_message", 1000, "SEND_MESSAGE: build and inject a protocol message"},
    {"receive_message", 1000, "RECEIVE_MESSAGE: accept a message from the network"},
    {"local_page_request", 1000, "LOCAL_PAGE_REQUEST: look up the page's holder, send the request"},
    {"remote_page_request", 1500, "REMOTE_PAGE_REQUEST: set up the page read (DMA time is extra)"},
    {"page_reply", 1500, "PAGE_REPLY: write the page to memory (DMA time is extra)"},
    {"local_diff_request", 1500, "LOCAL_DIFF_REQUEST: find the writers, send the requests"},
    {"remote_diff_request", 2000, "REMOTE_DIFF_REQUEST: collect the logged writes into a diff"},
    {"diff_reply", 1500, "DIFF_REPLY: apply a diff to memory (DMA time is extra)"},
    {"apply_invalidations", 1000, "apply write notices received with a release"},
    {"lock_request", 1000, "handle a lock request at the manager or holder"},
    {"lock_grant", 1000, "handle a lock grant at the acquirer"},
}};

}  // namespace ncp2::emu::config_detail

namespace ncp2::emu {

using namespace config;  // NOLINT(google-build-using-namespace): the key builders

// NOLINTNEXTLINE(readability-function-size): a data table, one entry per configuration key.
std::vector<Key<MachineConfig>> machine_keys() {
  using C = MachineConfig;
  KeyList<C> k;

  k.keys.push_back(
      {{"machine.kind",
        Kind::Choice,
        "ncp2: protocol work on the CP; treadmarks: no CP, all protocol work on the PP by interrupt",
        "SPEC §1",
        {"ncp2", "treadmarks"},
        std::nullopt},
       [](MachineConfig& c, const Value& v) {
         c.machine.kind = v.text == "ncp2" ? MachineKind::Ncp2 : MachineKind::TreadMarks;
       },
       [](const MachineConfig& c) { return quoted(to_string(c.machine.kind)); }});
  k.integer(
      "machine.nodes", [](MachineConfig& c) -> int& { return c.machine.nodes; },
      "number of nodes (PP + CP each)", "default run size of the papers' figures", Range{1, kMaxNodes});

  k.real(
      "pp.clock_mhz", [](MachineConfig& c) -> double& { return c.pp.clock_mhz; },
      "main processor clock (PowerPC 604); converts cycle counts into time", kSpec, Range{0.001, 1e6});
  k.duration(
      "pp.interrupt_overhead", [](MachineConfig& c) -> Duration& { return c.pp.interrupt_overhead; },
      "time to enter and leave an interrupt handler; added to every handler", kAssumed);
  k.duration(
      "pp.command_post", [](MachineConfig& c) -> Duration& { return c.pp.command_post; },
      "PP writes one command into its CP's queue (ncp2)", kAssumed);
  k.duration(
      "pp.notification_handler", [](MachineConfig& c) -> Duration& { return c.pp.notification_handler; },
      "PP reads a notification the CP sent by interrupt (ncp2)", kAssumed);
  k.duration(
      "pp.send_overhead", [](MachineConfig& c) -> Duration& { return c.pp.send_overhead; },
      "software send path per message, system call + protocol stack (treadmarks)", kAssumed);
  k.duration(
      "pp.receive_overhead", [](MachineConfig& c) -> Duration& { return c.pp.receive_overhead; },
      "software receive path per message, inside the interrupt handler (treadmarks)", kAssumed);
  k.bandwidth(
      "pp.copy_bandwidth", [](MachineConfig& c) -> double& { return c.pp.copy_bandwidth; },
      "memcpy by the PP (twins, software diffs, message buffers)", kAssumed);
  k.duration(
      "pp.message_per_byte", [](MachineConfig& c) -> Duration& { return c.pp.message_per_byte; },
      "software cost per payload byte of a message at send and at receive, beyond the copy: programmed I/O, "
      "segmentation and reassembly (treadmarks)",
      "0: none; calibrated by the 1994 presets (configs/decstation-*-1994.toml)");
  k.integer(
      "pp.drain_interrupts", [](MachineConfig& c) -> int& { return c.pp.drain_interrupts; },
      "1: handlers queued behind a running one are served by the same interrupt, without a second "
      "interrupt_overhead (a SIGIO handler reading its socket until it is empty); 0: one interrupt each",
      "0: none; calibrated by the 1994 presets (configs/decstation-*-1994.toml)", Range{0, 1});
  k.duration(
      "pp.busy_handler_delay", [](MachineConfig& c) -> Duration& { return c.pp.busy_handler_delay; },
      "a message arriving while the PP computes waits this long for its handler: a real node's program and "
      "protocol server share a core and the host's scheduler decides when the server runs (treadmarks)",
      "0: interrupts preempt at once; measured by ncp2 calibrate --machine real (docs/validation.md)");
  k.duration(
      "pp.busy_handler_delay_quiet",
      [](MachineConfig& c) -> Duration& { return c.pp.busy_handler_delay_quiet; },
      "the same wait when no handler ran on the node for pp.busy_handler_quiet_after (a server that slept "
      "long is given the core sooner) (treadmarks)",
      "0; measured by ncp2 calibrate --machine real (docs/validation.md)");
  k.duration(
      "pp.busy_handler_quiet_after",
      [](MachineConfig& c) -> Duration& { return c.pp.busy_handler_quiet_after; },
      "how long without a handler makes the node's server quiet (pp.busy_handler_delay_quiet applies); 0: "
      "never (treadmarks)",
      "0; measured by ncp2 calibrate --machine real (docs/validation.md)");
  k.real(
      "pp.busy_handler_prompt_share",
      [](MachineConfig& c) -> double& { return c.pp.busy_handler_prompt_share; },
      "the share of arrivals that would wait pp.busy_handler_delay which the host's scheduler serves as "
      "promptly "
      "as a quiet server's (pp.busy_handler_delay_quiet), each drawn from the node's reproducible sequence: "
      "the "
      "measured wait is either short or a time slice, rarely between (treadmarks)",
      "0: every one waits; measured by ncp2 calibrate --machine real (docs/validation.md)", Range{0, 1});
  k.duration(
      "pp.busy_handler_prompt_after",
      [](MachineConfig& c) -> Duration& { return c.pp.busy_handler_prompt_after; },
      "an arrival sooner than this after the node's server last ran is never served promptly "
      "(pp.busy_handler_prompt_share applies only later): the host's scheduler lets a woken server preempt "
      "the program only once the program has computed a while since the server ran (treadmarks)",
      "0: the share applies at once; measured by ncp2 calibrate --machine real (docs/validation.md)");
  k.duration(
      "pp.busy_handler_tick", [](MachineConfig& c) -> Duration& { return c.pp.busy_handler_tick; },
      "the host scheduler's tick: a message that would wait pp.busy_handler_delay is taken at the node's "
      "next "
      "tick instead (a fixed grid per node, its phase drawn from the node): a computing program is preempted "
      "only at a tick of its core (treadmarks)",
      "0: no tick, pp.busy_handler_delay; measured by ncp2 calibrate --machine real (docs/validation.md)");
  k.integer(
      "pp.separate_server", [](MachineConfig& c) -> int& { return c.pp.separate_server; },
      "1: the node's protocol server is a process of its own sharing the PP's core (a real node's agent): a "
      "request served while the program computes, works in the protocol or waits is profiled as that "
      "category (as a real run records it), not as Prste; only the profile changes (treadmarks)",
      "0: handlers are Prste; 1 in the presets ncp2 calibrate --machine real writes (docs/validation.md)",
      Range{0, 1});

  k.real(
      "cp.clock_mhz", [](MachineConfig& c) -> double& { return c.cp.clock_mhz; },
      "protocol controller's processor clock (informational: command costs are durations)", kAssumed,
      Range{0.001, 1e6});
  k.bandwidth(
      "cp.dma_bandwidth", [](MachineConfig& c) -> double& { return c.cp.dma_bandwidth; },
      "CP's DMA engine between memory and the network interface", kAssumed);
  for (const auto& cmd : config_detail::kCommandDefaults) {
    const std::string name{cmd.name};
    k.duration(
        "cp.command_cost." + name, [name](MachineConfig& c) -> Duration& { return c.cp.command_cost[name]; },
        std::string(cmd.what), kAssumed);
  }

  k.bandwidth(
      "memory.bus_bandwidth", [](MachineConfig& c) -> double& { return c.memory.bus_bandwidth; },
      "memory bus shared by the PP and the CP's DMA engine", kAssumed);
  k.integer(
      "memory.dram_mb", [](MachineConfig& c) -> int& { return c.memory.dram_mb; },
      "main memory per node (informational)", kSpec, Range{1, 1 << 20});
  k.integer(
      "memory.l2_kb", [](MachineConfig& c) -> int& { return c.memory.l2_kb; },
      "L2 cache per node (informational)", kSpec, Range{0, 1 << 20});
  k.integer(
      "memory.page_size", [](MachineConfig& c) -> int& { return c.memory.page_size; },
      "bytes per shared page (coherence unit)", "SPEC §1 [our rule]", Range{64, 1 << 20});
  k.integer(
      "memory.word_size", [](MachineConfig& c) -> int& { return c.memory.word_size; },
      "bytes per word: diffs are costed as runs of words (their contents are byte-exact)",
      "PowerPC 604: 32-bit words", Range{1, 64});

  k.bandwidth(
      "network.link_bandwidth", [](MachineConfig& c) -> double& { return c.network.link_bandwidth; },
      "bandwidth of every cable (Myrinet: 1.28 Gbit/s)", kSpec);
  k.duration(
      "network.link_latency", [](MachineConfig& c) -> Duration& { return c.network.link_latency; },
      "propagation through one cable, node-switch or switch-switch", kAssumed);
  k.duration(
      "network.switch_delay", [](MachineConfig& c) -> Duration& { return c.network.switch_delay; },
      "routing delay inside one switch (cut-through)", kAssumed);
  k.integer(
      "network.switch_ports", [](MachineConfig& c) -> int& { return c.network.switch_ports; },
      "ports per crossbar switch (Myrinet: 8)", kSpec, Range{2, 1024});
  k.keys.push_back({{"network.topology",
                     Kind::Choice,
                     "auto: one switch when the nodes fit, else a tree; star: one switch; tree: leaf "
                     "switches under parent switches; chain: switches in a line",
                     "SPEC §1 [our rule]",
                     {"auto", "star", "tree", "chain"},
                     std::nullopt},
                    [](MachineConfig& c, const Value& v) {
                      c.network.topology = v.text == "star"    ? Topology::Star
                                           : v.text == "tree"  ? Topology::Tree
                                           : v.text == "chain" ? Topology::Chain
                                                               : Topology::Auto;
                    },
                    [](const MachineConfig& c) { return quoted(to_string(c.network.topology)); }});
  k.integer(
      "network.header_bytes", [](MachineConfig& c) -> int& { return c.network.header_bytes; },
      "bytes added to every message on the wire (route, type, CRC)", kAssumed, Range{0, 1 << 16});

  k.integer(
      "emulator.fiber_stack_kb", [](MachineConfig& c) -> int& { return c.emulator.fiber_stack_kb; },
      "stack of each emulated processor's fiber on the host", "host resource, not a model value",
      Range{16, 1 << 16});
  return std::move(k.keys);
}

}  // namespace ncp2::emu
