#pragma once
// JSON views of workloads and run outcomes (nlohmann/json): `ncp2 workloads --json` and
// `ncp2 run --stats-json`. Key reference: docs/writing-workloads.md#statistics.
#include <string>

#include <nlohmann/json.hpp>

#include "run/runner.hpp"
#include "run/workload_names.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

nlohmann::json to_json(const ParamValue& value);
nlohmann::json params_json(const Params& params);  // {"n": 4096, ...}
// {"name", "description", "parameters": [{"name","type","default","description",("min","max","choices")}],
//  "presets": {preset: {param: value}}}
nlohmann::json workload_json(const Workload& workload);
nlohmann::json workloads_json();  // the list of every registered workload

// The statistics of a run: "workload", "parameters", "seed", "machine", "nodes", "status",
// "diagnosis", "verified", "verification", "virtual_time_ps" (timed region),
// "total_virtual_time_ps", "events", "network" {"messages","bytes"}, "totals" {counters},
// "messages_by_purpose" {purpose: count}, "per_node" [{"node", counters, "exit_time_ps",
// "messages_by_purpose"}]. Each counter of "totals" is the sum over "per_node", except
// "barriers": the number of barrier episodes, counted once (each node's "barriers" equals it).
nlohmann::json stats_json(const RunOutcome& outcome);

// Writes `text` to `path` atomically: to path + ".tmp", then renamed over `path`. Throws
// std::runtime_error naming the file when it cannot.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ncp2::run
