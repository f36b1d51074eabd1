#include "workloads/run_session.hpp"

#include <array>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/store.hpp"
#include "workloads/registry.hpp"
#include "workloads/stats_json.hpp"

namespace ncp2::workloads {

namespace {

std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

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

// The database must not replace a file unasked, and its directory must exist: said before the run.
void check_database_path(const SessionOptions& o) {
  if (o.db.empty()) return;
  const auto dir = std::filesystem::path(o.db).parent_path();
  if (!dir.empty() && !std::filesystem::is_directory(dir))
    throw SessionError(fmt::format("cannot store the run in {}: no such directory {}", o.db, dir.string()));
  if (!o.force && std::filesystem::exists(o.db))
    throw SessionError(fmt::format("{} already exists; use --force to replace it", o.db));
}

}  // namespace

RunSession::RunSession(dsm::SystemConfig config, SessionOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      history_(options_.history && options_.compute_meter == nullptr ? RunHistory::default_path()
                                                                     : std::nullopt) {
  try {
    workload_ = options_.program ? &*options_.program : &find_workload(options_.workload);
    params_ = workload_->resolve(options_.preset, options_.params);
    workload_->check(params_, config_.machine.nodes);
  } catch (const WorkloadError& e) {
    throw SessionError(e.what());
  }
  check_database_path(options_);
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
    history_.record(*one_node_);
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
  started_at_ = utc_now_iso();
  RunOutcome outcome = run_workload(config_, *workload_, params_, options_.seed, r);
  if (observer.phase_finished) observer.phase_finished(SessionPhase::Run, outcome);
  if (outcome.ok()) {
    const HistoryEntry entry = history_entry(key_, outcome);
    history_.record(entry);
    if (outcome.nodes == 1) one_node_ = entry;
  }
  return outcome;
}

void RunSession::write_stats(const RunOutcome& outcome) const {
  if (options_.stats_json.empty()) return;
  write_file_atomically(options_.stats_json, stats_json(outcome).dump(2) + "\n");
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
  carnival::WriteOptions w;
  w.force = options_.force;
  w.max_wait_rows = options_.max_wait_rows;
  try {
    carnival::write_run(options_.db, data, w);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("cannot write the database: {}", e.what()));
  }
  const StoredDatabase stored{data.profile.size(), data.waits.size(), data.waits_dropped};
  outcome.profile.reset();  // in the file now
  return stored;
}

}  // namespace ncp2::workloads
