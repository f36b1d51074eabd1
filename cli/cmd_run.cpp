// `ncp2 run WORKLOAD`: runs a workload on the emulated machine, verifies its result, prints a
// summary and optionally writes the statistics as JSON.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <variant>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "carnival/store.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "cli/race_output.hpp"
#include "cli/stop_signals.hpp"
#include "cli/time_model_options.hpp"
#include "dsm/types.hpp"
#include "emulator/config.hpp"
#include "emulator/units.hpp"
#include "perf_counters/events.hpp"
#include "perf_counters/scope_counters.hpp"
#include "run/publish.hpp"
#include "run/real_run.hpp"
#include "run/run_history.hpp"
#include "run/run_session.hpp"
#include "run/runner.hpp"
#include "run/stats_json.hpp"
#include "tmk/host/program.hpp"
#include "workloads/registry.hpp"

namespace ncp2::cli {

namespace {

// mpirun's --timeout is set this many seconds past --max-wall: node 0 stops a live run at the
// limit itself; the watchdog is for agents that hang.
constexpr long kMpirunGraceS = 30;

struct RunOptions {
  MachineOptions machine;
  TimeModelOptions time_model;
  std::string workload;
  std::vector<std::string> program_args;  // a program's arguments, after `--`
  std::string runner;       // a program's nodes: process or fiber ("": $NCP2_RUNNER, else process)
  std::string node_output;  // a program's output per node in files of this directory
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
  bool detect_races = false;
  bool check_spans = false;
  std::string max_virtual_time;  // run limits (issue 36): durations, empty: none
  std::string max_wall;
  std::string hostfile;                  // --machine real: the hosts (Open MPI's hostfile)
  std::vector<std::string> mpirun_args;  // --machine real: more options for mpirun
};

// The progress line on stderr: a bar when a previous run of the same thing tells the total
// virtual time, otherwise the counters alone. Rewritten in place on a terminal.
class ProgressLine {
 public:
  ProgressLine(bool on, bool terminal, std::optional<run::HistoryEntry> previous)
      : on_(on), terminal_(terminal), previous_(std::move(previous)) {}

  void update(const run::RunProgress& p) {
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
  std::optional<run::HistoryEntry> previous_;
  bool shown_ = false;
};

void print_summary(const run::RunOutcome& o) {
  const dsm::NodeStats t = o.totals();
  fmt::print("workload  {} ({}), seed {}\n", o.workload, o.params.describe(), o.seed);
  fmt::print("machine   {}, {} node{}\n", emu::to_string(o.machine), o.nodes, o.nodes == 1 ? "" : "s");
  fmt::print("status    {}\n", run::to_string(o.status));
  fmt::print("time      {} virtual in the timed region; {} with the verification ({} events)\n",
             emu::format_time(o.timed_end), emu::format_time(o.end_time), o.events);
  fmt::print(
      "messages  {} ({} bytes); page faults {}, page requests {}, diff requests {}, lock acquires {}, "
      "barriers {}, interrupts {}\n",
      t.messages, t.bytes, t.page_faults, t.page_requests, t.diff_requests, t.lock_acquires, t.barriers,
      o.total_interrupts());
  fmt::print("verified  {}: {}\n", o.verified ? "yes" : "NO", o.verification);
  fmt::print("host      {}\n", run::host_usage(o.wall_seconds, o.peak_rss_kib, o.nodes));
}

void print_speedup(const run::RunOutcome& o, const std::optional<run::HistoryEntry>& one_node,
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

run::SessionOptions session_options(const RunOptions& o) {
  run::SessionOptions s;
  s.workload = o.workload;
  s.preset = o.preset;
  s.params = o.params;
  s.seed = o.seed;
  s.db = o.db;
  s.force = o.force;
  s.max_wait_rows = o.max_wait_rows;
  s.max_timeline = o.max_timeline;
  s.stats_json = o.stats_json;
  s.history = !o.no_history;
  s.baseline = o.baseline;
  s.detect_races = o.detect_races;
  s.check_spans = o.check_spans;
  s.stop_flag = &stop_requested();
  if (!o.max_virtual_time.empty())
    s.max_virtual_time = emu::kTimeZero + emu::parse_duration(o.max_virtual_time);
  if (!o.max_wall.empty())
    s.max_wall = std::chrono::duration<double>(
        static_cast<double>(emu::to_ps(emu::parse_duration(o.max_wall))) * 1e-12);
  return s;
}

// The session's progress and baseline messages on the terminal.
run::SessionObserver display(const RunOptions& o, std::optional<ProgressLine>& line,
                             const std::string& name) {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const bool show = o.progress == "always" || (o.progress == "auto" && terminal);
  run::SessionObserver observer;
  observer.phase_started = [&line, show, terminal, name](run::SessionPhase phase,
                                                         const std::optional<run::HistoryEntry>& previous) {
    if (phase == run::SessionPhase::Baseline)
      fmt::print("baseline  measuring {} on 1 node first (--baseline)\n", name);
    line.emplace(show, terminal, previous);  // no 1-node run known for the baseline: no total
  };
  observer.progress = [&line](const run::RunProgress& p) {
    if (line) line->update(p);
  };
  observer.phase_finished = [&line](run::SessionPhase phase, const run::RunOutcome& outcome) {
    if (line) line->finish();
    if (phase != run::SessionPhase::Baseline || outcome.ok()) return;
    if (outcome.status == run::RunStatus::Stopped)
      fmt::print(stderr, "ncp2: interrupted while measuring the baseline; nothing was run or stored\n");
    else
      fmt::print(stderr, "ncp2: the 1-node baseline did not complete ({}): {}\n",
                 run::to_string(outcome.status),
                 outcome.diagnosis.empty() ? outcome.verification : outcome.diagnosis);
  };
  return observer;
}

// --scope-counters: host counters per scope, a meter around the measured model's. Returns an
// exit code when the option cannot be used, else sets `meter`.
std::optional<int> setup_scope_counters(const RunOptions& o, const TimeModelSetup& time_model,
                                        std::unique_ptr<counters::ScopeCounterMeter>& meter,
                                        emu::Cluster*& cluster) {
  if (o.scope_counters.empty()) return std::nullopt;
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
  meter = std::make_unique<counters::ScopeCounterMeter>(
      *time_model.meter, std::move(events),
      [&cluster](dsm::NodeId n) { return cluster->pp(n).attribution().scope; });
  return std::nullopt;
}

// A program built with ncp2-cc instead of a built-in workload: its workload in the options.
std::optional<int> add_program(const RunOptions& o, run::SessionOptions& s) {
  if (!tmk::looks_like_program(o.workload)) {
    if (!o.program_args.empty() || !o.node_output.empty() || !o.runner.empty()) {
      fmt::print(stderr,
                 "ncp2: {} is a built-in workload: program arguments, --node-output and --runner are for "
                 "programs built with ncp2-cc (give their path, e.g. ./prog)\n",
                 o.workload);
      return kExitUsage;
    }
    return std::nullopt;
  }
  std::string runner = o.runner;
  if (const char* env = std::getenv("NCP2_RUNNER"); runner.empty() && env && *env) {
    runner = env;
    if (runner != "process" && runner != "fiber") {
      fmt::print(stderr, "ncp2: NCP2_RUNNER={}: a runner is process or fiber\n", runner);
      return kExitUsage;
    }
  }
  // The measured time model times a program's computation on this host: as processes, the
  // program runs as its own executable, with the addresses a real run has. A fiber copy's private
  // blocks and heap copy lie elsewhere, which timed water's and bfs's computation 17 % faster than
  // their processes (bench/runner-computation, docs/validation.md). Asked for, fibers are used.
  if (runner.empty() && o.time_model.model == "measured") {
    runner = "process";
    fmt::print(
        "runner    process (the measured time model times the program's own executable; "
        "--runner fiber to time its fiber copies)\n");
  }
  try {
    const tmk::Runner chosen = runner.empty()      ? tmk::Runner::Auto
                               : runner == "fiber" ? tmk::Runner::Fiber
                                                   : tmk::Runner::Process;
    s.program = tmk::program_workload({o.workload, o.program_args, o.node_output, o.detect_races, chosen});
  } catch (const workloads::WorkloadError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  return std::nullopt;
}

// --machine real: the program on real processes (run/real_run.cpp); the emulator's options refused.
int run_real(const RunOptions& o) {
  const std::array<std::pair<bool, const char*>, 9> emulator_only{
      {{o.time_model.model != "deterministic" || o.time_model.target_mhz || o.time_model.scale,
        "--time-model"},
       {o.detect_races, "--detect-races"},
       {o.check_spans, "--check-spans"},
       {!o.scope_counters.empty(), "--scope-counters"},
       {!o.stats_json.empty(), "--stats-json"},
       {!o.params.empty() || !o.preset.empty(), "--param/--preset"},
       {o.baseline, "--baseline"},
       {!o.max_virtual_time.empty(), "--max-virtual-time (a real run has no virtual time; use --max-wall)"},
       {!o.runner.empty(), "--runner"}}};
  for (const auto& [set, name] : emulator_only)
    if (set) {
      fmt::print(stderr, "ncp2: {} is for the emulated machines; --machine real runs the program as it is\n",
                 name);
      return kExitUsage;
    }
  MachineOptions emulated = o.machine;
  emulated.machine.clear();
  run::RealRun r;
  r.config = load_machine_config(emulated);  // emu::ConfigError: exit 2 (main)
  r.program = o.workload;
  r.args = o.program_args;
  r.nodes = r.config.machine.nodes;
  r.hostfile = o.hostfile;
  r.mpirun_args = o.mpirun_args;
  if (!o.max_wall.empty()) {
    // Node 0's agent stops the run at the limit and names each node's place (exit 5, the database
    // kept, marked incomplete). Open MPI's watchdog, a little later, ends a job whose agents hang
    // outright; that run is reported as failed.
    r.max_wall_s = static_cast<double>(emu::to_ps(emu::parse_duration(o.max_wall))) * 1e-12;
    r.mpirun_args.insert(r.mpirun_args.end(),
                         {"--timeout", std::to_string(std::lround(std::ceil(r.max_wall_s)) + kMpirunGraceS)});
  }
  r.db = o.db;
  r.force = o.force;
  r.max_wait_rows = o.max_wait_rows;
  r.max_timeline = o.max_timeline;
  r.node_output = o.node_output;
  const int code = run::run_real_machine(r);
  if (code == kExitFailure && !o.max_wall.empty())
    fmt::print(stderr,
               "ncp2: with --max-wall {}: agents that did not stop {} s after the limit were ended by "
               "mpirun's --timeout (the message above)\n",
               o.max_wall, kMpirunGraceS);
  return code;
}

int run(const RunOptions& o) {
  if (o.machine.machine == "real") return run_real(o);
  if (!o.hostfile.empty() || !o.mpirun_args.empty()) {
    fmt::print(stderr, "ncp2: --hostfile and --mpirun-args are for --machine real\n");
    return kExitUsage;
  }
  const dsm::SystemConfig config = load_machine_config(o.machine);  // emu::ConfigError: exit 2 (main)
  std::optional<run::RunSession> session;
  run::SessionOptions options = session_options(o);
  if (const auto code = add_program(o, options)) return *code;
  try {
    session.emplace(config, std::move(options));
  } catch (const run::SessionError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  for (const auto& note : session->notes()) fmt::print(stderr, "ncp2: note: {}\n", note);
  TimeModelSetup time_model;
  try {
    time_model = make_time_model(o.time_model, config);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  if (time_model.meter) fmt::print("time      {}\n", time_model.description);
  std::unique_ptr<counters::ScopeCounterMeter> scope_meter;
  emu::Cluster* cluster = nullptr;
  if (const auto code = setup_scope_counters(o, time_model, scope_meter, cluster)) return *code;
  if (scope_meter)
    session->use_compute_meter(scope_meter.get(), [&cluster](emu::Cluster& c) { cluster = &c; });
  else
    session->use_compute_meter(time_model.meter.get());

  // Ctrl-C, SIGTERM, SIGHUP: the run ends, its database is written with status 'incomplete', exit 1.
  const StopSignals signals;
  std::optional<ProgressLine> line;
  run::RunOutcome outcome = session->run(display(o, line, session->workload().name));
  if (session->baseline_interrupted()) return kExitFailure;
  if (outcome.status == run::RunStatus::Invalid) {
    fmt::print(stderr, "ncp2: {}\n", outcome.diagnosis);
    return kExitUsage;
  }
  print_summary(outcome);
  print_speedup(outcome, session->one_node(), session->deterministic(), session->history_enabled());
  if (time_model.meter) print_measured_summary(*time_model.meter);
  if (!outcome.diagnosis.empty())
    fmt::print(stderr, "ncp2: run {}: {}\n", run::to_string(outcome.status), outcome.diagnosis);
  if (outcome.races_checked) print_races(outcome, o.db);
  if (!session->history_problem().empty())
    fmt::print(stderr, "ncp2: note: the run history was not recorded: {}\n", session->history_problem());
  return run::publish(*session, outcome, o.db, scope_meter.get());
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run",
      "Run a workload, or a program built with ncp2-cc (ncp2 run ./prog --nodes 4 -- "
      "ARGS), on the emulated machine, verify its result, print a summary (exit 1 if "
      "it fails or does not verify, a program also if a node exits non-zero; 3 if it "
      "deadlocks; 4 if --detect-races found data races; 5 if --max-virtual-time or --max-wall stopped it)");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("workload", o->workload,
                  "the workload (see ncp2 workloads), or the path of a program built with ncp2-cc")
      ->required();
  cmd->add_option("args", o->program_args, "a program's arguments, after --")->type_name("ARGS");
  cmd->add_option("--runner", o->runner,
                  "how a program's nodes run: fiber (a copy of the program per node inside ncp2's process) "
                  "or process (one process each): the same results, fibers faster; not given: $NCP2_RUNNER, "
                  "else process under --time-model measured (the program's own executable is timed), "
                  "else fiber when the program carries ncp2-cc's fiber object, else process "
                  "(docs/tmk-programs.md)")
      ->check(CLI::IsMember({"process", "fiber"}));
  cmd->add_option("--node-output", o->node_output,
                  "a program's output in DIR/node-N.stdout and .stderr instead of prefixed lines on ours")
      ->type_name("DIR");
  add_machine_options(*cmd, o->machine, true);
  add_real_launch_options(*cmd, o->hostfile, o->mpirun_args, "--machine real: ");
  add_time_model_options(*cmd, o->time_model);
  cmd->add_option("--param", o->params,
                  "set a workload parameter, e.g. --param n=4096 (repeatable; after --preset)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--preset", o->preset,
                  "start from a named parameter set (small, paper) instead of the defaults");
  cmd->add_option("--seed", o->seed, "seed of the workload's initial data")
      ->check(whole_number(0, UINT64_MAX))
      ->capture_default_str();
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
      ->check(whole_number(0, kMaxStoredRows))
      ->capture_default_str();
  cmd->add_option("--max-timeline", o->max_timeline, "with --db: keep at most N timeline segments (0: none)")
      ->check(whole_number(0, kMaxStoredRows))
      ->capture_default_str();
  cmd->add_option("--progress", o->progress, "progress line on stderr: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd->add_flag("--detect-races", o->detect_races,
                "report data races: accesses of different nodes to the same bytes, one a write, not ordered "
                "by locks or barriers (exit 4 when any; table races with --db; a program must be built with "
                "ncp2-cc --ncp2-races)");
  cmd->add_flag("--check-spans", o->check_spans,
                "stop with the source line when a workload uses a read_span/write_span after its node's next "
                "lock or barrier (host memory protection; NCP2_CHECK_SPANS=1 does the same)");
  cmd->add_option(
         "--max-virtual-time", o->max_virtual_time,
         "stop the run cleanly at this virtual time (e.g. 10s, 500ms): the partial results are kept, "
         "marked incomplete, with each node's place (exit 5)")
      ->check(positive_duration());
  cmd->add_option("--max-wall", o->max_wall,
                  "stop the run cleanly after this much host time (e.g. 60s), a node stuck in its own code "
                  "included (exit 5)")
      ->check(positive_duration());
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
