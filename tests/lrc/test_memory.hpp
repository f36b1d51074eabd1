#pragma once
// A node's copy of the shared pages for the core's tests: kPages pages of kPage bytes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lrc/ports.hpp"

namespace ncp2::lrc::testing {

inline constexpr std::size_t kPage = 4096;

template <std::uint32_t Pages>
class Memory final : public PageMemory {
 public:
  std::span<std::byte> page(PageId page) override {
    return std::span(bytes).subspan(raw(page) * kPage, kPage);
  }
  std::vector<std::byte> bytes = std::vector<std::byte>(kPage * Pages);
};

}  // namespace ncp2::lrc::testing
