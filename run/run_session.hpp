#pragma once
// One run from its configuration to its published files, in one object: the workload and its
// parameters resolved, the outputs checked before anything runs, the 1-node baseline when asked,
// the run itself (machine, DSM runtime, workload, optional CARNIVAL profiler, progress, a stop
// flag), the run history, the statistics JSON and the CARNIVAL database. `ncp2 run` parses its
// options into SessionOptions and prints what the session reports; bench/ and the tests use the
// same path. The run's data is moved into the store, never copied.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "emulator/config.hpp"
#include "run/run_history.hpp"
#include "run/runner.hpp"
#include "run/workload_names.hpp"

namespace ncp2::run {

// A run that cannot start as asked (unknown workload, bad parameters, an output that would be
// lost): the message is for the user; `ncp2 run` exits 2.
class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class SessionPhase { Baseline, Run };

struct SessionOptions {
  std::string workload;
  // A workload not in the registry (a user's program, tmk/): used instead of `workload`.
  std::optional<Workload> program;
  std::string preset;               // empty: the workload's defaults
  std::vector<std::string> params;  // NAME=VALUE, after the preset
  std::uint64_t seed = 1;

  std::string db;  // empty: no profile
  bool force = false;
  bool detect_races = false;  // RunOptions::detect_races (the run, not the 1-node baseline)
  bool check_spans = false;   // RunOptions::check_spans (the run and the baseline)
  std::size_t max_wait_rows = 5'000'000;
  std::size_t max_timeline = 1'000'000;
  std::string stats_json;  // empty: none

  bool history = true;    // read and record the run history (deterministic model only)
  bool baseline = false;  // first run 1 node when the history does not know its time

  const std::atomic<bool>* stop_flag = nullptr;
  // Run limits (RunOptions): the run and the baseline alike.
  emu::TimePoint max_virtual_time = emu::TimePoint::max();
  std::chrono::duration<double> max_wall{0};
  dsm::ComputeMeter* compute_meter = nullptr;  // the measured time model; null: deterministic
  std::function<void(emu::Cluster&)> on_cluster;
  std::chrono::milliseconds progress_interval{200};
};

// What the session tells its front end as it goes (all optional).
struct SessionObserver {
  // A phase starts; `previous` is the last recorded run of the same thing, if any.
  std::function<void(SessionPhase, const std::optional<HistoryEntry>& previous)> phase_started;
  std::function<void(const RunProgress&)> progress;
  std::function<void(SessionPhase, const RunOutcome&)> phase_finished;
};

// What was written, for the summary.
struct StoredDatabase {
  std::string path;  // where the run was stored (see `note` when it is not the path asked for)
  std::string note;  // e.g. why an interrupted run went next to the complete one it would replace
  std::size_t profile_cells = 0;
  std::size_t wait_instances = 0;
  std::uint64_t waits_dropped = 0;
};

class RunSession {
 public:
  // Resolves the workload and its parameters against `config` and checks the database path.
  // Throws SessionError.
  RunSession(dsm::SystemConfig config, SessionOptions options);

  [[nodiscard]] const Workload& workload() const { return *workload_; }
  [[nodiscard]] const Params& params() const { return params_; }
  [[nodiscard]] const dsm::SystemConfig& config() const { return config_; }
  // The measured time model (docs/timing.md): its meter, and a hook given the machine once it is
  // built (per-scope counters read the PPs' attribution). Such runs are not reproducible: the
  // history is neither read nor recorded.
  void use_compute_meter(dsm::ComputeMeter* meter, std::function<void(emu::Cluster&)> on_cluster = {});
  [[nodiscard]] bool deterministic() const { return options_.compute_meter == nullptr; }
  [[nodiscard]] bool history_enabled() const { return history_.enabled(); }
  // What the checks before the run found worth saying (temporary files of killed runs removed).
  [[nodiscard]] const std::vector<std::string>& notes() const { return notes_; }
  // Why the run history could not record the run ("" when it did or was not asked to).
  [[nodiscard]] const std::string& history_problem() const { return history_problem_; }

  // The baseline (if asked and unknown), then the run; records a verified run in the history.
  // Returns the outcome; a baseline interrupted by the stop flag returns its own outcome with
  // `baseline_interrupted()` true and runs nothing else.
  RunOutcome run(const SessionObserver& observer = {});
  [[nodiscard]] bool baseline_interrupted() const { return baseline_interrupted_; }
  // The 1-node run of the same workload, parameters, seed and configuration, when known.
  [[nodiscard]] const std::optional<HistoryEntry>& one_node() const { return one_node_; }

  // Writes the statistics JSON (if asked). When that fails after all, writes it to a rescue file
  // in the temporary directory and throws std::runtime_error naming both.
  void write_stats(const RunOutcome& outcome) const;
  // Writes the CARNIVAL database (if asked), moving the profile out of `outcome`. An incomplete
  // run never replaces a complete one (--force): it goes to carnival::incomplete_run_path. When
  // writing fails after all, the run goes to a rescue file in the temporary directory; throws
  // std::runtime_error with the reason and, when the rescue worked, its path.
  StoredDatabase write_database(RunOutcome& outcome) const;

 private:
  RunOptions run_options(const SessionObserver& observer) const;
  void run_baseline(const SessionObserver& observer, const std::vector<HistoryEntry>& known);

  dsm::SystemConfig config_;
  SessionOptions options_;
  const Workload* workload_ = nullptr;
  Params params_;
  RunHistory history_;
  std::string key_;
  std::string started_at_;
  std::optional<HistoryEntry> one_node_;
  bool baseline_interrupted_ = false;
  std::vector<std::string> notes_;
  std::string history_problem_;
};

}  // namespace ncp2::run
