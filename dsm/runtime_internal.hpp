#pragma once
// INTERNAL to dsm/: the runtime's per-node state and the small helpers its files share
// (runtime.cpp, costs.cpp, page_faults.cpp, locks.cpp, barriers.cpp, garbage_collection.cpp,
// startup.cpp, spans.cpp). The protocol's state and decisions are the core's (lrc::Node); here is
// what the emulated machine adds: the PP, the wait in progress and its stamps, the messages, the
// node's memory and the cost model. Workloads and the layers above include dsm/runtime.hpp and
// dsm/process.hpp only.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dsm/runtime.hpp"
#include "lrc/node.hpp"

namespace ncp2::dsm {

using lrc::barrier_name;
using lrc::kExitBarrier;
using lrc::kGcBarrier;

struct FreeDeleter {
  void operator()(std::byte* p) const {
    // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory): calloc'd zero pages
    std::free(p);
  }
};

// Zeroed memory from calloc: large regions come from the OS as untouched zero pages, so a node
// that never holds a page costs no host memory for it (a std::vector would write every byte).
using ZeroedBytes = std::unique_ptr<std::byte[], FreeDeleter>;  // NOLINT(modernize-avoid-c-arrays)
inline ZeroedBytes zeroed(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(std::calloc(bytes == 0 ? 1 : bytes, 1));  // NOLINT
  if (!p) throw std::bad_alloc();
  return ZeroedBytes(p);
}

// A vector time in a message's data (what the emulated messages carry of it; the interval records
// stay in the shared history: lrc/history.hpp).
inline void encode_vt(std::vector<std::byte>& out, const VectorTime& vt) {
  out.resize(vt.size() * 4);
  std::memcpy(out.data(), vt.data(), out.size());
}
inline VectorTime decode_vt(const std::vector<std::byte>& in, std::size_t nodes) {
  VectorTime vt(nodes);
  std::memcpy(vt.data(), in.data(), std::min(in.size(), nodes * 4));
  return vt;
}

// A node's copy of the shared pages, as the core sees it: its regions' memory, or the bytes that
// stand for a page while a deferred write fault shows it as it was (Runtime::show_page_as).
class Runtime::NodeMemory final : public lrc::PageMemory {
 public:
  NodeMemory(const lrc::PageDirectory& directory, std::size_t page_size)
      : directory_(directory), page_size_(page_size) {}
  std::span<std::byte> page(PageId page) override {
    if (std::byte* shown = shown_as[raw(page)]) [[unlikely]]
      return {shown, page_size_};
    return {regions[directory_.region_of(page)].data + directory_.local_index(page) * page_size_, page_size_};
  }

  struct RegionBytes {
    ZeroedBytes owned;  // the region's memory, unless the runtime was given memory for it
    std::byte* data = nullptr;
  };
  std::vector<RegionBytes> regions;
  std::vector<std::byte*> shown_as;  // per page

 private:
  const lrc::PageDirectory& directory_;
  std::size_t page_size_;
};

// The emulated machine's model of the protocol's own work, per page where TreadMarks' lazy diff
// creation keeps state (dsm.lazy_diffs): what the host made but the model did not charge yet.
struct LazyDiffState {
  bool modeled_twin = false;  // TreadMarks would still hold an undiffed twin of the page
  std::uint32_t uncharged_words = 0;
  std::uint32_t uncharged_runs = 0;
};

// Where the core's modelled costs go: the handler or CP command `ctx` that does the work, or the
// node's PP (its fiber) when there is none (costs.cpp). The PP spends them when the core call is
// over (settle): computing lets handlers run, which must not find the core's state half changed.
class Runtime::Costs final : public lrc::CostSink {
 public:
  Costs(Runtime& runtime, NodeState& ns, emu::WorkContext* ctx) : rt_(runtime), ns_(ns), ctx_(ctx) {}
  void write_notices(std::size_t count) override;
  void interval_closed(std::size_t pages) override;
  void diff_made(PageId page, lrc::DiffSize size) override;
  void diff_wanted(PageId page) override;
  void twin_made(PageId page) override;
  void diffs_applied(std::size_t words) override;
  void history_discarded() override;
  void settle();

 private:
  void charge(emu::Duration d);
  Runtime& rt_;
  NodeState& ns_;
  emu::WorkContext* ctx_;
  emu::Duration unspent_{0};
};

// One node's emulated machine under the operations' driver (lrc/driver.hpp): the PP's
// attribution and entry costs, the checks at synchronizations (race detection, stale spans), and
// the exchanges as messages through the machine (node_transport.cpp).
class Runtime::NodeTransport final : public lrc::Transport {
 public:
  NodeTransport(Runtime& runtime, NodeState& ns) : rt_(runtime), ns_(ns), costs_(runtime, ns, nullptr) {}
  [[nodiscard]] Operation operation() const override;
  void set_operation(Operation op) override;
  void charge(lrc::Entry entry) override;
  void synchronizing(Operation op, std::uint64_t object, bool after) override;
  lrc::CostSink& costs() override { return costs_; }
  void settle_costs() override { costs_.settle(); }
  void fetch_page(PageId page, NodeId home) override { rt_.fetch_page(ns_, page, home); }
  void fetch_diffs(PageId page, std::span<const lrc::DiffRequest> requests) override {
    rt_.fetch_diffs(ns_, page, requests);
  }
  void request_lock(LockId lock, const lrc::AcquireStep& step) override { rt_.request_lock(ns_, lock, step); }
  void grant_lock(LockId lock, const lrc::LockWaiter& next) override { rt_.grant_queued(ns_, lock, next); }
  lrc::BarrierOutcome exchange_at_barrier(BarrierId barrier, std::size_t usage) override {
    return rt_.exchange_at_barrier(ns_, barrier, usage);
  }

 private:
  Runtime& rt_;
  NodeState& ns_;
  Costs costs_;
};

struct Runtime::NodeState {
  NodeState(Runtime& rt, NodeId node);

  NodeId id{};
  emu::Processor* pp = nullptr;
  NodeMemory memory;
  lrc::Node lrc;
  NodeTransport transport;
  lrc::Driver driver;
  std::vector<LazyDiffState> lazy;  // per page (dsm.lazy_diffs)
  std::uint32_t allocations = 0;

  // The current wait (one at a time: the PP is blocked in it).
  bool done = false;
  emu::TimePoint wait_start;
  Operation wait_op = Operation::None;
  std::uint64_t wait_object = 0;
  std::uint64_t wait_site = 0;  // where the program waits (Runtime::set_sites)
  std::uint32_t wait_requests = 1;
  const Runtime* runtime = nullptr;  // for describing the wait in a deadlock diagnosis
  emu::StampChain chain;
  int outstanding = 0;
  std::vector<std::byte> reply_buffer;  // a diff reply under construction, capacity reused
  std::vector<emu::Message*> fanout;    // requests a LOCAL_*_REQUEST command sends (ncp2)
  bool release_gc = false;
  // Lock requests queued here until this node's release: the request message, answered by the
  // grant (its stamp chain carries the synchronization delay).
  std::unordered_map<std::uint32_t, emu::Message*> queued_locks;

  // A write fault the node's process took at once is replayed, its cost in the process's measured
  // computation (Runtime::fault_taken_at_once): its trap and twin cost nothing more.
  bool timed_by_program = false;

  bool exited = false;
  emu::TimePoint exit_time;
  // The transport's counts (the protocol's are the core's).
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> messages_by_purpose = std::vector<std::uint64_t>(kPurposeEnd, 0);
};

// At a DSM entry, the native stretch that just ended is charged to the PP as computation (before
// the entry's own work, so it is Comp in the current scope); when the entry returns, the next
// stretch starts. One null test per entry when no meter is installed.
class Runtime::MeasuredEntry {
 public:
  MeasuredEntry(Runtime& runtime, NodeId n) : meter_(runtime.meter_), node_(n) {
    if (meter_) [[unlikely]]
      runtime.self(n).pp->compute(meter_->end_stretch(n));
  }
  ~MeasuredEntry() {
    if (meter_) [[unlikely]]
      meter_->resume(node_);
  }
  MeasuredEntry(const MeasuredEntry&) = delete;
  MeasuredEntry& operator=(const MeasuredEntry&) = delete;

 private:
  ComputeMeter* meter_;
  NodeId node_;
};

}  // namespace ncp2::dsm
