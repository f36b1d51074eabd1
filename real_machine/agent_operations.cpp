// The agent's local thread: the protocol's operations for the program's requests. The decisions
// are the core's (lrc::Node, the same code the emulator runs); here they become MPI messages and
// waits for their replies, with the parts of each wait that can be observed.
#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::real {

using carnival::WaitPart;
using lrc::Operation;
using lrc::PageId;

void NodeAgent::fault(PageId page, bool write) {
  faulted_.push_back(lrc::raw(page));
  pending_->operation = write ? Operation::WriteFault : Operation::None;
  Fetched fetched;
  bool invalid = false;
  bool held = false;
  {
    const std::lock_guard guard(mutex_);
    invalid = lrc_->access(page) == lrc::Access::None;
    if (invalid) pending_->operation = lrc_->begin_fault(page);
    held = lrc_->holds(page);
  }
  if (invalid) {
    if (!held) fetch_page(page, fetched);
    fetch_diffs(page, fetched);
    const std::lock_guard guard(mutex_);
    lrc_->grant_read(page);
  }
  if (fetched.messages > 0) {
    pending_->waited = true;
    pending_->wait.object = lrc::raw(page);
    pending_->wait.remote_node = fetched.slowest_server;
    pending_->remote_ns = fetched.remote_ns;
    part(pending_->wait, WaitPart::CPRComp) = std::min(fetched.longest_service_ns, fetched.remote_ns);
  }
  const std::lock_guard guard(mutex_);
  if (write && lrc_->access(page) != lrc::Access::Write) lrc_->begin_write(page, no_costs);
}

// A page this node does not hold, from its home.
void NodeAgent::fetch_page(PageId page, Fetched& f) {
  lrc::NodeId home{};
  {
    const std::lock_guard guard(mutex_);
    home = lrc_->request_page(page);
  }
  const double start = now_ns();
  WireWriter w;
  w.u32(lrc::raw(page));
  transport_.send(lrc::index(home), Tag::PageRequest, std::move(w).take());
  const Message m = await_reply(Tag::PageReply, [page](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == lrc::raw(page);
  });
  WireReader r(m.body);
  r.u32();
  const auto bytes = r.bytes();
  if (const auto service = static_cast<double>(r.i64()); service >= f.longest_service_ns) {
    f.longest_service_ns = service;
    f.slowest_server = m.from;
  }
  f.remote_ns += now_ns() - start;
  ++f.messages;
  const std::lock_guard guard(mutex_);
  lrc_->install_page(page, bytes);
}

// The diffs of the page's write notices: one request per writer, all sent at once, then applied
// in happens-before order.
void NodeAgent::fetch_diffs(PageId page, Fetched& f) {
  std::vector<std::pair<int, std::vector<std::uint32_t>>> writers;
  {
    const std::lock_guard guard(mutex_);
    if (!lrc_->has_notices(page)) return;
    for (const lrc::Notice& n : lrc_->plan_diff_fetch(page)) {
      if (writers.empty() || writers.back().first != lrc::index(n.writer))
        writers.emplace_back(lrc::index(n.writer), std::vector<std::uint32_t>{});
      writers.back().second.push_back(n.interval);
    }
  }
  const double start = now_ns();
  for (const auto& [writer, intervals] : writers) {
    WireWriter w;
    w.u32(lrc::raw(page)).u32s(intervals);
    transport_.send(writer, Tag::DiffRequest, std::move(w).take());
  }
  std::vector<Message> replies;
  for (const auto& [writer, intervals] : writers) {
    const int from = writer;
    replies.push_back(await_reply(Tag::DiffReply, [from, page](const Message& r) {
      WireReader peek(r.body);
      return r.from == from && peek.u32() == lrc::raw(page);
    }));
  }
  f.remote_ns += now_ns() - start;
  const std::lock_guard guard(mutex_);
  for (const Message& m : replies) {
    WireReader r(m.body);
    r.u32();
    for (std::uint64_t k = 0, n = r.u64(); k < n; ++k) {
      const std::uint32_t interval = r.u32();
      lrc_->receive_diff(lrc::node_id(m.from), interval, r.bytes(), no_costs);
    }
    if (const auto service = static_cast<double>(r.i64()); service >= f.longest_service_ns) {
      f.longest_service_ns = service;
      f.slowest_server = m.from;
    }
    ++f.messages;
  }
  lrc_->apply_received(page);
}

void NodeAgent::lock_acquire(std::uint32_t lock) {
  pending_->operation = Operation::LockAcquire;
  const lrc::LockId id{lock};
  const std::string here = where();
  lrc::AcquireStep step;
  lrc::VectorTime known;
  {
    std::unique_lock guard(mutex_);
    try {
      lrc_->check_acquire(id);
    } catch (const lrc::ProtocolError& e) {
      guard.unlock();  // fail() takes the mutex
      fail(e.what() + here);
    }
    step = lrc_->acquire(id, 0, no_costs);
    if (step.local) {  // released here and nobody asked since: no message at all
      held_where_[lock] = here;
      return;
    }
    known = lrc_->vt();
  }
  pending_->waited = true;
  pending_->wait.object = lock;
  WireWriter w;
  w.u32(lock).u32(static_cast<std::uint32_t>(self())).u32s(known);
  const double start = now_ns();
  report_blocked(1, lock, here);
  transport_.send(lrc::index(step.to), step.forward ? Tag::LockForward : Tag::LockRequest,
                  std::move(w).take());
  const Message m = await_reply(Tag::LockGrant, [lock](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == lock;
  });
  pending_->remote_ns = now_ns() - start;
  report_blocked(0, 0, {});
  WireReader r(m.body);
  r.u32();
  const lrc::VectorTime learned = r.u32s();
  std::vector<lrc::IntervalRecord> records = read_records(r, directory_.pages());
  const auto delay = static_cast<double>(r.i64());
  part(pending_->wait, WaitPart::SyncDelay) = std::min(delay, pending_->remote_ns);
  pending_->wait.remote_node = m.from;
  if (delay > 0) pending_->wait.cause_node = m.from;
  const std::lock_guard guard(mutex_);
  for (lrc::IntervalRecord& rec : records) history_.add(std::move(rec));
  lrc_->granted(id, learned, no_costs);
  held_where_[lock] = here;
}

void NodeAgent::lock_release(std::uint32_t lock) {
  pending_->operation = Operation::LockRelease;
  const lrc::LockId id{lock};
  std::unique_lock guard(mutex_);
  try {
    lrc_->check_release(id);
  } catch (const lrc::ProtocolError& e) {
    guard.unlock();  // fail() takes the mutex
    fail(e.what() + where());
  }
  held_where_.erase(lock);
  if (const std::optional<lrc::LockWaiter> next = lrc_->release(id, no_costs)) {
    const QueuedRequest queued = std::move(queued_.at(lock));
    queued_.erase(lock);
    grant(lock, lrc::index(next->node), queued.known, now_ns() - queued.since_ns);
  }
}

void NodeAgent::barrier(std::uint32_t id) {
  if (pending_) {
    pending_->operation = id == lrc::kExitBarrier ? Operation::Exit : Operation::Barrier;
    pending_->waited = true;
    pending_->wait.object = id;
  }
  const double start = now_ns();
  const BarrierRelease release = barrier_exchange(id);
  if (pending_) {
    pending_->remote_ns = now_ns() - start;
    part(pending_->wait, WaitPart::SyncDelay) = std::clamp(release.delay_ns, 0.0, pending_->remote_ns);
    pending_->wait.remote_node = lrc::index(options_.protocol.barrier_manager);
    if (release.delay_ns > 0 && release.last != self()) pending_->wait.cause_node = release.last;
  }
  // The garbage collection's time is the barrier's, in the agent's own work (CPLComp).
  if (release.collect && id < lrc::kMaxBarriers) collect_garbage();
}

// Arrives at barrier `id` with this node's vector time and the intervals after its last release,
// waits for the release and takes in the intervals it brings.
NodeAgent::BarrierRelease NodeAgent::barrier_exchange(std::uint32_t id) {
  WireWriter w;
  w.u32(id);
  {
    const std::lock_guard guard(mutex_);
    const std::size_t usage = lrc_->arrive_at_barrier(no_costs);
    w.u32s(lrc_->vt()).u64(usage);
    std::vector<const lrc::IntervalRecord*> records;
    history_.for_each_between(lrc_->vt_at_release(), lrc_->vt(),
                              [&](const lrc::IntervalRecord& r) { records.push_back(&r); });
    write_records(w, records);
    // Node 0's Tmk_distribute data goes to the others with this barrier's release.
    w.u64(distributed_.size());
    for (const auto& [bytes, count] : distributed_) w.bytes(bytes).u64(count);
    distributed_.clear();
  }
  const bool program_call = id < lrc::kMaxBarriers && process_;
  report_blocked(2, id, program_call ? where() : std::string());
  transport_.send(lrc::index(options_.protocol.barrier_manager), Tag::BarrierArrive, std::move(w).take());
  const Message m = await_reply(Tag::BarrierRelease, [id](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == id;
  });
  if (id != lrc::kExitBarrier) report_blocked(0, 0, {});
  WireReader r(m.body);
  r.u32();
  const lrc::VectorTime merged = r.u32s();
  std::vector<lrc::IntervalRecord> records = read_records(r, directory_.pages());
  BarrierRelease release;
  release.delay_ns = static_cast<double>(r.i64());
  release.last = static_cast<int>(r.i64());
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const auto bytes = r.bytes();
    server_->distributed(bytes, r.u64());
  }
  release.collect = r.u32() != 0;
  const std::lock_guard guard(mutex_);
  for (lrc::IntervalRecord& rec : records) history_.add(std::move(rec));
  lrc_->released(merged, no_costs);
  lrc_->count_barrier();
  return release;
}

// TreadMarks' garbage collection (lrc/node_gc.cpp): stale copies brought up to date or dropped, a
// second barrier, then every twin, diff and record dropped.
void NodeAgent::collect_garbage() {
  std::uint32_t pages = 0;
  {
    const std::lock_guard guard(mutex_);
    lrc_->begin_gc();
    pages = directory_.pages();
  }
  for (std::uint32_t p = 0; p < pages; ++p) {
    const PageId page{p};
    {
      const std::lock_guard guard(mutex_);
      if (lrc_->gc_step(page) != lrc::GcStep::Validate) continue;
    }
    Fetched ignored;
    fetch_diffs(page, ignored);
    const std::lock_guard guard(mutex_);
    lrc_->gc_validated(page);
  }
  (void)barrier_exchange(lrc::kGcBarrier);
  const std::lock_guard guard(mutex_);
  lrc_->discard_history(no_costs);
}

std::pair<std::uint64_t, std::string> NodeAgent::malloc_request(std::uint64_t bytes) {
  if (self() == 0) {
    const std::lock_guard guard(mutex_);
    const std::optional<std::size_t> offset = heap_->allocate(bytes);
    if (!offset) return {0, tmk::heap_exhausted(*heap_)};
    return {tmk::kHeapBase + *offset, {}};
  }
  WireWriter w;
  w.u64(bytes);
  transport_.send(0, Tag::MallocRequest, std::move(w).take());
  const Message m = await_reply(Tag::MallocReply);
  WireReader r(m.body);
  const std::uint64_t address = r.u64();
  return {address, r.text()};
}

bool NodeAgent::free_request(std::uint64_t address) {
  if (self() == 0) {
    const std::lock_guard guard(mutex_);
    return address >= tmk::kHeapBase && address < tmk::kHeapBase + heap_->capacity() &&
           heap_->free(address - tmk::kHeapBase);
  }
  WireWriter w;
  w.u64(address);
  transport_.send(0, Tag::FreeRequest, std::move(w).take());
  const Message m = await_reply(Tag::FreeReply);
  WireReader r(m.body);
  return r.u32() != 0;
}

}  // namespace ncp2::real
