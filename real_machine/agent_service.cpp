// The agent's service thread: every message from the other nodes (and from this node to itself)
// arrives here. Requests are answered at once; replies go to the local thread's mailbox.

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <set>

#include <fmt/format.h>

#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::real {

void NodeAgent::service_loop() {
  // Poll MPI. While the local thread waits for a reply, spin (yielding the core at each turn): its
  // program is blocked then, and a sleep would add its length to every remote request. Otherwise
  // spin a little after traffic (requests come in bursts), then sleep in growing steps so that an
  // idle agent leaves the core to its program. A timer slack of 1 µs makes short sleeps short.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  constexpr double kSpinAfterTrafficNs = 20'000;
  double last_traffic = now_ns();
  service_started_ns_ = last_traffic;
  long idle_ns = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    try {
      if (std::optional<Message> m = transport_.poll()) {
        const double start = now_ns();
        const Tag tag = m->tag;
        dispatch(std::move(*m));
        last_traffic = now_ns();
        if (cp_segments_.size() < options_.max_segments)
          cp_segments_.push_back(
              {true, carnival::Category::CPComp, std::string(to_string(tag)), 0, start, last_traffic});
        else
          ++cp_segments_dropped_;
        cp_busy_ns_.fetch_add(static_cast<std::uint64_t>(last_traffic - start), std::memory_order_relaxed);
        idle_ns = 0;
        continue;
      }
    } catch (const std::exception& e) {
      broadcast_failure(fmt::format("node {}: {}", self(), e.what()));
    }
    if (self() == 0 && !aborted_.load()) {
      look_for_deadlock();
      look_for_wall_limit();
    }
    if (awaiting_.load(std::memory_order_acquire) > 0 || now_ns() - last_traffic < kSpinAfterTrafficNs) {
      sched_yield();
      continue;
    }
    idle_ns = idle_ns == 0 ? 1'000 : std::min<long>(idle_ns * 2, 50'000);
    const timespec pause{0, idle_ns};
    nanosleep(&pause, nullptr);
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
      return on_malloc(m);
    case Tag::FreeRequest:
      return on_free(m);
    case Tag::Abort:
      return on_abort(m);
    case Tag::Blocked:
      return on_blocked(m);
    case Tag::HeldQuery:
      return on_held_query(m);
    case Tag::HeldReply:
      return on_held_reply(m);
    case Tag::PlaceQuery:
      return on_place_query(m);
    case Tag::PlaceReply:
      return on_place_reply(m);
    case Tag::PageReply:
    case Tag::DiffReply:
    case Tag::LockGrant:
    case Tag::BarrierRelease:
    case Tag::MallocReply:
    case Tag::FreeReply: {
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

// As the page's home: a copy of it. The program may be writing the page meanwhile (this thread
// never stops it): the bytes it changes are those of an interval the requester does not know of,
// which a data-race-free program reads only after a synchronization brings their diff anyway.
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
    w.bytes(lrc_->serve_page(page));
  }
  w.i64(static_cast<std::int64_t>(now_ns() - start));  // the service time (CPRComp)
  transport_.send(m.from, Tag::PageReply, std::move(w).take());
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

// As the barrier manager: the records an arrival brings join this node's history (they are known
// here before this node has seen them), and the last arrival releases everyone.
void NodeAgent::on_barrier_arrive(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t id = r.u32();
  const lrc::VectorTime vt = r.u32s();
  const std::uint64_t usage = r.u64();
  std::vector<lrc::IntervalRecord> records = read_records(r, directory_.pages());
  std::vector<std::pair<std::vector<std::byte>, std::uint64_t>> distributed;
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const auto bytes = r.bytes();
    distributed.emplace_back(std::vector<std::byte>(bytes.begin(), bytes.end()), r.u64());
  }
  const std::lock_guard guard(mutex_);
  if (!barrier_manager_)
    throw std::runtime_error("a barrier arrival at a node that does not manage barriers");
  if (vt.size() != static_cast<std::size_t>(nodes()))
    throw std::runtime_error("malformed message: a vector time of another size");
  for (lrc::IntervalRecord& rec : records) history_.add(std::move(rec));
  auto& wait = barrier_wait_;
  wait.arrived_ns.resize(static_cast<std::size_t>(nodes()), 0);
  std::move(distributed.begin(), distributed.end(), std::back_inserter(wait.distributed));
  const bool last = barrier_manager_->arrive(lrc::node_id(m.from), lrc::BarrierId{id}, vt, usage);
  wait.arrived_ns[static_cast<std::size_t>(m.from)] = now_ns();
  wait.last_ns = wait.arrived_ns[static_cast<std::size_t>(m.from)];
  if (last) release_barrier(id);
}

void NodeAgent::release_barrier(std::uint32_t id) {
  auto& wait = barrier_wait_;
  std::vector<std::vector<std::byte>> bodies(static_cast<std::size_t>(nodes()));
  const lrc::BarrierManager::Release release = barrier_manager_->release(
      [&](lrc::NodeId j, const lrc::VectorTime& known, const lrc::VectorTime& merged) {
        std::vector<const lrc::IntervalRecord*> lacking;
        history_.for_each_between(known, merged,
                                  [&](const lrc::IntervalRecord& r) { lacking.push_back(&r); });
        const auto k = static_cast<std::size_t>(lrc::index(j));
        WireWriter w;
        w.u32(id).u32s(merged);
        write_records(w, lacking);
        w.i64(static_cast<std::int64_t>(wait.last_ns - wait.arrived_ns[k]));
        bodies[k] = std::move(w).take();
      });
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    WireWriter w;
    w.i64(lrc::index(release.last));
    // Node 0's Tmk_distribute data, for every other node.
    w.u64(k == 0 ? 0 : wait.distributed.size());
    if (k != 0)
      for (const auto& [bytes, records] : wait.distributed) w.bytes(bytes).u64(records);
    w.u32(release.collect ? 1 : 0);
    const std::vector<std::byte> tail = std::move(w).take();
    bodies[k].insert(bodies[k].end(), tail.begin(), tail.end());
    transport_.send(static_cast<int>(k), Tag::BarrierRelease, std::move(bodies[k]));
  }
  wait.distributed.clear();
  if (self() != 0) return;
  // Every node goes on now: none waits any more (their own "no longer waiting" comes later, to
  // node 0, which looks for deadlocks).
  for (Waiting& w : waiting_) w.kind = 0;
  ++waiting_epoch_;
  all_waiting_since_ = 0;
  held_.clear();
}

void NodeAgent::on_malloc(const Message& m) {
  WireReader r(m.body);
  const std::uint64_t size = r.u64();
  WireWriter w;
  {
    const std::lock_guard guard(mutex_);
    const std::optional<std::size_t> offset = heap_->allocate(size);
    w.u64(offset ? tmk::kHeapBase + *offset : 0);
    w.text(offset ? std::string() : tmk::heap_exhausted(*heap_));
  }
  transport_.send(m.from, Tag::MallocReply, std::move(w).take());
}

void NodeAgent::on_free(const Message& m) {
  WireReader r(m.body);
  const std::uint64_t address = r.u64();
  bool ok = false;
  {
    const std::lock_guard guard(mutex_);
    ok = address >= tmk::kHeapBase && address < tmk::kHeapBase + heap_->capacity() &&
         heap_->free(address - tmk::kHeapBase);
  }
  WireWriter w;
  w.u32(ok ? 1 : 0);
  transport_.send(m.from, Tag::FreeReply, std::move(w).take());
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
