#include "emulator/time.hpp"

#include <fmt/format.h>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ncp2::emu {

namespace {
__extension__ using Uint128 = unsigned __int128;  // GCC/Clang extension, exact 128-bit products
}

std::string format_duration(Duration d) {
  // Exact: the unit is chosen by magnitude and the decimals are the remaining picoseconds, so
  // the text parses back to the same value (configuration files round-trip).
  const std::int64_t ps = d.count();
  const std::int64_t mag = ps < 0 ? -ps : ps;
  struct Unit {
    std::int64_t scale;
    int digits;
    const char* name;
  };
  static constexpr std::array<Unit, 4> units = {
      {{1'000'000'000'000, 12, "s"}, {1'000'000'000, 9, "ms"}, {1'000'000, 6, "us"}, {1'000, 3, "ns"}}};
  for (const auto& u : units) {
    if (mag >= u.scale) {
      const std::int64_t whole = mag / u.scale;
      std::int64_t frac = mag % u.scale;
      const char* sign = ps < 0 ? "-" : "";
      if (frac == 0) return fmt::format("{}{} {}", sign, whole, u.name);
      int digits = u.digits;
      while (frac % 10 == 0) {
        frac /= 10;
        --digits;
      }
      return fmt::format("{}{}.{:0{}} {}", sign, whole, frac, digits, u.name);
    }
  }
  return ps == 0 ? std::string{"0 s"} : fmt::format("{} ps", ps);
}

Duration transfer_time(std::int64_t bytes, double bytes_per_second) {
  if (bytes <= 0) return Duration{0};
  // Bandwidths are whole bytes per second in practice (1.28 Gbit/s = 160e6 B/s): then the time is
  // an exact integer ceiling division, computed in 128 bits (hot path: several per message).
  constexpr double kMaxExact = 9.0e18;
  if (bytes_per_second >= 1.0 && bytes_per_second < kMaxExact &&
      bytes_per_second == static_cast<double>(static_cast<std::int64_t>(bytes_per_second))) {
    constexpr std::uint64_t kPsPerSecond = 1'000'000'000'000ULL;
    const auto bw64 = static_cast<std::uint64_t>(static_cast<std::int64_t>(bytes_per_second));
    if (static_cast<std::uint64_t>(bytes) <= std::numeric_limits<std::uint64_t>::max() / kPsPerSecond) {
      // Up to 18 MB the numerator fits in 64 bits: one hardware division gives quotient and
      // remainder (the double-to-128-bit conversion below is a slow library call).
      const std::uint64_t num = static_cast<std::uint64_t>(bytes) * kPsPerSecond;
      return Duration{static_cast<std::int64_t>(num / bw64 + (num % bw64 != 0 ? 1 : 0))};
    }
    // ceil(num / bw) without a 128-bit division: a double estimate, off by at most a few units,
    // corrected exactly with integer multiplications.
    const auto bw = static_cast<Uint128>(bw64);
    const Uint128 num = static_cast<Uint128>(bytes) * 1'000'000'000'000ULL;
    const double estimate = static_cast<double>(bytes) * 1e12 / bytes_per_second;
    auto q = static_cast<Uint128>(estimate > 2.0 ? estimate - 2.0 : 0.0);
    while (q * bw < num) ++q;                  // now q >= ceil
    while (q > 0 && (q - 1) * bw >= num) --q;  // and q - 1 < ceil: q is the ceiling
    return Duration{static_cast<std::int64_t>(q)};
  }
  const long double ps = static_cast<long double>(bytes) * 1e12L / static_cast<long double>(bytes_per_second);
  return Duration{static_cast<std::int64_t>(std::ceil(ps - 1e-9L))};
}

Duration cycles_at(std::int64_t cycles, double mhz) {
  const long double ps = static_cast<long double>(cycles) * 1e6L / static_cast<long double>(mhz);
  return Duration{static_cast<std::int64_t>(std::llround(ps))};
}

}  // namespace ncp2::emu
