// `ncp2 schedule`: bus-bandwidth-aware scheduling on an emulated SMP node (issues 22 and 35,
// docs/scheduling.md). Runs the survey's sets (or a recorded trace) under the baseline
// (native-threads) and the chosen policies; prints each application's turnaround and improvement
// over the baseline, and the bus utilization over time; optionally SQLite (--db) and a plot
// (--plot .png/.svg). --experiment groups: the survey's four experiment groups instead.
// Exit code: 0 done; 2 usage error (unknown set or policy, impossible parameters, bad trace
// file); 1 an output could not be written.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "carnival/store_error.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "figures/figure.hpp"
#include "scheduling/figure.hpp"
#include "scheduling/groups.hpp"
#include "scheduling/programs.hpp"
#include "scheduling/report.hpp"
#include "scheduling/result_store.hpp"

namespace ncp2::cli {

namespace {

struct ScheduleCommand {
  std::string experiment = "sets";
  std::vector<std::string> sets;
  std::string mix = "A";
  std::vector<std::string> policies;
  bool all = false;
  bool json = false;
  std::string quantum = "100ms";
  int window = 5;
  std::int64_t fair_share_slack = sched::kDefaultFairShareSlack;
  double split_progress = sched::NodeOptions{}.split_progress;
  int processors = 4;
  double bus = sched::kSurveyBusCapacity;
  double thread_peak = sched::kDefaultThreadPeak;
  double queueing = sched::survey_queueing();
  std::uint64_t seed = 1;
  std::string db;
  bool force = false;
  std::string plot;
};

// A usage error: said on stderr by run_schedule, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<sched::Policy> chosen_policies(const ScheduleCommand& o) {
  if (o.all && !o.policies.empty())
    throw UsageError("--all runs every policy: give --policy or --all, not both");
  if (o.all) return sched::all_policies();
  if (o.policies.empty())
    throw UsageError(fmt::format("which policy? --policy {} (or --all)", sched::policy_names_list()));
  std::vector<sched::Policy> out;
  for (const auto& name : o.policies) {
    const auto policy = sched::parse_policy(name);
    if (!policy)
      throw UsageError(fmt::format("unknown policy '{}' (policies: {})", name, sched::policy_names_list()));
    if (std::find(out.begin(), out.end(), *policy) == out.end()) out.push_back(*policy);
  }
  return out;
}

std::vector<sched::WorkloadSet> chosen_sets(const ScheduleCommand& o) {
  const auto mix = sched::parse_mix(o.mix);
  if (!mix) throw UsageError(fmt::format("unknown --mix '{}' (A, B or C)", o.mix));
  std::vector<std::string> names = o.sets;
  if (names.empty() && o.all) names = {"A", "B", "C"};
  if (names.empty()) throw UsageError("which set? --set A|B|C|FILE (a bandwidth trace file)");
  std::vector<sched::WorkloadSet> sets;
  for (const auto& name : names) {
    // A set named twice runs once (its rows would be the same, and the database keys them by set).
    if (std::find_if(sets.begin(), sets.end(), [&](const auto& s) { return s.name == name; }) != sets.end())
      continue;
    if (const auto standard = sched::parse_mix(name)) {
      sets.push_back(sched::standard_set(*standard));
      continue;
    }
    if (!std::filesystem::exists(name))
      throw UsageError(fmt::format("unknown set '{}': not A, B or C, and no such trace file", name));
    try {
      sets.push_back({name, *mix, {sched::read_trace_file(name)}});
    } catch (const sched::TraceError& e) {
      throw UsageError(e.what());
    }
  }
  return sets;
}

sched::NodeOptions node_options(const ScheduleCommand& o) {
  sched::NodeOptions options;
  try {
    options.quantum = sched::parse_quantum(o.quantum);
    options.processors = o.processors;
    options.capacity = sched::Bandwidth(o.bus);
    options.peak_per_thread = sched::Bandwidth(o.thread_peak);
    options.queueing = o.queueing;
    options.window = o.window;
    options.fair_share_slack = o.fair_share_slack;
    options.split_progress = o.split_progress;
    options.seed = o.seed;
    sched::check_node_options(options);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return options;
}

void check_outputs(const ScheduleCommand& o) {
  if (!o.db.empty())
    if (const auto problem = sched::check_experiment_output(o.db, o.force); !problem.empty())
      throw UsageError(problem);
  if (!o.plot.empty())
    if (const auto problem = figures::check_plot_path(o.plot); !problem.empty()) throw UsageError(problem);
}

// --db and --plot; each failure said on stderr. Returns whether all were written.
bool write_outputs(const ScheduleCommand& o, const sched::Experiment& experiment) {
  bool ok = true;
  if (!o.db.empty()) try {
      sched::write_experiment(o.db, experiment, o.force);
    } catch (const carnival::StoreError& e) {
      fmt::print(stderr, "ncp2: schedule: {}\n", e.what());
      ok = false;
    }
  if (!o.plot.empty()) try {
      figures::write_figure(sched::experiment_figure(experiment), o.plot);
    } catch (const figures::PlotError& e) {
      fmt::print(stderr, "ncp2: schedule: {}\n", e.what());
      ok = false;
    }
  return ok;
}

// --experiment groups: the characterized programs (or the trace files of --set) in the four groups.
int run_groups(const ScheduleCommand& o) {
  std::vector<sched::DemandTrace> applications;
  sched::NodeOptions options;
  try {
    if (o.all || !o.policies.empty() || !o.db.empty() || !o.plot.empty())
      throw UsageError(
          "--experiment groups involves no policy and writes no --db or --plot (those are for the sets)");
    options = node_options(o);
    for (const auto& name : o.sets) {
      if (sched::parse_mix(name)) continue;  // A, B, C: the characterized programs
      if (!std::filesystem::exists(name)) throw UsageError(fmt::format("no such trace file '{}'", name));
      try {
        applications.push_back(sched::read_trace_file(name));
      } catch (const sched::TraceError& e) {
        throw UsageError(e.what());
      }
    }
    if (applications.empty()) applications = sched::characterized_programs();
    for (const auto& a : applications)
      if (a.threads * 2 > options.processors)
        throw UsageError(fmt::format("{} needs {} processors; two instances need {} and the node has {}",
                                     a.name, a.threads, 2 * a.threads, options.processors));
  } catch (const UsageError& e) {
    fmt::print(stderr, "ncp2: schedule: {}\n", e.what());
    return kExitUsage;
  }
  const auto result = sched::run_groups(applications, options);
  fmt::print("{}", o.json ? sched::groups_json(result).dump(2) + "\n" : sched::groups_text(result));
  return kExitOk;
}

int run_schedule(const ScheduleCommand& o) {
  if (o.experiment == "groups") return run_groups(o);
  if (o.experiment != "sets") {
    fmt::print(stderr, "ncp2: schedule: unknown --experiment '{}' (sets or groups)\n", o.experiment);
    return kExitUsage;
  }
  std::vector<sched::Policy> policies;
  std::vector<sched::WorkloadSet> sets;
  sched::NodeOptions options;
  try {
    policies = chosen_policies(o);
    sets = chosen_sets(o);
    options = node_options(o);
    check_outputs(o);
    for (const auto& set : sets)
      for (const auto& a : set.applications)
        if (a.threads > options.processors)
          throw UsageError(fmt::format("{} needs {} processors; the node has {} (--processors)", a.name,
                                       a.threads, options.processors));
  } catch (const UsageError& e) {
    fmt::print(stderr, "ncp2: schedule: {}\n", e.what());
    return kExitUsage;
  }
  const sched::Experiment experiment = sched::run_experiment(sets, policies, options);
  if (o.json)
    fmt::print("{}\n", sched::experiment_json(experiment).dump(2));
  else
    fmt::print("{}", sched::experiment_text(experiment, policies));
  return write_outputs(o, experiment) ? kExitOk : kExitFailure;
}

}  // namespace

Subcommand add_schedule_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("schedule",
                         "Bus-bandwidth-aware scheduling on an emulated SMP node (P processors "
                         "sharing one memory bus): run a set of "
                         "applications beside BBMA/nBBMA microbenchmarks under native time sharing "
                         "and a policy (Latest Quantum, Quanta Window, IABW); print each application's "
                         "turnaround time and improvement over the Linux-2.4-like baseline "
                         "(native-threads), and the bus utilization over time; or the survey's four "
                         "experiment groups (--experiment groups; docs/scheduling.md)");
  auto o = std::make_shared<ScheduleCommand>();
  cmd->add_option("--experiment", o->experiment,
                  "sets: the survey's sets A-C under the policies; groups: each application alone, beside a "
                  "second instance, beside 2 BBMA, beside 2 nBBMA (what the bus model was calibrated on)")
      ->type_name("sets|groups")
      ->capture_default_str();
  cmd->add_option(
         "--set", o->sets,
         "A (2 instances of each program + 4 BBMA), B (+ 4 nBBMA), C (+ 2 BBMA + 2 nBBMA), or FILE: a "
         "bandwidth trace (ncp2 counters --trace) run as the application of --mix; repeatable. "
         "Default with --all: A, B and C")
      ->type_name("A|B|C|FILE");
  cmd->add_option("--mix", o->mix, "the microbenchmarks beside a trace FILE: those of set A, B or C")
      ->type_name("A|B|C")
      ->capture_default_str();
  cmd->add_option("--policy", o->policies,
                  "native (gang) | native-threads (the baseline) | latest-quantum | quanta-window | iabw (Di "
                  "Xu's fitted reference) | iabw-ideal (reference = IABW) | iabw-peak (reference = bus "
                  "capacity, PBW); repeatable or comma-separated")
      ->delimiter(',')
      ->type_name("POLICY[,POLICY...]");
  cmd->add_flag("--all", o->all, "run every policy and print them side by side");
  cmd->add_flag(
      "--json", o->json,
      "print JSON: {rows: [{set, application, policy, turnaround_s, improvement_pct, baseline}], bus: "
      "[{set, application, policy, capacity, target, ideal_average, t_s, served, demand}]}; with "
      "--experiment groups {groups: [{application, group, bus_per_us, slowdown}], calibration: {...}}");
  cmd->add_option("--quantum", o->quantum,
                  "scheduler quantum, with its unit: 100ms, 1s, 500us (100us to 1 hour)")
      ->type_name("DURATION")
      ->capture_default_str();
  cmd->add_option("--window", o->window, "quanta averaged by quanta-window and iabw (1..1000)")
      ->capture_default_str();
  cmd->add_option("--fair-share-slack", o->fair_share_slack,
                  "quanta a job may run ahead of the least-served one before the bandwidth-aware policies "
                  "prefer the others (our addition; docs/scheduling.md)")
      ->capture_default_str();
  cmd->add_option("--split-progress", o->split_progress,
                  "native-threads (the baseline): the share of its progress a parallel job keeps per thread "
                  "given while others wait (0: it spins at its next synchronization; 1: its threads never "
                  "synchronize; docs/scheduling.md)")
      ->capture_default_str();
  cmd->add_option("--processors", o->processors, "processors of the node (1..1024)")->capture_default_str();
  cmd->add_option("--bus", o->bus, "bus capacity B in transactions/us (0.1 to 1e6)")->capture_default_str();
  cmd->add_option(
         "--thread-peak", o->thread_peak,
         "what a thread that only transfers issues on an idle bus, transactions/us (0.01 to 1e6; sets "
         "how much a job stalls on the bus)")
      ->capture_default_str();
  cmd->add_option(
         "--queueing", o->queueing,
         "k of the memory latency 1 + k U / (1 - U) at bus utilization U (0.0001 to 1000; the default "
         "makes two threads that only transfer draw the survey's 23.31/us alone)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of native's tie order (same seed, same results)")
      ->capture_default_str();
  cmd->add_option("--db", o->db, "also store the results and bus series in this SQLite file (docs/schema.md)")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "replace an existing --db file");
  cmd->add_option(
         "--plot", o->plot,
         "also draw the improvements and the bus utilization over time (.png needs Qt 6, .svg always)")
      ->type_name("OUT.png|OUT.svg");
  return {cmd, [o] { return run_schedule(*o); }};
}

}  // namespace ncp2::cli
