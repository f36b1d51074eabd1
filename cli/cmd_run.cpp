// `ncp2 run WORKLOAD`: runs a workload on the emulated machine, verifies its result, prints a
// summary and optionally writes the statistics as JSON.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <variant>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "perf_counters/events.hpp"
#include "perf_counters/scope_counters.hpp"
#include "carnival/store.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/time_model_options.hpp"
#include "dsm/types.hpp"
#include "emulator/config.hpp"
#include "workloads/registry.hpp"
#include "workloads/run_history.hpp"
#include "workloads/runner.hpp"
#include "workloads/stats_json.hpp"

namespace ncp2::cli {

namespace {

struct RunOptions {
  MachineOptions machine;
  TimeModelOptions time_model;
  std::string workload;
  std::vector<std::string> params;
  std::string preset;
  std::uint64_t seed = 1;
  std::string stats_json;
  std::string db;
  bool force = false;
  std::size_t max_wait_rows = 5'000'000;
  std::size_t max_timeline = 1'000'000;
  std::string progress = "auto";  // auto (on a terminal), always, never
  bool baseline = false;          // measure the 1-node run when the history does not know it
  bool no_history = false;
  std::string scope_counters;  // host counters per scope (measured model, with --db)
};

// The progress line on stderr: a bar when a previous run of the same thing tells the total
// virtual time, otherwise the counters alone. Rewritten in place on a terminal.
class ProgressLine {
 public:
  ProgressLine(bool on, bool terminal, std::optional<workloads::HistoryEntry> previous)
      : on_(on), terminal_(terminal), previous_(std::move(previous)) {}

  void update(const workloads::RunProgress& p) {
    if (!on_) return;
    std::string line;
    if (previous_ && previous_->virtual_ps > 0) {
      const double fraction =
          std::min(1.0, static_cast<double>(emu::to_ps(p.now)) / static_cast<double>(previous_->virtual_ps));
      constexpr int kWidth = 30;
      const int filled = static_cast<int>(fraction * kWidth);
      line = fmt::format("[{}{}] {:3.0f}%  virtual {} of ~{}  barriers {}/{}  {:.1f} s",
                         std::string(filled, '#'), std::string(kWidth - filled, '.'), fraction * 100,
                         emu::format_time(p.now),
                         emu::format_time(emu::kTimeZero + emu::picoseconds(previous_->virtual_ps)),
                         p.barrier_episodes, previous_->barrier_episodes, p.wall_seconds);
    } else {
      line = fmt::format("virtual {}  barriers {}  events {}  {:.1f} s", emu::format_time(p.now),
                         p.barrier_episodes, p.events, p.wall_seconds);
    }
    if (terminal_) {
      fmt::print(stderr, "\r\033[K{}", line);
    } else {
      fmt::print(stderr, "progress  {}\n", line);
    }
    std::fflush(stderr);
    shown_ = true;
  }
  // Clears the line before the summary.
  void finish() {
    if (shown_ && terminal_) fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  bool on_;
  bool terminal_;
  std::optional<workloads::HistoryEntry> previous_;
  bool shown_ = false;
};

// SIGINT/SIGTERM stop the emulation cleanly: the run ends, its database is written with status
// 'incomplete', and the command exits 1.
std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true, std::memory_order_relaxed); }

struct SignalGuard {
  SignalGuard() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
  struct sigaction old_int {};
  struct sigaction old_term {};
};

std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string store_status(workloads::RunStatus s) {
  switch (s) {
    case workloads::RunStatus::Completed:
      return "complete";
    case workloads::RunStatus::Stopped:
    case workloads::RunStatus::TimeLimit:
      return "incomplete";
    default:
      return "failed";
  }
}

// Writes the run's CARNIVAL database; returns false (after saying why) when it could not.
bool write_database(const RunOptions& o, const emu::MachineConfig& config, const workloads::Params& params,
                    const std::string& started_at, const workloads::RunOutcome& outcome) {
  if (!outcome.profile) {
    fmt::print(stderr, "ncp2: no profile was collected: {}\n", outcome.diagnosis);
    return false;
  }
  carnival::RunData data = *outcome.profile;
  data.run.status = store_status(outcome.status);
  data.run.config = emu::to_toml(config);
  nlohmann::json p = nlohmann::json::object();
  for (const auto& [name, value] : params.values())
    std::visit([&p, &name](const auto& v) { p[name] = v; }, value);
  data.run.parameters = p.dump();
  data.run.started_at = started_at;
  data.run.verified = outcome.verified;
  data.run.message =
      outcome.status == workloads::RunStatus::Completed ? outcome.verification : outcome.diagnosis;
  if (outcome.status == workloads::RunStatus::Stopped) data.run.message = "interrupted by a signal";
  carnival::WriteOptions w;
  w.force = o.force;
  w.max_wait_rows = o.max_wait_rows;
  try {
    carnival::write_run(o.db, data, w);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: cannot write the database: {}\n", e.what());
    return false;
  }
  fmt::print(
      "database  {} ({} profile cells, {} wait instances{}); open it with: carnival {}  or: ncp2 report {}\n",
      o.db, data.profile.size(), data.waits.size(),
      data.waits_dropped ? fmt::format(", {} more summarized only", data.waits_dropped) : std::string(), o.db,
      o.db);
  return true;
}

void print_summary(const workloads::RunOutcome& o) {
  const dsm::NodeStats t = o.totals();
  fmt::print("workload  {} ({}), seed {}\n", o.workload, o.params.describe(), o.seed);
  fmt::print("machine   {}, {} node{}\n", emu::to_string(o.machine), o.nodes, o.nodes == 1 ? "" : "s");
  fmt::print("status    {}\n", workloads::to_string(o.status));
  fmt::print("time      {} virtual in the timed region; {} with the verification ({} events)\n",
             emu::format_time(o.timed_end), emu::format_time(o.end_time), o.events);
  fmt::print(
      "messages  {} ({} bytes); page faults {}, page requests {}, diff requests {}, lock acquires {}, "
      "barriers {}, interrupts {}\n",
      t.messages, t.bytes, t.page_faults, t.page_requests, t.diff_requests, t.lock_acquires, t.barriers,
      o.total_interrupts());
  fmt::print("verified  {}: {}\n", o.verified ? "yes" : "NO", o.verification);
}

void print_speedup(const workloads::RunOutcome& o, const std::optional<workloads::HistoryEntry>& one_node,
                   bool deterministic, bool history_enabled) {
  if (!o.ok() || o.nodes == 1) return;
  if (one_node && o.timed_end > emu::kTimeZero) {
    const double speedup =
        static_cast<double>(one_node->virtual_ps) / static_cast<double>(emu::to_ps(o.timed_end));
    fmt::print("speedup   {:.2f} on {} nodes (1 node: {} virtual; efficiency {:.0f}%)\n", speedup, o.nodes,
               emu::format_time(emu::kTimeZero + emu::picoseconds(one_node->virtual_ps)),
               100.0 * speedup / o.nodes);
  } else if (!deterministic) {
    fmt::print("speedup   not computed: the measured time model is not reproducible\n");
  } else if (!history_enabled) {
    fmt::print("speedup   unknown (no run history: NCP2_HISTORY is empty or --no-history was given)\n");
  } else {
    fmt::print("speedup   unknown: no 1-node run of this workload and configuration yet (add --baseline)\n");
  }
}

int run(const RunOptions& o) {
  const workloads::Workload* workload = nullptr;
  workloads::Params params;
  emu::MachineConfig config;
  try {
    workload = &workloads::find_workload(o.workload);
    config = load_machine_config(o.machine);  // emu::ConfigError: exit 2 (main)
    params = workload->resolve(o.preset, o.params);
    workload->check(params, config.machine.nodes);
  } catch (const workloads::WorkloadError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }

  if (!o.db.empty()) {
    const auto dir = std::filesystem::path(o.db).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
      fmt::print(stderr, "ncp2: cannot store the run in {}: no such directory {}\n", o.db, dir.string());
      return kExitUsage;
    }
  }
  if (!o.db.empty() && !o.force && std::filesystem::exists(o.db)) {
    fmt::print(stderr, "ncp2: {} already exists; use --force to replace it\n", o.db);
    return kExitUsage;
  }
  TimeModelSetup time_model;
  try {
    time_model = make_time_model(o.time_model, config);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  if (time_model.meter) fmt::print("time      {}\n", time_model.description);
  workloads::RunOptions run_options;
  run_options.compute_meter = time_model.meter.get();
  // Per-scope host counters: a meter around the measured model's, reading the PP's scope.
  std::unique_ptr<counters::ScopeCounterMeter> scope_meter;
  emu::Cluster* cluster = nullptr;
  if (!o.scope_counters.empty()) {
    std::vector<std::string> events;
    try {
      events = counters::parse_event_list(o.scope_counters);
    } catch (const std::invalid_argument& e) {
      fmt::print(stderr, "ncp2: --scope-counters: {}\n", e.what());
      return kExitUsage;
    }
    if (!time_model.meter || o.db.empty()) {
      fmt::print(stderr, "ncp2: --scope-counters needs --time-model measured and --db FILE\n");
      return kExitUsage;
    }
    scope_meter = std::make_unique<counters::ScopeCounterMeter>(
        *time_model.meter, std::move(events),
        [&cluster](dsm::NodeId n) { return cluster->pp(n).attribution().scope; });
    run_options.compute_meter = scope_meter.get();
    run_options.on_cluster = [&cluster](emu::Cluster& c) { cluster = &c; };
  }
  run_options.profile = !o.db.empty();
  run_options.profiler.max_wait_rows = o.max_wait_rows;
  run_options.profiler.max_timeline = o.max_timeline;
  run_options.stop_flag = &g_stop;
  // The history of earlier runs: a progress bar and the speedup over one node. Only runs of the
  // deterministic time model are comparable.
  const bool deterministic = time_model.meter == nullptr;
  const workloads::RunHistory history(o.no_history || !deterministic ? std::nullopt
                                                                     : workloads::RunHistory::default_path());
  const std::string key = workloads::history_key(workload->name, params, o.seed, config);
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const bool show_progress = o.progress == "always" || (o.progress == "auto" && terminal);
  const SignalGuard signals;

  const std::vector<workloads::HistoryEntry> known = history.entries(key);  // one read of the history
  std::optional<workloads::HistoryEntry> one_node = workloads::RunHistory::latest(known, 1);
  if (o.baseline && !one_node && config.machine.nodes > 1) {
    emu::MachineConfig single = config;
    single.machine.nodes = 1;
    fmt::print("baseline  measuring {} on 1 node first (--baseline)\n", workload->name);
    workloads::RunOptions base_options;
    base_options.stop_flag = &g_stop;
    ProgressLine base_line(show_progress, terminal, std::nullopt);  // no 1-node run known: no total
    base_options.progress = [&base_line](const workloads::RunProgress& p) { base_line.update(p); };
    const workloads::RunOutcome base =
        workloads::run_workload(single, *workload, params, o.seed, base_options);
    base_line.finish();
    if (base.ok()) {
      one_node = workloads::HistoryEntry{
          key, 1, emu::to_ps(base.timed_end), base.barrier_episodes, base.events, base.wall_seconds};
      history.record(*one_node);
    } else if (base.status == workloads::RunStatus::Stopped) {
      fmt::print(stderr, "ncp2: interrupted while measuring the baseline; nothing was run or stored\n");
      return kExitFailure;
    } else {
      fmt::print(stderr, "ncp2: the 1-node baseline did not complete ({}): {}\n",
                 workloads::to_string(base.status),
                 base.diagnosis.empty() ? base.verification : base.diagnosis);
    }
  }

  ProgressLine progress(show_progress, terminal, workloads::RunHistory::latest(known, config.machine.nodes));
  run_options.progress_interval = std::chrono::milliseconds(terminal ? 200 : 1000);  // a log: fewer lines
  run_options.progress = [&progress](const workloads::RunProgress& p) { progress.update(p); };
  const std::string started_at = utc_now_iso();
  const workloads::RunOutcome outcome =
      workloads::run_workload(config, *workload, params, o.seed, run_options);
  progress.finish();
  if (outcome.ok()) {
    const workloads::HistoryEntry entry{key,
                                        outcome.nodes,
                                        emu::to_ps(outcome.timed_end),
                                        outcome.barrier_episodes,
                                        outcome.events,
                                        outcome.wall_seconds};
    history.record(entry);
    if (outcome.nodes == 1) one_node = entry;
  }
  if (outcome.status == workloads::RunStatus::Invalid) {
    fmt::print(stderr, "ncp2: {}\n", outcome.diagnosis);
    return kExitUsage;
  }
  print_summary(outcome);
  print_speedup(outcome, one_node, deterministic, history.enabled());
  if (time_model.meter) print_measured_summary(*time_model.meter);
  if (!outcome.diagnosis.empty())
    fmt::print(stderr, "ncp2: run {}: {}\n", workloads::to_string(outcome.status), outcome.diagnosis);
  if (!o.stats_json.empty()) {
    try {
      workloads::write_file_atomically(o.stats_json, workloads::stats_json(outcome).dump(2) + "\n");
    } catch (const std::exception& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      return kExitFailure;
    }
  }
  bool stored = true;
  if (!o.db.empty()) stored = write_database(o, config, params, started_at, outcome);
  if (scope_meter && stored) {
    try {
      counters::append_scope_counters(o.db, scope_meter->events(), scope_meter->rows());
      std::string counted;
      for (const auto& e : scope_meter->events())
        if (e.available) counted += (counted.empty() ? "" : ", ") + e.name;
      fmt::print("counters  per scope in {} (table scope_counters): {}\n", o.db,
                 counted.empty() ? "none" : counted);
      for (const auto& e : scope_meter->events())
        if (!e.available)
          fmt::print(stderr, "ncp2: --scope-counters: {} not counted: {}\n", e.name, e.reason);
    } catch (const std::exception& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      stored = false;
    }
  }
  if (outcome.status == workloads::RunStatus::Completed && !outcome.verified)
    fmt::print(stderr, "ncp2: verification failed: {}\n", outcome.verification);
  if (outcome.status == workloads::RunStatus::Stopped)
    fmt::print(stderr, "ncp2: interrupted; the partial results are marked incomplete\n");
  return outcome.ok() && stored ? kExitOk : kExitFailure;
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run",
                                 "Run a workload on the emulated machine, verify its result, print a summary "
                                 "(exit 1 if it deadlocks, fails or does not verify)");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("workload", o->workload, "the workload (see ncp2 workloads)")->required();
  add_machine_options(*cmd, o->machine);
  add_time_model_options(*cmd, o->time_model);
  cmd->add_option("--param", o->params,
                  "set a workload parameter, e.g. --param n=4096 (repeatable; after --preset)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--preset", o->preset,
                  "start from a named parameter set (small, paper) instead of the defaults");
  cmd->add_option("--seed", o->seed, "seed of the workload's initial data")->capture_default_str();
  cmd->add_option("--stats-json", o->stats_json, "write the run's statistics to FILE as JSON (atomically)")
      ->type_name("FILE");
  cmd->add_option("--db", o->db, "store the CARNIVAL profile of the run in FILE (SQLite; see docs/schema.md)")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "with --db: replace an existing database");
  cmd->add_option("--scope-counters", o->scope_counters,
                  "with --time-model measured and --db: host counters summed per scope, e.g. "
                  "task-clock,page-faults,L1-dcache-loads (table scope_counters; docs/counters.md)")
      ->type_name("LIST");
  cmd->add_option("--max-wait-rows", o->max_wait_rows,
                  "with --db: keep at most N wait instances (the per-scope summary stays complete)")
      ->capture_default_str();
  cmd->add_option("--max-timeline", o->max_timeline, "with --db: keep at most N timeline segments (0: none)")
      ->capture_default_str();
  cmd->add_option("--progress", o->progress, "progress line on stderr: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_flag("--baseline", o->baseline,
                "first run the same workload on 1 node when its time is not known yet, to print the speedup");
  cmd->add_flag("--no-history", o->no_history,
                "do not read or record the run history (see NCP2_HISTORY in ncp2 run --help)");
  cmd->footer(
      "Finished, verified runs of the deterministic time model are recorded in a run history\n"
      "($NCP2_HISTORY, else $XDG_CACHE_HOME/ncp2/history.jsonl, else ~/.cache/ncp2/history.jsonl;\n"
      "NCP2_HISTORY= disables it): it gives the progress bar its total and the summary its speedup\n"
      "over the same workload, parameters, seed and configuration on one node.");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
