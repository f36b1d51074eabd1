#pragma once
// One node's lazy release consistency (TreadMarks' multiple-writer protocol, SPEC §2): its vector
// time and intervals, write notices, twins and diffs, its copies' validity and access, its locks
// (token, holder, the next requester; as a lock's manager, the last requester), and its part of
// a garbage collection. No transport, no clock, no cost: each operation changes the node's state
// and says what to send and to whom; the caller (dsm/ on the emulated machines, real_machine/ over
// UCX) carries the messages and blocks its way (lrc/ports.hpp). Both run this code, so an emulated
// and a real run of a program take the same protocol decisions (docs/protocol.md).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lrc/config.hpp"
#include "lrc/counters.hpp"
#include "lrc/diff.hpp"
#include "lrc/history.hpp"
#include "lrc/page_buffers.hpp"
#include "lrc/page_directory.hpp"
#include "lrc/ports.hpp"
#include "lrc/types.hpp"

namespace ncp2::lrc {

// A write notice: interval `interval` of `writer` modified the page.
struct Notice {
  NodeId writer{};
  std::uint32_t interval = 0;
  auto operator<=>(const Notice&) const = default;
};

// The lock's next holder, queued at the node that holds the lock (or will), with what it had seen
// when it asked: the grant brings it the intervals after that.
struct LockWaiter {
  NodeId node{};
  VectorTime known;
};

// What the node a lock request reaches does with it.
struct LockAnswer {
  enum class Kind : std::uint8_t {
    Forward,  // as the lock's manager: on to the last requester, `to`
    Grant,    // the lock is free here: to the requester now, with the intervals it lacks
    Queue,    // held here (or about to be): the requester is next, granted at the release
  };
  Kind kind = Kind::Queue;
  NodeId to{};
};

// What an acquire needs: nothing (the node re-acquires the lock it held last), or a request to
// `to` — the lock's manager, or, when the manager itself asks, a forward to the last requester.
struct AcquireStep {
  bool local = false;
  NodeId to{};
  bool forward = false;
};

// A garbage collection's decision about one page of this node.
enum class GcStep : std::uint8_t { Keep, Validate, Drop };

class Node {
 public:
  // `history` and `pages` may be shared by several nodes of one process (the emulator's) or be
  // this node's own (a real run's); `memory` is this node's copy of the pages.
  Node(NodeId self, const ProtocolConfig& config, History& history, PageDirectory& pages, PageMemory& memory);

  [[nodiscard]] NodeId id() const { return self_; }
  [[nodiscard]] const VectorTime& vt() const { return vt_; }
  [[nodiscard]] const Counters& counters() const { return counters_; }
  [[nodiscard]] const ProtocolConfig& config() const { return config_; }
  [[nodiscard]] const History& history() const { return history_; }
  [[nodiscard]] const PageDirectory& directory() const { return directory_; }

  // ---- pages
  // Takes on region `r` of the directory (already added there): who holds its pages at first
  // follows config().first_touch.
  void add_region(std::uint32_t r);
  [[nodiscard]] const std::uint8_t* region_access(std::uint32_t r) const { return access_[r].data(); }
  [[nodiscard]] Access access(PageId page) const {
    return static_cast<Access>(access_[directory_.region_of(page)][directory_.local_index(page)]);
  }
  [[nodiscard]] bool holds(PageId page) const { return pages_[raw(page)].held; }
  [[nodiscard]] bool has_notices(PageId page) const { return !pages_[raw(page)].notices.empty(); }
  // Records which pages change access (take_access_changes hands them over, possibly repeated).
  void track_access_changes() { track_access_ = true; }
  void take_access_changes(std::vector<PageId>& out);

  // ---- intervals and write notices
  // Ends the current interval if it wrote anything: its record (with a write notice per page
  // written) joins the history; the written pages lose write access (their diffs: node_diffs.cpp).
  // For the node's own operations (a non-local acquire, a release to a waiter, a barrier): the
  // program waits for them, so nothing writes the pages meanwhile.
  bool close_interval(CostSink& costs);
  // Ends the current interval while the program may be writing on (a lock request served as it
  // arrives): each written page's diff is made against a snapshot of the page, and the snapshot is
  // the page's twin in the next interval, which keeps it written and writable; a program's write
  // lands in one interval or the next, never in none. A page that its next interval then leaves
  // unchanged gets no write notice.
  bool close_interval_running(CostSink& costs);
  // Learns every interval up to `learned` (their records already in the history): each page they
  // wrote gets a write notice and loses access (a twin of it is first made into a diff).
  void incorporate(const VectorTime& learned, CostSink& costs);
  // The records of intervals another node sent (a grant's, a release's), before the vector time
  // that covers them is taken in (granted, released). The emulator's nodes share one history and
  // send none.
  void learn(std::vector<IntervalRecord> records) {
    for (IntervalRecord& r : records) history_.add(std::move(r));
  }
  // What a node that has seen `known` lacks of what this node has seen: the records a grant
  // carries (in the history's order), and their size on the wire.
  template <class F>
  void for_each_lacking(const VectorTime& known, F&& f) const {
    history_.for_each_between(known, vt_, std::forward<F>(f));
  }
  [[nodiscard]] std::size_t bytes_lacking(const VectorTime& known) const {
    return history_.bytes_between(known, vt_);
  }
  // Diffs and write notices this node holds (what makes a barrier collect garbage).
  [[nodiscard]] std::size_t usage() const { return diff_bytes_ + notice_count_ * 8; }
  // The node's vector time when the last barrier released it: what the barrier manager knows it
  // has seen (an arrival carries the intervals after it).
  [[nodiscard]] const VectorTime& vt_at_release() const { return vt_at_release_; }

  // ---- access faults
  // An access to a page without access: counted; a page fault if the node does not hold the page,
  // else a diff fetch.
  Operation begin_fault(PageId page);
  // The page is to be fetched: where from (its home).
  NodeId request_page(PageId page);
  // The home's copy arrived.
  void install_page(PageId page, std::span<const std::byte> bytes);
  // As the page's home: the copy to send, the page as this node's last closed interval left it
  // (never a write of the open interval: docs/protocol.md). Valid until the node's next call.
  std::span<const std::byte> serve_page(PageId page);
  // The page's write notices, sorted by writer then interval: one diff request per writer, listing
  // that writer's intervals (counted). Clears what diffs were received before.
  std::span<const Notice> plan_diff_fetch(PageId page);
  // As a writer: the diff of this node's interval `interval` of the page (encoded now if it was
  // not). Valid until the page's next diff is encoded.
  const Diff& diff_for(PageId page, std::uint32_t interval, CostSink& costs);
  // A diff request was answered with diffs of `modeled_bytes` (Diff::modeled_bytes summed).
  void diffs_served(PageId page, std::size_t modeled_bytes, CostSink& costs);
  // One diff of a diff fetch arrived (kept until all did); returns the words of its runs.
  std::size_t receive_diff(NodeId writer, std::uint32_t interval, std::span<const std::byte> encoded,
                           CostSink& costs);
  // Every diff of the fetch arrived: they are applied in happens-before order, the notices cleared.
  void apply_received(PageId page);
  // After the fetches, read access.
  void grant_read(PageId page);
  // Whether a write fault on the page needs nothing but this node (it holds a valid copy it may
  // read): a program may take it at once and report it later (tmk/).
  [[nodiscard]] bool write_is_local(PageId page) const;
  // The first write to the page in this interval: a twin (a diff of the previous interval's writes
  // made or deferred first), write access.
  void begin_write(PageId page, CostSink& costs);

  // ---- locks (the manager of lock l is node l mod n)
  [[nodiscard]] NodeId lock_manager(LockId lock) const;
  // Throws ProtocolError for an id out of range or a lock this node already holds.
  void check_acquire(LockId lock);
  // After check_acquire: re-acquired at once, or the interval closed and a request to send.
  AcquireStep acquire(LockId lock, std::uint64_t site, CostSink& costs);
  // A request from `requester` reaching this node as the lock's manager
  // (`forwarded` false) or forwarded by the manager: forwarded on to the last requester, granted
  // now (the token moves; the open interval ends, close_interval_running) or queued until this
  // node's release. Throws ProtocolError for ids out of range (a malformed message).
  LockAnswer lock_request(LockId lock, const LockWaiter& requester, bool forwarded, CostSink& costs);
  // The grant arrived, with the intervals up to `learned`: the lock is held.
  void granted(LockId lock, const VectorTime& learned, CostSink& costs);
  // Throws ProtocolError for a lock this node does not hold.
  void check_release(LockId lock) const;
  // After check_release: the queued requester, if any, is to be granted (the interval closes);
  // with nobody waiting, the interval stays open.
  std::optional<LockWaiter> release(LockId lock, CostSink& costs);
  [[nodiscard]] bool lock_held(LockId lock) const;
  [[nodiscard]] std::uint64_t lock_site(LockId lock) const;  // the site given to acquire
  // Every lock this node holds, with its site (diagnoses).
  [[nodiscard]] std::vector<std::pair<LockId, std::uint64_t>> held_locks() const;

  // ---- barriers and garbage collection
  // Arriving at a barrier: the interval closes; returns what the node holds for the collection
  // threshold (its diffs counted so far, at their pages' next writes or invalidations, and notices).
  std::size_t arrive_at_barrier(CostSink& costs);
  // The manager's release arrived with the intervals up to `merged`.
  void released(const VectorTime& merged, CostSink& costs);
  void count_barrier() { ++counters_.barriers; }
  // A collection starts (after the release that asked for it): counted, homes assigned.
  void begin_gc();
  // What the collection does with page `page` (call for each page in order): a stale copy is kept
  // up to date by its fetch (Validate: fetch its diffs, then gc_validated) or dropped.
  GcStep gc_step(PageId page);
  void gc_validated(PageId page);
  // After the collection's barrier: every twin, diff and notice is dropped.
  void discard_history(CostSink& costs);

 private:
  struct OwnDiff {
    std::uint32_t interval = 0;
    DiffSize size;
    bool accounted = false;  // counted toward the collection threshold
    bool charged = false;    // its modelled cost told (when TreadMarks, diffing lazily, would make it)
    Diff diff;               // the encoding (empty while deferred)
    // Deferred (encoded only if requested): buffers of twins_ with the page at the interval's start
    // (its twin) and end; kNone once encoded.
    std::uint32_t before = PageBuffers::kNone;
    std::uint32_t after = PageBuffers::kNone;
    [[nodiscard]] bool deferred() const { return before != PageBuffers::kNone; }
  };
  struct PageState {
    bool held = false;  // this node has a copy (possibly stale)
    std::uint32_t twin = PageBuffers::kNone;
    std::uint32_t twin_interval = 0;  // own interval whose writes the twin separates; 0: none
    // Kept written into the next interval by close_interval_running (the twin is a snapshot): whether
    // the program wrote it again is known at the next close.
    bool carried = false;
    [[nodiscard]] bool has_twin() const { return twin != PageBuffers::kNone; }
    // A copy of the page as its last own diff left it, while the page is unchanged since: the next
    // write's twin, without a copy.
    std::uint32_t clean = PageBuffers::kNone;
    std::vector<Notice> notices;  // not yet applied
    // This node's diffs of the page, one per own interval that wrote it, until a collection. Kept
    // with the page (few per page) rather than in a map: no allocation and no hashing per diff.
    std::vector<OwnDiff> diffs;
  };
  struct LockState {
    bool token = false;  // this node was the last holder and may re-acquire without messages
    bool held = false;
    bool has_next = false;
    LockWaiter next;
    std::uint64_t site = 0;
  };
  struct ReceivedDiff {
    NodeId writer{};
    std::uint32_t interval = 0;
    std::size_t offset = 0;
    std::size_t bytes = 0;
  };

  [[nodiscard]] std::uint8_t& access_byte(PageId page) {
    return access_[directory_.region_of(page)][directory_.local_index(page)];
  }
  void set_access(PageId page, Access a) {
    access_byte(page) = static_cast<std::uint8_t>(a);
    if (track_access_) access_changes_.push_back(page);
  }
  // This node's own interval in progress (its writes since its last close).
  [[nodiscard]] std::uint32_t open_interval() const {
    return vt_[static_cast<std::size_t>(index(self_))] + 1;
  }
  LockState& lock_state(LockId lock);
  std::uint32_t defer_diff(PageId page);
  void encode_from_twin(PageId page);
  void seal_diff(PageId page);  // at the interval's close (copy_at_close)
  void diff_due(PageId page, CostSink& costs, bool next_write);
  static OwnDiff* newest_diff(PageState& ps);
  void account(OwnDiff& own);
  static void charge(PageId page, OwnDiff& own, CostSink& costs);
  void drop_clean(PageState& ps);
  const Diff& encode_deferred(OwnDiff& own);
  void release_deferred(OwnDiff& own);
  void drop_twin(PageState& ps);
  void drop_unchanged_carried();
  void record_interval(std::span<const PageId> written, CostSink& costs);
  [[nodiscard]] bool unchanged_since_snapshot(PageId page);
  std::vector<std::byte> spare_diff_buffer();

  NodeId self_;
  const ProtocolConfig config_;
  History& history_;
  PageDirectory& directory_;
  PageMemory& memory_;
  VectorTime vt_;
  VectorTime vt_at_release_;
  std::vector<PageId> dirty_;  // pages written in the current interval
  std::vector<PageState> pages_;
  std::vector<std::vector<std::uint8_t>> access_;  // per region (stable addresses: the fast path)
  bool track_access_ = false;
  std::vector<PageId> access_changes_;
  std::size_t diff_bytes_ = 0;
  std::size_t notice_count_ = 0;
  std::unordered_map<std::uint32_t, LockState> locks_;
  std::unordered_map<std::uint32_t, NodeId> lock_tails_;    // as manager: each lock's last requester
  PageBuffers twins_;                                       // twins, shared with deferred diffs
  std::vector<std::vector<std::byte>> spare_diff_buffers_;  // encodings freed by a collection
  std::vector<ReceivedDiff> received_;
  std::vector<std::byte> receive_buffer_;
  Counters counters_;
};

}  // namespace ncp2::lrc
