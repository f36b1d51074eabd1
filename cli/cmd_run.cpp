// `ncp2 run WORKLOAD`: runs a workload on the emulated machine, verifies its result, prints a
// summary and optionally writes the statistics as JSON.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "dsm/types.hpp"
#include "workloads/registry.hpp"
#include "workloads/runner.hpp"
#include "workloads/stats_json.hpp"

namespace ncp2::cli {

namespace {

struct RunOptions {
  MachineOptions machine;
  std::string workload;
  std::vector<std::string> params;
  std::string preset;
  std::uint64_t seed = 1;
  std::string stats_json;
};

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

  const workloads::RunOutcome outcome = workloads::run_workload(config, *workload, params, o.seed);
  if (outcome.status == workloads::RunStatus::Invalid) {
    fmt::print(stderr, "ncp2: {}\n", outcome.diagnosis);
    return kExitUsage;
  }
  print_summary(outcome);
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
  if (outcome.status == workloads::RunStatus::Completed && !outcome.verified)
    fmt::print(stderr, "ncp2: verification failed: {}\n", outcome.verification);
  return outcome.ok() ? kExitOk : kExitFailure;
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run",
                                 "Run a workload on the emulated machine, verify its result, print a summary "
                                 "(exit 1 if it deadlocks, fails or does not verify)");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("workload", o->workload, "the workload (see ncp2 workloads)")->required();
  add_machine_options(*cmd, o->machine);
  cmd->add_option("--param", o->params,
                  "set a workload parameter, e.g. --param n=4096 (repeatable; after --preset)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--preset", o->preset,
                  "start from a named parameter set (small, paper) instead of the defaults");
  cmd->add_option("--seed", o->seed, "seed of the workload's initial data")->capture_default_str();
  cmd->add_option("--stats-json", o->stats_json, "write the run's statistics to FILE as JSON (atomically)")
      ->type_name("FILE");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
