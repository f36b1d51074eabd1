// Counter arithmetic without the kernel: scaling of multiplexed counts, repeated samples, rows.
#include <gtest/gtest.h>

#include "perf_counters/series.hpp"

namespace ncp2::counters {
namespace {

EventStatus counted(const std::string& name, int group_index) {
  EventStatus e;
  e.name = name;
  e.available = true;
  e.group_index = group_index;
  return e;
}

EventStatus uncounted(const std::string& name, const std::string& reason) {
  EventStatus e;
  e.name = name;
  e.reason = reason;
  return e;
}

RawSample sample(std::int64_t wall_ms, std::uint64_t enabled, std::uint64_t running,
                 std::vector<std::uint64_t> values) {
  return RawSample{.wall = std::chrono::milliseconds(wall_ms),
                   .enabled_ns = enabled,
                   .running_ns = running,
                   .values = std::move(values),
                   .late = false};
}

TEST(CounterScaling, FullyRunningCountIsTheRawValue) { EXPECT_EQ(scale(1234, 500, 500), 1234.0); }

TEST(CounterScaling, MultiplexedCountIsScaledByEnabledOverRunning) {
  // On the PMU a quarter of the time it was enabled: 4x the raw count.
  EXPECT_DOUBLE_EQ(*scale(1000, 400, 100), 4000.0);
  EXPECT_DOUBLE_EQ(*scale(300, 3, 2), 450.0);
}

TEST(CounterScaling, NeverRunningWhileEnabledIsUnknownNotZero) {
  EXPECT_FALSE(scale(0, 1000, 0).has_value());
}

TEST(CounterScaling, NeverEnabledIsATrueZero) { EXPECT_EQ(scale(0, 0, 0), 0.0); }

TEST(CounterScaling, DeltaUsesThePeriodsOwnRatio) {
  // Period 1: fully on the PMU (100 counts in 10 ns). Period 2: 10 ns enabled, 5 ns running,
  // 60 raw counts -> 120. The ratio of the totals (20/15) would give 80 instead.
  EXPECT_DOUBLE_EQ(*scaled_delta(100, 160, 10, 20, 10, 15), 120.0);
  // Off the PMU for the whole period: unknown.
  EXPECT_FALSE(scaled_delta(100, 100, 10, 20, 10, 10).has_value());
  // The process did not run: nothing happened, a true 0.
  EXPECT_EQ(scaled_delta(100, 100, 10, 10, 10, 10), 0.0);
}

TEST(SampleSeries, AStretchOfRepeatedSamplesKeepsItsTwoEnds) {
  SampleSeries series;
  EXPECT_FALSE(series.add(sample(1, 0, 0, {0, 0})));    // nothing ran yet: repeats the zero reading
  EXPECT_TRUE(series.add(sample(2, 50, 50, {7, 3})));   // keeps the end of the idle start, then this
  EXPECT_FALSE(series.add(sample(3, 50, 50, {7, 3})));  // not scheduled in between
  EXPECT_FALSE(series.add(sample(4, 50, 50, {7, 3})));
  EXPECT_FALSE(series.add(sample(5, 50, 50, {7, 3})));
  EXPECT_TRUE(series.add(sample(6, 60, 60, {7, 3})));  // time ran, values did not: kept
  EXPECT_TRUE(series.add(sample(7, 60, 60, {8, 3})));
  EXPECT_EQ(series.dropped(), 2u);  // the readings at 3 and 4 ms, inside the stretch
  std::vector<std::int64_t> kept_ms;
  for (const auto& s : series.samples())
    kept_ms.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(s.wall).count());
  EXPECT_EQ(kept_ms, (std::vector<std::int64_t>{1, 2, 5, 6, 7}));
  // The reading at exit is kept even when it repeats: it marks the end of the run; the stretch
  // before it needs no end of its own.
  EXPECT_FALSE(series.add(sample(8, 60, 60, {8, 3})));
  series.add_final(sample(9, 60, 60, {8, 3}));
  EXPECT_EQ(series.samples().size(), 6u);
  EXPECT_EQ(series.samples().back().wall, std::chrono::milliseconds(9));
  EXPECT_EQ(series.dropped(), 3u);
}

TEST(SampleSeries, AnIdleStretchEndsWithItsLastReadingBeforeTheExit) {
  SampleSeries series;
  EXPECT_TRUE(series.add(sample(1, 10, 10, {5})));
  EXPECT_FALSE(series.add(sample(2, 10, 10, {5})));
  EXPECT_FALSE(series.add(sample(3, 10, 10, {5})));
  series.add_final(sample(4, 20, 20, {9}));  // the child's counts arrived at its exit
  ASSERT_EQ(series.samples().size(), 3u);
  EXPECT_EQ(series.samples()[1].wall, std::chrono::milliseconds(3));
  EXPECT_EQ(series.dropped(), 1u);
}

TEST(SampleRows, DeltasTotalsAndTimesFollowThePapersColumns) {
  CounterRun run;
  run.events = {counted("a", 0), counted("b", 1)};
  run.samples = {sample(100, 100, 100, {10, 1}), sample(250, 200, 100, {30, 1})};
  const auto rows = sample_rows(run);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].t_s, 0.1);
  EXPECT_DOUBLE_EQ(rows[0].dt_ms, 100.0);
  EXPECT_EQ(rows[0].points[0].delta, 10.0);  // from zero at t = 0
  EXPECT_EQ(rows[0].points[0].total, 10.0);
  EXPECT_DOUBLE_EQ(rows[1].dt_ms, 150.0);
  // Second period: enabled 100 ns, running 0 -> not counted in it; total scaled by 200/100.
  EXPECT_FALSE(rows[1].points[0].delta.has_value());
  EXPECT_DOUBLE_EQ(*rows[1].points[0].total, 60.0);
  EXPECT_FALSE(rate_per_second(rows[1].points[0], rows[1].dt_ms).has_value());
  EXPECT_DOUBLE_EQ(*rate_per_second(rows[0].points[0], rows[0].dt_ms), 100.0);  // 10 in 0.1 s
  const auto totals = event_totals(run);
  EXPECT_DOUBLE_EQ(*totals[0], 60.0);
  EXPECT_DOUBLE_EQ(*totals[1], 2.0);
}

TEST(SampleRows, ARowIsLateWhenEitherOfItsReadsWas) {
  // A late read shortens the next period's dt as much as it lengthens its own: both rates are
  // uncertain.
  CounterRun run;
  run.events = {counted("a", 0)};
  run.samples = {sample(10, 10, 10, {1}), sample(25, 20, 20, {2}), sample(30, 30, 30, {3}),
                 sample(40, 40, 40, {4})};
  run.samples[1].late = true;
  const auto rows = sample_rows(run);
  EXPECT_FALSE(rows[0].late);
  EXPECT_TRUE(rows[1].late);
  EXPECT_TRUE(rows[2].late);
  EXPECT_FALSE(rows[3].late);
}

TEST(SampleRows, UnavailableEventsHaveNoTotal) {
  CounterRun run;
  run.events = {uncounted("instructions", "not supported"), counted("task-clock", 0)};
  run.samples = {sample(10, 5, 5, {5})};
  const auto totals = event_totals(run);
  EXPECT_FALSE(totals[0].has_value());
  EXPECT_EQ(totals[1], 5.0);
}

TEST(SampleRows, AGroupThatNeverRanIsMarkedUncounted) {
  CounterRun run;
  run.events = {counted("cycles", 0)};
  run.samples = {sample(10, 1000, 0, {0})};
  mark_uncounted_events(run);
  EXPECT_FALSE(run.events[0].available);
  EXPECT_NE(run.events[0].reason.find("never counted"), std::string::npos);
  EXPECT_FALSE(event_totals(run)[0].has_value());
}

}  // namespace
}  // namespace ncp2::counters
