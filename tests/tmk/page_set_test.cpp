#include "tmk/host/page_set.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ncp2::tmk {
namespace {

// Both ways (a few pages: a sort; many: the bit set) give the sorted set of the pages.
TEST(PageSet, SortUniquePagesGivesEachPageOnceInOrder) {
  std::mt19937 random(7);
  std::vector<std::uint64_t> bits;
  for (const std::size_t count : {0U, 1U, 5U, 255U, 256U, 3000U}) {
    std::vector<std::uint32_t> pages;
    for (std::size_t i = 0; i < count; ++i) pages.push_back(static_cast<std::uint32_t>(random() % 1000));
    std::vector<std::uint32_t> want = pages;
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    sort_unique_pages(pages, 1000, bits);
    EXPECT_EQ(pages, want) << count << " pages";
  }
  std::vector<std::uint32_t> edges(300, 999);  // the last page, repeated: once
  edges.push_back(0);
  sort_unique_pages(edges, 1000, bits);
  EXPECT_EQ(edges, (std::vector<std::uint32_t>{0, 999}));
}

}  // namespace
}  // namespace ncp2::tmk
