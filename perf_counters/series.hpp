#pragma once
// The arithmetic of counter samples, apart from the kernel: scaling of multiplexed counts,
// dropping repeated samples, and the per-period rows (the paper's parser columns: t, delta,
// total, dt_ms) with rates.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perf_counters/model.hpp"

namespace ncp2::counters {

// The count an event would have had if it had been on the PMU all the time it was enabled:
// raw * enabled / running. Nothing when it was enabled but never running (not counted: unknown,
// not 0); the raw value when it was never enabled (the process never ran: a true 0).
std::optional<double> scale(std::uint64_t raw, std::uint64_t enabled, std::uint64_t running);

// The count of one period, from two readings: the raw difference scaled by that period's own
// enabled/running ratio (the ratio of the totals would smear multiplexing across periods).
std::optional<double> scaled_delta(std::uint64_t raw_before, std::uint64_t raw_after,
                                   std::uint64_t enabled_before, std::uint64_t enabled_after,
                                   std::uint64_t running_before, std::uint64_t running_after);

// Same times and values as the previous kept sample: the process was not scheduled in between,
// or all its work since was done by children that have not exited (an inherited counter adds a
// child's counts to its parent's only when the child exits).
bool repeats(const RawSample& previous, const RawSample& next);

// The samples of a run as they are taken. Starts from the implicit all-zero reading before exec.
class SampleSeries {
 public:
  // Keeps the sample unless it repeats the last kept one (then it is held back: the end of a
  // stretch of repeats is kept when the stretch ends); returns whether it was kept now.
  bool add(RawSample sample);
  // The reading after the process exited: always kept, so that the rows reach the end of the run.
  void add_final(RawSample sample);

  [[nodiscard]] const std::vector<RawSample>& samples() const { return samples_; }
  [[nodiscard]] std::vector<RawSample> take() { return std::move(samples_); }
  [[nodiscard]] std::uint64_t dropped() const { return dropped_; }
  [[nodiscard]] std::uint64_t late() const { return late_; }

 private:
  void keep_pending();

  std::vector<RawSample> samples_;
  std::optional<RawSample> pending_;  // the last of the current stretch of repeats
  std::uint64_t dropped_ = 0;
  std::uint64_t late_ = 0;
};

struct EventPoint {
  std::optional<double> delta;  // count in this period (scaled); nothing if not counted in it
  std::optional<double> total;  // count since exec (scaled); nothing if not counted
};

struct SampleRow {
  double t_s = 0;     // wall time since the command started
  double dt_ms = 0;   // wall time since the previous kept sample
  bool late = false;  // either end of the period was read late: its dt, hence its rate, is uncertain
  std::uint64_t enabled_ns = 0;
  std::uint64_t running_ns = 0;
  std::vector<EventPoint> points;  // one per group member (EventStatus::group_index)
};

// One row per kept sample; deltas from the previous kept sample (the first from zero at t = 0).
std::vector<SampleRow> sample_rows(const CounterRun& run);

// Per second of wall time; for the clock events (unit "ns") divide by 1e9 for CPUs.
std::optional<double> rate_per_second(const EventPoint& point, double dt_ms);

// Each requested event's total (in CounterRun::events order); nothing for an event not counted.
std::vector<std::optional<double>> event_totals(const CounterRun& run);

// The fewest kept samples that draw a rate over time (two periods).
inline constexpr std::size_t kSamplesToPlot = 3;
// When the run kept fewer than kSamplesToPlot samples: why, and what to do ("" otherwise).
std::string too_short_to_plot(const CounterRun& run);

// After the run: an event that was opened but whose group never got onto the PMU (enabled > 0,
// running 0) was not counted: mark it unavailable with the reason.
void mark_uncounted_events(CounterRun& run);

}  // namespace ncp2::counters
