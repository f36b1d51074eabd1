// The agent's local thread: the program's requests run by the operations' driver (lrc/driver.hpp,
// the same sequences the emulator runs), UCX as its transport. Each exchange here sends, waits
// for its replies and notes what it could observe of its wait (program_profile.cpp makes the wait
// rows of them, one per exchange, as the emulator records one per wait).
#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"

namespace ncp2::real {

using lrc::Operation;
using lrc::PageId;

// ---- the driver's transport
lrc::Operation NodeAgent::Exchanges::operation() const { return op_; }

void NodeAgent::Exchanges::set_operation(lrc::Operation op) {
  op_ = op;
  // A request's time outside its waits is the first operation it entered (Extra).
  a_.profile_.entered(op);
}

void NodeAgent::Exchanges::fetch_page(PageId page, lrc::NodeId home) { a_.fetch_page(page, home); }
void NodeAgent::Exchanges::fetch_diffs(PageId page, std::span<const lrc::DiffRequest> requests) {
  a_.fetch_diffs(page, requests);
}
void NodeAgent::Exchanges::request_lock(lrc::LockId lock, const lrc::AcquireStep& step) {
  a_.request_lock(lock, step);
}
void NodeAgent::Exchanges::grant_lock(lrc::LockId lock, const lrc::LockWaiter& next) {
  const std::lock_guard guard(a_.mutex_);
  const auto it = a_.queued_since_.find(lrc::raw(lock));
  const double since = it == a_.queued_since_.end() ? a_.now_ns() : it->second;
  if (it != a_.queued_since_.end()) a_.queued_since_.erase(it);
  a_.grant(lrc::raw(lock), lrc::index(next.node), next.known, a_.now_ns() - since);
}
lrc::BarrierOutcome NodeAgent::Exchanges::exchange_at_barrier(lrc::BarrierId barrier, std::size_t usage) {
  return a_.exchange_at_barrier(lrc::raw(barrier), usage);
}

// ---- the program's requests
void NodeAgent::fault(PageId page, bool write) {
  faulted_.push_back(lrc::raw(page));
  driver_->access(page, write ? lrc::Access::Write : lrc::Access::Read);
}

void NodeAgent::lock_acquire(std::uint32_t lock) {
  const std::string here = where();
  try {
    driver_->lock_acquire(lrc::LockId{lock}, 0);
  } catch (const lrc::ProtocolError& e) {
    fail(e.what() + here);
  }
  deadlock_.acquired(lock, here);
}

void NodeAgent::lock_release(std::uint32_t lock) {
  try {
    driver_->lock_release(lrc::LockId{lock});
  } catch (const lrc::ProtocolError& e) {
    fail(e.what() + where());
  }
  deadlock_.released(lock);
}

void NodeAgent::barrier(std::uint32_t id) {
  // Node 0's Tmk_distribute data goes to the others with this barrier's release.
  driver_->barrier(lrc::BarrierId{id});
}

// ---- the exchanges
// A page this node does not hold, from its home.
void NodeAgent::fetch_page(PageId page, lrc::NodeId home) {
  WireWriter w;
  w.u32(lrc::raw(page));
  const double start = now_ns();
  transport_.send(lrc::index(home), Tag::PageRequest, std::move(w).take());
  const Message m = await_reply(Tag::PageReply, [page](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == lrc::raw(page);
  });
  WireReader r(m.body);
  r.u32();
  const auto bytes = r.bytes();
  const auto service = static_cast<double>(r.i64());
  {
    const std::lock_guard guard(mutex_);
    lrc_->install_page(page, bytes);
  }
  ProgramProfile::Exchange& x = profile_.exchange(Operation::PageFault, lrc::raw(page));
  x.start_ns = start;
  x.end_ns = now_ns();
  x.service_ns = service;
  x.remote_node = m.from;
}

// The driver's diff requests (one per writer), all sent at once; the replies taken in as they
// come, applied in happens-before order once all are in.
void NodeAgent::fetch_diffs(PageId page, std::span<const lrc::DiffRequest> requests) {
  const double start = now_ns();
  for (const lrc::DiffRequest& d : requests) {
    WireWriter w;
    w.u32(lrc::raw(page)).bytes(std::as_bytes(d.intervals));
    transport_.send(lrc::index(d.writer), Tag::DiffRequest, std::move(w).take());
  }
  double longest = 0;
  int slowest = -1;
  for (const lrc::DiffRequest& d : requests) {
    const int from = lrc::index(d.writer);
    const Message m = await_reply(Tag::DiffReply, [from, page](const Message& r) {
      WireReader peek(r.body);
      return r.from == from && peek.u32() == lrc::raw(page);
    });
    WireReader r(m.body);
    r.u32();
    const auto reply = r.bytes();
    if (const auto service = static_cast<double>(r.i64()); service >= longest) {
      longest = service;
      slowest = m.from;
    }
    const std::lock_guard guard(mutex_);
    lrc::take_diff_reply(*lrc_, d.writer, reply, no_costs);
  }
  {
    const std::lock_guard guard(mutex_);
    lrc_->apply_received(page);
  }
  ProgramProfile::Exchange& x = profile_.exchange(Operation::DiffFetch, lrc::raw(page));
  x.start_ns = start;
  x.end_ns = now_ns();
  x.service_ns = longest;
  x.remote_node = slowest;
}

void NodeAgent::request_lock(lrc::LockId id, const lrc::AcquireStep& step) {
  const std::uint32_t lock = lrc::raw(id);
  WireWriter w;
  {
    const std::lock_guard guard(mutex_);
    w.u32(lock).u32(static_cast<std::uint32_t>(self())).u32s(lrc_->vt());
  }
  deadlock_.report_waiting(WaitKind::Lock, lock, where());
  const double start = now_ns();
  transport_.send(lrc::index(step.to), step.forward ? Tag::LockForward : Tag::LockRequest,
                  std::move(w).take());
  const Message m = await_reply(Tag::LockGrant, [lock](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == lock;
  });
  const double end = now_ns();
  deadlock_.report_running();
  WireReader r(m.body);
  r.u32();
  const lrc::VectorTime learned = r.u32s();
  std::vector<lrc::IntervalRecord> records = read_records(r, directory_.pages());
  const auto delay = static_cast<double>(r.i64());
  {
    const std::lock_guard guard(mutex_);
    lrc_->learn(std::move(records));
    lrc_->granted(id, learned, no_costs);
  }
  ProgramProfile::Exchange& x = profile_.exchange(Operation::LockAcquire, lock);
  x.start_ns = start;
  x.end_ns = end;
  x.sync_ns = delay;
  x.remote_node = m.from;
  if (delay > 0) x.cause_node = m.from;
}

// Arrives at barrier `id` with this node's vector time and the intervals after its last release,
// waits for the release and takes in the intervals it brings.
lrc::BarrierOutcome NodeAgent::exchange_at_barrier(std::uint32_t id, std::size_t usage) {
  WireWriter w;
  w.u32(id);
  {
    const std::lock_guard guard(mutex_);
    w.u32s(lrc_->vt()).u64(usage);
    std::vector<const lrc::IntervalRecord*> records;
    lrc_->for_each_lacking(lrc_->vt_at_release(),
                           [&](const lrc::IntervalRecord& r) { records.push_back(&r); });
    write_records(w, records);
    barriers_.write_distributed(w);
  }
  const bool program_call = lrc::is_program_barrier(id) && process_;
  deadlock_.report_waiting(WaitKind::Barrier, id, program_call ? where() : std::string());
  const double start = now_ns();
  transport_.send(lrc::index(options_.protocol.barrier_manager), Tag::BarrierArrive, std::move(w).take());
  const Message m = await_reply(Tag::BarrierRelease, [id](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == id;
  });
  const double end = now_ns();
  if (id != lrc::kExitBarrier) deadlock_.report_running();
  WireReader r(m.body);
  r.u32();
  const lrc::VectorTime merged = r.u32s();
  std::vector<lrc::IntervalRecord> records = read_records(r, directory_.pages());
  const auto delay = static_cast<double>(r.i64());
  const auto last = static_cast<int>(r.i64());
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const auto bytes = r.bytes();
    server_->distributed(bytes, r.u64());
  }
  const lrc::BarrierOutcome outcome{r.u32() != 0};
  {
    const std::lock_guard guard(mutex_);
    lrc_->learn(std::move(records));
    lrc_->released(merged, no_costs);
  }
  ProgramProfile::Exchange& x = profile_.exchange(Operation::Barrier, id);
  x.start_ns = start;
  x.end_ns = end;
  x.sync_ns = std::max(0.0, delay);
  x.remote_node = lrc::index(options_.protocol.barrier_manager);
  if (delay > 0 && last != self()) x.cause_node = last;
  return outcome;
}

std::pair<std::uint64_t, std::string> NodeAgent::malloc_request(std::uint64_t bytes) {
  if (self() == 0) return heap_->allocate(bytes);  // node 0 keeps the heap
  WireWriter w;
  w.u64(bytes);
  transport_.send(0, Tag::MallocRequest, std::move(w).take());
  const Message m = await_reply(Tag::MallocReply);
  WireReader r(m.body);
  const std::uint64_t address = r.u64();
  return {address, r.text()};
}

bool NodeAgent::free_request(std::uint64_t address) {
  if (self() == 0) return heap_->free(address);
  WireWriter w;
  w.u64(address);
  transport_.send(0, Tag::FreeRequest, std::move(w).take());
  const Message m = await_reply(Tag::FreeReply);
  WireReader r(m.body);
  return r.u32() != 0;
}

}  // namespace ncp2::real
