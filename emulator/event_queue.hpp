#pragma once
// The pending-event set of the kernel, ordered by (time, insertion sequence) (EventOrder).
// Events carry their callable inline (no allocation per event): the callable must be trivially
// copyable and small, which lambdas capturing a few pointers and integers are.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "emulator/event_order.hpp"

namespace ncp2::emu {

inline constexpr std::size_t kEventInlineBytes = 24;

struct Event {
  std::int64_t time_ps = 0;
  std::uint64_t seq = 0;
  void (*invoke)(const Event&) = nullptr;
  alignas(8) std::array<std::byte, kEventInlineBytes> storage{};

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
    ::new (static_cast<void*>(e.storage.data())) Fn(std::forward<F>(fn));
    e.invoke = &invoke_stored<Fn>;
    return e;
  }
  // The kernel invokes a callable where it lies in its slot (pop_due, payload, release): the
  // slot is released only after the call, and the pool never moves a payload, so the callable
  // may schedule new events freely while it runs.
  template <class Fn>
  static void invoke_stored(const Event& self) {
    (*std::launder(reinterpret_cast<const Fn*>(self.storage.data())))();
  }

  friend bool operator<(const Event& a, const Event& b) {
    return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.seq < b.seq;
  }
};

// Order entries are 16-byte keys (EventOrder); the callables live in a slot pool, so sifting moves little
// memory. The order word packs the insertion sequence (high 40 bits, unique, so it decides ties)
// with the payload's slot (low 24 bits). The pool grows by chunks and never moves a payload, so
// the kernel runs an event's callable where it lies (pop_due / payload / release) even when the
// callable schedules more events: no copy of the event, whose bytes were often stored a few
// instructions earlier (a copy with wider loads would stall on store forwarding).
class EventQueue {
 public:
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kMaxSlots = std::uint64_t{1} << kSlotBits;
  static constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << (64 - kSlotBits);

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  // Not const: the radix heap (many events pending) settles its lowest bucket to find the top.
  [[nodiscard]] std::int64_t top_time() { return heap_.top().time_ps; }
  void reserve(std::size_t n) {
    heap_.reserve(n);
    while (slots_allocated_ < n) add_chunk();
  }

  void push(const Event& e) {
    const std::uint32_t slot = take_slot(e.seq);
    Event& p = writable_payload(slot);
    p.invoke = e.invoke;
    std::memcpy(p.storage.data(), e.storage.data(), kEventInlineBytes);
    insert_key(e.time_ps, e.seq, slot);
  }

  // Builds the event's callable directly in its slot (the kernel's hot path).
  template <class F>
  void emplace(std::int64_t time_ps, std::uint64_t seq, F&& fn) {
    using Fn = std::decay_t<F>;
    static_assert(sizeof(Fn) <= kEventInlineBytes,
                  "event callable too large: capture pointers/ids, not objects");
    static_assert(std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>,
                  "event callable must be trivially copyable (capture pointers and integers)");
    const std::uint32_t slot = take_slot(seq);
    Event& p = writable_payload(slot);
    ::new (static_cast<void*>(p.storage.data())) Fn(std::forward<F>(fn));
    p.invoke = &Event::invoke_stored<Fn>;
    insert_key(time_ps, seq, slot);
  }

  // The earliest event, removed from the order; its payload stays in its slot until release().
  struct Due {
    std::int64_t time_ps;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  Due pop_due() {
    const EventKey top = heap_.pop();
    return {top.time_ps, top.order >> kSlotBits, static_cast<std::uint32_t>(top.order & (kMaxSlots - 1))};
  }
  // The kernel loop's pop_due: the key may stay in the order while the event runs (EventOrder::
  // take_top); call finish_due() after the event, or settle() before anything else looks.
  Due take_due() {
    const EventKey top = heap_.take_top();
    return {top.time_ps, top.order >> kSlotBits, static_cast<std::uint32_t>(top.order & (kMaxSlots - 1))};
  }
  void finish_due(std::uint32_t slot) {
    heap_.settle();
    release(slot);
  }
  void settle() { heap_.settle(); }
  // The stored callable of a slot (call it as `e.invoke(e)`); stays in place until release().
  [[nodiscard]] const Event& payload(std::uint32_t slot) const {
    return (*chunks_[slot >> kChunkBits])[slot & (kChunkSize - 1)];
  }
  void release(std::uint32_t slot) { free_.push_back(slot); }

  // Removes the earliest event and returns it by value.
  Event pop() {
    const Due due = pop_due();
    Event out = payload(due.slot);
    out.time_ps = due.time_ps;
    out.seq = due.seq;
    release(due.slot);
    return out;
  }

  void clear() {
    heap_.clear();
    free_.clear();
    slots_used_ = 0;
  }

 private:
  static constexpr int kChunkBits = 10;
  static constexpr std::uint32_t kChunkSize = std::uint32_t{1} << kChunkBits;

  [[nodiscard]] Event& writable_payload(std::uint32_t slot) {
    return (*chunks_[slot >> kChunkBits])[slot & (kChunkSize - 1)];
  }
  void add_chunk() {
    chunks_.push_back(std::make_unique<std::array<Event, kChunkSize>>());
    slots_allocated_ += kChunkSize;
  }

  std::uint32_t take_slot(std::uint64_t seq) {
    if (seq >= kMaxSequence) throw std::length_error("event sequence number overflow (2^40 events)");
    if (!free_.empty()) {
      const std::uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    if (slots_used_ >= kMaxSlots) throw std::length_error("more than 2^24 pending events");
    if (slots_used_ == slots_allocated_) add_chunk();
    return static_cast<std::uint32_t>(slots_used_++);
  }

  // Inlined into every emplace: the common case (a small heap with room) is a few instructions,
  // and an out-of-line call cost as much again in register saves.
  [[gnu::always_inline]] void insert_key(std::int64_t time_ps, std::uint64_t seq, std::uint32_t slot) {
    heap_.push(EventKey{time_ps, (seq << kSlotBits) | slot});
  }

  EventOrder heap_;
  std::vector<std::unique_ptr<std::array<Event, kChunkSize>>> chunks_;  // payload slots; a chunk never moves
  std::size_t slots_allocated_ = 0;
  std::size_t slots_used_ = 0;
  std::vector<std::uint32_t> free_;
};

}  // namespace ncp2::emu
