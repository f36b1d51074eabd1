#pragma once
// Sorting the pages whose protection changed before a reply (tmk/host/program.cpp).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ncp2::tmk {

// `pages` (each below `page_count`) sorted, without repeats. Many of them (a barrier's invalidations
// and ends of writes): one bit per page in `bits` (reused), read back in order, instead of a
// comparison sort.
inline void sort_unique_pages(std::vector<std::uint32_t>& pages, std::size_t page_count,
                              std::vector<std::uint64_t>& bits) {
  constexpr std::size_t kSortBelow = 256;
  if (pages.size() < kSortBelow) {
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    return;
  }
  bits.assign((page_count + 63) / 64, 0);
  for (const std::uint32_t page : pages) bits[page / 64] |= std::uint64_t{1} << (page % 64);
  pages.clear();
  for (std::size_t w = 0; w < bits.size(); ++w)
    for (std::uint64_t word = bits[w]; word != 0; word &= word - 1)
      pages.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(word))));
}

}  // namespace ncp2::tmk
