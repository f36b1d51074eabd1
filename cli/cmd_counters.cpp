// `ncp2 counters [options] -- COMMAND [ARGS...]`: a command's performance counters over time
// (SPEC §5, the paper's sampling tool): per-period deltas and rates, totals, SQLite, PNG, JSON.
// Exit code: the command's own (128 + N if killed by signal N); 127/126 if it cannot be executed;
// 2 for a usage error; 1 if no event can be counted or an output cannot be written.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "carnival/output_paths.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "perf_counters/counter_store.hpp"
#include "perf_counters/events.hpp"
#include "perf_counters/perf_group.hpp"
#include "perf_counters/plot.hpp"
#include "perf_counters/report.hpp"
#include "perf_counters/sampler.hpp"
#include "perf_counters/series.hpp"
#include "scheduling/trace.hpp"

namespace ncp2::cli {

namespace {

struct CountersCommand {
  std::string period = "100ms";
  std::string events;
  std::string db;
  std::string plot;
  std::string output;
  bool force = false;
  bool json = false;
  bool summary = false;
  bool no_inherit = false;
  bool list_events = false;
  std::string trace;
  std::string trace_event;
  double trace_scale = 1;
  int trace_threads = 1;
  std::vector<std::string> command;
};

// The report goes to stdout, or to --output (so that it does not mix with the command's output).
bool emit(const CountersCommand& o, const std::string& text) {
  if (o.output.empty()) {
    fmt::print("{}", text);
    std::fflush(stdout);
    return true;
  }
  std::ofstream out(o.output, std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    fmt::print(stderr, "ncp2: {}: cannot write the report\n", o.output);
    return false;
  }
  return true;
}

int list_events(const CountersCommand& o) {
  std::vector<std::string> names = counters::default_event_names();
  for (const auto& n : counters::generic_event_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  if (!o.events.empty()) names = counters::parse_event_list(o.events);
  std::vector<counters::EventStatus> statuses;
  statuses.reserve(names.size());
  for (const auto& n : names) statuses.push_back(counters::probe_event(n));
  const auto paranoid = counters::read_perf_event_paranoid();
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : statuses)
      j.push_back({{"name", e.name},
                   {"available", e.available},
                   {"reason", e.reason},
                   {"note", e.note},
                   {"source", e.source},
                   {"encoding", e.encoding}});
    return emit(o, j.dump(2) + "\n") ? kExitOk : kExitFailure;
  }
  std::string text = fmt::format("{}\nkernel.perf_event_paranoid = {}\n", counters::libpfm4_description(),
                                 paranoid ? std::to_string(*paranoid) : "unreadable (no perf events?)");
  text += "events (the defaults first; any libpfm4 name, e.g. INST_RETIRED:ANY, or rNNNN works too):\n";
  text += counters::events_text(statuses);
  return emit(o, text) ? kExitOk : kExitFailure;
}

// --period, --events and --no-inherit as the sampler's options; nothing after a usage error (said).
std::optional<counters::SamplerOptions> sampler_options(const CountersCommand& o) {
  counters::SamplerOptions options;
  try {
    options.period = counters::parse_period(o.period);
    if (!o.events.empty()) options.events = counters::parse_event_list(o.events);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2: counters: {}\n", e.what());
    return std::nullopt;
  }
  options.inherit = !o.no_inherit;
  return options;
}

// The events a bandwidth trace is made of by default: bus transactions are last-level cache misses.
constexpr std::array<const char*, 3> kTraceEvents = {"LLC-load-misses", "cache-misses",
                                                     "L1-dcache-load-misses"};

// The event of --trace: --trace-event, or the first default one that was counted; null if none.
const counters::EventStatus* trace_event(const CountersCommand& o, const counters::CounterRun& run) {
  for (const auto& e : run.events)
    if (e.available && e.group_index >= 0 &&
        (o.trace_event.empty()
             ? std::find(kTraceEvents.begin(), kTraceEvents.end(), e.name) != kTraceEvents.end()
             : e.name == o.trace_event))
      return &e;
  return nullptr;
}

// The run as a bandwidth trace (scheduling/trace.hpp): per period, the event's count x --trace-scale
// per microsecond, one step per sampling period. Throws sched::TraceError.
sched::DemandTrace demand_trace(const CountersCommand& o, const counters::CounterRun& run) {
  const counters::EventStatus* event = trace_event(o, run);
  if (!event)
    throw sched::TraceError(
        o.trace_event.empty()
            ? "no cache-miss event was counted here (LLC-load-misses, cache-misses, L1-dcache-load-misses); "
              "name a counted one with --trace-event (and --events), e.g. --trace-event page-faults"
            : fmt::format("--trace-event {} was not counted (is it in --events? see the report)",
                          o.trace_event));
  sched::DemandTrace trace;
  trace.name = std::filesystem::path(o.command.front()).filename().string();
  trace.threads = o.trace_threads;
  trace.step = sched::Duration(std::chrono::duration_cast<sched::Duration>(run.period));
  trace.source = fmt::format("ncp2 counters: {} x {:g} per us", event->name, o.trace_scale);
  for (const auto& row : counters::sample_rows(run)) {
    const auto& delta = row.points.at(static_cast<std::size_t>(event->group_index)).delta;
    if (row.dt_ms <= 0) continue;
    trace.demand.emplace_back(delta ? *delta * o.trace_scale / (row.dt_ms * 1000) : 0.0);
  }
  sched::check_trace(trace, o.trace);
  return trace;
}

// Refuses outputs that cannot be written before running anything: false (and why, on stderr).
bool outputs_writable(const CountersCommand& o) {
  if (!o.trace.empty()) {
    if (!(o.trace_scale > 0) || o.trace_threads < 1 || o.trace_threads > 1024) {
      fmt::print(stderr, "ncp2: counters: --trace-scale must be more than 0 and --trace-threads 1..1024\n");
      return false;
    }
    try {
      carnival::check_output_file(o.trace, "--trace");
    } catch (const carnival::OutputError& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      return false;
    }
  }
  if (!o.db.empty())
    if (const auto problem = counters::check_output_path(o.db, o.force); !problem.empty()) {
      fmt::print(stderr, "ncp2: {}\n", problem);
      return false;
    }
  if (!o.plot.empty()) {
    if (!counters::plot_available()) {
      fmt::print(stderr,
                 "ncp2: --plot {}: this ncp2 was built without Qt 6, so it cannot draw PNG plots "
                 "(install qt6-base-dev, e.g. `bash cmake/install-deps.sh gui`, and configure again)\n",
                 o.plot);
      return false;
    }
    try {
      carnival::check_output_file(o.plot, "--plot");
    } catch (const carnival::OutputError& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      return false;
    }
  }
  return true;
}

// Runs the command under the counters into `run`. If it could not be run: why (on stderr), and
// the exit code to return.
std::optional<int> sample_command(const CountersCommand& o, const counters::SamplerOptions& options,
                                  counters::CounterRun& run) {
  try {
    run = counters::run_with_counters(o.command, options);
  } catch (const counters::CommandError& e) {
    fmt::print(stderr, "ncp2: counters: {}\n", e.what());
    return e.exit_code();
  } catch (const counters::NoCountersError& e) {
    fmt::print(stderr, "ncp2: counters: {}; the command was not run:\n{}", e.what(),
               counters::events_text(e.events()));
    return kExitFailure;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2: counters: {}\n", e.what());
    return kExitUsage;
  }
  return std::nullopt;
}

// The report lists them with the reason; say it on stderr too when the report is not text on stdout.
void warn_not_counted(const CountersCommand& o, const counters::CounterRun& run) {
  if (!o.json && o.output.empty()) return;
  std::string missing;
  for (const auto& e : run.events)
    if (!e.available) missing += (missing.empty() ? "" : ", ") + e.name;
  if (!missing.empty())
    fmt::print(stderr, "ncp2: counters: not counted here: {} (the report says why)\n", missing);
}

// --db and --plot: each one that fails is said on stderr, the others are still written. Returns
// whether all were.
bool write_files(const CountersCommand& o, const counters::CounterRun& run) {
  bool ok = true;
  if (!o.db.empty()) {
    try {
      counters::write_counter_run(o.db, run, o.force);
    } catch (const std::exception& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      ok = false;
    }
  }
  if (!o.trace.empty()) {
    try {
      sched::write_trace_file(o.trace, demand_trace(o, run));
    } catch (const sched::TraceError& e) {
      fmt::print(stderr, "ncp2: counters: --trace {}: {}\n", o.trace, e.what());
      ok = false;
    }
  }
  if (!o.plot.empty()) {
    try {
      counters::plot_rates_png(run, o.plot);
    } catch (const std::exception& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      ok = false;
    }
  }
  return ok;
}

int run_counters(const CountersCommand& o) {
  if (o.list_events) return list_events(o);
  if (o.command.empty()) {
    fmt::print(stderr, "ncp2: counters: no command to run (ncp2 counters [options] -- COMMAND [ARGS...])\n");
    return kExitUsage;
  }
  const std::optional<counters::SamplerOptions> options = sampler_options(o);
  if (!options || !outputs_writable(o)) return kExitUsage;

  counters::CounterRun run;
  if (const std::optional<int> failed = sample_command(o, *options, run)) return *failed;
  warn_not_counted(o, run);

  bool outputs_ok = write_files(o, run);
  const std::string report =
      o.json ? counters::counters_json(run).dump(2) + "\n" : counters::counters_text(run, o.summary);
  outputs_ok = emit(o, report) && outputs_ok;
  // The command's status first: a script that runs `ncp2 counters -- make` sees make's verdict.
  if (run.exit_code != 0) return run.exit_code;
  return outputs_ok ? kExitOk : kExitFailure;
}

}  // namespace

Subcommand add_counters_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "counters",
      "Run a command under performance counters (perf_event_open, one group) and sample them every period: "
      "per-period deltas and rates, totals; events that cannot be counted here are named with the reason. "
      "Exit code: the command's");
  auto o = std::make_shared<CountersCommand>();
  cmd->add_option("--period", o->period, "sampling period: 1ms, 10ms, 100ms, 5s (any from 100us to 60s)")
      ->type_name("DURATION")
      ->capture_default_str();
  cmd->add_option(
         "--events", o->events,
         "comma-separated events: generic perf names (task-clock, page-faults, instructions, "
         "L1-dcache-loads...), libpfm4 names (INST_RETIRED:ANY), rNNNN raw encodings. Default: "
         "instructions,cycles,L1-dcache-loads,L1-dcache-load-misses,task-clock,page-faults,context-switches")
      ->type_name("LIST");
  cmd->add_option("--db", o->db,
                  "also store the samples in this SQLite file (counter_runs, counter_events, "
                  "counter_samples; docs/schema.md)")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "replace an existing --db file");
  cmd->add_option("--plot", o->plot, "also draw each event's rate over time as a PNG (needs Qt 6)")
      ->type_name("OUT.png");
  cmd->add_flag("--json", o->json,
                "print JSON: events, period_ms, samples [{t_s, values}], totals, exit_code");
  cmd->add_option("-o,--output", o->output,
                  "write the report to FILE instead of stdout (the command keeps stdout)")
      ->type_name("FILE");
  cmd->add_flag("--summary", o->summary, "text report without the per-sample rows");
  cmd->add_flag("--no-inherit", o->no_inherit, "count the command alone, not the processes it starts");
  cmd->add_flag("--list-events", o->list_events,
                "probe which events this machine can count (all generic ones, or --events) and exit");
  cmd->add_option(
         "--trace", o->trace,
         "also write a bandwidth trace for `ncp2 schedule --set FILE` (docs/scheduling.md): per period, "
         "--trace-event's count x --trace-scale per microsecond")
      ->type_name("FILE");
  cmd->add_option("--trace-event", o->trace_event,
                  "the event of --trace (default: the first counted of LLC-load-misses, cache-misses, "
                  "L1-dcache-load-misses; it must be among --events)")
      ->type_name("EVENT");
  cmd->add_option("--trace-scale", o->trace_scale, "bus transactions per count of --trace-event (> 0)")
      ->capture_default_str();
  cmd->add_option("--trace-threads", o->trace_threads, "processors the traced command needs (1..1024)")
      ->capture_default_str();
  cmd->add_option("command", o->command, "the command and its arguments (after --)")
      ->type_name("COMMAND [ARGS...]");
  return {cmd, [o] { return run_counters(*o); }};
}

}  // namespace ncp2::cli
