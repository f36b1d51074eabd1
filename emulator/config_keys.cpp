// The configuration keys: a data table (one entry per key, with its meaning and source).
#include "emulator/config_internal.hpp"

#include <fmt/format.h>

namespace ncp2::emu::config_detail {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::Integer:
      return "integer";
    case Kind::Real:
      return "number";
    case Kind::DurationKind:
      return "duration";
    case Kind::Bandwidth:
      return "bandwidth";
    case Kind::Choice:
      return "choice";
  }
  return "?";
}

namespace {

std::string quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

constexpr std::string_view kSpec = "SPEC §1 (NCP2 paper, seed 004)";
constexpr std::string_view kAssumed = "assumption: typical of mid-1990s hardware; the papers give no value";

}  // namespace

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

// NOLINTNEXTLINE(readability-function-size): a data table, one entry per configuration key.
const std::vector<Key>& registry() {
  static const std::vector<Key> keys = [] {
    std::vector<Key> k;
    auto integer = [&](std::string name, auto ref, std::string desc, std::string_view src) {
      k.push_back(
          {std::move(name),
           Kind::Integer,
           std::move(desc),
           std::string(src),
           {},
           [ref](MachineConfig& c, const Value& v) { ref(c) = static_cast<int>(v.integer); },
           [ref](const MachineConfig& c) { return fmt::format("{}", ref(const_cast<MachineConfig&>(c))); }});
    };
    auto real = [&](std::string name, auto ref, std::string desc, std::string_view src) {
      k.push_back({std::move(name),
                   Kind::Real,
                   std::move(desc),
                   std::string(src),
                   {},
                   [ref](MachineConfig& c, const Value& v) { ref(c) = v.real; },
                   [ref](const MachineConfig& c) {
                     const double x = ref(const_cast<MachineConfig&>(c));
                     // Always print a decimal point so TOML reads a float back.
                     std::string s = fmt::format("{:.10g}", x);
                     if (s.find_first_of(".e") == std::string::npos) s += ".0";
                     return s;
                   }});
    };
    auto duration = [&](std::string name, auto ref, std::string desc, std::string_view src) {
      k.push_back({std::move(name),
                   Kind::DurationKind,
                   std::move(desc),
                   std::string(src),
                   {},
                   [ref](MachineConfig& c, const Value& v) { ref(c) = parse_duration(v.text); },
                   [ref](const MachineConfig& c) {
                     return quoted(format_duration(ref(const_cast<MachineConfig&>(c))));
                   }});
    };
    auto bandwidth = [&](std::string name, auto ref, std::string desc, std::string_view src) {
      k.push_back({std::move(name),
                   Kind::Bandwidth,
                   std::move(desc),
                   std::string(src),
                   {},
                   [ref](MachineConfig& c, const Value& v) { ref(c) = parse_bandwidth(v.text); },
                   [ref](const MachineConfig& c) {
                     return quoted(format_bandwidth(ref(const_cast<MachineConfig&>(c))));
                   }});
    };

    k.push_back({"machine.kind",
                 Kind::Choice,
                 "ncp2: protocol work on the CP; treadmarks: no CP, all protocol work on the PP by interrupt",
                 "SPEC §1",
                 {"ncp2", "treadmarks"},
                 [](MachineConfig& c, const Value& v) {
                   c.machine.kind = v.text == "ncp2" ? MachineKind::Ncp2 : MachineKind::TreadMarks;
                 },
                 [](const MachineConfig& c) { return quoted(to_string(c.machine.kind)); }});
    integer(
        "machine.nodes", [](MachineConfig& c) -> int& { return c.machine.nodes; },
        "number of nodes (PP + CP each)", "default run size of the papers' figures");

    real(
        "pp.clock_mhz", [](MachineConfig& c) -> double& { return c.pp.clock_mhz; },
        "main processor clock (PowerPC 604); converts cycle counts into time", kSpec);
    duration(
        "pp.interrupt_overhead", [](MachineConfig& c) -> Duration& { return c.pp.interrupt_overhead; },
        "time to enter and leave an interrupt handler; added to every handler", kAssumed);
    duration(
        "pp.command_post", [](MachineConfig& c) -> Duration& { return c.pp.command_post; },
        "PP writes one command into its CP's queue (ncp2)", kAssumed);
    duration(
        "pp.notification_handler", [](MachineConfig& c) -> Duration& { return c.pp.notification_handler; },
        "PP reads a notification the CP sent by interrupt (ncp2)", kAssumed);
    duration(
        "pp.send_overhead", [](MachineConfig& c) -> Duration& { return c.pp.send_overhead; },
        "software send path per message, system call + protocol stack (treadmarks)", kAssumed);
    duration(
        "pp.receive_overhead", [](MachineConfig& c) -> Duration& { return c.pp.receive_overhead; },
        "software receive path per message, inside the interrupt handler (treadmarks)", kAssumed);
    bandwidth(
        "pp.copy_bandwidth", [](MachineConfig& c) -> double& { return c.pp.copy_bandwidth; },
        "memcpy by the PP (twins, software diffs, message buffers)", kAssumed);

    real(
        "cp.clock_mhz", [](MachineConfig& c) -> double& { return c.cp.clock_mhz; },
        "protocol controller's processor clock (informational: command costs are durations)", kAssumed);
    bandwidth(
        "cp.dma_bandwidth", [](MachineConfig& c) -> double& { return c.cp.dma_bandwidth; },
        "CP's DMA engine between memory and the network interface", kAssumed);
    for (const auto& cmd : kCommandDefaults) {
      const std::string name{cmd.name};
      duration(
          "cp.command_cost." + name,
          [name](MachineConfig& c) -> Duration& { return c.cp.command_cost[name]; }, std::string(cmd.what),
          kAssumed);
    }

    bandwidth(
        "memory.bus_bandwidth", [](MachineConfig& c) -> double& { return c.memory.bus_bandwidth; },
        "memory bus shared by the PP and the CP's DMA engine", kAssumed);
    integer(
        "memory.dram_mb", [](MachineConfig& c) -> int& { return c.memory.dram_mb; },
        "main memory per node (informational)", kSpec);
    integer(
        "memory.l2_kb", [](MachineConfig& c) -> int& { return c.memory.l2_kb; },
        "L2 cache per node (informational)", kSpec);
    integer(
        "memory.page_size", [](MachineConfig& c) -> int& { return c.memory.page_size; },
        "bytes per shared page (coherence unit)", "SPEC §1 [our rule]");
    integer(
        "memory.word_size", [](MachineConfig& c) -> int& { return c.memory.word_size; },
        "bytes per word (diff granularity)", "PowerPC 604: 32-bit words");

    bandwidth(
        "network.link_bandwidth", [](MachineConfig& c) -> double& { return c.network.link_bandwidth; },
        "bandwidth of every cable (Myrinet: 1.28 Gbit/s)", kSpec);
    duration(
        "network.link_latency", [](MachineConfig& c) -> Duration& { return c.network.link_latency; },
        "propagation through one cable, node-switch or switch-switch", kAssumed);
    duration(
        "network.switch_delay", [](MachineConfig& c) -> Duration& { return c.network.switch_delay; },
        "routing delay inside one switch (cut-through)", kAssumed);
    integer(
        "network.switch_ports", [](MachineConfig& c) -> int& { return c.network.switch_ports; },
        "ports per crossbar switch (Myrinet: 8)", kSpec);
    k.push_back({"network.topology",
                 Kind::Choice,
                 "auto: one switch when the nodes fit, else a tree; star: one switch; tree: leaf "
                 "switches under parent switches; chain: switches in a line",
                 "SPEC §1 [our rule]",
                 {"auto", "star", "tree", "chain"},
                 [](MachineConfig& c, const Value& v) {
                   c.network.topology = v.text == "star"    ? Topology::Star
                                        : v.text == "tree"  ? Topology::Tree
                                        : v.text == "chain" ? Topology::Chain
                                                            : Topology::Auto;
                 },
                 [](const MachineConfig& c) { return quoted(to_string(c.network.topology)); }});
    integer(
        "network.header_bytes", [](MachineConfig& c) -> int& { return c.network.header_bytes; },
        "bytes added to every message on the wire (route, type, CRC)", kAssumed);

    duration(
        "dsm.fault_trap", [](MachineConfig& c) -> Duration& { return c.dsm.fault_trap; },
        "PP takes an access fault on a shared page and enters the DSM handler", kAssumed);
    duration(
        "dsm.protocol_handler", [](MachineConfig& c) -> Duration& { return c.dsm.protocol_handler; },
        "PP runs the bookkeeping of one protocol operation (lock, barrier, request)", kAssumed);
    duration(
        "dsm.per_write_notice", [](MachineConfig& c) -> Duration& { return c.dsm.per_write_notice; },
        "creating or applying one write notice (invalidation)", kAssumed);
    duration(
        "dsm.diff_scan_per_word", [](MachineConfig& c) -> Duration& { return c.dsm.diff_scan_per_word; },
        "software diff creation on the PP, per word of the page compared with its twin (treadmarks)",
        kAssumed);
    duration(
        "dsm.diff_apply_per_word", [](MachineConfig& c) -> Duration& { return c.dsm.diff_apply_per_word; },
        "software diff application on the PP, per word written (treadmarks)", kAssumed);
    integer(
        "dsm.gc_threshold_kb", [](MachineConfig& c) -> int& { return c.dsm.gc_threshold_kb; },
        "diffs + write notices held by a node that make the next barrier collect garbage",
        "TreadMarks practice");
    integer(
        "dsm.barrier_manager", [](MachineConfig& c) -> int& { return c.dsm.barrier_manager; },
        "node that manages barriers", "TreadMarks: process 0");

    real(
        "cost.flop", [](MachineConfig& c) -> double& { return c.cost.flop; },
        "PP cycles per floating-point operation in workload code (add, multiply, compare)", kAssumed);
    real(
        "cost.int_op", [](MachineConfig& c) -> double& { return c.cost.int_op; },
        "PP cycles per integer operation in workload code", kAssumed);
    real(
        "cost.load", [](MachineConfig& c) -> double& { return c.cost.load; },
        "PP cycles per load in workload code (cache hits and misses averaged)", kAssumed);
    real(
        "cost.store", [](MachineConfig& c) -> double& { return c.cost.store; },
        "PP cycles per store in workload code", kAssumed);
    real(
        "cost.branch", [](MachineConfig& c) -> double& { return c.cost.branch; },
        "PP cycles per branch or loop iteration in workload code", kAssumed);

    integer(
        "emulator.fiber_stack_kb", [](MachineConfig& c) -> int& { return c.emulator.fiber_stack_kb; },
        "stack of each emulated processor's fiber on the host", "host resource, not a model value");
    return k;
  }();
  return keys;
}

}  // namespace ncp2::emu::config_detail
