#pragma once
// Fitting a machine's software and network costs to basic operation costs (issue 32): the one fit
// used for every preset, whether its targets are a paper's published costs (the 1994 presets) or
// costs measured on real processes (`ncp2 calibrate`). Never per application: the targets are the
// basic operations alone (run/basic_costs.hpp's experiments).
//
// The emulator is exact and, on an idle machine, each basic cost is nearly linear in the costs it
// is made of; so the fit is Gauss-Newton: the experiments' sensitivity to each free parameter by
// finite differences, then the non-negative least-squares step that brings the emulated costs to
// the targets (errors relative, a small pull toward the base values keeping parameters that no
// target sees where they were), six times.
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "dsm/config.hpp"
#include "run/basic_costs.hpp"

namespace ncp2::validation {

// One free parameter: configuration keys moved together, a duration (µs), or the inverse of a
// bandwidth (ns per byte).
struct FitParameter {
  std::string name;               // as printed: "message software cost"
  std::vector<std::string> keys;  // every key set to the parameter's value
  bool per_byte = false;          // the keys are bandwidths: the parameter is ns per byte
};

// The software and network costs of the treadmarks machine (no CP): what a software DSM on
// workstations is made of (`ncp2 calibrate` fits them all).
[[nodiscard]] std::vector<FitParameter> software_dsm_parameters();
// The costs the 1994 presets calibrate (configs/decstation-*-1994.toml, CALIBRATED); the others
// are the paper's own (SOURCED) or assumptions.
[[nodiscard]] std::vector<FitParameter> period_preset_parameters();

// What a configuration's basic costs are, by operation name (µs).
using CostModel = std::function<std::map<std::string, double>(const dsm::SystemConfig&)>;
// The raw timings on `nodes` nodes (run::measure_raw_basic_costs): what a program observes.
[[nodiscard]] CostModel raw_costs(int nodes);
// The papers' basic costs on 8 nodes (run::measure_basic_costs: twin and diffs less the trap).
[[nodiscard]] CostModel published_costs();

// A parameter's value in a configuration (µs, or ns per byte), and a configuration with it set.
[[nodiscard]] double parameter_value(const dsm::SystemConfig& config, const FitParameter& p);
void set_parameter(dsm::SystemConfig& config, const FitParameter& p, double value);

struct FitOutcome {
  dsm::SystemConfig config;                  // the base with the fitted values
  std::vector<double> values;                // per parameter
  std::map<std::string, double> reproduced;  // the fitted configuration's costs
  double worst_error = 0;                    // the largest |reproduced / target - 1| over the targets
};

// Fits `parameters` of `base` so that its costs (`model`) come as close to `targets` (µs by
// operation name) as the parameters allow. Targets the model does not make (lock-forwarded on 2
// nodes) are ignored.
[[nodiscard]] FitOutcome fit_costs(const dsm::SystemConfig& base, const CostModel& model,
                                   const std::map<std::string, double>& targets,
                                   std::span<const FitParameter> parameters);

}  // namespace ncp2::validation
