// A node's locks (lrc/node.hpp): TreadMarks' distributed queue. The manager of lock l (node l mod
// n) remembers the last requester and forwards each request to it; the holder grants at its
// release with the intervals the acquirer has not seen; the last holder keeps a token and
// re-acquires without messages. An acquire costs 0, 2 or 3 messages.
//
// An interval ends when a lock changes hands, not at every release: a release with nobody waiting
// leaves the interval open, and the holder's local re-acquires and releases add to it. A node that
// polls under a lock (and writes on each poll) so makes one interval per hand-over, not one per
// poll, and a hand-over costs the same however often the lock was polled (docs/protocol.md).
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "lrc/node.hpp"

namespace ncp2::lrc {

NodeId Node::lock_manager(LockId lock) const {
  return node_id(static_cast<int>(raw(lock) % static_cast<std::uint32_t>(config_.nodes)));
}

Node::LockState& Node::lock_state(LockId lock) {
  auto [it, fresh] = locks_.try_emplace(raw(lock));
  if (fresh) it->second.token = lock_manager(lock) == self_;  // the manager holds every token at first
  return it->second;
}

void Node::check_acquire(LockId lock) {
  if (raw(lock) >= kMaxLocks)
    throw ProtocolError(
        fmt::format("node {}: lock id {} is out of range (0..{})", index(self_), raw(lock), kMaxLocks - 1));
  if (lock_state(lock).held)
    throw ProtocolError(
        fmt::format("node {} acquires lock {} which it already holds", index(self_), raw(lock)));
}

AcquireStep Node::acquire(LockId lock, std::uint64_t site, CostSink& costs) {
  LockState& ls = lock_state(lock);
  ++counters_.lock_acquires;
  ls.site = site;
  if (ls.token) {  // the last holder re-acquires: no message
    ls.held = true;
    ++counters_.local_lock_acquires;
    return {.local = true};
  }
  close_interval(costs);
  const NodeId manager = lock_manager(lock);
  if (manager != self_) {
    ++counters_.lock_requests;
    return {.local = false, .to = manager, .forward = false};
  }
  // The manager requests: it forwards to the last requester itself (one message saved).
  auto [tail, added] = lock_tails_.try_emplace(raw(lock), manager);
  const NodeId previous = tail->second;
  if (previous == self_)
    throw std::logic_error(
        fmt::format("lock {}: manager {} is its own predecessor", raw(lock), index(self_)));
  tail->second = self_;
  ++counters_.lock_forwards;
  return {.local = false, .to = previous, .forward = true};
}

LockAnswer Node::lock_request(LockId lock, const LockWaiter& requester, bool forwarded, CostSink& costs) {
  if (raw(lock) >= kMaxLocks || index(requester.node) < 0 || index(requester.node) >= config_.nodes ||
      requester.known.size() != vt_.size())
    throw ProtocolError(fmt::format("node {}: a malformed request for lock {} from node {}", index(self_),
                                    raw(lock), index(requester.node)));
  if (!forwarded && lock_manager(lock) == self_) {
    // As the manager: the request joins the distributed queue behind the last requester.
    auto [tail, added] = lock_tails_.try_emplace(raw(lock), self_);
    const NodeId previous = tail->second;
    tail->second = requester.node;
    if (previous != self_) {
      ++counters_.lock_forwards;
      return {.kind = LockAnswer::Kind::Forward, .to = previous};
    }
  }
  // At the node that holds the lock, or will: granted now if it is free, else at the release.
  LockState& ls = lock_state(lock);
  if (!ls.held && ls.token) {
    // The lock leaves while the program may be running on: the interval it left open ends now.
    close_interval_running(costs);
    ls.token = false;
    ++counters_.lock_grants;
    return {.kind = LockAnswer::Kind::Grant, .to = requester.node};
  }
  if (ls.has_next)
    throw std::logic_error(fmt::format("lock {}: node {} already has a successor", raw(lock), index(self_)));
  ls.has_next = true;
  ls.next = requester;
  return {.kind = LockAnswer::Kind::Queue, .to = requester.node};
}

void Node::granted(LockId lock, const VectorTime& learned, CostSink& costs) {
  incorporate(learned, costs);
  LockState& ls = lock_state(lock);
  ls.held = true;
  ls.token = true;
}

void Node::check_release(LockId lock) const {
  const auto it = locks_.find(raw(lock));
  if (raw(lock) >= kMaxLocks || it == locks_.end() || !it->second.held)
    throw ProtocolError(
        fmt::format("node {} releases lock {} which it does not hold", index(self_), raw(lock)));
}

std::optional<LockWaiter> Node::release(LockId lock, CostSink& costs) {
  LockState& ls = locks_.at(raw(lock));
  ls.held = false;
  if (!ls.has_next) return std::nullopt;  // the interval stays open until the lock leaves
  close_interval(costs);
  ls.has_next = false;
  ls.token = false;
  ++counters_.lock_grants;
  return std::move(ls.next);
}

bool Node::lock_held(LockId lock) const {
  const auto it = locks_.find(raw(lock));
  return it != locks_.end() && it->second.held;
}

std::uint64_t Node::lock_site(LockId lock) const {
  const auto it = locks_.find(raw(lock));
  return it == locks_.end() ? 0 : it->second.site;
}

std::vector<std::pair<LockId, std::uint64_t>> Node::held_locks() const {
  std::vector<std::pair<LockId, std::uint64_t>> out;
  for (const auto& [lock, ls] : locks_)
    if (ls.held) out.emplace_back(LockId{lock}, ls.site);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ncp2::lrc
