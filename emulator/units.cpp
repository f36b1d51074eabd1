// Values with units in configurations: durations, bandwidths.
#include "emulator/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "emulator/config_error.hpp"

namespace ncp2::emu {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

namespace {

// Splits "12.5 us" into (12.5, "us"); nullopt when there is no leading number.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  text = trim(text);
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == 'e' || text[i] == 'E' || text[i] == '+' || text[i] == '-')) {
    // 'e' belongs to the number only when followed by a digit or sign ("1e3"), not to "elapsed".
    if ((text[i] == 'e' || text[i] == 'E') &&
        (i + 1 >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                                   text[i + 1] == '-' || text[i + 1] == '+')))
      break;
    ++i;
  }
  if (i == 0) return std::nullopt;
  double value = 0;
  const auto* first = text.data();
  auto [ptr, ec] = std::from_chars(first, first + i, value);
  if (ec != std::errc{} || ptr != first + i) return std::nullopt;
  return std::pair{value, trim(text.substr(i))};
}

}  // namespace

Duration parse_duration(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) throw ConfigError(fmt::format("'{}' is not a duration (write e.g. \"4 us\")", text));
  auto [value, unit] = *parsed;
  if (value < 0) throw ConfigError(fmt::format("duration '{}' is negative", text));
  double scale = 0;
  if (unit == "ps" || (unit.empty() && value == 0))  // a bare 0 needs no unit
    scale = 1;
  else if (unit == "ns")
    scale = 1e3;
  else if (unit == "us" || unit == "µs")
    scale = 1e6;
  else if (unit == "ms")
    scale = 1e9;
  else if (unit == "s")
    scale = 1e12;
  else if (unit.empty())
    throw ConfigError(fmt::format("duration '{}' needs a unit: ps, ns, us, ms or s", text));
  else
    throw ConfigError(fmt::format("unknown time unit '{}' in '{}' (ps, ns, us, ms, s)", unit, text));
  const double ps = value * scale;
  if (ps > 9.2e18) throw ConfigError(fmt::format("duration '{}' is too large", text));
  return Duration{static_cast<std::int64_t>(std::llround(ps))};
}

double parse_bandwidth(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) throw ConfigError(fmt::format("'{}' is not a bandwidth (write e.g. \"160 MB/s\")", text));
  auto [value, unit] = *parsed;
  struct U {
    std::string_view name;
    double bytes_per_s;
  };
  static constexpr std::array<U, 16> units = {{{"B/s", 1},
                                               {"kB/s", 1e3},
                                               {"KB/s", 1e3},
                                               {"MB/s", 1e6},
                                               {"GB/s", 1e9},
                                               {"KiB/s", 1024.0},
                                               {"MiB/s", 1048576.0},
                                               {"GiB/s", 1073741824.0},
                                               {"bit/s", 1 / 8.0},
                                               {"kbit/s", 1e3 / 8},
                                               {"Mbit/s", 1e6 / 8},
                                               {"Gbit/s", 1e9 / 8},
                                               {"Mb/s", 1e6 / 8},
                                               {"Gb/s", 1e9 / 8},
                                               {"Mbps", 1e6 / 8},
                                               {"Gbps", 1e9 / 8}}};
  for (const auto& u : units)
    if (unit == u.name) return value * u.bytes_per_s;
  if (unit.empty()) throw ConfigError(fmt::format("bandwidth '{}' needs a unit, e.g. MB/s or Gbit/s", text));
  throw ConfigError(
      fmt::format("unknown bandwidth unit '{}' in '{}' (B/s, kB/s, MB/s, GB/s, "
                  "MiB/s, bit/s, Mbit/s, Gbit/s)",
                  unit, text));
}

std::string format_bandwidth(double bps) {
  if (bps >= 1e9 && std::fmod(bps, 1e6) == 0 && bps / 1e9 == std::floor(bps / 1e9))
    return fmt::format("{} GB/s", bps / 1e9);
  if (bps >= 1e6) return fmt::format("{:.10g} MB/s", bps / 1e6);
  if (bps >= 1e3) return fmt::format("{:.10g} kB/s", bps / 1e3);
  return fmt::format("{:.10g} B/s", bps);
}

}  // namespace ncp2::emu
