#pragma once
// INTERNAL to dsm/: the runtime's per-node and per-page state and the small helpers its files
// share (runtime.cpp, page_faults.cpp, diffs.cpp, intervals.cpp, locks.cpp, barriers.cpp,
// garbage_collection.cpp, startup.cpp). Not part of the dsm API: workloads and the layers above
// include dsm/runtime.hpp and dsm/process.hpp only.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dsm/page_buffers.hpp"
#include "dsm/runtime.hpp"

namespace ncp2::dsm {

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

inline void encode_vt(std::vector<std::byte>& out, const VectorTime& vt) {
  out.resize(vt.size() * 4);
  std::memcpy(out.data(), vt.data(), out.size());
}
inline VectorTime decode_vt(const std::vector<std::byte>& in, std::size_t nodes) {
  VectorTime vt(nodes);
  std::memcpy(vt.data(), in.data(), std::min(in.size(), nodes * 4));
  return vt;
}
inline void merge_into(VectorTime& into, const VectorTime& other) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], other[i]);
}

// Marks the PP as running TreadMarks code for `op` (Extra, not Comp) while in scope.
class OperationScope {
 public:
  OperationScope(emu::Processor& pp, Operation op) : pp_(pp), previous_(pp.attribution().operation) {
    pp_.set_operation(static_cast<std::uint8_t>(op));
  }
  ~OperationScope() { pp_.set_operation(previous_); }
  OperationScope(const OperationScope&) = delete;
  OperationScope& operator=(const OperationScope&) = delete;

 private:
  emu::Processor& pp_;
  std::uint8_t previous_;
};

constexpr std::uint32_t kExitBarrier = kMaxBarriers;    // reserved: the implicit Tmk_exit barrier
constexpr std::uint32_t kGcBarrier = kMaxBarriers + 1;  // reserved: the second barrier of a GC

inline std::string barrier_name(std::uint32_t id) {
  if (id == kExitBarrier) return "the exit barrier";
  if (id == kGcBarrier) return "the garbage-collection barrier";
  return fmt::format("barrier {}", id);
}

// One of a node's diffs of a page (PageState::diffs).
struct Runtime::OwnDiff {
  std::uint32_t interval = 0;
  Diff diff;  // the encoding (empty while deferred)
  // A deferred diff (made at the page's next first write, encoded only if requested): buffers
  // of NodeState::twins with the page at the interval's start (its twin) and end (the next
  // twin); kNone once encoded.
  std::uint32_t before = PageBuffers::kNone;
  std::uint32_t after = PageBuffers::kNone;
  [[nodiscard]] bool deferred() const { return before != PageBuffers::kNone; }
};

struct Runtime::PageState {
  bool held = false;              // this node has a copy (possibly stale)
  std::byte* shown_as = nullptr;  // Runtime::show_page_as: the bytes that stand for the page
  // Pre-write copy, a buffer of NodeState::twins (ncp2: stands for the CP's write log).
  std::uint32_t twin = PageBuffers::kNone;
  std::uint32_t twin_interval = 0;  // own interval whose writes the twin separates; 0: none
  [[nodiscard]] bool has_twin() const { return twin != PageBuffers::kNone; }
  // dsm.lazy_diffs (treadmarks): TreadMarks would still hold an undiffed twin of this page, kept
  // across intervals until a diff is requested or the page is invalidated; the host's per-interval
  // diffs made meanwhile were not charged, their sizes wait here for the diff TreadMarks makes.
  bool modeled_twin = false;
  std::uint32_t uncharged_words = 0;
  std::uint32_t uncharged_runs = 0;
  std::vector<std::pair<NodeId, std::uint32_t>> notices;  // (writer, interval) not yet applied
  // This node's diffs of the page, one per own interval that wrote it, until a GC. Kept with the
  // page (few per page; capacity reused after a GC) instead of in a hash map: no node allocation
  // and no hashing per diff.
  std::vector<OwnDiff> diffs;
};

struct Runtime::NodeState {
  struct Region {
    ZeroedBytes owned;  // the region's memory, unless the runtime was given memory for it
    std::byte* data = nullptr;
    std::vector<std::uint8_t> access;
  };
  struct LockState {
    bool token = false;  // this node was the last holder and may re-acquire without messages
    bool held = false;
    std::uint64_t acquired_site = 0;  // where it was acquired (Runtime::set_sites), for diagnoses
    bool requested = false;
    bool has_next = false;
    NodeId next{};
    emu::Message* next_request = nullptr;
  };

  NodeId id{};
  emu::Processor* pp = nullptr;
  VectorTime vt;
  std::vector<PageId> dirty;  // pages written in the current interval
  // Pages whose access changed since take_access_changes (only when tracked: a program whose
  // shared memory is protected by the host's MMU mirrors the changes, tmk/).
  bool track_access = false;
  std::vector<PageId> access_changes;
  void note_access_change(PageId page) {
    if (track_access) access_changes.push_back(page);
  }
  std::vector<PageState> pages;
  std::vector<Region> regions;
  std::uint32_t allocations = 0;
  std::size_t diff_bytes = 0;
  std::size_t notice_count = 0;
  std::unordered_map<std::uint32_t, LockState> locks;

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
  std::vector<ReceivedDiff> received;
  std::vector<std::byte> receive_buffer;                   // the received diffs' bytes, capacity reused
  std::vector<std::byte> reply_buffer;                     // a diff reply under construction, capacity reused
  PageBuffers twins;                                       // twins, shared with deferred diffs
  std::vector<std::vector<std::byte>> spare_diff_buffers;  // diff encodings discarded by a GC, to reuse
  std::vector<emu::Message*> fanout;                       // requests a LOCAL_*_REQUEST command sends (ncp2)
  bool release_gc = false;

  bool exited = false;
  emu::TimePoint exit_time;
  NodeStats stats;
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
