#pragma once
// The pending-event set of the kernel: a 4-ary min-heap ordered by (time, insertion sequence).
// Events carry their callable inline (no allocation per event): the callable must be trivially
// copyable and small, which lambdas capturing a few pointers and integers are.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ncp2::emu {

inline constexpr std::size_t kEventInlineBytes = 24;

struct Event {
  std::int64_t time_ps = 0;
  std::uint64_t seq = 0;
  void (*invoke)(const Event&) = nullptr;
  alignas(8) std::byte storage[kEventInlineBytes]{};

  template <class F>
  static Event make(std::int64_t time_ps, std::uint64_t seq, F&& fn) {
    using Fn = std::decay_t<F>;
    static_assert(sizeof(Fn) <= kEventInlineBytes,
                  "event callable too large: capture pointers/ids, not objects");
    static_assert(std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>,
                  "event callable must be trivially copyable (capture pointers and integers)");
    static_assert(alignof(Fn) <= 8);
    Event e;
    e.time_ps = time_ps;
    e.seq = seq;
    ::new (static_cast<void*>(e.storage)) Fn(std::forward<F>(fn));
    e.invoke = [](const Event& self) {
      // The callable may schedule new events (moving the heap), so run a copy, not the slot.
      alignas(8) std::byte copy[kEventInlineBytes];
      std::memcpy(copy, self.storage, sizeof(Fn));
      (*std::launder(reinterpret_cast<Fn*>(copy)))();
    };
    return e;
  }

  friend bool operator<(const Event& a, const Event& b) {
    return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.seq < b.seq;
  }
};

class EventQueue {
 public:
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  [[nodiscard]] const Event& top() const { return heap_.front(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

  void push(const Event& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }

  // Removes the earliest event and returns it by value.
  Event pop() {
    Event out = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down_from_root(last);
    return out;
  }

  void clear() { heap_.clear(); }

 private:
  static constexpr std::size_t kArity = 4;

  void sift_up(std::size_t i) {
    Event moving = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!(moving < heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = moving;
  }

  // Places `moving` (the former last element) starting at the root.
  void sift_down_from_root(const Event& moving) {
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

  std::vector<Event> heap_;
};

}  // namespace ncp2::emu
