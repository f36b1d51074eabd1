// The agent's local thread: the protocol's operations for the program's requests.
#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "dsm/types.hpp"
#include "real_machine/agent.hpp"
#include "real_machine/agent_internal.hpp"
#include "tmk/host/node_process.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::real {

using carnival::WaitPart;
using tmk::Channel;

namespace {
double& part(WaitRecord& w, WaitPart p) { return w.parts[static_cast<std::size_t>(p)]; }
}  // namespace

void NodeAgent::fault(std::uint64_t address, bool write) {
  if (address < tmk::kHeapBase || address >= tmk::kHeapBase + options_.heap_bytes)
    fail(fmt::format("node {}: an access fault outside the shared heap ({:#x}){}", self(), address, where()));
  const auto page = static_cast<std::uint32_t>((address - tmk::kHeapBase) / options_.page_bytes);
  faulted_.push_back(page);
  pending_->operation = write ? "write fault" : "none";
  const std::array<std::uint32_t, 1> pages{page};
  const Fetched fetched = validate(pages);
  if (fetched.messages > 0) {
    pending_->operation = "diff fetch";
    pending_->waited = true;
    pending_->wait.object = page;
    pending_->wait.remote_node = fetched.slowest_server;
    pending_->remote_ns = fetched.remote_ns;
    part(pending_->wait, WaitPart::CPRComp) = std::min(fetched.longest_service_ns, fetched.remote_ns);
  }
  const std::lock_guard guard(mutex_);
  if (write) lrc_->write_fault(page);
}

// Brings every listed invalid page up to date: one request per writer for all of its diffs of
// these pages, sent at once, then each page's diffs applied in happens-before order.
NodeAgent::Fetched NodeAgent::validate(std::span<const std::uint32_t> pages) {
  std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>>> by_writer;
  {
    const std::lock_guard guard(mutex_);
    for (std::uint32_t page : pages)
      for (DiffNeed& need : lrc_->missing_diffs(page))
        by_writer[need.creator].emplace_back(page, std::move(need.seqs));
  }
  Fetched f;
  if (by_writer.empty()) return f;
  const double start = now_ns();
  for (const auto& [writer, wanted] : by_writer) {
    WireWriter w;
    w.u64(wanted.size());
    for (const auto& [page, seqs] : wanted) w.u32(page).u32s(seqs);
    transport_.send(static_cast<int>(writer), Tag::DiffRequest, std::move(w).take());
  }
  std::map<std::uint32_t, std::vector<ReceivedDiff>> diffs;
  for (const auto& [writer, wanted] : by_writer) {
    const int from = static_cast<int>(writer);
    const Message m = await_reply(Tag::DiffReply, [from](const Message& r) { return r.from == from; });
    WireReader r(m.body);
    for (std::uint64_t i = 0, pages_in_reply = r.u64(); i < pages_in_reply; ++i) {
      const std::uint32_t page = r.u32();
      for (std::uint64_t k = 0, n = r.u64(); k < n; ++k) {
        ReceivedDiff d;
        d.creator = writer;
        d.seq = r.u32();
        const auto bytes = r.bytes();
        d.encoded.assign(bytes.begin(), bytes.end());
        diffs[page].push_back(std::move(d));
      }
    }
    if (const auto service = static_cast<double>(r.i64()); service >= f.longest_service_ns) {
      f.longest_service_ns = service;
      f.slowest_server = from;
    }
    ++f.messages;
  }
  f.remote_ns = now_ns() - start;
  const std::lock_guard guard(mutex_);
  for (std::uint32_t page : pages)
    if (!lrc_->valid(page)) lrc_->apply_diffs(page, std::move(diffs[page]));
  return f;
}

void NodeAgent::lock_acquire(std::uint32_t lock) {
  pending_->operation = "lock acquire";
  VectorTime known;
  {
    const std::lock_guard guard(mutex_);
    Lock& l = lock_state(lock);
    if (l.held)
      fail(
          fmt::format("node {}: Tmk_lock_acquire({}): the node already holds this lock (locks are not "
                      "recursive){}",
                      self(), lock, where()));
    if (l.token) {  // released here and nobody asked since: no message at all
      l.held = true;
      l.held_where = where();
      return;
    }
    lrc_->close_interval();
    known = lrc_->vector_time();
  }
  pending_->waited = true;
  pending_->wait.object = lock;
  const int manager = static_cast<int>(lock % static_cast<std::uint32_t>(nodes()));
  WireWriter w;
  w.u32(lock).u32(static_cast<std::uint32_t>(self())).u32s(known);
  const std::string here = where();
  const double start = now_ns();
  report_blocked(1, lock, here);
  transport_.send(manager, Tag::LockRequest, std::move(w).take());
  const Message m = await_reply(Tag::LockGrant, [lock](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == lock;
  });
  pending_->remote_ns = now_ns() - start;
  report_blocked(0, 0, {});
  WireReader r(m.body);
  r.u32();
  const std::vector<IntervalRecord> intervals = read_intervals(r);
  const auto delay = static_cast<double>(r.i64());
  part(pending_->wait, WaitPart::SyncDelay) = std::min(delay, pending_->remote_ns);
  pending_->wait.remote_node = m.from;
  if (delay > 0) pending_->wait.cause_node = m.from;
  const std::lock_guard guard(mutex_);
  lrc_->incorporate(intervals);
  Lock& l = lock_state(lock);
  l.token = true;
  l.held = true;
  l.held_where = here;
}

void NodeAgent::lock_release(std::uint32_t lock) {
  pending_->operation = "lock release";
  const std::lock_guard guard(mutex_);
  Lock& l = lock_state(lock);
  if (!l.held)
    fail(fmt::format("node {}: Tmk_lock_release({}): releasing a lock this node does not hold{}", self(),
                     lock, where()));
  lrc_->close_interval();
  l.held = false;
  if (l.next) {
    const Lock::Waiter next = std::move(*l.next);
    l.next.reset();
    grant(lock, next.node, next.known, now_ns() - next.since_ns);
  }
}

void NodeAgent::barrier(std::uint32_t id) {
  if (pending_) {
    pending_->operation = id == kExitBarrier ? "exit" : "barrier";
    pending_->waited = true;
    pending_->wait.object = id;
  }
  const double start = now_ns();
  const BarrierRelease release = barrier_exchange(id);
  if (pending_) {
    pending_->remote_ns = now_ns() - start;
    part(pending_->wait, WaitPart::SyncDelay) = std::clamp(release.delay_ns, 0.0, pending_->remote_ns);
    pending_->wait.remote_node = 0;
    if (release.delay_ns > 0 && release.last != self()) pending_->wait.cause_node = release.last;
  }
  // The garbage collection's time is the barrier's, in the agent's own work (CPLComp).
  if (release.collect) collect_garbage();
}

// Arrives at barrier `id` with this node's new intervals, waits for the release and takes in the
// intervals it brings.
NodeAgent::BarrierRelease NodeAgent::barrier_exchange(std::uint32_t id) {
  WireWriter w;
  w.u32(id);
  {
    const std::lock_guard guard(mutex_);
    lrc_->close_interval();
    w.u32s(lrc_->vector_time());
    write_intervals(w, lrc_->own_after(reported_seq_));
    reported_seq_ = lrc_->vector_time()[static_cast<std::size_t>(self())];
    w.u64(lrc_->diff_bytes());
  }
  const bool program_call = id < dsm::kMaxBarriers && process_;
  report_blocked(2, id, program_call ? where() : std::string());
  transport_.send(0, Tag::BarrierArrive, std::move(w).take());
  const Message m = await_reply(Tag::BarrierRelease, [id](const Message& r) {
    WireReader peek(r.body);
    return peek.u32() == id;
  });
  if (id != kExitBarrier) report_blocked(0, 0, {});
  WireReader r(m.body);
  r.u32();
  const std::vector<IntervalRecord> intervals = read_intervals(r);
  BarrierRelease release;
  release.delay_ns = static_cast<double>(r.i64());
  release.last = static_cast<int>(r.i64());
  for (std::uint64_t i = 0, n = r.u64(); i < n; ++i) {
    const auto bytes = r.bytes();
    distribute_in_.insert(distribute_in_.end(), bytes.begin(), bytes.end());
    distribute_records_ += r.u64();
  }
  release.collect = r.u32() != 0;
  const std::lock_guard guard(mutex_);
  lrc_->incorporate(intervals);
  return release;
}

// TreadMarks' garbage collection: every node validates its invalid pages, a second barrier makes
// sure all have, then each drops its diffs and interval records.
void NodeAgent::collect_garbage() {
  std::vector<std::uint32_t> pages;
  {
    const std::lock_guard guard(mutex_);
    pages = lrc_->invalid_pages();
  }
  (void)validate(pages);
  (void)barrier_exchange(kGcBarrier);
  const std::lock_guard guard(mutex_);
  lrc_->discard_history();
  ++record_.collections;
}

void NodeAgent::malloc_request() {
  Channel& c = process_->channel();
  std::uint64_t address = 0;
  std::string why;
  if (self() == 0) {
    const std::lock_guard guard(mutex_);
    const std::optional<std::size_t> offset = heap_->allocate(c.arg0);
    if (offset)
      address = tmk::kHeapBase + *offset;
    else
      why = fmt::format("the shared heap of {} MiB is exhausted; raise it with --set tmk.heap_mb=N",
                        heap_->capacity() >> 20);
  } else {
    WireWriter w;
    w.u64(c.arg0);
    transport_.send(0, Tag::MallocRequest, std::move(w).take());
    const Message m = await_reply(Tag::MallocReply);
    WireReader r(m.body);
    address = r.u64();
    why = r.text();
  }
  if (address == 0) fail(fmt::format("node {}: Tmk_malloc({} bytes): {}{}", self(), c.arg0, why, where()));
  c.result = static_cast<std::int64_t>(address);
}

void NodeAgent::free_request() {
  const Channel& c = process_->channel();
  bool ok = false;
  if (self() == 0) {
    const std::lock_guard guard(mutex_);
    ok = c.arg0 >= tmk::kHeapBase && c.arg0 < tmk::kHeapBase + heap_->capacity() &&
         heap_->free(c.arg0 - tmk::kHeapBase);
  } else {
    WireWriter w;
    w.u64(c.arg0);
    transport_.send(0, Tag::FreeRequest, std::move(w).take());
    const Message m = await_reply(Tag::FreeReply);
    WireReader r(m.body);
    ok = r.u32() != 0;
  }
  if (!ok)
    fail(fmt::format("node {}: Tmk_free({:#x}): not an address Tmk_malloc returned (or freed twice){}",
                     self(), c.arg0, where()));
}

// Node 0's data reaches the others with the next barrier (docs/tmk-programs.md).
void NodeAgent::distribute() {
  const Channel& c = process_->channel();
  const std::size_t record = 16 + (c.arg1 + 7) / 8 * 8;
  std::vector<std::byte> bytes(record);
  std::memcpy(bytes.data(), process_->bulk(), 16 + c.arg1);
  const std::lock_guard guard(mutex_);
  distributed_.emplace_back(std::move(bytes), 1);
}

}  // namespace ncp2::real
