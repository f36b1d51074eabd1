// The agent's service thread: every message from the other nodes (and from this node to itself)
// arrives here. Requests are answered at once; replies go to the local thread's mailbox.

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <set>

#include <fmt/format.h>

#include "dsm/types.hpp"
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
    if (self() == 0 && !aborted_.load()) look_for_deadlock();
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

void NodeAgent::on_diff_request(const Message& m) {
  const double start = now_ns();
  WireReader r(m.body);
  WireWriter w;
  const std::uint64_t pages = r.u64();
  w.u64(pages);
  {
    const std::lock_guard lock(mutex_);
    if (!lrc_) throw std::runtime_error("a diff request before the program started");
    for (std::uint64_t i = 0; i < pages; ++i) {
      const std::uint32_t page = r.u32();
      const std::vector<std::uint32_t> seqs = r.u32s();
      w.u32(page).u64(seqs.size());
      for (std::uint32_t seq : seqs) w.u32(seq).bytes(lrc_->diff(page, seq));
    }
  }
  w.i64(static_cast<std::int64_t>(now_ns() - start));  // the service time (CPRComp)
  transport_.send(m.from, Tag::DiffReply, std::move(w).take());
}

NodeAgent::Lock& NodeAgent::lock_state(std::uint32_t lock) {
  auto& slot = locks_[lock];
  if (!slot) {
    slot = std::make_unique<Lock>();
    const int manager = static_cast<int>(lock % static_cast<std::uint32_t>(nodes()));
    slot->token = manager == self();  // the manager holds every lock's token at first
    slot->last_requester = manager;
  }
  return *slot;
}

void NodeAgent::on_lock_request(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t lock = r.u32();
  const auto requester = static_cast<int>(r.u32());
  const VectorTime known = r.u32s();
  const std::lock_guard guard(mutex_);
  Lock& l = lock_state(lock);
  const int previous = l.last_requester;
  l.last_requester = requester;
  WireWriter w;
  w.u32(lock).u32(static_cast<std::uint32_t>(requester)).u32s(known);
  transport_.send(previous, Tag::LockForward, std::move(w).take());
}

void NodeAgent::on_lock_forward(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t lock = r.u32();
  const auto requester = static_cast<int>(r.u32());
  VectorTime known = r.u32s();
  const std::lock_guard guard(mutex_);
  Lock& l = lock_state(lock);
  if (l.token && !l.held) {
    grant(lock, requester, known, 0);
    return;
  }
  if (l.next)
    throw std::logic_error(fmt::format("lock {}: a second waiter forwarded to node {}", lock, self()));
  l.next = Lock::Waiter{requester, std::move(known), now_ns()};
}

void NodeAgent::grant(std::uint32_t lock, int to, const VectorTime& known, double delay_ns) {
  Lock& l = lock_state(lock);
  l.token = false;
  WireWriter w;
  w.u32(lock);
  write_intervals(w, lrc_->unseen_by(known));
  w.i64(static_cast<std::int64_t>(delay_ns));
  transport_.send(to, Tag::LockGrant, std::move(w).take());
}

void NodeAgent::on_barrier_arrive(const Message& m) {
  WireReader r(m.body);
  const std::uint32_t id = r.u32();
  const auto node = static_cast<std::size_t>(m.from);
  VectorTime known = r.u32s();
  std::vector<IntervalRecord> intervals = read_intervals(r);
  const std::uint64_t diff_bytes = r.u64();
  const std::lock_guard guard(mutex_);
  auto& slot = barriers_[id];
  if (!slot) {
    slot = std::make_unique<BarrierSlot>();
    slot->arrived.assign(static_cast<std::size_t>(nodes()), false);
    slot->known.resize(static_cast<std::size_t>(nodes()));
    slot->arrived_ns.assign(static_cast<std::size_t>(nodes()), 0);
  }
  BarrierSlot& b = *slot;
  if (b.arrived.at(node))
    throw std::logic_error(fmt::format("node {} arrived twice at barrier {}", node, id));
  b.arrived[node] = true;
  b.known[node] = std::move(known);
  b.arrived_ns[node] = now_ns();
  b.last = static_cast<int>(node);
  b.last_ns = b.arrived_ns[node];
  std::move(intervals.begin(), intervals.end(), std::back_inserter(b.intervals));
  // A program's barrier collects garbage when some node's diffs outgrew the threshold.
  if (id < dsm::kMaxBarriers && diff_bytes > options_.gc_threshold_bytes) b.collect = true;
  if (++b.count < b.arrived.size()) return check_barrier_deadlock();
  release_barrier(id, b);
  barriers_.erase(id);
}

void NodeAgent::release_barrier(std::uint32_t id, const BarrierSlot& b) {
  std::vector<const IntervalRecord*> all;
  for (const IntervalRecord& rec : b.intervals) all.push_back(&rec);
  std::sort(all.begin(), all.end(), [](const IntervalRecord* x, const IntervalRecord* y) {
    return x->creator != y->creator ? x->creator < y->creator : x->seq < y->seq;
  });
  for (std::size_t k = 0; k < b.arrived.size(); ++k) {
    std::vector<const IntervalRecord*> lacking;
    for (const IntervalRecord* rec : all)
      if (rec->seq > b.known[k].at(rec->creator)) lacking.push_back(rec);
    WireWriter w;
    w.u32(id);
    write_intervals(w, lacking);
    w.i64(static_cast<std::int64_t>(b.last_ns - b.arrived_ns[k])).i64(b.last);
    // Node 0's Tmk_distribute data, for every other node.
    w.u64(k == 0 ? 0 : distributed_.size());
    if (k != 0)
      for (const auto& [bytes, records] : distributed_) w.bytes(bytes).u64(records);
    w.u32(b.collect ? 1 : 0);
    transport_.send(static_cast<int>(k), Tag::BarrierRelease, std::move(w).take());
  }
  distributed_.clear();
  // Every node goes on now: none waits any more (their own "no longer waiting" comes later).
  for (Waiting& w : waiting_) w.kind = 0;
  ++waiting_epoch_;
  all_waiting_since_ = 0;
  held_.clear();
}

// Every node waits at some barrier but not all at the same one: none can ever go on.
void NodeAgent::check_barrier_deadlock() {
  if (barriers_.size() < 2) return;
  std::size_t waiting = 0;
  std::string where;
  for (const auto& [id, slot] : barriers_) {
    waiting += slot->count;
    std::string who;
    for (std::size_t k = 0; k < slot->arrived.size(); ++k)
      if (slot->arrived[k]) who += fmt::format("{}{}", who.empty() ? "" : ", ", k);
    where += fmt::format("{}node{} {} at {}", where.empty() ? "" : "; ", slot->count == 1 ? "" : "s", who,
                         id == kExitBarrier ? std::string("its exit")
                         : id == kGcBarrier ? std::string("a garbage collection")
                                            : fmt::format("barrier {}", id));
  }
  if (waiting == static_cast<std::size_t>(nodes()))
    throw std::runtime_error("deadlock: every node waits at a barrier, but not at the same one (" + where +
                             ")");
}

void NodeAgent::on_malloc(const Message& m) {
  WireReader r(m.body);
  const std::uint64_t size = r.u64();
  WireWriter w;
  {
    const std::lock_guard guard(mutex_);
    const std::optional<std::size_t> offset = heap_->allocate(size);
    w.u64(offset ? tmk::kHeapBase + *offset : 0);
    w.text(offset ? std::string()
                  : fmt::format(
                        "the shared heap of {} MiB is exhausted ({} bytes in use, the largest free block {} "
                        "bytes); raise it with --set tmk.heap_mb=N",
                        heap_->capacity() >> 20, heap_->in_use(), heap_->largest_free()));
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
  const bool deadlock = r.u32() != 0;
  stop_program(r.text(), deadlock);
}

// Records the first failure, ends the program and wakes the local thread.
void NodeAgent::stop_program(const std::string& text, bool deadlock) {
  {
    const std::lock_guard guard(mutex_);
    if (abort_text_.empty()) {
      abort_text_ = text;
      deadlock_.store(deadlock);
    }
    aborted_.store(true);
    replies_cv_.notify_all();
  }
  const pid_t pid = program_pid_.load();
  if (pid > 0) ::kill(pid, SIGKILL);
}

}  // namespace ncp2::real
