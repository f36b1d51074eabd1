#pragma once
// A node's page-sized host buffers (twins), named by index and shared with a
// count. A twin made at a page's first write in an interval is also the end contents of the
// page's previous interval's deferred diff, whose own twin holds its original contents
// (twins_and_diffs.cpp); a buffer goes back to the free list when its last holder lets go, and
// is reused without allocating.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ncp2::lrc {

class PageBuffers {
 public:
  static constexpr std::uint32_t kNone = 0xffff'ffffU;

  // A buffer of `size` bytes (contents unspecified), with one holder.
  std::uint32_t acquire(std::size_t size) {
    std::uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<std::uint32_t>(buffers_.size());
      buffers_.emplace_back();
      refs_.push_back(0);
    }
    if (buffers_[id].size() != size) buffers_[id].resize(size);
    refs_[id] = 1;
    return id;
  }
  void retain(std::uint32_t id) { ++refs_[id]; }
  void release(std::uint32_t id) {
    if (--refs_[id] == 0) free_.push_back(id);
  }
  // Valid until the buffer is freed (acquiring others does not move it).
  [[nodiscard]] std::span<std::byte> bytes(std::uint32_t id) { return buffers_[id]; }
  [[nodiscard]] std::uint32_t holders(std::uint32_t id) const { return refs_[id]; }
  [[nodiscard]] std::size_t free_count() const { return free_.size(); }

  // Gives the memory of the free buffers beyond the `keep` most recently freed back to the host
  // (after a garbage collection: a burst of writes does not pin its peak memory for the run).
  void trim(std::size_t keep) {
    for (std::size_t i = 0; i + keep < free_.size(); ++i) buffers_[free_[i]] = {};
  }

 private:
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint32_t> free_;  // indices of unheld buffers, reused last freed first
};

}  // namespace ncp2::lrc
