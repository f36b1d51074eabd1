#pragma once
// Data-race detection on lazy release consistency (issue 16; Perkovic and Keleher, OSDI'96):
// every node's execution is cut into segments at each synchronization (lock acquire or release,
// barrier); segments carry vector clocks that follow happens-before through lock transfers and
// barriers; each segment records, per shared page, the bytes it read and wrote. Two segments of
// different nodes that are concurrent (neither clock covers the other) and touched overlapping
// bytes, at least one of them writing, race. The emulator drives it from the runtime's own
// synchronization points, in virtual-time order, so the clocks need no messages.
//
// Checking is online: a segment is compared with the kept segments of the other nodes when it
// closes, and a kept segment is dropped once every other node's clock covers it (nothing later
// can race with it) — at the latest when the last node arrives at a barrier. Memory stays
// proportional to the accesses between two global orderings, not to the run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "dsm/types.hpp"

namespace ncp2::dsm {

// Where an access was made, for the report: `where` is a program counter (a Tmk program) or a
// source file name's address with `line` (the typed API's std::source_location); `scope` is the
// CARNIVAL scope the node was in.
struct AccessSite {
  std::uint64_t where = 0;
  std::uint32_t line = 0;
  std::uint32_t scope = 0;
  friend bool operator==(const AccessSite&, const AccessSite&) = default;
};

// A site and the bytes of one page it touched in a segment: [first, last], the hull of all its
// accesses there. A segment keeps a few per page and kind so that a race is blamed on the access
// that touched the racing byte, not on the first access to the page.
struct SiteRange {
  AccessSite site;
  std::uint32_t first = 0;
  std::uint32_t last = 0;
};

class RaceDetector {
 public:
  RaceDetector(int nodes, std::size_t page_size);

  // Accesses of the node's current segment: `bytes` bytes at `offset` of `page`.
  void read(NodeId node, PageId page, std::size_t offset, std::size_t bytes, const AccessSite& site);
  void write(NodeId node, PageId page, std::size_t offset, std::size_t bytes, const AccessSite& site);
  // Accesses recorded elsewhere as bitmaps (a bit per byte of the page, 64 bytes per word), e.g. by
  // an instrumented program: OR-ed into the node's current segment, with the sites that made them.
  void merge(NodeId node, PageId page, std::span<const std::uint64_t> read_bits,
             std::span<const std::uint64_t> write_bits, std::span<const SiteRange> read_sites,
             std::span<const SiteRange> write_sites);
  // Sites kept per page and kind in a segment; accesses of further sites are blamed on the first.
  static constexpr std::size_t kSitesPerPage = 8;

  // Synchronization, in the order the emulator completes it. A release publishes the node's
  // clock on the lock; the acquire that the release grants takes it over.
  void release(NodeId node, LockId lock);
  void acquired(NodeId node, LockId lock);
  // Barrier episodes: every node arrives, then every node departs (departures after all arrivals).
  void barrier_arrive(NodeId node);
  void barrier_depart(NodeId node);
  // Closes every node's current segment and checks it (the end of the run, or of a failed one).
  void finish();

  struct Access {
    NodeId node{};
    std::uint32_t segment = 0;  // the node's segment number (1, 2, ...)
    std::vector<std::uint32_t> clock;
    bool writes = false;  // the racing access is a write (else a read)
    AccessSite site;
  };
  struct Race {
    PageId page{};
    std::size_t offset = 0;  // the first byte both touched (of the first pair of segments found)
    Access first;            // the lower node
    Access second;
    std::uint64_t occurrences = 1;  // pairs of segments (and pages) with the same nodes and sites
  };
  // The races found so far, one per pair of nodes, sites and kinds of access (the first pair of
  // segments found; `occurrences` counts the pairs of segments and pages where it shows), in the
  // order found. At most kMaxRaces distinct ones are kept; race_pairs() counts every pair of
  // segments and page with at least one race.
  [[nodiscard]] const std::vector<Race>& races() const { return races_; }
  [[nodiscard]] std::uint64_t race_pairs() const { return pairs_; }
  static constexpr std::size_t kMaxRaces = 10000;
  // Segments kept for comparison right now (for tests of the memory bound).
  [[nodiscard]] std::size_t kept_segments() const { return kept_.size(); }

 private:
  struct WordSpan {
    std::size_t first = SIZE_MAX;
    std::size_t last = 0;
    void add(std::size_t from, std::size_t to) {
      first = std::min(first, from);
      last = std::max(last, to);
    }
    [[nodiscard]] bool empty() const { return first > last; }
  };
  struct PageAccess {
    std::vector<std::uint64_t> read;  // a bit per byte
    std::vector<std::uint64_t> write;
    std::vector<SiteRange> read_sites;  // in the order first seen; empty: no read
    std::vector<SiteRange> write_sites;
    // Words of the bitmaps that may hold a bit, [first, last], for any access and for writes:
    // report() scans only where one side wrote and the other touched (most shared pages are
    // touched in disjoint parts, and a whole-page scan per pair dominated the detector's cost).
    WordSpan touched;
    WordSpan written;
  };
  struct Segment {
    NodeId node{};
    std::uint32_t number = 0;
    std::vector<std::uint32_t> clock;
    std::map<std::uint32_t, PageAccess> pages;  // ordered: reports come out in page order
  };
  struct NodeState {
    std::vector<std::uint32_t> clock;
    Segment current;
    std::uint32_t last_page = 0;  // a cache of the last page touched
    PageAccess* last = nullptr;
  };

  PageAccess& page_access(NodeId node, PageId page);
  void mark(NodeId node, PageId page, std::size_t offset, std::size_t bytes, const AccessSite& site,
            bool write);
  void close_segment(NodeId node);  // ends the current segment, checks it, keeps it if it touched anything
  void next_segment(NodeId node);   // the node's next segment, after a synchronization
  void check(const Segment& s);     // against every kept segment of another node
  void report(const Segment& a, const Segment& b, std::uint32_t page);
  void prune();  // drops kept segments every other node's clock covers
  [[nodiscard]] static bool ordered(const Segment& a, const Segment& b);  // a happens before b
  NodeState& state(NodeId node) { return nodes_.at(static_cast<std::size_t>(emu::index(node))); }

  std::size_t words_;  // 64-bit words per bitmap
  std::size_t page_size_;
  std::vector<NodeState> nodes_;
  std::map<std::uint32_t, std::vector<std::uint32_t>> lock_clock_;  // the last release's clock
  std::vector<std::uint32_t> arrivals_clock_;                       // merged at this episode's arrivals
  std::vector<std::uint32_t> released_clock_;                       // the last complete episode's
  int arrived_ = 0;
  std::vector<Segment> kept_;  // closed segments that touched shared memory and may still race
  std::size_t closed_since_prune_ = 0;
  std::vector<Race> races_;
  // (first node, second node, first site, second site, first writes, second writes) -> races_ index
  using RaceKey =
      std::tuple<int, int, std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t, bool, bool>;
  std::map<RaceKey, std::size_t> index_;
  std::uint64_t pairs_ = 0;
};

}  // namespace ncp2::dsm
