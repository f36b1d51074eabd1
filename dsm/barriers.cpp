// Barriers on the emulated machine, in the driver's sequence (lrc/driver.hpp): every node sends its
// arrival (with its new intervals) to the manager, whose handler (lrc::BarrierManager) answers each with the
// intervals it has not seen. 2(n-1) messages.
#include "dsm/runtime.hpp"

#include <algorithm>

#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::Resource;
using emu::StampPoint;
using emu::WorkContext;

void Runtime::barrier(NodeId n, BarrierId barrier) {
  const MeasuredEntry measured(*this, n);
  if (raw(barrier) >= kMaxBarriers)
    throw DsmError(fmt::format("node {}: barrier id {} is out of range (0..{})", emu::index(n), raw(barrier),
                               kMaxBarriers - 1));
  self(n).driver.barrier(barrier);
}

// The arrival (the manager records its own without a message) and the wait for the release.
lrc::BarrierOutcome Runtime::exchange_at_barrier(NodeState& ns, BarrierId barrier, std::size_t usage) {
  const NodeId manager = protocol_.barrier_manager;
  const VectorTime& vt = ns.lrc.vt();
  if (ns.id == manager) {
    ns.wait_start = kernel_.now();
    ns.pp->set_in_wait(true);
    ns.chain.clear();
    ns.chain.add(ns.wait_start, StampPoint::WaitBegin, Resource::PP, ns.id);
    record_arrival(nullptr, ns.id, barrier, vt, usage, nullptr);
  } else {
    Message* m = new_message(ns.id, manager, kBarrierArrival,
                             16 + 4 * vt.size() + ns.lrc.bytes_lacking(ns.lrc.vt_at_release()));
    m->words[0] = raw(barrier);
    m->words[1] = usage;
    encode_vt(m->data, vt);
    send_request(ns, m, LocalCommand::SendMessage);
  }
  wait_until_done(ns, Operation::Barrier, raw(barrier));
  const lrc::BarrierOutcome outcome{ns.release_gc};
  ns.release_gc = false;
  return outcome;
}

void Runtime::on_barrier_arrival(WorkContext& ctx, Message* m) {
  // The manager's CP (ncp2) hands the arrival to the barrier handler on its PP, by interrupt.
  if (ctx.resource() == Resource::CP) {
    m->chain.add(ctx.now(), StampPoint::CpFinished, Resource::CP, ctx.node());
    m->chain.add(ctx.now(), StampPoint::PpInterrupted, Resource::PP, ctx.node());
  }
  cluster_.notify_pp(
      ctx,
      [this, m](WorkContext& h) {
        m->chain.add(h.start(), StampPoint::PpHandlerStart, Resource::PP, h.node());
        h.spend(config_.dsm.protocol_handler);
        const VectorTime vt = decode_vt(m->data, nodes_.size());
        record_arrival(&h, m->source, BarrierId{static_cast<std::uint32_t>(m->words[0])}, vt,
                       static_cast<std::size_t>(m->words[1]), m);
      },
      emu::HandlerTag{true, static_cast<std::uint8_t>(Operation::Barrier)});
}

void Runtime::record_arrival(WorkContext* ctx, NodeId from, BarrierId barrier, const VectorTime& vt,
                             std::size_t usage, Message* m) {
  const bool last = barrier_.arrive(from, barrier, vt, usage);
  barrier_waiting_[static_cast<std::size_t>(emu::index(from))] = m;
  if (m) m->chain.add(ctx->now(), StampPoint::PpHandlerEnd, Resource::PP, ctx->node());
  if (last) release_barrier(ctx);
}

void Runtime::release_barrier(WorkContext* ctx) {
  const NodeId manager = protocol_.barrier_manager;
  NodeState& mgr = self(manager);
  const emu::TimePoint release_start = ctx ? ctx->now() : kernel_.now();
  // Take this episode's state before anything here can suspend: sending from the manager's fiber
  // computes, and early arrivals for the next episode may be handled meanwhile. What each release
  // carries: the intervals its node had not seen when it arrived.
  std::vector<Message*> waiting(barrier_waiting_.size(), nullptr);
  waiting.swap(barrier_waiting_);
  std::vector<std::size_t> release_bytes(waiting.size());
  const lrc::BarrierManager::Release release =
      barrier_.release([&](NodeId j, const VectorTime& known, const VectorTime& merged) {
        release_bytes[static_cast<std::size_t>(emu::index(j))] =
            16 + 4 * merged.size() + history_.bytes_between(known, merged);
      });
  const NodeId last = release.last;
  const std::uint32_t last_scope = self(last).pp->worked_scope();  // what the straggler was doing
  if (last != manager) {
    mgr.chain.add(mgr.wait_start, StampPoint::SyncDelayBegin, Resource::PP, last, last_scope);
    mgr.chain.add(release_start, StampPoint::SyncDelayEnd, Resource::PP, last, last_scope);
  }
  Costs costs(*this, mgr, ctx);
  mgr.lrc.released(release.merged, costs);
  for (int j = 0; j < nodes(); ++j) {
    Message* m = waiting[static_cast<std::size_t>(j)];
    if (emu::node_id(j) == manager) continue;
    if (emu::node_id(j) != last) {
      // It waited for the last arrival: synchronization delay caused by that node.
      m->chain.add(m->chain.back().time, StampPoint::SyncDelayBegin, Resource::PP, last, last_scope);
      m->chain.add(release_start, StampPoint::SyncDelayEnd, Resource::PP, last, last_scope);
    }
    std::swap(m->source, m->destination);
    m->purpose = kBarrierRelease;
    m->payload_bytes = static_cast<std::uint32_t>(release_bytes[static_cast<std::size_t>(j)]);
    m->words[1] = release.collect ? 1 : 0;
    encode_vt(m->data, release.merged);
    if (ctx)
      send_from_handler(*ctx, m);
    else
      send_from_fiber(mgr, m);
  }
  // The manager itself continues when this handler ends (or at once if it arrived last).
  mgr.release_gc = release.collect;
  mgr.done = true;
  if (ctx) mgr.pp->wake();
}

void Runtime::receive_release(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  Costs costs(*this, ns, &ctx);
  ns.lrc.released(decode_vt(m->data, ns.lrc.vt().size()), costs);
  ns.release_gc = m->words[1] != 0;
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

}  // namespace ncp2::dsm
