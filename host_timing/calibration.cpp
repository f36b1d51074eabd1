#include "host_timing/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <stdexcept>
#include <thread>

#include "host_timing/tick_clock.hpp"

namespace ncp2::timing {

CalibrationResult frequency_from(const Bracket& first, const Bracket& last, double reference_resolution_ns) {
  const double dt_ns = last.mid_ns() - first.mid_ns();
  if (!(dt_ns > 0) || last.ticks <= first.ticks)
    throw std::invalid_argument("calibration: the second reading is not after the first");
  CalibrationResult r;
  const auto dticks = static_cast<double>(last.ticks - first.ticks);
  r.frequency_hz = dticks / (dt_ns * 1e-9);
  r.interval_s = dt_ns * 1e-9;
  r.t_get_ns = static_cast<double>(std::max(first.width_ns(), last.width_ns()));
  const double tick_ns = 1e9 / r.frequency_hz;
  r.t_d_ns = 2 * reference_resolution_ns + 2 * tick_ns;
  r.error_bound_ppm = (2 * r.t_get_ns + r.t_d_ns) / dt_ns * 1e6;
  return r;
}

Bracket best_bracket(const CalibrationClocks& clocks, int tries) {
  Bracket best;
  bool have = false;
  for (int i = 0; i < std::max(tries, 1); ++i) {
    Bracket b;
    b.before_ns = clocks.reference_ns();
    b.ticks = clocks.ticks();
    b.after_ns = clocks.reference_ns();
    if (!have || b.width_ns() < best.width_ns()) best = b;
    have = true;
  }
  return best;
}

CalibrationResult calibrate(const CalibrationClocks& clocks, double interval_s, int tries) {
  const Bracket first = best_bracket(clocks, tries);
  clocks.wait(interval_s);
  const Bracket last = best_bracket(clocks, tries);
  return frequency_from(first, last, clocks.reference_resolution_ns);
}

CalibrationResult calibrate_host_tsc(double interval_s, int tries) {
  CalibrationClocks c;
  c.ticks = [] { return read_tsc(); };
  c.reference_ns = [] { return static_cast<std::int64_t>(monotonic_raw_ns()); };
  c.wait = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  timespec res{};
  if (clock_getres(CLOCK_MONOTONIC_RAW, &res) == 0)
    c.reference_resolution_ns =
        std::max(1.0, static_cast<double>(res.tv_sec) * 1e9 + static_cast<double>(res.tv_nsec));
  return calibrate(c, interval_s, tries);
}

}  // namespace ncp2::timing
