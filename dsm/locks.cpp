// Locks on the emulated machine: the core's distributed queue (lrc/node_locks.cpp), in the
// driver's sequence (lrc/driver.hpp), carried by messages — the request to the manager, its
// forward to the last requester, the grant with the intervals the acquirer has not seen. Acquire
// costs 0, 2 or 3 messages.
#include "dsm/runtime.hpp"
#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

using emu::Message;
using emu::Resource;
using emu::StampPoint;
using emu::WorkContext;

void Runtime::lock_acquire(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  self(n).driver.lock_acquire(lock, current_site(n));
}

void Runtime::lock_release(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  self(n).driver.lock_release(lock);
}

void Runtime::request_lock(NodeState& ns, LockId lock, const lrc::AcquireStep& step) {
  Message* m =
      new_message(ns.id, step.to, step.forward ? kLockForward : kLockRequest, 8 + 4 * ns.lrc.vt().size());
  m->words[0] = raw(lock);
  m->words[1] = static_cast<std::uint64_t>(emu::index(ns.id));
  encode_vt(m->data, ns.lrc.vt());
  send_request(ns, m, LocalCommand::SendMessage);
  wait_until_done(ns, Operation::LockAcquire, raw(lock));
}

void Runtime::on_lock_request(WorkContext& ctx, Message* m) {
  const LockId lock{static_cast<std::uint32_t>(m->words[0])};
  NodeState& here = self(ctx.node());
  lrc::LockWaiter requester{emu::node_id(static_cast<int>(m->words[1])),
                            decode_vt(m->data, here.lrc.vt().size())};
  Costs costs(*this, here, &ctx);
  const lrc::LockAnswer answer = here.lrc.lock_request(lock, requester, m->purpose == kLockForward, costs);
  switch (answer.kind) {
    case lrc::LockAnswer::Kind::Forward:
      m->source = here.id;
      m->destination = answer.to;
      m->purpose = kLockForward;
      send_from_handler(ctx, m);
      return;
    case lrc::LockAnswer::Kind::Grant:
      grant_lock(&ctx, here, requester.node, requester.known, m);
      return;
    case lrc::LockAnswer::Kind::Queue:
      // From here the requester waits for this node to release: synchronization delay, caused
      // here. Stamped when the command (or handler) starts, so that a release in the middle of it
      // still comes after this stamp.
      m->chain.add(kernel_.now(), StampPoint::SyncDelayBegin, ctx.resource(), here.id,
                   here.pp->attribution().scope);
      here.queued_locks[raw(lock)] = m;
      return;
  }
}

// `holder` passes a lock to `to`, answering `request` with the intervals `to` has not seen (it
// had seen `known`).
void Runtime::grant_lock(WorkContext* ctx, NodeState& holder, NodeId to, const VectorTime& known,
                         Message* request) {
  const VectorTime& vt = holder.lrc.vt();
  request->source = holder.id;
  request->destination = to;
  request->purpose = kLockGrant;
  request->payload_bytes = static_cast<std::uint32_t>(8 + 4 * vt.size() + holder.lrc.bytes_lacking(known));
  encode_vt(request->data, vt);
  if (ctx)
    send_from_handler(*ctx, request);
  else
    send_from_fiber(holder, request);
}

// At the release: the request queued here is answered.
void Runtime::grant_queued(NodeState& ns, LockId lock, const lrc::LockWaiter& next) {
  const auto it = ns.queued_locks.find(raw(lock));
  Message* request = it->second;
  ns.queued_locks.erase(it);
  request->chain.add(kernel_.now(), StampPoint::SyncDelayEnd, Resource::PP, ns.id,
                     ns.pp->worked_scope());  // what the holder did while holding it
  grant_lock(nullptr, ns, next.node, next.known, request);
}

void Runtime::receive_grant(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  Costs costs(*this, ns, &ctx);
  ns.lrc.granted(LockId{static_cast<std::uint32_t>(m->words[0])}, decode_vt(m->data, ns.lrc.vt().size()),
                 costs);
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

}  // namespace ncp2::dsm
