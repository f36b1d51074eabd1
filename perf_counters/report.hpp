#pragma once
// What `ncp2 counters` prints: JSON (--json) and text (the paper's parser columns per event).
#include <string>

#include <nlohmann/json.hpp>

#include "perf_counters/model.hpp"

namespace ncp2::counters {

// {command, period_ms, events [{name, available, reason, note, source, encoding, unit}],
//  samples [{t_s, dt_ms, late, values {event: delta}}] (counted events only),
//  totals {event: value | null}, exit_code, exit_description, wall_seconds, samples_dropped,
//  samples_late, perf_event_paranoid, inherit}. An event not counted is never given a number.
nlohmann::json counters_json(const CounterRun& run);

// The events (available or why not), the per-period rows unless `summary_only` (t, event,
// delta, total, dt_ms, rate; late rows start with '#', as the paper's parser marked them),
// the totals, and how the command ended.
std::string counters_text(const CounterRun& run, bool summary_only);

// The event table alone (for --list-events and the no-counter error).
std::string events_text(const std::vector<EventStatus>& events);

}  // namespace ncp2::counters
