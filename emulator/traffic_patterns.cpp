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

namespace {

// One traffic run: the machine, what each PP has received, the recorded result.
class TrafficRun {
 public:
  TrafficRun(const MachineConfig& config, const TrafficOptions& options)
      : options_(options),
        nodes_(config.machine.nodes),
        kernel_(kernel_options(config, options)),
        cluster_(kernel_, config) {
    inbox_.received.assign(static_cast<std::size_t>(nodes_), 0);
    inbox_.wanted.assign(static_cast<std::size_t>(nodes_), 0);
  }

  TrafficResult run() {
    install_receiver();
    for (int i = 0; i < nodes_; ++i) {
      if (options_.pattern == TrafficPattern::Barrier)
        start_barrier_node(i);
      else if (i <= 1)
        start_ping_pong_node(i);
    }
    result_.run = kernel_.run();
    collect();
    return std::move(result_);
  }

 private:
  static KernelOptions kernel_options(const MachineConfig& config, const TrafficOptions& options) {
    KernelOptions k;
    k.fiber_stack_bytes = config.emulator.fiber_stack_bytes();
    k.trace_hash = options.trace_hash;
    k.fast_forward = options.fast_forward;
    return k;
  }

  // Every message goes to its destination PP (by interrupt on ncp2, inline on treadmarks), whose
  // handler records it, counts it and wakes the fiber once it has what it waits for.
  void install_receiver() {
    cluster_.set_receiver([this](WorkContext& ctx, Message* m) {
      cluster_.notify_pp(ctx, [inbox = &inbox_, c = &cluster_, m,
                               rec = options_.record_messages ? &result_ : nullptr](WorkContext& hctx) {
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
  }

  // Waits until `node` has received `count` messages in all.
  void wait_for(int node, std::uint64_t count, std::string_view what) {
    inbox_.wanted[static_cast<std::size_t>(node)] = count;
    while (inbox_.received[static_cast<std::size_t>(node)] < count) cluster_.pp(node_id(node)).wait(what);
  }

  // Node 0 is the manager: it waits for everyone's arrival, then releases them.
  void start_barrier_node(int i) {
    cluster_.pp(node_id(i)).start([this, i] {
      const int n = nodes_;
      const std::uint32_t bytes = options_.payload_bytes;
      Processor& me = cluster_.pp(node_id(i));
      for (int r = 1; r <= options_.rounds; ++r) {
        me.compute(options_.compute_between_rounds * (i + 1));
        if (i == 0) {
          wait_for(0, static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(n - 1),
                   "arrivals of the other nodes");
          for (int dst = 1; dst < n; ++dst)
            cluster_.send_from_pp(cluster_.new_message(node_id(0), node_id(dst), kRelease, bytes));
        } else {
          cluster_.send_from_pp(cluster_.new_message(node_id(i), node_id(0), kArrival, bytes));
          wait_for(i, static_cast<std::uint64_t>(r), "release from node 0");
        }
      }
    });
  }

  void start_ping_pong_node(int i) {
    cluster_.pp(node_id(i)).start([this, i] {
      const std::uint32_t bytes = options_.payload_bytes;
      Processor& me = cluster_.pp(node_id(i));
      for (int r = 1; r <= options_.rounds; ++r) {
        me.compute(options_.compute_between_rounds);
        if (i == 0) {
          cluster_.send_from_pp(cluster_.new_message(node_id(0), node_id(1), kPing, bytes));
          wait_for(0, static_cast<std::uint64_t>(r), "pong from node 1");
        } else {
          wait_for(1, static_cast<std::uint64_t>(r), "ping from node 0");
          cluster_.send_from_pp(cluster_.new_message(node_id(1), node_id(0), kPong, bytes));
        }
      }
    });
  }

  void collect() {
    result_.messages = cluster_.network().messages();
    result_.wire_bytes = cluster_.network().bytes();
    result_.network_contention = cluster_.network().total_contention();
    result_.topology = cluster_.network().describe();
    result_.trace_digest = kernel_.trace_digest();
    for (int i = 0; i < nodes_; ++i) {
      Node& node = cluster_.node(node_id(i));
      NodeSummary s;
      s.finish = node.pp.finish_time();
      s.interrupts = node.pp.stats().interrupts;
      s.pp_handlers = node.pp.stats().handlers;
      if (node.cp) {
        s.cp_commands = node.cp->stats().commands;
        s.cp_busy = node.cp->stats().busy;
        s.cp_queue_wait = node.cp->stats().queue_wait;
      }
      result_.nodes.push_back(s);
    }
  }

  const TrafficOptions& options_;
  const int nodes_;
  Inbox inbox_;           // declared before the machine: a fiber torn down with the kernel
  TrafficResult result_;  // may still see them
  Kernel kernel_;
  Cluster cluster_;
};

}  // namespace

TrafficResult run_traffic(const MachineConfig& config, const TrafficOptions& options) {
  validate(config);
  if (options.pattern == TrafficPattern::PingPong && config.machine.nodes < 2)
    throw ConfigError("the ping-pong pattern needs at least 2 nodes");
  if (options.rounds < 0) throw ConfigError("rounds must not be negative");
  return TrafficRun(config, options).run();
}

}  // namespace ncp2::emu
