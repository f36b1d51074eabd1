#include "tmk/host/shared_heap.hpp"

#include <algorithm>
#include <iterator>

namespace ncp2::tmk {

SharedHeap::SharedHeap(std::size_t bytes) : capacity_(bytes / kAlignment * kAlignment) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

std::optional<std::size_t> SharedHeap::allocate(std::size_t size) {
  const std::size_t rounded =
      std::max<std::size_t>(kAlignment, (size + kAlignment - 1) / kAlignment * kAlignment);
  if (rounded < size) return std::nullopt;  // overflow
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < rounded) continue;
    const std::size_t offset = it->first;
    const std::size_t rest = it->second - rounded;
    free_.erase(it);
    if (rest > 0) free_.emplace(offset + rounded, rest);
    used_.emplace(offset, rounded);
    in_use_ += rounded;
    return offset;
  }
  return std::nullopt;
}

bool SharedHeap::free(std::size_t offset) {
  const auto used = used_.find(offset);
  if (used == used_.end()) return false;
  std::size_t start = offset;
  std::size_t size = used->second;
  in_use_ -= size;
  used_.erase(used);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    const auto previous = std::prev(next);
    if (previous->first + previous->second == start) {
      start = previous->first;
      size += previous->second;
      free_.erase(previous);
    }
  }
  free_.emplace(start, size);
  return true;
}

std::size_t SharedHeap::largest_free() const {
  std::size_t largest = 0;
  for (const auto& [offset, size] : free_) largest = std::max(largest, size);
  return largest;
}

}  // namespace ncp2::tmk
