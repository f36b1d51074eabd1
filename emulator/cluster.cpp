#include "emulator/cluster.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "emulator/mix64.hpp"

namespace ncp2::emu {

Node::Node(Kernel& kernel, NodeId node, const MachineConfig& config, const CommandTable& commands)
    : id(node),
      bus(config.memory.bus_bandwidth),
      pp(kernel, node, fmt::format("node {} PP", index(node)), config.pp.interrupt_overhead, bus,
         config.pp.copy_bandwidth) {
  pp.drain_queued_interrupts(config.pp.drain_interrupts != 0);
  if (config.has_cp())
    cp = std::make_unique<CommandProcessor>(kernel, node, commands, bus, config.cp.dma_bandwidth);
}

Cluster::Cluster(Kernel& kernel, const MachineConfig& config)
    : kernel_(kernel), config_(config), network_(kernel, config.network, config.machine.nodes) {
  validate(config_);
  // Every configured command becomes a kind; the DSM layer looks its own up by name.
  for (const auto& [name, cost] : config_.cp.command_cost) {
    const CommandKind kind = commands_.add(name, cost);
    if (name == "send_message") send_kind_ = kind;
    if (name == "receive_message") receive_kind_ = kind;
  }
  nodes_.reserve(static_cast<std::size_t>(config_.machine.nodes));
  for (int i = 0; i < config_.machine.nodes; ++i)
    nodes_.push_back(std::make_unique<Node>(kernel_, node_id(i), config_, commands_));
  network_.set_deliver([this](Message* m) { deliver(m); });
  scheduler_draws_.assign(nodes_.size(), 0);
}

Message* Cluster::new_message(NodeId source, NodeId destination, std::uint16_t purpose,
                              std::uint32_t payload_bytes) {
  if (index(source) >= size() || index(destination) >= size())
    throw std::out_of_range(fmt::format("message from node {} to node {}: the cluster has {} nodes",
                                        index(source), index(destination), size()));
  Message* m = pool_.acquire();
  m->source = source;
  m->destination = destination;
  m->purpose = purpose;
  m->payload_bytes = payload_bytes;
  return m;
}

void Cluster::cp_send(WorkContext& ctx, Message* m) {
  ctx.transfer(m->payload_bytes);  // DMA of the payload out of main memory
  m->chain.add(ctx.now(), StampPoint::CpFinished, Resource::CP, ctx.node());
  network_.send(m, ctx.now());
}

void Cluster::send_from_pp(Message* m) {
  Node& src = node(m->source);
  const TimePoint issued = kernel_.now();
  m->chain.add(issued, StampPoint::Issued, Resource::PP, src.id);
  if (src.cp) {
    src.pp.compute(config_.pp.command_post);
    src.cp->submit(send_kind_, m, [this](WorkContext& ctx, Message* msg) { cp_send(ctx, msg); });
  } else {
    const TimePoint copied = src.bus.transfer(issued + config_.pp.send_overhead + message_software(*m),
                                              m->payload_bytes, config_.pp.copy_bandwidth);
    src.pp.compute(copied - issued);
    network_.send(m, kernel_.now());
  }
}

void Cluster::send_from(WorkContext& ctx, Message* m) {
  Node& src = node(ctx.node());
  if (ctx.resource() == Resource::CP) {
    cp_send(ctx, m);
    return;
  }
  m->chain.add(ctx.now(), StampPoint::Issued, Resource::PP, src.id);
  if (src.cp) {
    ctx.spend(config_.pp.command_post);
    submit_at(src.id, ctx.now(),
              Command{send_kind_, m, [this](WorkContext& c, Message* msg) { cp_send(c, msg); }});
  } else {
    ctx.spend(config_.pp.send_overhead + message_software(*m));
    ctx.transfer(m->payload_bytes);
    network_.send(m, ctx.now());
  }
}

void Cluster::submit_at(NodeId id, TimePoint when, const Command& command) {
  Node& n = node(id);
  if (!n.cp) throw std::logic_error("submit_at: this machine has no protocol controllers");
  if (when == kernel_.now()) {
    n.cp->submit(command);
    return;
  }
  kernel_.at_function(when, [cp = n.cp.get(), command] { cp->submit(command); });
}

void Cluster::set_purpose_tag(std::uint16_t purpose, HandlerTag tag) {
  if (tag_by_purpose_.size() <= purpose) tag_by_purpose_.resize(purpose + 1u);
  tag_by_purpose_[purpose] = tag;
}

void Cluster::attach_probe(ActivityProbe* probe) {
  for (auto& n : nodes_) {
    n->pp.attach_probe(probe);
    if (n->cp) n->cp->attach_probe(probe);
  }
}

void Cluster::set_receive_command(std::uint16_t purpose, CommandKind kind) {
  if (receive_kind_by_purpose_.size() <= purpose)
    receive_kind_by_purpose_.resize(purpose + 1u, receive_kind_);
  receive_kind_by_purpose_[purpose] = kind;
}

CommandKind Cluster::command(std::string_view name) const {
  for (std::size_t i = 0; i < commands_.size(); ++i)
    if (commands_.name(CommandKind{static_cast<std::uint16_t>(i)}) == name)
      return CommandKind{static_cast<std::uint16_t>(i)};
  throw ConfigError(fmt::format("no CP command '{}' is configured (key cp.command_cost.{})", name, name));
}

// A real node's server shares the core of a computing program: it runs when the host's scheduler
// gives it the core (pp.busy_handler_delay), sooner after a long quiet, or as soon as the program
// blocks in a protocol entry of its own (Processor::interrupt_deferred). A waiting PP (its program
// blocked), one in a protocol entry or already in a handler takes the message at once.
Duration Cluster::busy_handler_delay(const Processor& pp) {
  const PpConfig& c = config_.pp;
  // Only the program's own code: inside a protocol entry (its trap, its handler) the program
  // waits for the server, which runs at once.
  const bool program_code = pp.attribution().operation == 0 && !pp.attribution().in_wait;
  if (pp.state() != PpState::Computing || pp.in_interrupt() || !program_code) return Duration{0};
  const Duration since_server = kernel_.now() - pp.server_active_at();
  const bool quiet = c.busy_handler_quiet_after > Duration{0} && since_server >= c.busy_handler_quiet_after;
  if (quiet) return c.busy_handler_delay_quiet;
  if (c.busy_handler_prompt_share > 0 && since_server >= c.busy_handler_prompt_after) {
    // The node's next draw: (node, index) mixed, independent of every other node's arrivals.
    const std::size_t at = index(pp.node());
    const std::uint64_t draw = scheduler_draws_[at]++;
    if (unit_interval(mix64(mix64(at) ^ draw)) < c.busy_handler_prompt_share)
      return c.busy_handler_delay_quiet;
  }
  if (c.busy_handler_tick > Duration{0}) return until_next_tick(pp.node(), c.busy_handler_tick);
  return c.busy_handler_delay;
}

// The node's core ticks every `tick` from a phase of its own (drawn from the node, fixed for the
// run): the time from now to the next tick, a whole tick when one falls now.
Duration Cluster::until_next_tick(NodeId node, Duration tick) const {
  const std::int64_t period = tick.count();
  const auto phase =
      static_cast<std::int64_t>(mix64(mix64(index(node)) ^ kTickSalt) % static_cast<std::uint64_t>(period));
  const std::int64_t into = ((to_ps(kernel_.now()) - phase) % period + period) % period;
  return Duration{period - into};
}

void Cluster::deliver(Message* m) {
  Node& dst = node(m->destination);
  if (dst.cp) {
    const CommandKind kind =
        m->purpose < receive_kind_by_purpose_.size() ? receive_kind_by_purpose_[m->purpose] : receive_kind_;
    dst.cp->submit(kind, m, [this](WorkContext& ctx, Message* msg) {
      ctx.transfer(msg->wire_bytes);  // DMA into main memory
      receiver_(ctx, msg);
    });
  } else {
    m->chain.add(kernel_.now(), StampPoint::PpInterrupted, Resource::PP, dst.id);
    const HandlerTag tag = m->purpose < tag_by_purpose_.size() ? tag_by_purpose_[m->purpose] : HandlerTag{};
    auto handler = [this, m](WorkContext& ctx) {
      m->chain.add(ctx.now(), StampPoint::PpHandlerStart, Resource::PP, ctx.node());
      ctx.spend(config_.pp.receive_overhead + message_software(*m));
      ctx.transfer(m->wire_bytes);  // copy out of the interface's buffer
      receiver_(ctx, m);
    };
    if (const Duration delay = busy_handler_delay(dst.pp); delay > Duration{0})
      dst.pp.interrupt_deferred(kernel_.now() + delay, handler, tag);
    else
      dst.pp.interrupt(handler, tag);
  }
}

}  // namespace ncp2::emu
