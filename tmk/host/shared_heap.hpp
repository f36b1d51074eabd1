#pragma once
// The allocator behind Tmk_malloc / Tmk_free: one shared heap for the whole run (the same
// address is the same datum on every node), first fit over a free list ordered by address,
// neighbours merged on free. Deterministic: the same calls give the same addresses.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace ncp2::tmk {

class SharedHeap {
 public:
  static constexpr std::size_t kAlignment = 16;
  explicit SharedHeap(std::size_t bytes);

  // The offset of `size` bytes, or nothing when no free block is large enough.
  [[nodiscard]] std::optional<std::size_t> allocate(std::size_t size);
  // Frees the block at `offset`; false when no block starts there (not allocated, or freed).
  bool free(std::size_t offset);

  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  [[nodiscard]] std::size_t in_use() const { return in_use_; }
  [[nodiscard]] std::size_t largest_free() const;

 private:
  std::size_t capacity_;
  std::size_t in_use_ = 0;
  std::map<std::size_t, std::size_t> free_;  // offset -> size
  std::map<std::size_t, std::size_t> used_;  // offset -> size
};

}  // namespace ncp2::tmk
