#pragma once
// The host's load on a real node's costs (issue 43, fifth session). On an oversubscribed host (4
// nodes' programs and agents on 2 cores) every protocol operation of a program took 2.2-2.4x its
// 2-node time (word count: a diff fetch 23 -> 55 us, a lock 31 -> 68 us, a hand-off 11 -> 26 us),
// while its computation took no longer: the nodes' programs and agents wait for one another's
// cores at every hand-off and message. A calibration that times each operation beside idle nodes
// never sees it. So on 3 nodes or more the basic costs are measured twice
// (validation/basic_costs.c): beside idle nodes, which the fit splits into the model's costs, and
// beside nodes that load the host as a program's do. From these, first one factor is read: every
// software cost of the node (messages, interrupts, hand-offs, the trap, per-byte and diff costs;
// not the server's waits for a computing program's core, fitted on their own) times the factor
// reproduces the loaded costs as nearly as one factor can. Then, from there, those software costs
// are fitted to the loaded costs (the idle costs' fit, fit_costs): the load does not scale every
// cost alike (a barrier hardly slowed, a write fault 4x), and one factor on an idle split that
// came out unlike the loaded one over-predicted every 4-node program by 32-108 % (issue 43, sixth
// session: the factor alone left a mean |log(preset / measured)| of 0.42-0.67 on three
// calibrations, the fit 0.13-0.29). The model's computation is timed on this host and is not
// scaled.
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dsm/config.hpp"
#include "validation/fit.hpp"

namespace ncp2::validation {

// Whether the load factor scales `p`: every software cost, not the server's waits for a core.
[[nodiscard]] bool scaled_by_load(const FitParameter& p);
// `config` with each parameter of `parameters` the load scales multiplied by `factor`.
[[nodiscard]] dsm::SystemConfig with_load_factor(dsm::SystemConfig config,
                                                 std::span<const FitParameter> parameters, double factor);
// The basic costs the factor is read off: every one the emulator makes but the busy requests and
// lock-burst (the scheduler's, fitted and compared on their own).
[[nodiscard]] bool reads_the_load(const std::string& operation);

struct LoadFit {
  double factor = 1;
  std::map<std::string, double> reproduced;  // the loaded costs the scaled configuration makes (µs)
  double mean_log_error = 0;                 // mean |log(reproduced / measured)| over those read
};
// The factor, between 1 and 8, whose scaled configuration's costs (`model`) are nearest `loaded`
// (µs by operation): the least mean |log(emulated / measured)| (an operation twice too slow and one
// twice too fast weigh alike, and one far off does not outweigh the rest), by golden-section
// search on log(factor). Factor 1 and no costs when `loaded` has none of the operations read.
[[nodiscard]] LoadFit fit_load_factor(const dsm::SystemConfig& config,
                                      std::span<const FitParameter> parameters, const CostModel& model,
                                      const std::map<std::string, double>& loaded);

// The software costs the load scales, fitted to the loaded costs read (those reads_the_load names
// and the fit does not leave to comparison, is_check_only) from `scaled`, the idle split times the
// factor: each parameter starts there, and one no loaded cost sees stays there.
struct LoadedFit {
  dsm::SystemConfig config;                  // `scaled` with the fitted values
  std::vector<double> values;                // per parameter (those the load does not scale: as in `scaled`)
  std::map<std::string, double> reproduced;  // the loaded costs the fitted configuration makes (µs)
  double mean_log_error = 0;                 // mean |log(reproduced / measured)| over those read
};
[[nodiscard]] LoadedFit fit_loaded_costs(const dsm::SystemConfig& scaled,
                                         std::span<const FitParameter> parameters, const CostModel& model,
                                         const std::map<std::string, double>& loaded);
// The loaded costs `config` makes (µs), and their mean |log(made / measured)| over those read (-1:
// none read).
[[nodiscard]] std::pair<double, std::map<std::string, double>> loaded_reproduction(
    const dsm::SystemConfig& config, const CostModel& model, const std::map<std::string, double>& loaded);

}  // namespace ncp2::validation
