#pragma once
// The two raw reads every host clock here is built on: a bare RDTSC and
// clock_gettime(CLOCK_MONOTONIC_RAW). Apart from tick_clock.hpp so that the time sources can use
// them without depending on the project's clock choice (which depends on the time sources).
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define NCP2_TIMING_X86 1
#else
#define NCP2_TIMING_X86 0
#endif

namespace ncp2::timing {

// clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds: the kernel's clock without NTP slewing.
[[nodiscard]] std::uint64_t monotonic_raw_ns() noexcept;

// A bare RDTSC (0 where there is none).
[[nodiscard]] inline std::uint64_t read_tsc() noexcept {
#if NCP2_TIMING_X86
  return __rdtsc();
#else
  return 0;
#endif
}

}  // namespace ncp2::timing
