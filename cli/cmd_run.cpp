// `ncp2 run WORKLOAD`: runs a workload on the emulated machine, verifies its result, prints a
// summary and optionally writes the statistics as JSON.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <variant>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/time_model_options.hpp"
#include "carnival/store.hpp"
#include "dsm/types.hpp"
#include "emulator/config.hpp"
#include "workloads/registry.hpp"
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
    case workloads::RunStatus::Completed: return "complete";
    case workloads::RunStatus::Stopped:
    case workloads::RunStatus::TimeLimit: return "incomplete";
    default: return "failed";
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
  for (const auto& [name, value] : params.values()) std::visit([&p, &name](const auto& v) { p[name] = v; }, value);
  data.run.parameters = p.dump();
  data.run.started_at = started_at;
  data.run.verified = outcome.verified;
  data.run.message = outcome.status == workloads::RunStatus::Completed ? outcome.verification : outcome.diagnosis;
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
  fmt::print("database  {} ({} profile cells, {} wait instances{}); open it with: carnival {}  or: ncp2 report {}\n",
             o.db, data.profile.size(), data.waits.size(),
             data.waits_dropped ? fmt::format(", {} more summarized only", data.waits_dropped) : std::string(),
             o.db, o.db);
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
  run_options.profile = !o.db.empty();
  run_options.profiler.max_wait_rows = o.max_wait_rows;
  run_options.profiler.max_timeline = o.max_timeline;
  run_options.stop_flag = &g_stop;
  const std::string started_at = utc_now_iso();
  const SignalGuard signals;
  const workloads::RunOutcome outcome = workloads::run_workload(config, *workload, params, o.seed, run_options);
  if (outcome.status == workloads::RunStatus::Invalid) {
    fmt::print(stderr, "ncp2: {}\n", outcome.diagnosis);
    return kExitUsage;
  }
  print_summary(outcome);
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
  cmd->add_option("--max-wait-rows", o->max_wait_rows,
                  "with --db: keep at most N wait instances (the per-scope summary stays complete)")
      ->capture_default_str();
  cmd->add_option("--max-timeline", o->max_timeline, "with --db: keep at most N timeline segments (0: none)")
      ->capture_default_str();
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
