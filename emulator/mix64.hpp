#pragma once
// splitmix64's mixing function: a fixed, portable hash of 64 bits (std:: distributions differ
// between standard libraries), so that seeded sequences are the same on every machine. Used for
// the workloads' initial data, the scheduling experiments' traces and the emulated scheduler's
// draws (pp.busy_handler_prompt_share).
#include <cstdint>

namespace ncp2::emu {

constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

// A number in [0, 1) from a mixed value (its top 53 bits).
constexpr double unit_interval(std::uint64_t mixed) { return static_cast<double>(mixed >> 11U) * 0x1.0p-53; }

}  // namespace ncp2::emu
