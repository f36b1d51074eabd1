// The agent's service thread: every message from the other nodes (and from this node to itself)
// arrives here. Requests are answered at once; replies go to the local thread's mailbox.

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <ctime>
#include <optional>

#include <fmt/format.h>

#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"

namespace ncp2::real {

void NodeAgent::service_loop() {
  // Take every message as it arrives. While the local thread waits for a reply, and a moment after
  // traffic (requests come in bursts), poll (yielding the core at each turn): its program is
  // blocked then, and a wake-up would add to every remote request (the local thread wakes this
  // one when it starts to await, so that wake-up overlaps the request's trip: page miss 75 -> 60 us,
  // diff miss 52 -> 35 us, docs/real-machine.md). Otherwise sleep until a message
  // arrives (the transport's event descriptor: no timer, no core), node 0 waking every 10 ms to
  // watch for a deadlock and the wall limit (docs/real-machine.md, issue 42).
  constexpr double kSpinAfterTrafficNs = 20'000;
  double last_traffic = now_ns();
  limit_.start(last_traffic);
  while (!stop_.load(std::memory_order_acquire)) {
    try {
      if (std::optional<Message> m = transport_.poll()) {
        const double start = now_ns();
        const Tag tag = m->tag;
        dispatch(std::move(*m));
        last_traffic = now_ns();
        if (tag == Tag::Hello) continue;  // joining the run, before its timed region: not its work
        if (cp_segments_.size() < options_.max_segments)
          cp_segments_.push_back(
              {true, carnival::Category::CPComp, std::string(to_string(tag)), 0, start, last_traffic});
        else
          ++cp_segments_dropped_;
        cp_busy_ns_.fetch_add(static_cast<std::uint64_t>(last_traffic - start), std::memory_order_relaxed);
        continue;
      }
    } catch (const std::exception& e) {
      broadcast_failure(fmt::format("node {}: {}", self(), e.what()));
    }
    if (self() == 0 && !aborted_.load()) {
      deadlock_.look();
      limit_.look();
    }
    if (awaiting_.load(std::memory_order_acquire) > 0 || now_ns() - last_traffic < kSpinAfterTrafficNs) {
      sched_yield();
      continue;
    }
    try {
      // Asleep only if the local thread did not start to await meanwhile: it reads the flag after
      // counting itself in (both sequentially consistent), so one of the two sees the other.
      service_asleep_.store(true, std::memory_order_seq_cst);
      if (awaiting_.load(std::memory_order_seq_cst) == 0) transport_.wait_for_traffic(self() == 0 ? 10 : 100);
      service_asleep_.store(false, std::memory_order_seq_cst);
    } catch (const std::exception& e) {
      service_asleep_.store(false, std::memory_order_seq_cst);
      broadcast_failure(fmt::format("node {}: {}", self(), e.what()));
    }
  }
}

void NodeAgent::dispatch(Message m) {
  switch (m.tag) {
    case Tag::PageRequest:
      return on_page_request(m);
    case Tag::DiffRequest:
      return on_diff_request(m);
    case Tag::LockRequest:
      return on_lock_request(m);
    case Tag::LockForward:
      return on_lock_forward(m);
    case Tag::BarrierArrive:
      return on_barrier_arrive(m);
    case Tag::MallocRequest:
    case Tag::FreeRequest:
      return on_heap_request(m);
    case Tag::Abort:
      return on_abort(m);
    case Tag::Blocked:
      return deadlock_.on_blocked(m);
    case Tag::HeldQuery:
      return deadlock_.on_held_query(m);
    case Tag::HeldReply:
      return deadlock_.on_held_reply(m);
    case Tag::PlaceQuery:
      return on_place_query(m);
    case Tag::PlaceReply:
      return limit_.on_place_reply(m);
    case Tag::PageReply:
    case Tag::DiffReply:
    case Tag::LockGrant:
    case Tag::BarrierRelease:
    case Tag::MallocReply:
    case Tag::FreeReply:
    case Tag::Hello: {
      const std::lock_guard lock(mutex_);
      replies_.push_back(std::move(m));
      replies_cv_.notify_all();
      return;
    }
    default:
      throw std::runtime_error(
          fmt::format("a message of unknown kind {} from node {}", static_cast<int>(m.tag), m.from));
  }
}

// As the page's home: a copy of it as this node's last closed interval left it (lrc::Node::serve_page:
// the twin of a page the open interval writes). The program runs on meanwhile (this thread never
// stops it), and a write fault it takes at once (tmk/runtime/write_guards.cpp) reaches the core
// only with its next request: until then the page as the core knows it is the fault's snapshot.
// The faults are looked at after the copy is made, so that one taken while it was made counts too.
void NodeAgent::on_page_request(const Message& m) {
  const double start = now_ns();
  WireReader r(m.body);
  const lrc::PageId page{r.u32()};
  WireWriter w;
  w.u32(lrc::raw(page));
  {
    const std::lock_guard lock(mutex_);
    if (!lrc_) throw std::runtime_error("a page request before the program started");
    if (lrc::raw(page) >= directory_.pages())
      throw std::runtime_error("malformed message: a page outside the heap");
    const std::span<const std::byte> served = lrc_->serve_page(page);
    served_copy_.assign(served.begin(), served.end());
    if (const std::byte* snapshot = untold_write_snapshot(page))
      std::copy_n(snapshot, served_copy_.size(), served_copy_.begin());
    w.bytes(served_copy_);
  }
  w.i64(static_cast<std::int64_t>(now_ns() - start));  // the service time (CPRComp)
  transport_.send(m.from, Tag::PageReply, std::move(w).take());
}

// The snapshot of `page` if the program took a write fault on it at once that its agent has not
// replayed yet (the channel lists those of the running stretch: replay_deferred_faults clears the
// list), else null. After the copy of the page: the program publishes a fault (tmk's take_at_once)
// before it writes the page, so a copy holding such a write finds its fault here.
const std::byte* NodeAgent::untold_write_snapshot(lrc::PageId page) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  tmk::Channel& c = process_->channel();
  const std::uint32_t taken = std::atomic_ref(c.deferred).load(std::memory_order_acquire);
  const auto listed = std::min<std::size_t>({taken, c.deferral_slots, tmk::kMaxDeferredFaults});
  for (std::size_t k = 0; k < listed; ++k) {
    const std::uint64_t offset = c.deferred_fault[k].address - tmk::kHeapBase;
    if (offset < options_.heap_bytes && offset / options_.page_bytes == lrc::raw(page))
      return process_->snapshots() + k * options_.page_bytes;
  }
  return nullptr;
}

void NodeAgent::on_diff_request(const Message& m) {
  const double start = now_ns();
  WireReader r(m.body);
  const lrc::PageId page{r.u32()};
  const std::span<const std::byte> intervals = r.bytes();
  std::vector<std::byte> reply;
  {
    const std::lock_guard lock(mutex_);
    if (!lrc_) throw std::runtime_error("a diff request before the program started");
    if (lrc::raw(page) >= directory_.pages())
      throw std::runtime_error("malformed message: a page outside the heap");
    lrc::encode_diff_reply(*lrc_, page, intervals, no_costs, reply);
  }
  WireWriter w;
  w.u32(lrc::raw(page)).bytes(reply);
  w.i64(static_cast<std::int64_t>(now_ns() - start));  // the service time (CPRComp)
  transport_.send(m.from, Tag::DiffReply, std::move(w).take());
}

// As the lock's manager (LockRequest), or as the node the manager forwarded it to (LockForward):
// the core's answer (lrc::Node::lock_request) carried out.
void NodeAgent::on_lock_request(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t lock = r.u32();
  const auto requester = static_cast<int>(r.u32());
  lrc::LockWaiter waiter{lrc::node_id(requester), r.u32s()};
  const std::lock_guard guard(mutex_);
  lrc::LockAnswer answer;
  try {
    answer = lrc_->lock_request(lrc::LockId{lock}, waiter, m.tag == Tag::LockForward, no_costs);
  } catch (const lrc::ProtocolError& e) {
    throw std::runtime_error(fmt::format("malformed message: {}", e.what()));
  }
  switch (answer.kind) {
    case lrc::LockAnswer::Kind::Forward: {
      WireWriter w;
      w.u32(lock).u32(static_cast<std::uint32_t>(requester)).u32s(waiter.known);
      transport_.send(lrc::index(answer.to), Tag::LockForward, std::move(w).take());
      return;
    }
    case lrc::LockAnswer::Kind::Grant:
      grant(lock, requester, waiter.known, 0);
      return;
    case lrc::LockAnswer::Kind::Queue:
      queued_since_[lock] = now_ns();
      return;
  }
}

void NodeAgent::on_lock_forward(const Message& m) { on_lock_request(m); }

// The lock to `to`, with this node's vector time and the records `to` lacks.
void NodeAgent::grant(std::uint32_t lock, int to, const lrc::VectorTime& known, double delay_ns) {
  if (known.size() != lrc_->vt().size())
    throw std::runtime_error("malformed message: a vector time of another size");
  std::vector<const lrc::IntervalRecord*> records;
  lrc_->for_each_lacking(known, [&](const lrc::IntervalRecord& r) { records.push_back(&r); });
  WireWriter w;
  w.u32(lock).u32s(lrc_->vt());
  write_records(w, records);
  w.i64(static_cast<std::int64_t>(delay_ns));
  transport_.send(to, Tag::LockGrant, std::move(w).take());
}

// As the barrier manager. When an episode ends every node goes on: none waits any more (their own
// "no longer waiting" comes later, to node 0, which looks for deadlocks).
void NodeAgent::on_barrier_arrive(const Message& m) {
  if (barriers_.on_arrive(m) && self() == 0) deadlock_.barrier_released();
}

void NodeAgent::on_heap_request(const Message& m) {
  if (!heap_) throw std::runtime_error("a heap request at a node that does not keep the heap");
  if (m.tag == Tag::MallocRequest) return heap_->on_malloc(m);
  heap_->on_free(m);
}

// Node 0 asks where the program is. While the local thread waits for a reply it cannot answer, but
// what it waits for is known here.
void NodeAgent::on_place_query(const Message& m) {
  std::string waiting = deadlock_.local_wait();
  if (awaiting_.load(std::memory_order_acquire) == 0) waiting.clear();
  limit_.on_place_query(m, waiting);
}

void NodeAgent::on_abort(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t kind = r.u32();
  stop_program(r.text(), kind <= static_cast<std::uint32_t>(StopKind::Limit) ? static_cast<StopKind>(kind)
                                                                             : StopKind::Failure);
}

// Records the first failure, ends the program and wakes the local thread.
void NodeAgent::stop_program(const std::string& text, StopKind kind) {
  {
    const std::lock_guard guard(mutex_);
    if (abort_text_.empty()) {
      abort_text_ = text;
      stop_kind_.store(kind);
    }
    aborted_.store(true);
    replies_cv_.notify_all();
  }
  const pid_t pid = program_pid_.load();
  if (pid > 0) ::kill(pid, SIGKILL);
}

}  // namespace ncp2::real
