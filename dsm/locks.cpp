// Locks: manager = id mod n, forwarding to the last requester; the releaser grants with the
// write notices the acquirer has not seen. Acquire costs 0, 2 or 3 messages.
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
  if (raw(lock) >= kMaxLocks)
    throw DsmError(
        fmt::format("node {}: lock id {} is out of range (0..{})", emu::index(n), raw(lock), kMaxLocks - 1));
  auto [it, fresh] = ns.locks.try_emplace(raw(lock));
  auto& ls = it->second;
  if (fresh) ls.token = lock_manager(lock) == n;
  if (ls.held)
    throw DsmError(fmt::format("node {} acquires lock {} which it already holds", emu::index(n), raw(lock)));
  if (spans_) [[unlikely]]
    close_spans(n, Operation::LockAcquire, raw(lock));
  OperationScope op(*ns.pp, Operation::LockAcquire);
  ns.pp->compute(config_.dsm.protocol_handler);
  ++ns.stats.lock_acquires;
  ls.acquired_site = current_site(n);
  if (ls.token) {  // the last holder re-acquires: no message
    ls.held = true;
    ++ns.stats.local_lock_acquires;
    if (races_) races_->acquired(n, lock);
    return;
  }
  close_interval(ns);
  ls.requested = true;
  const NodeId manager = lock_manager(lock);
  Message* m = new_message(n, manager, kLockRequest, 8 + 4 * ns.vt.size());
  m->words[0] = raw(lock);
  m->words[1] = static_cast<std::uint64_t>(emu::index(n));
  encode_vt(m->data, ns.vt);
  if (manager == n) {
    // The manager requests: it forwards to the last requester itself (one message saved).
    auto [tail, added] = lock_tail_.try_emplace(raw(lock), manager);
    const NodeId previous = tail->second;
    if (previous == n)
      throw std::logic_error(
          fmt::format("lock {}: manager {} is its own predecessor", raw(lock), emu::index(n)));
    tail->second = n;
    m->destination = previous;
    m->purpose = kLockForward;
  }
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
    auto [tail, added] = lock_tail_.try_emplace(raw(lock), here.id);
    const NodeId previous = tail->second;
    tail->second = requester;
    if (previous != here.id) {
      m->source = here.id;
      m->destination = previous;
      m->purpose = kLockForward;
      send_from_handler(ctx, m);
      return;
    }
  }
  // At the node that holds the lock, or will: grant now if it is free, else when released.
  auto [it, fresh] = here.locks.try_emplace(raw(lock));
  auto& ls = it->second;
  if (fresh) ls.token = lock_manager(lock) == here.id;
  if (!ls.held && ls.token) {
    ls.token = false;
    grant_lock(&ctx, here, lock, requester, m);
    return;
  }
  if (ls.has_next)
    throw std::logic_error(
        fmt::format("lock {}: node {} already has a successor", raw(lock), emu::index(here.id)));
  ls.has_next = true;
  ls.next = requester;
  ls.next_request = m;
  // From here the requester waits for this node to release: synchronization delay, caused here.
  // Stamped when the command (or handler) starts, so that a release in the middle of it still
  // comes after this stamp.
  m->chain.add(kernel_.now(), StampPoint::SyncDelayBegin, ctx.resource(), here.id,
               here.pp->attribution().scope);
}

// `holder` passes lock `lock` to `to`, answering `request` with the intervals `to` has not seen.
void Runtime::grant_lock(WorkContext* ctx, NodeState& holder, LockId lock, NodeId to, Message* request) {
  const VectorTime requester_vt = decode_vt(request->data, holder.vt.size());
  request->source = holder.id;
  request->destination = to;
  request->purpose = kLockGrant;
  request->payload_bytes =
      static_cast<std::uint32_t>(8 + 4 * holder.vt.size() + intervals_bytes(requester_vt, holder.vt));
  encode_vt(request->data, holder.vt);
  (void)lock;
  if (ctx)
    send_from_handler(*ctx, request);
  else
    send_from_fiber(holder, request);
}

void Runtime::receive_grant(WorkContext& ctx, Message* m) {
  NodeState& ns = self(ctx.node());
  const LockId lock{static_cast<std::uint32_t>(m->words[0])};
  apply_intervals(ns, decode_vt(m->data, ns.vt.size()), &ctx);
  auto& ls = ns.locks[raw(lock)];
  ls.held = true;
  ls.token = true;
  ls.requested = false;
  finish_wait(ctx, ns, m);
  cluster_.release(m);
}

void Runtime::lock_release(NodeId n, LockId lock) {
  const MeasuredEntry measured(*this, n);
  NodeState& ns = self(n);
  auto it = ns.locks.find(raw(lock));
  if (raw(lock) >= kMaxLocks || it == ns.locks.end() || !it->second.held)
    throw DsmError(fmt::format("node {} releases lock {} which it does not hold", emu::index(n), raw(lock)));
  auto& ls = it->second;
  if (races_) races_->release(n, lock);  // before the lock can be granted on
  if (spans_) [[unlikely]]
    close_spans(n, Operation::LockRelease, raw(lock));
  OperationScope op(*ns.pp, Operation::LockRelease);
  ns.pp->compute(config_.dsm.protocol_handler);
  close_interval(ns);
  ls.held = false;
  if (ls.has_next) {
    ls.has_next = false;
    ls.token = false;
    Message* request = ls.next_request;
    ls.next_request = nullptr;
    request->chain.add(kernel_.now(), StampPoint::SyncDelayEnd, Resource::PP, ns.id,
                       ns.pp->worked_scope());  // what the holder did while holding it
    grant_lock(nullptr, ns, lock, ls.next, request);
  }
}

}  // namespace ncp2::dsm
