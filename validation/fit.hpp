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
// A real node (issue 43): the software DSM's costs, and how long a message waits for the node's
// server while its program computes (the two share a core: pp.busy_handler_delay, and the same
// after a quiet stretch). `ncp2 calibrate --machine real` fits them all; the quiet stretch itself
// is read off the measurements (busy_quiet_after).
[[nodiscard]] std::vector<FitParameter> real_node_parameters();
// Costs a calibration compares but does not fit to. Two nodes asking each other at once: no
// parameter stands for it (the machine's own contention makes it), and that contention makes the
// model's response uneven, which the fit's steps cannot follow (they pulled the other costs off by
// up to 33 % on a synthetic machine). A single page miss after a quiet stretch: on a real node it
// also pays the wake-up of both sleeping servers (73 us against 40 us per page in a burst on this
// host, issue 43), which programs that fault in bursts rarely pay; the burst is fitted instead.
// Lock requests in a row to a node that computes (lock-burst): the host's scheduler makes their
// waits, as contention makes the crossed miss's — no parameter stands for how a request 100 us
// after the last one meets the holder's program (the server waits are fitted to single busy
// requests), so it is compared, to show what the model misses there.
[[nodiscard]] bool is_check_only(const std::string& operation);
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
