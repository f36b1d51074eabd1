#pragma once
// `ncp2 validate ./prog`: the program run R times on real processes and P times on the emulated
// machine of a preset (computation timed on the host: --time-model measured, so predictions vary
// too), and the median prediction against the median measurement — the total time, each wait
// category, each scope, each node, the protocol's counts — with both spreads; parts of a wait a
// real run cannot observe are said, not compared (docs/real-machine.md, docs/validation.md).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "carnival/model.hpp"
#include "validation/calibration_cache.hpp"
#include "validation/category_misses.hpp"
#include "validation/compared.hpp"

namespace ncp2::validation {

// The goal for the total (issues 32 and 43): within this many percent of the median measured run.
// A program whose measured runs spread more than this cannot be judged by it.
inline constexpr double kTotalGoalPct = 15;
// The goal for each category holding more than 10 % of the time (issue 43): within this many
// percent. A wait category missing it gets a note of why (validation/category_misses.hpp).
inline constexpr double kWaitMissPct = 25;

struct ValidateOptions {
  std::string program;
  std::vector<std::string> args;
  int nodes = 2;
  int repeat = 3;
  int predictions = 3;  // emulated runs (they vary: the computation is timed on the host)
  std::string preset;   // the emulated machine (a calibrated preset); empty: the treadmarks defaults
  std::optional<UsedCalibration> calibration;  // set when `preset` is this host's kept calibration
  std::string out_dir;                         // the databases and the comparison
  std::string hostfile;
  std::vector<std::string> mpirun_args;
  std::function<void(const std::string&)> progress;  // told as each run ends (a line); may be empty
};

// A program too short to compare: its measured runs spread more than the goal. Their noise is
// about a fixed time per run, so the spread falls as 1 / length: an input `factor` times longer
// (a run of at least `measured_s_at_least`) would bring it under the goal.
struct TooShort {
  double measured_spread_pct = 0;
  double goal_pct = kTotalGoalPct;
  double factor = 0;  // spread / goal, rounded up (halves to 2, whole numbers to 10, then 2 digits)
  double measured_s_at_least = 0;
};
// nullopt when the spread is within the goal.
[[nodiscard]] std::optional<TooShort> too_short(double measured_spread_pct, double measured_s);

struct Validation {
  std::string program;
  int nodes = 0;
  int repeat = 0;
  int predictions = 0;
  std::string preset;
  std::optional<UsedCalibration> calibration;  // when the preset is this host's kept calibration
  std::vector<double> measured_runs_s;         // each real run's time
  double measured_s = 0;                       // their median
  double measured_spread_pct = 0;              // (max - min) / median
  std::vector<double> predicted_runs_s;        // each emulated run's time
  double predicted_s = 0;                      // their median
  double predicted_spread_pct = 0;             // (max - min) / median
  std::optional<TooShort> too_short;
  std::vector<Compared> categories;  // computation, protocol work, and the four kinds of wait
  std::vector<Compared> scopes;      // matched by name and lines, largest first
  std::vector<Compared> nodes_time;  // each node's time to its exit
  struct Count {
    std::string name;
    std::uint64_t measured = 0;
    std::uint64_t predicted = 0;
  };
  std::vector<Count> counts;              // protocol counts summed over the nodes
  std::vector<Compared> parts;            // the wait parts a real run observes
  std::vector<WaitKindStats> waits;       // per kind of wait: count, median, resumption, slow waits
  std::vector<Compared> protocol_work;    // the protocol work (Extra) per operation
  std::vector<std::string> not_compared;  // what a real run cannot observe, said
  std::vector<std::string> notes;
  [[nodiscard]] double error_pct() const { return 100 * (predicted_s / measured_s - 1); }
};

// The comparison of `measured` (the real runs) with `predicted` (the emulated runs): the median
// run of each side (the lower one of an even count) is compared, breakdown and all. Pure: tests
// give it stored databases. Throws std::invalid_argument when a side has no run.
[[nodiscard]] Validation compare_runs(const std::vector<carnival::RunData>& measured,
                                      const std::vector<carnival::RunData>& predicted);

[[nodiscard]] std::string validation_text(const Validation& v);
// {"program", "nodes", "repeat", "predictions", "measured_s", "measured_spread_pct", "predicted_s",
//  "predicted_runs_s", "predicted_spread_pct", "error_pct", "categories": [{"name", "measured_s",
//  "predicted_s", "error_pct"}], "preset", "calibration", "too_short", ...}
[[nodiscard]] nlohmann::json validation_json(const Validation& v);

// Runs everything (`ncp2 run` as children, into options.out_dir: real-1.db ... real-R.db,
// emulated-1.db ... emulated-P.db, comparison.json, comparison.txt) and compares. Throws std::runtime_error
// naming the run that failed and its last lines.
[[nodiscard]] Validation validate(const ValidateOptions& options);

}  // namespace ncp2::validation
