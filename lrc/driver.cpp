// The operations' sequences (lrc/driver.hpp), once for every machine.
#include "lrc/driver.hpp"

#include <array>
#include <cstring>
#include <stdexcept>

namespace ncp2::lrc {

// Holds the node's state for the scope (when the driver was given a mutex).
class Driver::Hold {
 public:
  explicit Hold(const Driver& d) : m_(d.guard_) {
    if (m_) m_->lock();
  }
  ~Hold() {
    if (m_) m_->unlock();
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;

 private:
  std::mutex* m_;
};

namespace {
// The processor is in TreadMarks code for `op` while in scope; what it did before comes back.
class InOperation {
 public:
  InOperation(Transport& t, Operation op) : t_(t), previous_(t.operation()) { t_.set_operation(op); }
  ~InOperation() { t_.set_operation(previous_); }
  InOperation(const InOperation&) = delete;
  InOperation& operator=(const InOperation&) = delete;

 private:
  Transport& t_;
  Operation previous_;
};
}  // namespace

void Driver::access(PageId page, Access wanted) {
  Access now{};
  Operation op{};
  bool held = false;
  {
    const Hold hold(*this);
    now = node_.access(page);
    if (now == Access::None) {
      op = node_.begin_fault(page);
      held = node_.holds(page);
    }
  }
  if (now == Access::None) {
    const InOperation in(transport_, op);
    transport_.charge(Entry::AccessTrap);
    if (!held) {
      NodeId home{};
      {
        const Hold hold(*this);
        home = node_.request_page(page);
      }
      transport_.fetch_page(page, home);
    }
    bool notices = false;
    {
      const Hold hold(*this);
      notices = node_.has_notices(page);
    }
    if (notices) {
      transport_.set_operation(Operation::DiffFetch);
      fetch_diffs(page);
    }
    const Hold hold(*this);
    node_.grant_read(page);
    now = node_.access(page);
  }
  if (wanted == Access::Write && now != Access::Write) {
    const InOperation in(transport_, Operation::WriteFault);
    transport_.charge(Entry::WriteTrap);
    {
      const Hold hold(*this);
      node_.begin_write(page, transport_.costs());
    }
    transport_.settle_costs();
  }
}

void Driver::fetch_diffs(PageId page) {
  requests_.clear();
  intervals_.clear();
  {
    const Hold hold(*this);
    const std::span<const Notice> notices = node_.plan_diff_fetch(page);
    intervals_.reserve(notices.size());  // no reallocation below: the spans stay valid
    for (std::size_t i = 0; i < notices.size();) {
      const std::size_t first = intervals_.size();
      std::size_t j = i;
      for (; j < notices.size() && notices[j].writer == notices[i].writer; ++j)
        intervals_.push_back(notices[j].interval);
      requests_.push_back({notices[i].writer, std::span(intervals_).subspan(first, j - i)});
      i = j;
    }
  }
  if (!requests_.empty()) transport_.fetch_diffs(page, requests_);
}

void Driver::lock_acquire(LockId lock, std::uint64_t site) {
  AcquireStep step;
  {
    const Hold hold(*this);
    node_.check_acquire(lock);
  }
  transport_.synchronizing(Operation::LockAcquire, raw(lock), false);
  {
    const InOperation in(transport_, Operation::LockAcquire);
    transport_.charge(Entry::Handler);
    {
      const Hold hold(*this);
      step = node_.acquire(lock, site, transport_.costs());
    }
    transport_.settle_costs();
    if (!step.local) transport_.request_lock(lock, step);
  }
  transport_.synchronizing(Operation::LockAcquire, raw(lock), true);
}

void Driver::lock_release(LockId lock) {
  {
    const Hold hold(*this);
    node_.check_release(lock);
  }
  transport_.synchronizing(Operation::LockRelease, raw(lock), false);
  const InOperation in(transport_, Operation::LockRelease);
  transport_.charge(Entry::Handler);
  std::optional<LockWaiter> next;
  {
    const Hold hold(*this);
    next = node_.release(lock, transport_.costs());
  }
  transport_.settle_costs();
  if (next) transport_.grant_lock(lock, *next);
}

void Driver::barrier(BarrierId barrier) {
  const InOperation in(transport_, Operation::Barrier);
  transport_.synchronizing(Operation::Barrier, raw(barrier), false);
  transport_.charge(Entry::Handler);
  std::size_t usage = 0;
  {
    const Hold hold(*this);
    usage = node_.arrive_at_barrier(transport_.costs());
  }
  transport_.settle_costs();
  const BarrierOutcome outcome = transport_.exchange_at_barrier(barrier, usage);
  transport_.synchronizing(Operation::Barrier, raw(barrier), true);
  {
    const Hold hold(*this);
    node_.count_barrier();
  }
  if (outcome.collect) collect_garbage();
}

// TreadMarks' garbage collection (lrc/node_gc.cpp): stale copies brought up to date or dropped, a
// second barrier, then every twin, diff and record dropped.
void Driver::collect_garbage() {
  const InOperation in(transport_, Operation::GarbageCollection);
  std::uint32_t pages = 0;
  {
    const Hold hold(*this);
    node_.begin_gc();
    pages = node_.directory().pages();
  }
  for (std::uint32_t p = 0; p < pages; ++p) {
    const PageId page{p};
    {
      const Hold hold(*this);
      if (node_.gc_step(page) != GcStep::Validate) continue;
    }
    fetch_diffs(page);
    const Hold hold(*this);
    node_.gc_validated(page);
  }
  barrier(BarrierId{kGcBarrier});
  {
    const Hold hold(*this);
    node_.discard_history(transport_.costs());
  }
  transport_.settle_costs();
}

std::size_t encode_diff_reply(Node& node, PageId page, std::span<const std::byte> intervals, CostSink& costs,
                              std::vector<std::byte>& out) {
  if (intervals.size() % 4 != 0) throw std::runtime_error("malformed diff request: a partial interval");
  std::size_t modeled = 0;
  std::size_t diff_bytes = 0;
  for (std::size_t k = 0; k < intervals.size(); k += 4) {
    std::uint32_t interval = 0;  // read in place: the request's buffer may become the reply's
    std::memcpy(&interval, intervals.data() + k, 4);
    const Diff& d = node.diff_for(page, interval, costs);
    const std::array<std::uint32_t, 2> header = {interval, static_cast<std::uint32_t>(d.encoded_bytes())};
    const auto* h = reinterpret_cast<const std::byte*>(header.data());
    out.insert(out.end(), h, h + sizeof(header));
    out.insert(out.end(), d.encoded().begin(), d.encoded().end());
    modeled += sizeof(header) + d.modeled_bytes();
    diff_bytes += d.modeled_bytes();
  }
  node.diffs_served(page, diff_bytes, costs);
  return modeled;
}

void take_diff_reply(Node& node, NodeId writer, std::span<const std::byte> reply, CostSink& costs) {
  std::size_t at = 0;
  while (at + 8 <= reply.size()) {
    std::array<std::uint32_t, 2> header{};
    std::memcpy(header.data(), reply.data() + at, sizeof(header));
    at += sizeof(header);
    if (header[1] > reply.size() - at) throw std::runtime_error("malformed diff reply: a diff past its end");
    node.receive_diff(writer, header[0], reply.subspan(at, header[1]), costs);
    at += header[1];
  }
  if (at != reply.size()) throw std::runtime_error("malformed diff reply: bytes after its last diff");
}

}  // namespace ncp2::lrc
