#include "tmk/host/shared_heap.hpp"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ncp2::tmk {
namespace {

TEST(SharedHeap, AllocationsAreAlignedDisjointAndReused) {
  SharedHeap heap(1 << 16);
  const auto a = heap.allocate(1);
  const auto b = heap.allocate(100);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a % SharedHeap::kAlignment, 0u);
  EXPECT_EQ(*b % SharedHeap::kAlignment, 0u);
  EXPECT_GE(*b, *a + 16);
  EXPECT_EQ(heap.in_use(), 16u + 112u);
  EXPECT_TRUE(heap.free(*a));
  EXPECT_FALSE(heap.free(*a)) << "a double free is refused";
  EXPECT_FALSE(heap.free(*b + 16)) << "an address inside a block is not a block";
  EXPECT_EQ(heap.allocate(16), a) << "first fit reuses the freed block";
}

TEST(SharedHeap, ExhaustionIsReportedAndFreeingMergesNeighbours) {
  SharedHeap heap(4096);
  std::vector<std::size_t> blocks;
  while (auto b = heap.allocate(1024)) blocks.push_back(*b);
  EXPECT_EQ(blocks.size(), 4u);
  EXPECT_FALSE(heap.allocate(1));
  EXPECT_EQ(heap.largest_free(), 0u);
  for (std::size_t b : blocks) EXPECT_TRUE(heap.free(b));
  EXPECT_EQ(heap.in_use(), 0u);
  EXPECT_EQ(heap.largest_free(), 4096u) << "freed neighbours merge back into one block";
  EXPECT_TRUE(heap.allocate(4096));
}

TEST(SharedHeap, RandomAllocationsNeverOverlapAndTheSameCallsGiveTheSameAddresses) {
  auto run = [] {
    SharedHeap heap(1 << 20);
    std::mt19937 rng(11);
    std::vector<std::pair<std::size_t, std::size_t>> live;
    std::vector<std::size_t> trace;
    for (int step = 0; step < 5000; ++step) {
      if (!live.empty() && rng() % 3 == 0) {
        const std::size_t k = rng() % live.size();
        EXPECT_TRUE(heap.free(live[k].first));
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      const std::size_t size = 1 + rng() % 3000;
      if (auto b = heap.allocate(size)) {
        for (const auto& [offset, bytes] : live) EXPECT_TRUE(*b + size <= offset || offset + bytes <= *b);
        live.emplace_back(*b, size);
        trace.push_back(*b);
      }
    }
    return trace;
  };
  EXPECT_EQ(run(), run());
}

TEST(SharedHeap, HugeRequestsFailWithoutOverflow) {
  SharedHeap heap(1 << 16);
  EXPECT_FALSE(heap.allocate(~std::size_t{0}));
  EXPECT_FALSE(heap.allocate(~std::size_t{0} - 8));
}

}  // namespace
}  // namespace ncp2::tmk
