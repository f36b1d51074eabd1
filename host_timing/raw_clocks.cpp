#include "host_timing/raw_clocks.hpp"

#include <ctime>

namespace ncp2::timing {

std::uint64_t monotonic_raw_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace ncp2::timing
