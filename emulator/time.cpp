#include "emulator/time.hpp"

#include <cmath>
#include <fmt/format.h>

namespace ncp2::emu {

std::string format_duration(Duration d) {
  // Exact: the unit is chosen by magnitude and the decimals are the remaining picoseconds, so
  // the text parses back to the same value (configuration files round-trip).
  const std::int64_t ps = d.count();
  const std::int64_t mag = ps < 0 ? -ps : ps;
  struct Unit { std::int64_t scale; int digits; const char* name; };
  static constexpr Unit units[] = {{1'000'000'000'000, 12, "s"}, {1'000'000'000, 9, "ms"},
                                   {1'000'000, 6, "us"},         {1'000, 3, "ns"}};
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
  // ps = bytes * 1e12 / bw; long double keeps 64-bit precision for the products involved.
  const long double ps = static_cast<long double>(bytes) * 1e12L / static_cast<long double>(bytes_per_second);
  const long double rounded = std::nearbyint(ps);
  // Round up unless the value is an integer up to floating-point noise.
  const auto whole = static_cast<std::int64_t>(std::fabs(ps - rounded) < 1e-6L ? rounded : std::ceil(ps));
  return Duration{whole};
}

Duration cycles_at(std::int64_t cycles, double mhz) {
  const long double ps = static_cast<long double>(cycles) * 1e6L / static_cast<long double>(mhz);
  return Duration{static_cast<std::int64_t>(std::llround(ps))};
}

}  // namespace ncp2::emu
