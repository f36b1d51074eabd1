#pragma once
// `ncp2 sweep`'s options turned into a sweep (sweep/grid.hpp), every list, value and point checked
// before anything runs, with the checks of `ncp2 run` itself: each --set value is applied to the
// configuration as `ncp2 run --set` would (unknown key, unit, range: the key, the value and the
// allowed range named), each point's configuration validated and its run session built (workload,
// parameters, preset, a program's path).
#include <optional>
#include <string>
#include <vector>

#include "cli/time_model_options.hpp"
#include "sweep/grid.hpp"

namespace ncp2::cli {

struct SweepRequest {
  std::string target;  // a workload, or a program's path as given
  std::vector<std::string> program_args;
  std::string nodes;                    // "1,2,4"
  std::optional<std::string> machines;  // "ncp2,treadmarks"; none: the configuration's machine
  std::vector<std::string> sets;        // KEY=V1,V2,...
  std::string config_file;
  std::vector<std::string> params;
  std::string preset;
  std::string seed;  // empty: ncp2 run's default
  TimeModelOptions time_model;
};

// Throws sweep::GridError with the message for the user (exit 2).
[[nodiscard]] sweep::SweepSpec build_sweep_spec(const SweepRequest& request);

// Whether `path` holds a program built with ncp2-cc: it carries the runtime's channel (the
// variable naming its file descriptor), stripped or not.
[[nodiscard]] bool built_with_ncp2_cc(const std::string& path);

}  // namespace ncp2::cli
