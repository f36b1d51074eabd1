// TSC calibration: the error-bound arithmetic by hand, and recovery of a fake counter's known
// frequency within the stated bound.
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <gtest/gtest.h>

#include "host_timing/calibration.hpp"

namespace ncp2::timing {
namespace {

TEST(Calibration, ArithmeticOfTheBound) {
  // 1 GHz counter over exactly 10 s; brackets 2 us and 1 us wide (t_get = the wider, 2 us).
  Bracket first{0, 1'000'000, 2'000};                            // mid 1 us; counter read at 1 us
  Bracket last{10'000'000'000, 10'001'000'500, 10'000'001'000};  // mid 10 s + 0.5 us
  const CalibrationResult r = frequency_from(first, last, 1.0);
  const double dt_ns = 10'000'000'500.0 - 1'000.0;
  EXPECT_NEAR(r.frequency_hz, (10'001'000'500.0 - 1'000'000.0) / (dt_ns * 1e-9), 1e-3);
  EXPECT_DOUBLE_EQ(r.t_get_ns, 2'000);
  EXPECT_NEAR(r.t_d_ns, 2 * 1.0 + 2 * 1e9 / r.frequency_hz,
              1e-9);  // reference + counter granularity, both ends
  EXPECT_NEAR(r.error_bound_ppm, (2 * 2'000 + r.t_d_ns) / dt_ns * 1e6, 1e-12);
  EXPECT_NEAR(r.interval_s, dt_ns * 1e-9, 1e-15);
  // The papers' example: t_get 2 us... (2*2 + 8)/10 s ~ 1.2 ppm; here (4 us + 4 ns)/10 s ~ 0.4 ppm.
  EXPECT_NEAR(r.error_bound_ppm, 0.4004, 1e-3);
}

TEST(Calibration, RefusesEndsOutOfOrder) {
  const Bracket a{100, 1000, 200};
  EXPECT_THROW((void)frequency_from(a, a, 1), std::invalid_argument);
  const Bracket earlier{0, 2000, 10};
  EXPECT_THROW((void)frequency_from(a, earlier, 1), std::invalid_argument);
}

// A simulated host: true time in ns (double), a counter at a known frequency, reads that cost
// time with deterministic jitter (an occasional long one, like an interrupt).
struct FakeHost {
  double t_ns = 1e6;
  double counter_hz;
  double reference_offset_ns = 12345.0;
  std::uint64_t rng = 88172645463325252ULL;
  std::uint64_t reads = 0;

  explicit FakeHost(double hz) : counter_hz(hz) {}
  double jitter() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    const double cost = 20.0 + static_cast<double>(rng % 30);  // 20..49 ns
    return (++reads % 7 == 0) ? cost + 3000 : cost;            // every 7th read: a 3 us disturbance
  }
  std::uint64_t ticks() {
    t_ns += jitter() / 2;
    const auto v = static_cast<std::uint64_t>(std::floor(t_ns * counter_hz / 1e9));
    t_ns += jitter() / 2;
    return v;
  }
  std::int64_t reference() {
    t_ns += jitter() / 2;
    const auto v = static_cast<std::int64_t>(std::floor(t_ns + reference_offset_ns));
    t_ns += jitter() / 2;
    return v;
  }
};

TEST(Calibration, RecoversAKnownFrequencyWithinItsBound) {
  for (const double hz : {2'596'132'000.0, 14'318'180.0, 1e9}) {
    for (const double interval : {0.001, 0.05, 1.0}) {
      FakeHost host(hz);
      CalibrationClocks clocks;
      clocks.ticks = [&] { return host.ticks(); };
      clocks.reference_ns = [&] { return host.reference(); };
      clocks.wait = [&](double s) { host.t_ns += s * 1e9; };
      clocks.reference_resolution_ns = 1;
      const CalibrationResult r = calibrate(clocks, interval, 8);
      const double error_ppm = std::abs(r.frequency_hz - hz) / hz * 1e6;
      EXPECT_LE(error_ppm, r.error_bound_ppm) << hz << " Hz over " << interval << " s";
      EXPECT_GT(r.error_bound_ppm, 0);
      // The narrowest of 8 brackets avoids the 3 us disturbances: t_get stays small.
      EXPECT_LT(r.t_get_ns, 200);
    }
  }
}

TEST(Calibration, LongerIntervalsTightenTheBound) {
  FakeHost host(1e9);
  CalibrationClocks clocks;
  clocks.ticks = [&] { return host.ticks(); };
  clocks.reference_ns = [&] { return host.reference(); };
  clocks.wait = [&](double s) { host.t_ns += s * 1e9; };
  const double short_bound = calibrate(clocks, 0.01).error_bound_ppm;
  const double long_bound = calibrate(clocks, 10.0).error_bound_ppm;
  EXPECT_LT(long_bound * 100, short_bound * 1.5);  // ~1000x longer: at least ~100x tighter
  EXPECT_LT(long_bound, 0.1);                      // 10 s: well under the papers' 1 ppm
}

}  // namespace
}  // namespace ncp2::timing
