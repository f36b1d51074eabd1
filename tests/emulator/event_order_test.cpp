// RadixEventHeap and EventOrder against a sorted reference: exact (time, order) order, ties,
// pushes at and below the last popped time, large counts, and EventOrder's switches between its
// heap and its radix heap.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "emulator/event_order.hpp"
#include "emulator/kernel.hpp"
#include "emulator/radix_event_heap.hpp"

namespace ncp2::emu {
namespace {

bool same(const EventKey& a, const EventKey& b) { return a.time_ps == b.time_ps && a.order == b.order; }

// Pops `q` and a multiset reference side by side; fails at the first difference.
template <class Queue>
class Checked {
 public:
  void push(std::int64_t t, std::uint64_t order) {
    q.push(EventKey{t, order});
    ref_.push_back(EventKey{t, order});
  }
  EventKey pop() {
    const auto it = std::min_element(ref_.begin(), ref_.end());
    const EventKey expected = *it;
    ref_.erase(it);
    const EventKey top = q.top();
    const EventKey got = q.pop();
    EXPECT_TRUE(same(top, got));
    EXPECT_TRUE(same(got, expected)) << "got (" << got.time_ps << ", " << got.order << ") expected ("
                                     << expected.time_ps << ", " << expected.order << ")";
    EXPECT_EQ(q.size(), ref_.size());
    return got;
  }
  [[nodiscard]] bool empty() const { return ref_.empty(); }
  Queue q;

 private:
  std::vector<EventKey> ref_;
};

TEST(RadixEventHeap, PopsInTimeThenOrderWithTies) {
  Checked<RadixEventHeap> c;
  std::uint64_t order = 0;
  for (const std::int64_t t : {30, 10, 20, 10, 10, 0, 30, 20}) c.push(t, order++);
  std::vector<std::int64_t> times;
  while (!c.empty()) times.push_back(c.pop().time_ps);
  EXPECT_EQ(times, (std::vector<std::int64_t>{0, 10, 10, 10, 20, 20, 30, 30}));
  EXPECT_TRUE(c.q.empty());
}

// The kernel's pattern: every push at or after the last popped time, order words increasing,
// many pushes at exactly the current time (bucket "now") and at a few shared times.
TEST(RadixEventHeap, MonotoneHoldModelMatchesReference) {
  std::mt19937_64 rng(7);
  Checked<RadixEventHeap> c;
  std::uint64_t order = 0;
  std::int64_t now = 0;
  for (int i = 0; i < 300; ++i) c.push(static_cast<std::int64_t>(rng() % 5000), order++);
  for (int step = 0; step < 20000; ++step) {
    now = c.pop().time_ps;
    const int pushes = static_cast<int>(rng() % 3);  // the size drifts around its start
    for (int p = 0; p < pushes; ++p) {
      const std::uint64_t kind = rng() % 4;
      const std::int64_t delay = kind == 0   ? 0
                                 : kind == 1 ? static_cast<std::int64_t>(rng() % 4) * 1000
                                             : static_cast<std::int64_t>(rng() % 100000);
      c.push(now + delay, order++);
    }
    if (c.empty()) c.push(now + 1, order++);
  }
  while (!c.empty()) c.pop();
}

// Out of the kernel's pattern: pushes below the last popped time (served from `early_`), and
// order words out of sequence at the current time (inserted in place in bucket "now").
TEST(RadixEventHeap, NonMonotonePushesAndOrdersMatchReference) {
  std::mt19937_64 rng(11);
  Checked<RadixEventHeap> c;
  for (int round = 0; round < 3000; ++round) {
    const int pushes = static_cast<int>(rng() % 5);
    for (int i = 0; i < pushes; ++i) c.push(static_cast<std::int64_t>(rng() % 100), rng() % 1000);
    if (!c.empty() && rng() % 2 == 0) c.pop();
  }
  while (!c.empty()) c.pop();
}

TEST(RadixEventHeap, NegativeAndExtremeTimes) {
  Checked<RadixEventHeap> c;
  std::uint64_t order = 0;
  for (const std::int64_t t : {INT64_MAX, std::int64_t{-5}, std::int64_t{0}, INT64_MIN, std::int64_t{-5},
                               std::int64_t{1} << 40, INT64_MAX})
    c.push(t, order++);
  while (!c.empty()) c.pop();
}

TEST(RadixEventHeap, LargeCountsKeepTheOrder) {
  std::mt19937_64 rng(3);
  RadixEventHeap q;
  std::vector<EventKey> ref;
  std::uint64_t order = 0;
  for (int i = 0; i < 200000; ++i) {
    const EventKey k{static_cast<std::int64_t>(rng() % 50000), order++};  // ~4 keys per time
    q.push(k);
    ref.push_back(k);
  }
  std::sort(ref.begin(), ref.end());
  for (const EventKey& expected : ref) ASSERT_TRUE(same(q.pop(), expected));
  EXPECT_TRUE(q.empty());
  q.push(EventKey{-1, 0});  // after a clear-free drain, still exact below the old times
  EXPECT_EQ(q.pop().time_ps, -1);
}

TEST(EventOrder, SwitchesBetweenHeapAndRadixWithoutChangingTheOrder) {
  std::mt19937_64 rng(5);
  Checked<EventOrder> c;
  std::uint64_t order = 0;
  std::int64_t now = 0;
  bool was_radix = false;
  bool came_back = false;
  // Grow well past kToRadix, shrink below kToHeap, grow again: every pop checked.
  for (const int target : {10000, 100, 6000, 0}) {
    while (c.q.size() < static_cast<std::size_t>(target))
      c.push(now + static_cast<std::int64_t>(rng() % 3000), order++);
    while (c.q.size() > static_cast<std::size_t>(target)) {
      now = c.pop().time_ps;
      if (rng() % 3 == 0) c.push(now + static_cast<std::int64_t>(rng() % 3), order++);  // ties at now
      was_radix = was_radix || c.q.radix_mode();
      came_back = came_back || (was_radix && !c.q.radix_mode());
    }
  }
  EXPECT_TRUE(was_radix);
  EXPECT_TRUE(came_back);
  EXPECT_TRUE(c.q.empty());
}

// The kernel loop's take_top: the key stays held while its "event" pushes 0, 1 or 2 keys (the
// first replaces it), and every other access settles it: the same order as pop(), across the
// switches to the radix heap and back.
TEST(EventOrder, TakeTopHoldsTheKeyUntilThePushThatReplacesIt) {
  std::mt19937_64 rng(11);
  EventOrder q;
  std::vector<EventKey> ref;
  std::uint64_t order = 0;
  const auto push = [&](std::int64_t t) {
    q.push(EventKey{t, order});
    ref.push_back(EventKey{t, order++});
  };
  for (int i = 0; i < 2000; ++i) push(static_cast<std::int64_t>(rng() % 5000));
  bool was_radix = false;
  for (int step = 0; step < 60000 && !ref.empty(); ++step) {
    const auto it = std::min_element(ref.begin(), ref.end());
    const EventKey expected = *it;
    ref.erase(it);
    const EventKey got = q.take_top();
    ASSERT_TRUE(same(got, expected)) << "step " << step;
    // Grow to ~6000 keys (radix side) in the middle of the run, then shrink to nothing.
    const bool grow = step > 10000 && step < 20000;
    const std::uint64_t pushes = step > 40000 ? rng() % 2 : (grow ? 2 : rng() % 3);
    for (std::uint64_t p = 0; p < pushes; ++p) push(got.time_ps + static_cast<std::int64_t>(rng() % 3000));
    if (rng() % 5 == 0) {
      ASSERT_EQ(q.size(), ref.size());  // a look settles
    }
    q.settle();
    ASSERT_EQ(q.size(), ref.size());
    was_radix = was_radix || q.radix_mode();
  }
  EXPECT_TRUE(was_radix);
}

// Through the kernel, past the switch to the radix heap and back: events at equal times run in
// the order they were scheduled (stable), including those scheduled at the current time while
// it runs. Indices are given in scheduling order, so they must increase within each time.
struct Ran {
  std::int64_t time_ps;
  int index;
};
struct Recorder {
  Kernel* kernel;
  std::vector<Ran> ran;
  int next_index = 0;
};
struct Record {
  Recorder* r;
  int index;
  void operator()() const {
    r->ran.push_back({to_ps(r->kernel->now()), index});
    if (index % 7 == 0) r->kernel->at(r->kernel->now(), Record{r, r->next_index++});  // a tie at now
  }
};

TEST(EventOrder, KernelRunsManyEventsInTimeThenSchedulingOrder) {
  Kernel kernel;
  Recorder r{&kernel, {}, 0};
  std::mt19937_64 rng(9);
  for (int i = 0; i < 20000; ++i)
    kernel.at(at_ps(static_cast<std::int64_t>(rng() % 300)), Record{&r, r.next_index++});  // ~67 per time
  const RunResult result = kernel.run();
  ASSERT_EQ(result.status, RunStatus::Completed);
  ASSERT_EQ(r.ran.size(), static_cast<std::size_t>(r.next_index));
  for (std::size_t i = 1; i < r.ran.size(); ++i) {
    ASSERT_LE(r.ran[i - 1].time_ps, r.ran[i].time_ps);
    if (r.ran[i - 1].time_ps == r.ran[i].time_ps) {
      ASSERT_LT(r.ran[i - 1].index, r.ran[i].index) << "at " << i;
    }
  }
}

}  // namespace
}  // namespace ncp2::emu
