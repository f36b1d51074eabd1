#pragma once
// Data-race detection on lazy release consistency (issue 16; Perkovic and Keleher, OSDI'96):
// every node's execution is cut into segments at each synchronization (lock acquire or release,
// barrier); segments carry vector clocks that follow happens-before through lock transfers and
// barriers; each segment records, per shared page, the bytes it read and wrote. Two segments of
// different nodes that are concurrent (neither clock covers the other) and touched overlapping
// bytes, at least one of them writing, race. The emulator drives it from the runtime's own
// synchronization points, in virtual-time order, so the clocks need no messages.
//
// Not wired into the runtime yet: this is the detector and its tests.
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "dsm/types.hpp"

namespace ncp2::dsm {

class RaceDetector {
 public:
  RaceDetector(int nodes, std::size_t page_size);

  // Accesses of the node's current segment: `bytes` bytes at `offset` of `page`; `site` says
  // where (a scope id or a program counter, for the report).
  void read(NodeId node, PageId page, std::size_t offset, std::size_t bytes, std::uint64_t site);
  void write(NodeId node, PageId page, std::size_t offset, std::size_t bytes, std::uint64_t site);

  // Synchronization, in the order the emulator completes it. A release publishes the node's
  // clock on the lock; the acquire that the release grants takes it over.
  void release(NodeId node, LockId lock);
  void acquired(NodeId node, LockId lock);
  // Barrier episodes: every node arrives, then every node departs (departures after all arrivals).
  void barrier_arrive(NodeId node);
  void barrier_depart(NodeId node);

  struct Access {
    NodeId node{};
    std::uint32_t segment = 0;  // the node's segment number (1, 2, ...)
    std::vector<std::uint32_t> clock;
    bool writes = false;  // the racing access is a write (else a read)
    std::uint64_t site = 0;
  };
  struct Race {
    PageId page{};
    std::size_t offset = 0;  // the first byte both touched
    Access first;            // the lower node
    Access second;
  };
  // Every race so far: one per pair of segments and page (the first overlapping byte). Closes the
  // nodes' current segments first.
  [[nodiscard]] std::vector<Race> races();

 private:
  struct PageAccess {
    std::vector<std::uint64_t> read;  // a bit per byte
    std::vector<std::uint64_t> write;
    std::uint64_t read_site = 0;
    std::uint64_t write_site = 0;
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
  };

  void mark(NodeId node, PageId page, std::size_t offset, std::size_t bytes, std::uint64_t site, bool write);
  void close_segment(NodeId node);  // ends the current segment (kept if it touched anything)
  void next_segment(NodeId node);   // the node's next segment, after a synchronization
  [[nodiscard]] static bool ordered(const Segment& a, const Segment& b);  // a happens before b

  std::size_t words_;  // 64-bit words per bitmap
  std::size_t page_size_;
  std::vector<NodeState> nodes_;
  std::map<std::uint32_t, std::vector<std::uint32_t>> lock_clock_;  // the last release's clock
  std::vector<std::uint32_t> barrier_clock_;                        // merged at arrivals
  int departed_ = 0;
  std::vector<Segment> done_;  // closed segments that touched shared memory
};

}  // namespace ncp2::dsm
