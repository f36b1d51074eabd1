// Locks on the emulated machine: the core's distributed queue (lrc/node_locks.cpp) carried by
// messages — the request to the manager, its forward to the last requester, the grant with the
// intervals the acquirer has not seen. Acquire costs 0, 2 or 3 messages.
#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::Resource;
using emu::StampPoint;
using emu::WorkContext;

void Runtime::lock_acquire(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  NodeState& ns = self(n);
  ns.lrc.check_acquire(lock);
  if (spans_) [[unlikely]]
    close_spans(n, Operation::LockAcquire, raw(lock));
  OperationScope op(*ns.pp, Operation::LockAcquire);
  ns.pp->compute(config_.dsm.protocol_handler);
  Costs costs(*this, ns, nullptr);
  const lrc::AcquireStep step = ns.lrc.acquire(lock, current_site(n), costs);
  if (step.local) {
    if (races_) races_->acquired(n, lock);
    return;
  }
  Message* m =
      new_message(n, step.to, step.forward ? kLockForward : kLockRequest, 8 + 4 * ns.lrc.vt().size());
  m->words[0] = raw(lock);
  m->words[1] = static_cast<std::uint64_t>(emu::index(n));
  encode_vt(m->data, ns.lrc.vt());
  send_request(ns, m, LocalCommand::SendMessage);
  wait_until_done(ns, Operation::LockAcquire, raw(lock));
  if (races_) races_->acquired(n, lock);
}

void Runtime::on_lock_request(WorkContext& ctx, Message* m) {
  const LockId lock{static_cast<std::uint32_t>(m->words[0])};
  const NodeId requester = emu::node_id(static_cast<int>(m->words[1]));
  NodeState& here = self(ctx.node());
  if (m->purpose == kLockRequest) {
    // At the manager: the request joins the distributed queue behind the last requester.
    if (const std::optional<NodeId> previous = here.lrc.manage_request(lock, requester)) {
      m->source = here.id;
      m->destination = *previous;
      m->purpose = kLockForward;
      send_from_handler(ctx, m);
      return;
    }
  }
  // At the node that holds the lock, or will: grant now if it is free, else when released.
  if (here.lrc.take_request(lock, {requester, m})) {
    grant_lock(&ctx, here, lock, requester, m);
    return;
  }
  // From here the requester waits for this node to release: synchronization delay, caused here.
  // Stamped when the command (or handler) starts, so that a release in the middle of it still
  // comes after this stamp.
  m->chain.add(kernel_.now(), StampPoint::SyncDelayBegin, ctx.resource(), here.id,
               here.pp->attribution().scope);
}

// `holder` passes lock `lock` to `to`, answering `request` with the intervals `to` has not seen.
void Runtime::grant_lock(WorkContext* ctx, NodeState& holder, LockId lock, NodeId to, Message* request) {
  const VectorTime& vt = holder.lrc.vt();
  const VectorTime requester_vt = decode_vt(request->data, vt.size());
  request->source = holder.id;
  request->destination = to;
  request->purpose = kLockGrant;
  request->payload_bytes =
      static_cast<std::uint32_t>(8 + 4 * vt.size() + history_.bytes_between(requester_vt, vt));
  encode_vt(request->data, vt);
  (void)lock;
  if (ctx)
    send_from_handler(*ctx, request);
  else
    send_from_fiber(holder, request);
}

void Runtime::receive_grant(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  Costs costs(*this, ns, &ctx);
  ns.lrc.granted(LockId{static_cast<std::uint32_t>(m->words[0])}, decode_vt(m->data, ns.lrc.vt().size()),
                 costs);
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

void Runtime::lock_release(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  NodeState& ns = self(n);
  ns.lrc.check_release(lock);
  if (races_) races_->release(n, lock);  // before the lock can be granted on
  if (spans_) [[unlikely]]
    close_spans(n, Operation::LockRelease, raw(lock));
  OperationScope op(*ns.pp, Operation::LockRelease);
  ns.pp->compute(config_.dsm.protocol_handler);
  Costs costs(*this, ns, nullptr);
  if (const std::optional<lrc::LockWaiter> next = ns.lrc.release(lock, costs)) {
    auto* request = static_cast<Message*>(next->cookie);
    request->chain.add(kernel_.now(), StampPoint::SyncDelayEnd, Resource::PP, ns.id,
                       ns.pp->worked_scope());  // what the holder did while holding it
    grant_lock(nullptr, ns, lock, next->node, request);
  }
}

}  // namespace ncp2::dsm
