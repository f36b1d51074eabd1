#pragma once
// A 4-ary min-heap of event keys ordered by (time, order word): the kernel's event order while
// few events are pending (EventOrder). The order word is unique (the kernel puts its insertion
// sequence in its high bits), so it decides ties. Tried and measured slower here (bench
// BM_EmptyEvents/8 and /1024, BM_FiberWake): 128-bit keys with branch-free selection of the
// smallest child, cache-line-aligned groups of children.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ncp2::emu {

struct EventKey {
  std::int64_t time_ps;
  std::uint64_t order;
  bool operator<(const EventKey& o) const {
    return time_ps != o.time_ps ? time_ps < o.time_ps : order < o.order;
  }
};

class EventHeap {
 public:
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  [[nodiscard]] const EventKey& top() const { return heap_.front(); }
  void reserve(std::size_t n) { heap_.reserve(n); }
  void clear() { heap_.clear(); }

  [[nodiscard]] bool full() const { return heap_.size() == heap_.capacity(); }
  // Inlined into every push: the common case (a small heap with room) is a few instructions,
  // and an out-of-line call cost as much again in register saves.
  [[gnu::always_inline]] void push(EventKey k) {
    if (full()) [[unlikely]]
      heap_.reserve(heap_.empty() ? 64 : 2 * heap_.size());
    heap_.push_back(k);
    sift_up(heap_.size() - 1);
  }

  // Replaces the smallest key by `k`, which must not be smaller (the heap must not be empty): one
  // sift-down, where a pop and a push would be a sift-down and a sift-up.
  void replace_top(EventKey k) { sift_down_from_root(k); }

  // Removes and returns the smallest key; the heap must not be empty.
  EventKey pop() {
    const EventKey top = heap_.front();
    const EventKey last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down_from_root(last);
    return top;
  }

 private:
  static constexpr std::size_t kArity = 4;

  void sift_up(std::size_t i) {
    const EventKey moving = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!(moving < heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = moving;
  }

  // Places `moving` (the former last element) starting at the root.
  void sift_down_from_root(const EventKey& moving) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (heap_[c] < heap_[best]) best = c;
      if (!(heap_[best] < moving)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = moving;
  }

  std::vector<EventKey> heap_;
};

}  // namespace ncp2::emu
