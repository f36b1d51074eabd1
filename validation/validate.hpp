#pragma once
// `ncp2 validate ./prog`: the program run R times on real processes and once on the emulated
// machine of a preset (computation timed on the host: --time-model measured), and the prediction
// against the measurement — the total time, each wait category, each scope, each node, the
// protocol's counts — with the measured spread; parts of a wait a real run cannot observe are
// said, not compared (docs/real-machine.md, docs/validation.md).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "carnival/model.hpp"

namespace ncp2::validation {

// Picoseconds of a database as seconds.
inline double seconds(std::int64_t ps) { return static_cast<double>(ps) * 1e-12; }

struct ValidateOptions {
  std::string program;
  std::vector<std::string> args;
  int nodes = 2;
  int repeat = 3;
  std::string preset;   // the emulated machine (a calibrated preset); empty: the treadmarks defaults
  std::string out_dir;  // the databases and the comparison
  std::string hostfile;
  std::vector<std::string> mpirun_args;
  std::function<void(const std::string&)> progress;  // told as each run ends (a line); may be empty
};

struct Compared {
  std::string name;
  double measured_s = 0;
  double predicted_s = 0;
  [[nodiscard]] std::optional<double> error_pct() const;  // nullopt when nothing was measured
};

struct Validation {
  std::string program;
  int nodes = 0;
  int repeat = 0;
  std::string preset;
  std::vector<double> measured_runs_s;  // each real run's time
  double measured_s = 0;                // their median
  double measured_spread_pct = 0;       // (max - min) / median
  double predicted_s = 0;
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
  std::vector<std::string> not_compared;  // what a real run cannot observe, said
  std::vector<std::string> notes;
  [[nodiscard]] double error_pct() const { return 100 * (predicted_s / measured_s - 1); }
};

// The comparison of `measured` (the real runs; the median one's breakdown is compared) with
// `predicted` (the emulated run). Pure: tests give it stored databases.
[[nodiscard]] Validation compare_runs(const std::vector<carnival::RunData>& measured,
                                      const carnival::RunData& predicted);

[[nodiscard]] std::string validation_text(const Validation& v);
// {"program", "nodes", "repeat", "measured_s", "measured_spread_pct", "predicted_s", "error_pct",
//  "categories": [{"name", "measured_s", "predicted_s", "error_pct"}], "preset", ...}
[[nodiscard]] nlohmann::json validation_json(const Validation& v);

// Runs everything (`ncp2 run` as children, into options.out_dir: real-1.db ... real-R.db,
// emulated.db, comparison.json, comparison.txt) and compares. Throws std::runtime_error naming the
// run that failed and its last lines.
[[nodiscard]] Validation validate(const ValidateOptions& options);

}  // namespace ncp2::validation
