#pragma once
// The intervals a node knows of: each interval's record (its creator, vector time and the pages
// it wrote: its write notices).
//
// Records are immutable. A real run's node keeps a History of its own, filled with its own
// intervals and those the messages bring. The emulator keeps one History for all its nodes (a
// node "knows" an interval when its vector time says so; the messages that would carry records
// are charged their bytes, record_bytes()): the same decisions, read from one copy.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "lrc/types.hpp"

namespace ncp2::lrc {

struct IntervalRecord {
  NodeId creator{};
  std::uint32_t seq = 0;  // 1, 2, ... per creator (= vt[creator])
  VectorTime vt;
  std::vector<PageId> pages;    // written in the interval
  std::uint64_t order_key = 0;  // sum of vt: a linear extension of happens-before
};

// The sum of a vector time: intervals ordered by it (ties by creator) respect happens-before.
std::uint64_t order_key(const VectorTime& vt);

class History {
 public:
  explicit History(std::size_t nodes);

  [[nodiscard]] std::size_t nodes() const { return by_creator_.size(); }
  // Adds a record: the creator's next one, or one already held (ignored). Throws on a gap.
  void add(IntervalRecord record);
  [[nodiscard]] bool holds(NodeId creator, std::uint32_t seq) const;
  // The record of interval `seq` of `creator`, which must be held.
  [[nodiscard]] const IntervalRecord& record(NodeId creator, std::uint32_t seq) const;
  // Calls f(record) for every interval after `from` up to `to` (creator by creator, in order).
  template <class F>
  void for_each_between(const VectorTime& from, const VectorTime& to, F&& f) const {
    for (std::size_t q = 0; q < to.size(); ++q)
      for (std::uint32_t i = from[q] + 1; i <= to[q]; ++i) f(record(node_id(static_cast<int>(q)), i));
  }
  // The bytes a message carrying those records takes on the wire (record_bytes each).
  [[nodiscard]] std::size_t bytes_between(const VectorTime& from, const VectorTime& to) const;
  // One record on the wire: creator and sequence, its vector time, a word per page.
  [[nodiscard]] std::size_t record_bytes(const IntervalRecord& r) const {
    return 8 + 4 * nodes() + 4 * r.pages.size();
  }

  // After a garbage collection of every interval up to `upto`: their records are no longer needed.
  void discard(const VectorTime& upto);
  // Intervals of `creator` already discarded (a peer asking for them is out of step).
  [[nodiscard]] std::uint32_t discarded(NodeId creator) const {
    return discarded_[static_cast<std::size_t>(index(creator))];
  }

 private:
  std::vector<std::vector<IntervalRecord>> by_creator_;  // record seq at [seq - 1 - discarded_]
  std::vector<std::uint32_t> discarded_;
};

}  // namespace ncp2::lrc
