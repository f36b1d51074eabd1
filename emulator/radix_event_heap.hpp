#pragma once
// The kernel's pending-event order: a radix heap on event time, exact on ties.
//
// Event times never go below the time of the last event run, which a radix heap exploits. Keys
// are bucketed relative to `last_` (the smallest time found by the last settle) by the highest
// 4-bit digit in which their time differs from it, and by their value of that digit: 16 levels of
// 16 buckets, the lower (level, digit) the earlier. A push is an xor, a bit scan and an append;
// settling takes the lowest non-empty bucket, makes its smallest time `last_`, and spreads it
// over lower levels, so a key moves a few times in its life (at most 16) and is compared only in
// those scans. Ties: bucket "now" holds the keys whose time equals `last_`, sorted by their
// order word (the kernel's pushes come in sequence order, so that is an append). A push below
// `last_` (the kernel does that after try_advance peeked at the top; tests do it freely) goes to
// a small 4-ary heap, `early_`, which is served first (its keys are below every bucketed one):
// the order is exactly that of a plain heap on (time, order).
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "emulator/event_heap.hpp"

namespace ncp2::emu {

class RadixEventHeap {
 public:
  using Key = EventKey;

  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }
  void reserve(std::size_t n) {
    early_.reserve(64);
    now_.reserve(64);
    for (auto& b : buckets_) b.reserve(n / 64);
  }
  void clear() {
    for (auto& b : buckets_) b.clear();
    now_.clear();
    now_head_ = 0;
    early_.clear();
    level_mask_.fill(0);
    levels_ = 0;
    last_ = 0;
    size_ = 0;
  }

  void push(const Key& k) {
    ++size_;
    const std::uint64_t t = time_word(k);
    if (t < last_) [[unlikely]] {
      early_.push(k);
      return;
    }
    if (t == last_) [[unlikely]] {
      push_now(k);
      return;
    }
    place(k, t);
  }

  // The smallest key (the heap must not be empty). Not const: it may redistribute a bucket.
  // Keys in `early_` are below last_, hence below every bucketed key.
  [[nodiscard]] const Key& top() {
    if (!early_.empty()) return early_.top();
    settle();
    return now_[now_head_];
  }

  // Removes and returns the smallest key (the heap must not be empty).
  Key pop() {
    --size_;
    if (!early_.empty()) return early_.pop();
    settle();
    return now_[now_head_++];
  }

 private:
  // Times are signed: flipping the sign bit keeps their order as unsigned numbers.
  static std::uint64_t time_word(const Key& k) {
    return static_cast<std::uint64_t>(k.time_ps) ^ (std::uint64_t{1} << 63);
  }

  // Bucket 0 stays sorted: an out-of-order push (never from the kernel) is inserted in place.
  void push_now(const Key& k) {
    if (now_head_ == now_.size() || !(k < now_.back())) {
      now_.push_back(k);
      return;
    }
    const auto first = now_.begin() + static_cast<std::ptrdiff_t>(now_head_);
    now_.insert(std::upper_bound(first, now_.end(), k), k);
  }

  static constexpr unsigned kDigitBits = 4;
  static constexpr unsigned kDigits = 1U << kDigitBits;
  static constexpr unsigned kLevels = 64 / kDigitBits;

  // Files a key whose time `t` differs from last_ (t > last_).
  void place(const Key& k, std::uint64_t t) {
    const unsigned level = (static_cast<unsigned>(std::bit_width(t ^ last_)) - 1) / kDigitBits;
    const auto digit = static_cast<unsigned>((t >> (level * kDigitBits)) & (kDigits - 1));
    buckets_[std::size_t{level} * kDigits + digit].push_back(k);
    level_mask_[level] |= static_cast<std::uint16_t>(1U << digit);
    levels_ |= static_cast<std::uint16_t>(1U << level);
  }

  // Makes "now" non-empty (some bucket must hold a key): the lowest non-empty bucket is spread
  // below, around its smallest time, which becomes last_.
  void settle() {
    if (now_head_ < now_.size()) return;
    now_.clear();
    now_head_ = 0;
    const auto level = static_cast<unsigned>(std::countr_zero(levels_));
    auto& mask = level_mask_[level];
    const auto digit = static_cast<unsigned>(std::countr_zero(mask));
    mask &= static_cast<std::uint16_t>(mask - 1);
    if (mask == 0) levels_ &= static_cast<std::uint16_t>(levels_ - 1);
    std::vector<Key>& from = buckets_[std::size_t{level} * kDigits + digit];
    std::uint64_t least = time_word(from.front());
    for (const Key& k : from) least = std::min(least, time_word(k));
    last_ = least;
    for (const Key& k : from) {
      const std::uint64_t t = time_word(k);
      if (t == least)
        now_.push_back(k);
      else
        place(k, t);
    }
    from.clear();
    // Keys of equal time arrive in bucket order, not necessarily in sequence order.
    if (now_.size() > 1 && !std::is_sorted(now_.begin(), now_.end())) std::sort(now_.begin(), now_.end());
  }

  std::array<std::vector<Key>, std::size_t{kLevels} * kDigits> buckets_;
  std::array<std::uint16_t, kLevels> level_mask_{};  // bit d: bucket (level, d) is not empty
  std::uint16_t levels_ = 0;                         // bit l: level_mask_[l] is not zero
  std::vector<Key> now_;                             // keys whose time is last_, sorted, from now_head_
  std::size_t now_head_ = 0;
  EventHeap early_;         // keys pushed below last_
  std::uint64_t last_ = 0;  // time word (sign bit flipped) the buckets are relative to
  std::size_t size_ = 0;
};

}  // namespace ncp2::emu
