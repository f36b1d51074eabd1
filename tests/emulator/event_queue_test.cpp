#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "emulator/event_queue.hpp"

namespace ncp2::emu {
namespace {

TEST(EventQueue, PopsInTimeThenInsertionOrder) {
  EventQueue q;
  std::vector<int> order;
  std::vector<int>* out = &order;
  std::uint64_t seq = 0;
  q.push(Event::make(30, seq++, [out] { out->push_back(3); }));
  q.push(Event::make(10, seq++, [out] { out->push_back(1); }));
  q.push(Event::make(20, seq++, [out] { out->push_back(20); }));
  q.push(Event::make(10, seq++, [out] { out->push_back(2); }));  // same time: after the first 10
  while (!q.empty()) {
    const Event e = q.pop();
    e.invoke(e);
  }
  EXPECT_EQ(order, (std::vector<int>{1, 2, 20, 3}));
}

TEST(EventQueue, MatchesASortedReferenceOnRandomInput) {
  std::mt19937_64 rng(42);
  EventQueue q;
  std::vector<std::pair<std::int64_t, std::uint64_t>> reference;
  std::uint64_t seq = 0;
  std::vector<std::pair<std::int64_t, std::uint64_t>> popped;
  for (int round = 0; round < 2000; ++round) {
    // Mix pushes and pops so the heap is exercised at many sizes.
    const int pushes = static_cast<int>(rng() % 5);
    for (int i = 0; i < pushes; ++i) {
      const auto t = static_cast<std::int64_t>(rng() % 100);  // many equal times
      q.push(Event::make(t, seq, [] {}));
      reference.emplace_back(t, seq++);
    }
    if (!q.empty() && rng() % 2 == 0) {
      const Event e = q.pop();
      popped.emplace_back(e.time_ps, e.seq);
      auto it = std::min_element(reference.begin(), reference.end());
      EXPECT_EQ(*it, popped.back());
      reference.erase(it);
    }
  }
  EXPECT_EQ(q.size(), reference.size());
}

}  // namespace
}  // namespace ncp2::emu

#include "emulator/ring_queue.hpp"

namespace ncp2::emu {
namespace {

TEST(RingQueue, KeepsFifoOrderAcrossGrowthAndWrapAround) {
  RingQueue<int> q;
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < round % 13; ++i) q.push_back(next_in++);
    for (int i = 0; i < round % 7 && !q.empty(); ++i) {
      EXPECT_EQ(q.front(), next_out++);
      q.pop_front();
    }
  }
  while (!q.empty()) {
    EXPECT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_in, next_out);
}

}  // namespace
}  // namespace ncp2::emu
