#pragma once
// The order of the pending events, by (time, order word): a 4-ary heap while few events are
// pending (the common case: a heap of a few dozen keys is a handful of compares), a radix heap
// when many are (even at 1024 pending, a fifth faster at 65536: bench/event-speed). The switch
// moves every key, exactly, with hysteresis so that a size hovering at a threshold does not
// move them back and forth. Both give exactly the same order: the smallest key first.
#include <cstddef>

#include "emulator/event_heap.hpp"
#include "emulator/radix_event_heap.hpp"

namespace ncp2::emu {

class EventOrder {
 public:
  using Key = EventKey;
  // Measured (BM_EmptyEvents): at 1024 pending both are even, at 65536 the radix heap is faster.
  // Checked when the heap is full, so the switch happens at the first power of two >= kToRadix.
  static constexpr std::size_t kToRadix = 4096;
  static constexpr std::size_t kToHeap = 1024;

  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] std::size_t size() const { return large_ ? radix_.size() : heap_.size() - (held_ ? 1 : 0); }
  [[nodiscard]] bool radix_mode() const { return large_; }
  void reserve(std::size_t n) { heap_.reserve(n < kToRadix ? n : kToRadix); }  // kToRadix: a power of two
  void clear() {
    held_ = false;
    heap_.clear();
    radix_.clear();
    large_ = false;
  }

  // Inlined into every event's scheduling (an out-of-line call cost ~20 instructions more per
  // wake in BM_FiberWake); the radix side stays out of line.
  [[gnu::always_inline]] void push(const Key& k) {
    if (held_) {  // the running event's first push takes its key's place (see take_top)
      held_ = false;
      heap_.replace_top(k);
      return;
    }
    // The switch to the radix heap is checked only when the heap must grow (one branch less).
    if (large_ || heap_.full()) [[unlikely]] {
      push_slow(k);
      return;
    }
    heap_.push(k);
  }
  // The smallest key; the order must not be empty.
  [[nodiscard]] const Key& top() {
    if (large_) [[unlikely]]
      return radix_.top();
    settle();
    return heap_.top();
  }
  Key pop() {
    if (large_) [[unlikely]]
      return pop_large();
    settle();
    return heap_.pop();
  }
  // The kernel loop's pop: returns the smallest key, which (4-ary heap side) stays in place,
  // held, while its event runs. The event's first push replaces it (one sift-down instead of a
  // sift-up now and a sift-down at the pop); settle() removes it if no push did. Every other
  // access settles first, so the order seen from outside is exactly that of pop().
  Key take_top() {
    if (large_) [[unlikely]]
      return pop_large();
    settle();
    held_ = true;
    return heap_.top();
  }
  void settle() {
    if (held_) {
      held_ = false;
      (void)heap_.pop();
    }
  }

 private:
  [[gnu::noinline]] void push_slow(const Key& k) {
    if (!large_ && heap_.size() >= kToRadix) to_radix();
    if (large_)
      radix_.push(k);
    else
      heap_.push(k);
  }
  [[gnu::noinline]] Key pop_large() {
    const Key k = radix_.pop();
    if (radix_.size() < kToHeap) [[unlikely]]
      to_heap();
    return k;
  }
  [[gnu::noinline]] void to_radix() {
    settle();
    radix_.clear();
    while (!heap_.empty()) radix_.push(heap_.pop());
    large_ = true;
  }
  [[gnu::noinline]] void to_heap() {
    heap_.clear();
    while (!radix_.empty()) heap_.push(radix_.pop());  // ascending: each push is one compare
    large_ = false;
  }

  EventHeap heap_;
  RadixEventHeap radix_;
  bool large_ = false;
  bool held_ = false;  // the heap's top is the running event's key (take_top)
};

}  // namespace ncp2::emu
