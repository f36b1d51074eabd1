#pragma once
// Which shared pages exist and where each lives: the regions (a shared array, or a program's
// shared heap), a page's region, and its home — where a node without a copy asks for it: the
// region's allocating node at first, then, after each garbage collection, the page's last writer.
// Every node decides the same from the intervals it has seen. A real run's node keeps its own; the
// emulator one for all its nodes (like lrc::History).
#include <cstdint>
#include <vector>

#include "lrc/history.hpp"
#include "lrc/types.hpp"

namespace ncp2::lrc {

// Where every region's pages are at first: TreadMarks' Tmk_malloc runs on node 0, whose copy is
// the only one (FirstTouch::FromHome).
inline constexpr NodeId kAllocatingHome = node_id(0);

struct Region {
  std::uint32_t first_page = 0;
  std::uint32_t pages = 0;
  NodeId home{};  // holds every page at first (FirstTouch::FromHome)
};

class PageDirectory {
 public:
  // A new region of `pages` pages after the others; returns its index.
  std::uint32_t add_region(std::uint32_t pages, NodeId home);
  [[nodiscard]] const std::vector<Region>& regions() const { return regions_; }
  [[nodiscard]] std::uint32_t pages() const { return static_cast<std::uint32_t>(region_of_.size()); }
  [[nodiscard]] std::uint32_t region_of(PageId page) const { return region_of_[raw(page)]; }
  [[nodiscard]] std::uint32_t local_index(PageId page) const {
    return raw(page) - regions_[region_of_[raw(page)]].first_page;
  }
  [[nodiscard]] NodeId home(PageId page) const { return homes_[raw(page)]; }

  // A garbage collection of every interval up to `upto` (which every node has seen): each page
  // written since the last one gets its last writer (the latest interval by order key, ties by
  // creator) as home. Done once per collection `round` (1, 2, ...): a later call for the same
  // round returns at once (the emulator's nodes share one directory).
  void assign_homes(const History& history, const VectorTime& upto, std::uint64_t round);

 private:
  std::vector<Region> regions_;
  std::vector<std::uint32_t> region_of_;  // global page -> region
  std::vector<NodeId> homes_;
  std::vector<std::uint32_t> homes_from_;  // per creator: intervals already looked at
  std::uint64_t homes_round_ = 0;
};

}  // namespace ncp2::lrc
