#pragma once
// One node's lazy-release-consistency state in a real run (TreadMarks' multiple-writer protocol,
// docs/real-machine.md): vector time, intervals with their write notices, twins and diffs, page
// validity and the protections the program must have. Pure state, no transport and no locking
// (the agent serializes access): testable with several nodes in one process.
//
// Diffs are made when an interval closes (at a release, an acquire, a barrier), not lazily: the
// program's process runs concurrently with the node's service, which then only ever reads diffs
// already made and never the live pages. Applied diffs of one page are ordered by the sum of
// their intervals' vector times, a linear extension of happens-before, so same-byte writes that
// synchronization ordered land in that order.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "real_machine/wire.hpp"

namespace ncp2::real {

using VectorTime = std::vector<std::uint32_t>;

enum class PageAccess : std::uint8_t { None = 0, Read = 1, ReadWrite = 2 };  // = tmk::Protection

// An interval of some node: its vector time when it closed and the pages it wrote.
struct IntervalRecord {
  std::uint32_t creator = 0;
  std::uint32_t seq = 0;  // 1, 2, ... per creator (= vt[creator])
  VectorTime vt;
  std::vector<std::uint32_t> pages;
};
void write_intervals(WireWriter& w, std::span<const IntervalRecord* const> intervals);
std::vector<IntervalRecord> read_intervals(WireReader& r);

// The diffs a fault needs from one creator.
struct DiffNeed {
  std::uint32_t creator = 0;
  std::vector<std::uint32_t> seqs;
};

struct ReceivedDiff {
  std::uint32_t creator = 0;
  std::uint32_t seq = 0;
  std::vector<std::byte> encoded;
};

class LrcNode {
 public:
  LrcNode(std::uint32_t self, std::uint32_t nodes, std::span<std::byte> heap, std::size_t page_bytes);

  [[nodiscard]] std::uint32_t self() const { return self_; }
  [[nodiscard]] std::size_t pages() const { return access_.size(); }
  [[nodiscard]] const VectorTime& vector_time() const { return vt_; }
  [[nodiscard]] PageAccess access(std::uint32_t page) const { return access_.at(page); }
  [[nodiscard]] bool valid(std::uint32_t page) const { return pending_.find(page) == pending_.end(); }

  // The first write to a valid page in this interval: keep its twin, let the program write. The twin
  // is `as_it_was` when given (a fault the program took at once: the page before its writes).
  void write_fault(std::uint32_t page, std::span<const std::byte> as_it_was = {});
  // A read of a valid page that had no access (only after a fetch): read access.
  void grant_read(std::uint32_t page);
  // What an invalid page needs, per creator (never this node).
  [[nodiscard]] std::vector<DiffNeed> missing_diffs(std::uint32_t page) const;
  // Applies the fetched diffs (all of missing_diffs) in happens-before order: the page is valid.
  void apply_diffs(std::uint32_t page, std::vector<ReceivedDiff> diffs);

  // Ends the current interval: a diff of every written page, whose protection drops to read.
  // Returns false (and makes no interval) when nothing was written.
  bool close_interval();
  // The intervals a node whose vector time is `known` has not seen (this node's and others').
  [[nodiscard]] std::vector<const IntervalRecord*> unseen_by(const VectorTime& known) const;
  // This node's own intervals after `after` (what it has not yet reported to the barrier manager).
  [[nodiscard]] std::vector<const IntervalRecord*> own_after(std::uint32_t after) const;
  // Takes in others' intervals: their pages become invalid (write notices); vector time merged.
  void incorporate(std::span<const IntervalRecord> intervals);
  // One of this node's diffs (empty when the interval did not write the page).
  [[nodiscard]] std::span<const std::byte> diff(std::uint32_t page, std::uint32_t seq) const;
  [[nodiscard]] std::size_t diff_bytes() const { return diff_bytes_; }
  // Garbage collection (at a barrier, TreadMarks' way): the invalid pages, which the node then
  // validates; once every node did, each drops its diffs and interval records (discard_history).
  [[nodiscard]] std::vector<std::uint32_t> invalid_pages() const;
  void discard_history();
  [[nodiscard]] std::uint64_t diffs_made() const { return diffs_made_; }

  // Pages whose access changed since the last call, sorted, each once.
  std::vector<std::uint32_t> take_access_changes();

 private:
  void set_access(std::uint32_t page, PageAccess a);
  [[nodiscard]] std::span<std::byte> page_bytes(std::uint32_t page) const;
  [[nodiscard]] const IntervalRecord& record(std::uint32_t creator, std::uint32_t seq) const;

  std::uint32_t self_;
  std::span<std::byte> heap_;
  std::size_t page_bytes_;
  VectorTime vt_;
  std::vector<std::deque<IntervalRecord>> intervals_;  // by creator: seq dropped_+1.. at index 0..
  std::vector<std::uint32_t> dropped_;                 // by creator: records discarded by a GC
  std::vector<PageAccess> access_;
  std::map<std::uint32_t, std::vector<std::byte>> twins_;  // pages written in the open interval
  std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, std::uint32_t>>> pending_;  // (creator, seq)
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::byte>> diffs_;        // (page, seq)
  std::size_t diff_bytes_ = 0;
  std::uint64_t diffs_made_ = 0;
  std::vector<std::uint32_t> changed_;
};

}  // namespace ncp2::real
