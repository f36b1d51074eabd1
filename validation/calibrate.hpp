#pragma once
// `ncp2 calibrate --machine real`: the basic operation costs measured on real processes
// (validation/basic_costs.c, built with ncp2-cc and run with `ncp2 run --machine real`), then the
// software and network costs of an emulated machine fitted to them (validation/fit.hpp), written
// as a preset whose fitted values say MEASURED, with the host, the date and their spread.
#include <map>
#include <string>
#include <vector>

#include "dsm/config.hpp"
#include "validation/fit.hpp"

namespace ncp2::validation {

struct CalibrateOptions {
  int nodes = 2;
  int rounds = 9;
  std::string hostfile;                  // empty: processes on this machine
  std::vector<std::string> mpirun_args;  // passed to `ncp2 run --mpirun-args`
  std::string work_dir;                  // where the program is built (a temporary directory)
};

// One basic cost as measured: the median of the rounds, and their smallest and largest.
struct MeasuredCost {
  std::string operation;
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  double p90_us = 0;  // 90th percentile, by nearest rank
  int rounds = 0;
};

// Builds the program and runs it on real processes. Throws std::runtime_error with what went
// wrong (no ncp2-cc, the build, mpirun, a failed run: its last lines).
[[nodiscard]] std::vector<MeasuredCost> measure_real_basic_costs(const CalibrateOptions& options);
// Parses the program's "basic-cost NAME MEDIAN MIN MAX P90 ROUNDS" lines (prefixed "[node 0] ").
[[nodiscard]] std::vector<MeasuredCost> parse_basic_costs(const std::string& output);

struct Calibration {
  std::vector<MeasuredCost> measured;
  FitOutcome fit;                 // to the medians
  std::vector<double> low, high;  // each parameter fitted to the rounds' minima and maxima
  std::vector<FitParameter> parameters;
  std::string host;
  std::string date;  // ISO 8601, UTC
  int nodes = 0;
  double quiet_after_us = 0;  // pp.busy_handler_quiet_after, read off the busy-request costs
};

// Where the busy-request-Nms costs (a page miss at a node that computes, N ms after its server last
// ran) split into two groups whose server waits differ by more than 2x: the geometric middle of
// the two spacings around the split, in µs; 0 when they do not split (one wait for all).
[[nodiscard]] double busy_quiet_after_us(const std::vector<MeasuredCost>& measured);

// The fit of a real node (the treadmarks machine, its server sharing the program's core:
// real_node_parameters) to `measured` on `nodes` nodes.
[[nodiscard]] Calibration fit_calibration(std::vector<MeasuredCost> measured, int nodes, std::string host,
                                          std::string date);

// The preset: the whole configuration, the fitted keys marked MEASURED (host, date, spread), a
// header with the measured costs beside what the preset reproduces. apply_toml_text reads it.
[[nodiscard]] std::string calibration_toml(const Calibration& c, const std::string& command_line);
// The same calibration for scripts (`ncp2 calibrate --json`, docs/validation.md): the command, host,
// date and nodes; every basic cost measured with its median, minimum, maximum, 90th percentile and
// rounds, what the preset reproduces of it and the error; the fitted parameters.
[[nodiscard]] std::string calibration_json(const Calibration& c, const std::string& command_line);

}  // namespace ncp2::validation
