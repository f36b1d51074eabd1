#pragma once
// Virtual time of the emulated machine: integer picoseconds, exact and global.
// std::chrono gives us strong types for free: a Duration cannot be confused with a
// TimePoint, and neither with a plain integer.
#include <chrono>
#include <cstdint>
#include <string>

namespace ncp2::emu {

using Duration = std::chrono::duration<std::int64_t, std::pico>;

// The clock of the emulated machine. Not a real clock: there is no now(); the Kernel owns time.
struct VirtualClock {
  using rep = std::int64_t;
  using period = std::pico;
  using duration = Duration;
  using time_point = std::chrono::time_point<VirtualClock, Duration>;
  static constexpr bool is_steady = true;
};

using TimePoint = VirtualClock::time_point;

constexpr TimePoint kTimeZero{Duration{0}};

constexpr Duration picoseconds(std::int64_t v) { return Duration{v}; }
constexpr Duration nanoseconds(std::int64_t v) { return Duration{v * 1'000}; }
constexpr Duration microseconds(std::int64_t v) { return Duration{v * 1'000'000}; }
constexpr Duration milliseconds(std::int64_t v) { return Duration{v * 1'000'000'000}; }

constexpr std::int64_t to_ps(Duration d) { return d.count(); }
constexpr std::int64_t to_ps(TimePoint t) { return t.time_since_epoch().count(); }
constexpr TimePoint at_ps(std::int64_t ps) { return TimePoint{Duration{ps}}; }

// Human-readable rendering with a unit chosen by magnitude ("1.25 us", "3 ns", "0 s").
std::string format_duration(Duration d);
inline std::string format_time(TimePoint t) { return format_duration(t.time_since_epoch()); }

// Time to move `bytes` at `bytes_per_second`, rounded up to a whole picosecond so that a
// transfer never takes less than the physics allows. Exact for the default configurations.
Duration transfer_time(std::int64_t bytes, double bytes_per_second);

// transfer_time with its last answer remembered: a bus or a network sees the same sizes at the
// same bandwidth over and over (message headers, pages), and the division is the expensive part.
// Exact: transfer_time is a pure function.
class TransferTimeMemo {
 public:
  Duration operator()(std::int64_t bytes, double bytes_per_second) {
    if (bytes != bytes_ || bytes_per_second != bandwidth_) [[unlikely]] {
      bytes_ = bytes;
      bandwidth_ = bytes_per_second;
      time_ = transfer_time(bytes, bytes_per_second);
    }
    return time_;
  }

 private:
  std::int64_t bytes_ = 0;
  double bandwidth_ = 0.0;
  Duration time_{0};  // transfer_time(0, x) is 0
};

// Duration of `cycles` cycles of a clock running at `mhz`, rounded to the nearest picosecond.
Duration cycles_at(std::int64_t cycles, double mhz);

namespace literals {
constexpr Duration operator""_ps(unsigned long long v) { return picoseconds(static_cast<std::int64_t>(v)); }
constexpr Duration operator""_ns(unsigned long long v) { return nanoseconds(static_cast<std::int64_t>(v)); }
constexpr Duration operator""_us(unsigned long long v) { return microseconds(static_cast<std::int64_t>(v)); }
constexpr Duration operator""_ms(unsigned long long v) { return milliseconds(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace ncp2::emu
