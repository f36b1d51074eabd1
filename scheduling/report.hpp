#pragma once
// The outputs of `ncp2 schedule`: the side-by-side text table and the JSON document
// ({"rows": [...], "bus": [...]}, docs/scheduling.md, "Output").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduling/experiment.hpp"

namespace ncp2::sched {

// Per set: one line per application with each policy's turnaround and improvement over the baseline,
// the mean/worst/best lines, then the bus utilization over time (served / capacity) per policy,
// averaged over the set's applications in tenths of each run.
std::string experiment_text(const Experiment& experiment, const std::vector<Policy>& policies);

nlohmann::json experiment_json(const Experiment& experiment);

// Bus utilization (served / capacity) of one series in `buckets` equal parts of its run.
std::vector<double> utilization_profile(const BusSeries& series, int buckets);

}  // namespace ncp2::sched
