#pragma once
// TSC frequency calibration against a reference clock (seed 001, §2.3):
//   f = (tsc2 - tsc1) / (t2 - t1),  error bounded by (2*t_get + t_d) / (t2 - t1).
// Each end is one counter read bracketed by two reference reads; of several tries the narrowest
// bracket is kept, and its width is t_get (the counter read happened somewhere inside it).
// t_d is the granularity of the reference and of the counter at both ends (locally there is no
// message delay; across nodes it would also hold the delay variation, mode - minimum).
#include <cstdint>
#include <functional>

namespace ncp2::timing {

struct Bracket {
  std::int64_t before_ns = 0;  // reference just before the counter read
  std::uint64_t ticks = 0;     // the counter
  std::int64_t after_ns = 0;   // reference just after
  [[nodiscard]] std::int64_t width_ns() const { return after_ns - before_ns; }
  [[nodiscard]] double mid_ns() const {
    return (static_cast<double>(before_ns) + static_cast<double>(after_ns)) / 2.0;
  }
};

struct CalibrationResult {
  double frequency_hz = 0;
  double interval_s = 0;  // t2 - t1
  double t_get_ns = 0;    // the wider of the two brackets
  double t_d_ns = 0;
  double error_bound_ppm = 0;  // (2*t_get + t_d) / (t2 - t1), in parts per million
};

// The arithmetic alone: frequency and bound from the two ends. `reference_resolution_ns` is the
// reference clock's granularity; one counter tick at each end is added to t_d as well.
// Throws std::invalid_argument when the ends are not in order.
[[nodiscard]] CalibrationResult frequency_from(const Bracket& first, const Bracket& last,
                                               double reference_resolution_ns);

struct CalibrationClocks {
  std::function<std::uint64_t()> ticks;        // the counter being calibrated
  std::function<std::int64_t()> reference_ns;  // the reference (CLOCK_MONOTONIC_RAW on the host)
  std::function<void(double seconds)> wait;    // lets the interval pass
  double reference_resolution_ns = 1;
};

// The narrowest of `tries` brackets.
[[nodiscard]] Bracket best_bracket(const CalibrationClocks& clocks, int tries);

// Brackets, waits `interval_s`, brackets again. `tries` >= 1.
[[nodiscard]] CalibrationResult calibrate(const CalibrationClocks& clocks, double interval_s, int tries = 16);

// The host TSC against clock_gettime(CLOCK_MONOTONIC_RAW), sleeping `interval_s`. Meaningful
// only where the TSC can be read (choose_clock).
[[nodiscard]] CalibrationResult calibrate_host_tsc(double interval_s, int tries = 16);

}  // namespace ncp2::timing
