#include "emulator/traffic_patterns.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "emulator/cluster.hpp"

namespace ncp2::emu {

namespace {

enum Purpose : std::uint16_t { kArrival = 1, kRelease = 2, kPing = 3, kPong = 4 };

std::string purpose_name(std::uint16_t p) {
  switch (p) {
    case kArrival:
      return "arrival";
    case kRelease:
      return "release";
    case kPing:
      return "ping";
    case kPong:
      return "pong";
    default:
      return fmt::format("purpose {}", p);
  }
}

// What each PP has received so far, bumped by the receiving PP's handler, which wakes the
// fiber only once it has what it waits for (as a barrier manager's handler counts arrivals).
struct Inbox {
  std::vector<std::uint64_t> received;
  std::vector<std::uint64_t> wanted;
};

}  // namespace

std::string_view to_string(TrafficPattern p) {
  return p == TrafficPattern::Barrier ? "barrier" : "ping-pong";
}

TrafficResult run_traffic(const MachineConfig& config, const TrafficOptions& options) {
  validate(config);
  const int n = config.machine.nodes;
  if (options.pattern == TrafficPattern::PingPong && n < 2)
    throw ConfigError("the ping-pong pattern needs at least 2 nodes");
  if (options.rounds < 0) throw ConfigError("rounds must not be negative");

  TrafficResult result;
  KernelOptions kopts;
  kopts.fiber_stack_bytes = static_cast<std::size_t>(config.emulator.fiber_stack_kb) * 1024;
  kopts.trace_hash = options.trace_hash;
  kopts.fast_forward = options.fast_forward;
  Kernel kernel(kopts);
  Cluster cluster(kernel, config);
  Inbox inbox;
  inbox.received.assign(static_cast<std::size_t>(n), 0);
  inbox.wanted.assign(static_cast<std::size_t>(n), 0);

  cluster.set_receiver([&](WorkContext& ctx, Message* m) {
    // Hand the message to the destination PP (by interrupt on ncp2, inline on treadmarks).
    cluster.notify_pp(ctx, [inbox = &inbox, c = &cluster, m,
                            rec = options.record_messages ? &result : nullptr](WorkContext& hctx) {
      m->chain.add(hctx.now(), StampPoint::PpHandlerStart, Resource::PP, hctx.node());
      if (rec) {
        MessageRecord r;
        r.id = m->id;
        r.source = m->source;
        r.destination = m->destination;
        r.purpose = purpose_name(m->purpose);
        r.payload_bytes = m->payload_bytes;
        r.wire_bytes = m->wire_bytes;
        r.stamps.assign(m->chain.stamps().begin(), m->chain.stamps().end());
        rec->records.push_back(std::move(r));
      }
      const auto me = static_cast<std::size_t>(index(hctx.node()));
      if (++inbox->received[me] >= inbox->wanted[me]) c->pp(hctx.node()).wake();
      c->release(m);
    });
  });

  const std::uint32_t bytes = options.payload_bytes;
  const int rounds = options.rounds;
  const Duration think = options.compute_between_rounds;
  // Waits until `node` has received `count` messages in all.
  auto wait_for = [&inbox, &cluster](int node, std::uint64_t count, std::string_view what) {
    inbox.wanted[static_cast<std::size_t>(node)] = count;
    while (inbox.received[static_cast<std::size_t>(node)] < count) cluster.pp(node_id(node)).wait(what);
  };

  for (int i = 0; i < n; ++i) {
    Processor& pp = cluster.pp(node_id(i));
    if (options.pattern == TrafficPattern::Barrier) {
      pp.start([&, i, rounds, bytes, think] {
        Processor& me = cluster.pp(node_id(i));
        for (int r = 1; r <= rounds; ++r) {
          me.compute(think * (i + 1));
          if (i == 0) {
            wait_for(0, static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(n - 1),
                     "arrivals of the other nodes");
            for (int dst = 1; dst < n; ++dst)
              cluster.send_from_pp(cluster.new_message(node_id(0), node_id(dst), kRelease, bytes));
          } else {
            cluster.send_from_pp(cluster.new_message(node_id(i), node_id(0), kArrival, bytes));
            wait_for(i, static_cast<std::uint64_t>(r), "release from node 0");
          }
        }
      });
    } else if (i <= 1) {
      pp.start([&, i, rounds, bytes, think] {
        Processor& me = cluster.pp(node_id(i));
        for (int r = 1; r <= rounds; ++r) {
          me.compute(think);
          if (i == 0) {
            cluster.send_from_pp(cluster.new_message(node_id(0), node_id(1), kPing, bytes));
            wait_for(0, static_cast<std::uint64_t>(r), "pong from node 1");
          } else {
            wait_for(1, static_cast<std::uint64_t>(r), "ping from node 0");
            cluster.send_from_pp(cluster.new_message(node_id(1), node_id(0), kPong, bytes));
          }
        }
      });
    }
  }

  result.run = kernel.run();
  result.messages = cluster.network().messages();
  result.wire_bytes = cluster.network().bytes();
  result.network_contention = cluster.network().total_contention();
  result.topology = cluster.network().describe();
  result.trace_digest = kernel.trace_digest();
  for (int i = 0; i < n; ++i) {
    Node& node = cluster.node(node_id(i));
    NodeSummary s;
    s.finish = node.pp.finish_time();
    s.interrupts = node.pp.stats().interrupts;
    s.pp_handlers = node.pp.stats().handlers;
    if (node.cp) {
      s.cp_commands = node.cp->stats().commands;
      s.cp_busy = node.cp->stats().busy;
      s.cp_queue_wait = node.cp->stats().queue_wait;
    }
    result.nodes.push_back(s);
  }
  return result;
}

}  // namespace ncp2::emu
