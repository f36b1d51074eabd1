// The pure parts of the clock synchronization of real runs: the RunClock's software shift, the
// NodeClock of an estimate and its bound away from the burst, the reference offset arithmetic.
// No MPI here (the collective parts run under mpirun: clock_sync_mpi_test.cpp).
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "real_machine/clock_sync_mpi.hpp"

namespace ncp2::real {
namespace {

RunClock::Options monotonic() {
  RunClock::Options o;
  o.force_monotonic_raw = true;
  return o;
}

// local' = local x (1 + d) + offset, with local read at some moment between two base reads.
void expect_shift(const RunClock& base, double offset_ns, double drift_ppm) {
  const RunClock shifted = base.shifted(offset_ns, drift_ppm);
  const double factor = 1 + drift_ppm * 1e-6;
  const auto before = static_cast<double>(base.now_ns());
  const auto s = static_cast<double>(shifted.now_ns());
  const auto after = static_cast<double>(base.now_ns());
  EXPECT_GE(s, before * factor + offset_ns - 2);  // 1 ns of truncation at each read
  EXPECT_LE(s, after * factor + offset_ns + 2);
  EXPECT_NEAR(shifted.nominal_rate(), base.nominal_rate() * factor, 1e-12);
}

TEST(RunClock, AClockThatAdoptsAnothersBaseReadsTheSameTime) {
  const RunClock first(monotonic());
  RunClock later(monotonic());  // another epoch: it counts from its own start
  ASSERT_TRUE(later.adopt(first.base()));
  const std::int64_t a = first.now_ns();
  const std::int64_t b = later.now_ns();
  const std::int64_t c = first.now_ns();
  EXPECT_GE(b, a);
  EXPECT_LE(b, c);
  // Another counter, or a clock shifted in software (tests' injected offsets), is not taken.
  RunClock::Base other = first.base();
  other.tsc = 1;
  EXPECT_FALSE(later.adopt(other));
  RunClock shifted = first.shifted(37'000, 0);
  EXPECT_FALSE(shifted.adopt(first.base()));
}

TEST(RunClock, ShiftedClockIsTheBaseShiftedAndSkewed) {
  const RunClock raw(monotonic());
  EXPECT_FALSE(raw.uses_tsc());
  EXPECT_FALSE(raw.fallback_reason().empty());  // the reason is always said
  expect_shift(raw, 37'000, 50);
  expect_shift(raw, -74'000, -100);
  const RunClock best;  // the TSC where it is invariant (this VM), else the fallback with a reason
  EXPECT_EQ(best.uses_tsc(), best.fallback_reason().empty()) << best.describe();
  expect_shift(best, 37'000, 50);
}

TEST(RunClock, NowIsMonotonic) {
  const RunClock clock;
  std::int64_t last = clock.now_ns();
  for (int i = 0; i < 10'000; ++i) {
    const std::int64_t t = clock.now_ns();
    ASSERT_GE(t, last);
    last = t;
  }
}

TEST(NodeClock, FromAnEstimateWithDrift) {
  timing::SyncEstimate e;
  e.has_drift = true;
  e.offset_ns = 1'000;
  e.offset_bound_ns = 40;
  e.ref_local_ns = 5e8;
  e.drift_ppm = 20;
  e.drift_bound_ppm = 0.5;
  e.first.kept = 150;
  e.second.kept = 160;
  e.second.discarded = 40;
  e.second.rtt.min = 80;
  const NodeClock c = node_clock_from(3, e, 200);
  EXPECT_EQ(c.node, 3);
  EXPECT_EQ(c.kept, 310U);
  EXPECT_EQ(c.discarded, 40U);
  EXPECT_EQ(c.rtt_min_ns, 80);
  EXPECT_DOUBLE_EQ(c.master_time_ns(5e8), 5e8 - 1'000);
  EXPECT_DOUBLE_EQ(c.master_time_ns(6e8), 6e8 - (1'000 + 20e-6 * 1e8));  // the same as the estimate's
  EXPECT_DOUBLE_EQ(c.master_time_ns(6e8), e.master_time_ns(6e8));
  EXPECT_DOUBLE_EQ(c.bound_at(5e8), 40);
  EXPECT_DOUBLE_EQ(c.bound_at(4e8), 40 + 0.5e-6 * 1e8);
}

TEST(NodeClock, WithoutASecondBurstTheBoundGrowsWithThePriorDrift) {
  timing::SyncEstimate e;
  e.offset_ns = -7;
  e.offset_bound_ns = 100;
  e.ref_local_ns = 1e6;
  const NodeClock c = node_clock_from(1, e, 200);
  EXPECT_FALSE(c.has_drift);
  EXPECT_EQ(c.drift_ppm, 0);
  EXPECT_DOUBLE_EQ(c.bound_at(1e6 + 1e6), 100 + 200);  // 200 ppm over 1 ms
}

TEST(ReferenceOffset, CarriesTheMastersClockToTheNodesMoment) {
  const ReferenceSample master{
      .local_ns = 1'000, .reference_ns = 5'000, .gap_ns = 20, .rate = 1 + 50e-6, .rate_bound_ppm = 1};
  const ReferenceSample node{.local_ns = 9'000, .reference_ns = 105'000, .gap_ns = 10};
  const ReferenceOffset r = reference_offset(2, master, node);
  EXPECT_EQ(r.node, 2);
  EXPECT_DOUBLE_EQ(r.local_ns, 9'000);
  EXPECT_DOUBLE_EQ(r.true_offset_ns, 9'000 - (1'000 + 100'000 * (1 + 50e-6)));
  EXPECT_DOUBLE_EQ(r.uncertainty_ns, 10 + 5 + 100'000 * 1e-6);
}

TEST(ReferenceOffset, FindsAKnownShiftOnThisHost) {
  for (const bool tsc : {false, true}) {
    const RunClock base = tsc ? RunClock{} : RunClock{monotonic()};
    const RunClock shifted = base.shifted(37'000, 0);
    const ReferenceSample a = take_reference_sample(base);
    const ReferenceSample b = take_reference_sample(shifted);
    EXPECT_GE(a.gap_ns, 0);
    const ReferenceOffset r = reference_offset(1, a, b);
    EXPECT_NEAR(r.true_offset_ns, 37'000, r.uncertainty_ns + 2) << base.describe();
  }
}

}  // namespace
}  // namespace ncp2::real
