#include "perf_counters/series.hpp"

#include <utility>

#include <fmt/format.h>

namespace ncp2::counters {

std::optional<double> scale(std::uint64_t raw, std::uint64_t enabled, std::uint64_t running) {
  if (running == enabled) return static_cast<double>(raw);
  if (running == 0) return std::nullopt;
  return static_cast<double>(raw) * (static_cast<double>(enabled) / static_cast<double>(running));
}

std::optional<double> scaled_delta(std::uint64_t raw_before, std::uint64_t raw_after,
                                   std::uint64_t enabled_before, std::uint64_t enabled_after,
                                   std::uint64_t running_before, std::uint64_t running_after) {
  // Counters only grow; a reading that went backwards would be a kernel bug, so it counts as 0.
  const std::uint64_t raw = raw_after >= raw_before ? raw_after - raw_before : 0;
  const std::uint64_t enabled = enabled_after >= enabled_before ? enabled_after - enabled_before : 0;
  const std::uint64_t running = running_after >= running_before ? running_after - running_before : 0;
  return scale(raw, enabled, running);
}

bool repeats(const RawSample& previous, const RawSample& next) {
  return previous.enabled_ns == next.enabled_ns && previous.running_ns == next.running_ns &&
         previous.values == next.values;
}

// A stretch of identical readings (the process was off the CPU, or its counts are in children
// that have not exited yet) is kept as its two ends: the plot then shows a flat, zero-rate stretch
// of the right length instead of one long period averaging over it. Only the readings inside the
// stretch are dropped.
bool SampleSeries::add(RawSample sample) {
  // Before the first kept sample the reference is the all-zero reading at exec.
  const RawSample zero{.wall = {},
                       .enabled_ns = 0,
                       .running_ns = 0,
                       .values = std::vector<std::uint64_t>(sample.values.size(), 0),
                       .late = false};
  if (repeats(samples_.empty() ? zero : samples_.back(), sample)) {
    if (pending_) ++dropped_;  // inside the stretch
    pending_ = std::move(sample);
    return false;
  }
  keep_pending();
  if (sample.late) ++late_;
  samples_.push_back(std::move(sample));
  return true;
}

void SampleSeries::keep_pending() {
  if (!pending_) return;
  if (pending_->late) ++late_;
  samples_.push_back(std::move(*pending_));
  pending_.reset();
}

void SampleSeries::add_final(RawSample sample) {
  // The end of an idle stretch that lasts until the exit reading adds nothing the exit does not.
  if (pending_ && repeats(*pending_, sample)) {
    pending_.reset();
    ++dropped_;
  }
  keep_pending();
  if (sample.late) ++late_;
  samples_.push_back(std::move(sample));
}

std::string too_short_to_plot(const CounterRun& run) {
  if (run.samples.size() >= kSamplesToPlot) return {};
  return fmt::format(
      "only {} sample(s) kept: too few to show a rate over time (the command ran {:.3f} s with a period of "
      "{} ms"
      "{}); use a shorter --period or a longer command",
      run.samples.size(), run.wall_seconds, static_cast<double>(run.period.count()) / 1e6,
      run.samples_dropped > 0
          ? fmt::format(", and {} reading(s) repeated the one before", run.samples_dropped)
          : std::string());
}

std::vector<SampleRow> sample_rows(const CounterRun& run) {
  std::vector<SampleRow> rows;
  rows.reserve(run.samples.size());
  const RawSample* previous = nullptr;
  for (const auto& s : run.samples) {
    SampleRow row;
    const double wall_before = previous ? static_cast<double>(previous->wall.count()) : 0.0;
    row.t_s = static_cast<double>(s.wall.count()) / 1e9;
    row.dt_ms = (static_cast<double>(s.wall.count()) - wall_before) / 1e6;
    row.late = s.late || (previous && previous->late);
    row.enabled_ns = s.enabled_ns;
    row.running_ns = s.running_ns;
    row.points.reserve(s.values.size());
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      EventPoint p;
      p.total = scale(s.values[i], s.enabled_ns, s.running_ns);
      p.delta = previous ? scaled_delta(previous->values[i], s.values[i], previous->enabled_ns, s.enabled_ns,
                                        previous->running_ns, s.running_ns)
                         : p.total;
      row.points.push_back(p);
    }
    rows.push_back(std::move(row));
    previous = &s;
  }
  return rows;
}

std::optional<double> rate_per_second(const EventPoint& point, double dt_ms) {
  if (!point.delta || dt_ms <= 0) return std::nullopt;
  return *point.delta / (dt_ms / 1e3);
}

std::vector<std::optional<double>> event_totals(const CounterRun& run) {
  std::vector<std::optional<double>> out;
  out.reserve(run.events.size());
  for (const auto& e : run.events) {
    if (!e.available || e.group_index < 0 || run.samples.empty()) {
      out.emplace_back();
      continue;
    }
    const RawSample& last = run.samples.back();
    const auto i = static_cast<std::size_t>(e.group_index);
    out.push_back(i < last.values.size() ? scale(last.values[i], last.enabled_ns, last.running_ns)
                                         : std::nullopt);
  }
  return out;
}

void mark_uncounted_events(CounterRun& run) {
  if (run.samples.empty()) return;
  const RawSample& last = run.samples.back();
  if (!(last.enabled_ns > 0 && last.running_ns == 0)) return;
  for (auto& e : run.events) {
    if (!e.available) continue;
    e.available = false;
    e.reason =
        "opened, but never counted: the PMU never scheduled the group (running time 0; too many "
        "hardware events at once, or counters held by the hypervisor)";
  }
}

}  // namespace ncp2::counters
