// Regions, pages and their homes (lrc/page_directory.hpp).
#include "lrc/page_directory.hpp"

#include <unordered_map>
#include <utility>

namespace ncp2::lrc {

std::uint32_t PageDirectory::add_region(std::uint32_t pages, NodeId home) {
  const auto r = static_cast<std::uint32_t>(regions_.size());
  regions_.push_back({static_cast<std::uint32_t>(region_of_.size()), pages, home});
  region_of_.resize(region_of_.size() + pages, r);
  homes_.resize(homes_.size() + pages, home);
  return r;
}

void PageDirectory::assign_homes(const History& history, const VectorTime& upto, std::uint64_t round) {
  if (round <= homes_round_) return;
  homes_round_ = round;
  homes_from_.resize(history.nodes(), 0);
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>> latest;
  for (std::size_t q = 0; q < history.nodes(); ++q) {
    for (std::uint32_t seq = homes_from_[q] + 1; seq <= upto[q]; ++seq) {
      const IntervalRecord& rec = history.record(node_id(static_cast<int>(q)), seq);
      for (PageId page : rec.pages) {
        const std::pair<std::uint64_t, std::uint32_t> key{rec.order_key, static_cast<std::uint32_t>(q)};
        auto [it, inserted] = latest.try_emplace(raw(page), key);
        if (!inserted && it->second < key) it->second = key;
      }
    }
    homes_from_[q] = upto[q];
  }
  for (const auto& [page, key] : latest) homes_[page] = node_id(static_cast<int>(key.second));
}

}  // namespace ncp2::lrc
