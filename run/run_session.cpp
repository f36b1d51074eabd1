#include "run/run_session.hpp"

#include <array>
#include <ctime>
#include <filesystem>
#include <string_view>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/output_paths.hpp"
#include "carnival/store.hpp"
#include "carnival/store_counts.hpp"
#include "carnival/utc_time.hpp"
#include "run/stats_json.hpp"
#include "run/workload_names.hpp"
#include "workloads/registry.hpp"

namespace ncp2::run {

namespace {

std::string store_status(RunStatus s) {
  switch (s) {
    case RunStatus::Completed:
      return "complete";
    case RunStatus::Stopped:
    case RunStatus::TimeLimit:
      return "incomplete";
    case RunStatus::Deadlock:
      return "deadlock";
    default:
      return "failed";
  }
}

HistoryEntry history_entry(const std::string& key, const RunOutcome& o) {
  return {key, o.nodes, emu::to_ps(o.timed_end), o.barrier_episodes, o.events, o.wall_seconds};
}

// Every output is checked before anything runs: a run must not end in "cannot write".
void check_outputs(const SessionOptions& o) {
  try {
    if (!o.db.empty()) carnival::check_database_output(o.db, o.force);
    if (!o.stats_json.empty()) carnival::check_output_file(o.stats_json, "--stats-json");
  } catch (const carnival::OutputError& e) {
    throw SessionError(e.what());
  }
}

// A file in the temporary directory for results that could not be written where asked.
std::string rescue_path(const std::string& wanted, std::string_view extension) {
  const auto name = std::filesystem::path(wanted).stem().string();
  return (std::filesystem::temp_directory_path() /
          fmt::format("ncp2-rescued-{}-{}{}", ::getpid(), name, extension))
      .string();
}

}  // namespace

RunSession::RunSession(dsm::SystemConfig config, SessionOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      history_(options_.history && options_.compute_meter == nullptr ? RunHistory::from_environment()
                                                                     : RunHistory(std::nullopt)) {
  try {
    workload_ = options_.program ? &*options_.program : &find_workload(options_.workload);
    params_ = workload_->resolve(options_.preset, options_.params);
    workload_->check(params_, config_.machine.nodes);
  } catch (const WorkloadError& e) {
    throw SessionError(e.what());
  }
  check_outputs(options_);
  if (!options_.db.empty())
    for (const auto& stale : carnival::remove_stale_temporaries(options_.db))
      notes_.push_back(
          fmt::format("removed {}: the temporary file of a run that was killed while writing", stale));
  key_ = history_key(workload_->name, params_, options_.seed, config_);
}

void RunSession::use_compute_meter(dsm::ComputeMeter* meter, std::function<void(emu::Cluster&)> on_cluster) {
  options_.compute_meter = meter;
  options_.on_cluster = std::move(on_cluster);
  if (meter) history_ = RunHistory(std::nullopt);
}

RunOptions RunSession::run_options(const SessionObserver& observer) const {
  RunOptions r;
  r.stop_flag = options_.stop_flag;
  r.progress_interval = options_.progress_interval;
  r.check_spans = options_.check_spans;
  r.max_virtual_time = options_.max_virtual_time;
  r.max_wall = options_.max_wall;
  if (observer.progress) r.progress = observer.progress;
  return r;
}

void RunSession::run_baseline(const SessionObserver& observer, const std::vector<HistoryEntry>& known) {
  one_node_ = RunHistory::latest(known, 1);
  if (!options_.baseline || one_node_ || config_.machine.nodes <= 1) return;
  dsm::SystemConfig single = config_;
  single.machine.nodes = 1;
  if (observer.phase_started) observer.phase_started(SessionPhase::Baseline, std::nullopt);
  RunOptions base_options = run_options(observer);
  base_options.progress_interval = RunOptions{}.progress_interval;
  const RunOutcome base = run_workload(single, *workload_, params_, options_.seed, base_options);
  if (observer.phase_finished) observer.phase_finished(SessionPhase::Baseline, base);
  if (base.ok()) {
    one_node_ = history_entry(key_, base);
    history_.record(*one_node_, &history_problem_);
  }
  baseline_interrupted_ = base.status == RunStatus::Stopped;
}

RunOutcome RunSession::run(const SessionObserver& observer) {
  const std::vector<HistoryEntry> known = history_.entries(key_);  // one read of the history
  run_baseline(observer, known);
  if (baseline_interrupted_) {
    RunOutcome stopped;
    stopped.status = RunStatus::Stopped;
    return stopped;
  }
  RunOptions r = run_options(observer);
  r.compute_meter = options_.compute_meter;
  r.on_cluster = options_.on_cluster;
  r.profile = !options_.db.empty();
  r.profiler.max_wait_rows = options_.max_wait_rows;
  r.profiler.max_timeline = options_.max_timeline;
  r.detect_races = options_.detect_races;
  if (observer.phase_started)
    observer.phase_started(SessionPhase::Run, RunHistory::latest(known, config_.machine.nodes));
  started_at_ = carnival::utc_now_iso();
  RunOutcome outcome = run_workload(config_, *workload_, params_, options_.seed, r);
  if (observer.phase_finished) observer.phase_finished(SessionPhase::Run, outcome);
  if (outcome.ok()) {
    const HistoryEntry entry = history_entry(key_, outcome);
    history_.record(entry, &history_problem_);
    if (outcome.nodes == 1) one_node_ = entry;
  }
  return outcome;
}

void RunSession::write_stats(const RunOutcome& outcome) const {
  if (options_.stats_json.empty()) return;
  const std::string text = stats_json(outcome).dump(2) + "\n";
  try {
    write_file_atomically(options_.stats_json, text);
  } catch (const std::exception& e) {
    const std::string rescue = rescue_path(options_.stats_json, ".json");
    try {
      write_file_atomically(rescue, text);
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("cannot write the statistics: {}", e.what()));
    }
    throw std::runtime_error(
        fmt::format("cannot write the statistics: {}; they are in {}", e.what(), rescue));
  }
}

// Where this outcome is stored: the path asked for, unless an interrupted run would replace a
// complete one there.
std::pair<std::string, std::string> database_target(const SessionOptions& o, const RunOutcome& outcome) {
  const bool partial = outcome.status == RunStatus::Stopped || outcome.status == RunStatus::TimeLimit;
  if (!partial || !o.force || carnival::stored_run_status(o.db) != "complete") return {o.db, {}};
  const std::string aside = carnival::incomplete_run_path(o.db);
  return {aside,
          fmt::format("{} holds a complete run, which an incomplete one does not replace: this run is in {}",
                      o.db, aside)};
}

StoredDatabase RunSession::write_database(RunOutcome& outcome) const {
  if (options_.db.empty()) return {};
  if (!outcome.profile)
    throw std::runtime_error(fmt::format("no profile was collected: {}", outcome.diagnosis));
  carnival::RunData& data = *outcome.profile;
  data.run.status = store_status(outcome.status);
  data.run.config = dsm::to_toml(config_);
  data.run.parameters = params_json(params_).dump();  // as in the statistics JSON
  data.run.started_at = started_at_;
  data.run.verified = outcome.verified;
  data.run.message = outcome.status == RunStatus::Completed ? outcome.verification : outcome.diagnosis;
  if (outcome.status == RunStatus::Stopped) data.run.message = "interrupted by a signal";
  data.races_checked = outcome.races_checked;
  data.races = outcome.races;
  data.protocol_counts.clear();
  for (std::size_t i = 0; i < outcome.node_stats.size(); ++i)
    carnival::append_protocol_counts(data.protocol_counts, static_cast<int>(i), outcome.node_stats[i]);
  carnival::WriteOptions w;
  w.force = options_.force;
  w.max_wait_rows = options_.max_wait_rows;
  w.max_timeline_rows = options_.max_timeline;  // the profiler's cap, so that meta records it
  auto [path, note] = database_target(options_, outcome);
  try {
    carnival::write_run(path, data, w);
  } catch (const std::exception& e) {
    const std::string rescue = rescue_path(path, ".db");
    w.force = false;
    try {
      carnival::write_run(rescue, data, w);
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("cannot write the database: {}", e.what()));
    }
    throw std::runtime_error(
        fmt::format("cannot write the database: {}; the run is in {}", e.what(), rescue));
  }
  StoredDatabase stored{path, note, data.profile.size(), data.waits.size(), data.waits_dropped};
  outcome.profile.reset();  // in the file now
  return stored;
}

}  // namespace ncp2::run
