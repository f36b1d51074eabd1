// Garbage collection at a barrier, when diffs and write notices exceed dsm.gc_threshold_kb.
#include "dsm/runtime.hpp"

#include "dsm/runtime_internal.hpp"

namespace ncp2::dsm {

// Garbage collection (TreadMarks): before diffs, twins and write notices are discarded, every
// copy of a page must be current or dropped. Each page written since the last collection gets a
// new home, its last writer (the latest interval by happens-before, ties by node): that node
// brings its copy up to date (fetching the diffs of concurrent writers). Every other node keeps a
// copy that is already current and drops a stale one; it will ask the new home for the page if it
// needs it again. (Making node 0 current for every page instead sends every diff of the program
// to it at each collection.) Then everyone meets at a second barrier and discards.
void Runtime::run_gc(NodeState& ns) {
  OperationScope op(*ns.pp, Operation::GarbageCollection);
  ++ns.stats.gc_runs;
  if (gc_generation_ < ns.stats.gc_runs) {
    // The first node to collect computes the homes for all: they depend only on the intervals up
    // to the release's vector time, which every node has now seen.
    assign_page_homes(ns.vt);
    gc_generation_ = ns.stats.gc_runs;
  }
  for (std::uint32_t p = 0; p < ns.pages.size(); ++p) {
    PageState& ps = ns.pages[p];
    if (!ps.held || ps.notices.empty()) continue;
    const std::uint32_t r = page_region_[p];
    auto& access = ns.regions[r].access[p - regions_[r].first_page];
    if (page_home_[p] == ns.id) {
      fetch_diffs(ns, PageId{p});
      if (access == static_cast<std::uint8_t>(Access::None)) access = static_cast<std::uint8_t>(Access::Read);
    } else {
      ns.pages[p].held = false;
      access = static_cast<std::uint8_t>(Access::None);
    }
    ns.note_access_change(PageId{p});
  }
  barrier_episode(ns, BarrierId{kGcBarrier}, false);
  // Twins and diff encodings go back to the node's pools (bounded): the next intervals reuse them
  // instead of allocating afresh (malloc was a tenth of an 8-node SOR run's host time). Deferred
  // diffs were never asked for: they are dropped unencoded.
  constexpr std::size_t kMaxSpareBuffers = 1024;
  for (auto& ps : ns.pages) {
    ps.notices.clear();
    drop_twin(ns, ps);
    ps.modeled_twin = false;
    ps.uncharged_words = 0;
    ps.uncharged_runs = 0;
    for (auto& own : ps.diffs) {
      if (own.deferred())
        release_deferred(ns, own);
      else if (ns.spare_diff_buffers.size() < kMaxSpareBuffers)
        ns.spare_diff_buffers.push_back(std::move(own.diff).take_storage());
    }
    ps.diffs.clear();
  }
  ns.twins.trim(kMaxSpareBuffers);
  ns.diff_bytes = 0;
  ns.notice_count = 0;
}

void Runtime::assign_page_homes(const VectorTime& upto) {
  if (page_home_.size() < page_region_.size()) {
    for (std::size_t p = page_home_.size(); p < page_region_.size(); ++p)
      page_home_.push_back(regions_[page_region_[p]].home);
  }
  gc_from_.resize(intervals_.size(), 0);
  // The latest writing interval of each page: (order key, writer) is a total order consistent
  // with happens-before.
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>> latest;
  for (std::size_t q = 0; q < intervals_.size(); ++q) {
    for (std::uint32_t i = gc_from_[q]; i < upto[q]; ++i) {
      const IntervalRecord& rec = intervals_[q][i];
      for (PageId page : rec.pages) {
        const std::pair<std::uint64_t, std::uint32_t> key{rec.order_key, static_cast<std::uint32_t>(q)};
        auto [it, inserted] = latest.try_emplace(raw(page), key);
        if (!inserted && it->second < key) it->second = key;
      }
    }
    gc_from_[q] = upto[q];
  }
  for (const auto& [page, key] : latest) page_home_[page] = emu::node_id(static_cast<int>(key.second));
}

}  // namespace ncp2::dsm
