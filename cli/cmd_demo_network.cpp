// `ncp2 demo-network`: nodes exchange messages through the CPs (or the PPs on treadmarks) and
// every message's time-stamp chain is printed — the node and network model seen working.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "emulator/traffic_patterns.hpp"

namespace ncp2::cli {

namespace {

struct DemoOptions {
  MachineOptions machine;
  std::string pattern = "barrier";
  int rounds = 1;
  std::uint32_t bytes = 64;
  bool summary_only = false;
};

void print_result(const emu::MachineConfig& config, const DemoOptions& o, const emu::TrafficResult& r) {
  fmt::print("machine {} with {} nodes; network: {}\n", emu::to_string(config.machine.kind),
             config.machine.nodes, r.topology);
  fmt::print("pattern {}: {} round(s) of {}-byte messages\n\n", o.pattern, o.rounds, o.bytes);
  if (!o.summary_only) {
    for (const auto& m : r.records) {
      fmt::print("message #{:<4} node {} -> node {}  {:<8} {} B payload, {} B on the wire\n", m.id,
                 emu::index(m.source), emu::index(m.destination), m.purpose, m.payload_bytes, m.wire_bytes);
      emu::TimePoint previous = m.stamps.empty() ? emu::kTimeZero : m.stamps.front().time;
      for (const auto& s : m.stamps) {
        fmt::print("    {:>12}  {:<17} {} n{:<3} (+{})\n", emu::format_time(s.time), emu::to_string(s.point),
                   s.resource == emu::Resource::CP ? "CP" : "PP", emu::index(s.node),
                   emu::format_duration(s.time - previous));
        previous = s.time;
      }
    }
    fmt::print("\n");
  }
  fmt::print("{:>5} {:>14} {:>11} {:>14} {:>12} {:>14} {:>14}\n", "node", "PP finished", "interrupts",
             "PP handlers", "CP commands", "CP busy", "CP queue wait");
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const auto& n = r.nodes[i];
    fmt::print("{:>5} {:>14} {:>11} {:>14} {:>12} {:>14} {:>14}\n", i, emu::format_time(n.finish),
               n.interrupts, emu::format_duration(n.pp_handlers), n.cp_commands,
               emu::format_duration(n.cp_busy), emu::format_duration(n.cp_queue_wait));
  }
  fmt::print("\n{} messages, {} bytes on the wire, network contention {}, {} events, virtual time {}\n",
             r.messages, r.wire_bytes, emu::format_duration(r.network_contention), r.run.events,
             emu::format_time(r.run.end_time));
}

}  // namespace

Subcommand add_demo_network_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("demo-network",
                         "Built-in demonstration: nodes exchange messages through their CPs; prints each "
                         "message's time-stamp chain");
  auto o = std::make_shared<DemoOptions>();
  add_machine_options(*cmd, o->machine);
  cmd->add_option("--pattern", o->pattern, "barrier (N-1 arrivals at node 0, then N-1 releases) or ping-pong")
      ->check(CLI::IsMember({"barrier", "ping-pong"}))
      ->capture_default_str();
  cmd->add_option("--rounds", o->rounds, "repetitions of the pattern")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  cmd->add_option("--bytes", o->bytes, "payload bytes per message")
      ->check(CLI::Range(0u, 1u << 24))
      ->capture_default_str();
  cmd->add_flag("--summary", o->summary_only, "print only the per-node summary, not every message");
  return {cmd, [o] {
            const emu::MachineConfig config = load_machine_config(o->machine);
            emu::TrafficOptions t;
            t.pattern =
                o->pattern == "barrier" ? emu::TrafficPattern::Barrier : emu::TrafficPattern::PingPong;
            t.rounds = o->rounds;
            t.payload_bytes = o->bytes;
            t.record_messages = !o->summary_only;
            const emu::TrafficResult r = emu::run_traffic(config, t);
            print_result(config, *o, r);
            if (r.run.status != emu::RunStatus::Completed) {
              fmt::print(stderr, "ncp2: {}\n", r.run.diagnosis);
              return kExitFailure;
            }
            return kExitOk;
          }};
}

}  // namespace ncp2::cli
