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
#include "validation/load_factor.hpp"

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
  std::vector<double> rounds_us;  // each round's time, where the program printed them (busy requests)
};

// Builds the program and runs it on real processes, the nodes that time nothing idle or, `loaded`,
// loading the host (validation/load_factor.hpp). Throws std::runtime_error with what went wrong
// (no ncp2-cc, the build, mpirun, a failed run: its last lines).
[[nodiscard]] std::vector<MeasuredCost> measure_real_basic_costs(const CalibrateOptions& options,
                                                                 bool loaded = false);
// Whether a calibration on `nodes` nodes also measures the loaded costs: when some node times
// nothing (3 or more).
[[nodiscard]] bool measures_load(int nodes);
// Parses the program's "basic-cost NAME MEDIAN MIN MAX P90 ROUNDS" lines (prefixed "[node 0] ") and
// its "basic-cost-rounds NAME T1 T2 ..." lines (each round's time, of the operations that print them).
[[nodiscard]] std::vector<MeasuredCost> parse_basic_costs(const std::string& output);

// Where the busy-request-Nms costs (a page miss at a node that computes, N ms after its server last
// ran) split into two groups whose server waits differ by more than 2x: the geometric middle of
// the two spacings around the split, in µs; 0 when they do not split (one wait for all).
[[nodiscard]] double busy_quiet_after_us(const std::vector<MeasuredCost>& measured);

// A request to a computing node is served either at once (the scheduler lets the woken server
// preempt the program) or after a time slice, rarely in between: the busy-request rounds of the
// spacings shorter than the quiet stretch, pooled and split in two where their logarithms are each
// most alike, kept only when the modes differ by more than 4x and each holds 2 rounds or more.
struct BusyModes {
  double prompt_share = 0;  // rounds in the short mode / all (pp.busy_handler_prompt_share)
  int rounds = 0;           // pooled
  // The slow mode's rounds: their median, smallest and largest (µs), what the wait is fitted to.
  double slow_median_us = 0;
  double slow_min_us = 0;
  double slow_max_us = 0;
  double prompt_median_us = 0;  // the short mode's median (µs), for the report
  [[nodiscard]] bool found() const { return slow_median_us > 0; }
};
[[nodiscard]] BusyModes busy_modes(const std::vector<MeasuredCost>& measured, double quiet_after_us);
// When prompt service starts (pp.busy_handler_prompt_after, issue 43's fifth session): the host's
// scheduler lets a woken server preempt the program only once the program has computed a while
// since the server ran, so the shortest spacings may have no prompt round at all. `after_us`: the
// geometric middle of the longest such spacing and the next (0 when the shortest has prompt
// rounds, or without two modes); `share`: the prompt rounds' share of the spacings from the next
// on (before the quiet stretch), what pp.busy_handler_prompt_share then applies to.
struct PromptOnset {
  double after_us = 0;
  double share = 0;
};
[[nodiscard]] PromptOnset prompt_onset(const std::vector<MeasuredCost>& measured, double quiet_after_us,
                                       const BusyModes& modes);
// The host scheduler's tick (pp.busy_handler_tick), µs: a busy request that is not served promptly
// waits for the next tick of its node's core, a wait spread evenly from the slow mode's smallest
// round to a whole tick, so the tick is twice the slow mode's median less its smallest round (the
// rounds of the spacings before the quiet stretch; all of them when they do not split in two
// modes). 0 without busy requests.
[[nodiscard]] double busy_tick_us(const std::vector<MeasuredCost>& measured, double quiet_after_us);
// Whether `operation` is a busy request of a spacing shorter than `quiet_after_us` (all when 0).
[[nodiscard]] bool is_busy_not_quiet(const std::string& operation, double quiet_after_us);

// A real node's agent makes each written page's twin and diff when the interval closes
// (copy_at_close), a cost no other basic cost times: dsm.close_per_page, µs, read off the
// barrier-after-520-pages and barrier-after-8-pages costs (their difference over the 512 pages, the
// barrier's own cost cancelled), less what the model already charges per page there
// (`per_write_notice_us`). 0 when either cost is missing or the difference is not positive.
[[nodiscard]] double close_per_page_us(const std::vector<MeasuredCost>& measured, double per_write_notice_us);

struct Calibration {
  std::vector<MeasuredCost> measured;
  FitOutcome fit;                 // to the medians
  std::vector<double> low, high;  // each parameter fitted to the rounds' minima and maxima
  std::vector<FitParameter> parameters;
  std::string host;
  std::string date;  // ISO 8601, UTC
  int nodes = 0;
  double quiet_after_us = 0;     // pp.busy_handler_quiet_after, read off the busy-request costs
  BusyModes busy_modes;          // the busy requests' two modes (pp.busy_handler_prompt_share)
  double close_per_page_us = 0;  // dsm.close_per_page, read off the barriers after writes
  double latency_share = 0;  // of a message's software cost moved off the nodes' cores (fit_latency_share)
  double busy_tick_us = 0;   // pp.busy_handler_tick, read off the busy modes (busy_tick_us)
  PromptOnset prompt;        // pp.busy_handler_prompt_after and _share, read off each spacing's rounds
  std::map<std::string, double> targets;  // what each cost was fitted to (µs): its median, or the slow mode's
  // The same costs timed beside nodes that load the host (3 nodes or more; empty: not measured), and
  // the factor read off them, which the preset's software costs carry (validation/load_factor.hpp).
  std::vector<MeasuredCost> loaded;
  LoadFit load;
};
// `config` with `share` of each message's software cost (send, receive, interrupt) taken off the
// nodes' cores and added to the message's time in the network: the same single operations, less
// work for a node that serves while it waits.
[[nodiscard]] dsm::SystemConfig with_latency_share(dsm::SystemConfig config, double share);
// The share (0, 0.1, ... 1) whose emulated diff-miss-crossed — two nodes asking each other at once,
// each serving the other while it waits — is nearest the measured one (0 when it was not measured).
[[nodiscard]] double fit_latency_share(const Calibration& c, int nodes);
// What the calibration fitted `m` to, and whether that is the busy requests' slow mode, not its median.
[[nodiscard]] double fitted_target(const Calibration& c, const MeasuredCost& m);
[[nodiscard]] bool fitted_to_slow_mode(const Calibration& c, const MeasuredCost& m);
// One line saying the busy requests' modes ("one mode" when they do not split).
[[nodiscard]] std::string busy_modes_text(const BusyModes& modes);

// The fit of a real node (the treadmarks machine, its server sharing the program's core:
// real_node_parameters) to `measured` on `nodes` nodes, then its software costs scaled by the
// host's load read off `loaded` (none: factor 1).
[[nodiscard]] Calibration fit_calibration(std::vector<MeasuredCost> measured, int nodes, std::string host,
                                          std::string date, std::vector<MeasuredCost> loaded = {});

// The preset: the whole configuration, the fitted keys marked MEASURED (host, date, spread), a
// header with the measured costs beside what the preset reproduces. apply_toml_text reads it.
[[nodiscard]] std::string calibration_toml(const Calibration& c, const std::string& command_line);
// The same calibration for scripts (`ncp2 calibrate --json`, docs/validation.md): the command, host,
// date and nodes; every basic cost measured with its median, minimum, maximum, 90th percentile and
// rounds (each round's time where the program printed them: the busy requests), what the preset
// reproduces of it and the error; the fitted parameters. refit_calibration reads it back.
[[nodiscard]] std::string calibration_json(const Calibration& c, const std::string& command_line);

}  // namespace ncp2::validation
