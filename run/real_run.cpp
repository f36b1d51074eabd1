// A real run (run/real_run.hpp): the program on real processes, one per node, started by Open
// MPI's mpirun (docs/real-machine.md). Everything that can be checked is checked before mpirun
// starts; node 0's ncp2-node writes the database and prints the summary; when the run dies
// before it could (a node's agent killed, mpirun failing), this side records the failure.
#include "run/real_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "carnival/exit_codes.hpp"
#include "carnival/output_paths.hpp"
#include "carnival/store.hpp"
#include "carnival/store_error.hpp"
#include "carnival/utc_time.hpp"
#include "dsm/config.hpp"
#include "real_machine/launcher.hpp"
#include "real_machine/subprocess.hpp"
#include "tmk/host/program.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

std::optional<std::string> program_problem(const std::string& program, const std::vector<std::string>& args,
                                           const std::string& node_output, const std::string& not_a_program) {
  if (!tmk::looks_like_program(program)) return not_a_program;
  try {
    (void)tmk::program_workload({program, args, node_output, false});
  } catch (const workloads::WorkloadError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

namespace {

namespace fs = std::filesystem;
using carnival::kExitFailure;
using carnival::kExitOk;
using carnival::kExitUsage;

// ncp2-node is installed next to ncp2.
std::string node_executable() { return real::executable_next_to_us("ncp2-node"); }

std::string absolute(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).lexically_normal().string();
}

std::vector<std::string> node_command(const RealRun& r, const std::string& node, const std::string& config) {
  std::vector<std::string> c{node,
                             "--program",
                             absolute(r.program),
                             "--name",
                             r.program,  // as the user named it: the emulated run's name too
                             "--heap-mb",
                             std::to_string(r.config.tmk.heap_mb),
                             "--sample-instructions",
                             std::to_string(r.config.tmk.sample_instructions),
                             "--protocol",  // the protocol as the emulated runs take it
                             lrc::protocol_argument(dsm::protocol_config(r.config)),
                             "--started-at",
                             carnival::utc_now_iso(),
                             "--config",
                             config};
  if (!r.db.empty()) c.insert(c.end(), {"--db", absolute(r.db)});
  if (r.force) c.emplace_back("--force");
  c.insert(c.end(), {"--max-wait-rows", std::to_string(r.max_wait_rows), "--max-timeline",
                     std::to_string(r.max_timeline), "--status-line"});
  if (!r.node_output.empty()) c.insert(c.end(), {"--node-output", absolute(r.node_output)});
  if (r.max_wall_s > 0) c.insert(c.end(), {"--max-wall", fmt::format("{}", r.max_wall_s)});
  c.emplace_back("--");
  c.insert(c.end(), r.args.begin(), r.args.end());
  return c;
}

// The run died before node 0 wrote its database: record that it failed, and why.
void record_failure(const RealRun& r, const std::string& config, const std::string& why, bool interrupted) {
  if (r.db.empty() || (fs::exists(r.db) && !r.force)) return;
  carnival::RunData d;
  d.run.workload = r.program;
  d.run.machine = "real";
  d.run.nodes = r.nodes;
  d.run.status = interrupted ? "incomplete" : "failed";
  d.run.config = config;
  d.run.parameters = "{}";
  d.run.started_at = carnival::utc_now_iso();
  d.run.message = why;
  for (int k = 0; k < r.nodes; ++k) d.nodes.push_back({k, 0});
  try {
    carnival::write_run(r.db, d, {.force = r.force});
    fmt::print(stderr, "ncp2: {} records the failed run\n", r.db);
  } catch (const carnival::StoreError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
  }
}

int checked_before_launch(const RealRun& r) {
  if (const std::optional<std::string> problem = program_problem(
          r.program, r.args, r.node_output,
          fmt::format("--machine real runs programs built with ncp2-cc (give their path, e.g. ./prog); the "
                      "built-in workload {} runs on the emulated machines (ncp2, treadmarks)",
                      r.program))) {
    fmt::print(stderr, "ncp2: {}\n", *problem);
    return kExitUsage;
  }
  const auto host_page = static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
  if (r.config.memory.page_size % host_page != 0) {
    fmt::print(
        stderr,
        "ncp2: memory.page_size = {} B: real page protection needs a multiple of the host's page, {} B\n",
        r.config.memory.page_size, host_page);
    return kExitUsage;
  }
  if (!r.db.empty()) {
    try {
      carnival::check_database_output(r.db, r.force);
    } catch (const carnival::OutputError& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      return kExitUsage;
    }
  }
  return kExitOk;
}

}  // namespace

std::optional<std::string> real_launch_problem(int nodes, const std::string& hostfile,
                                               const std::vector<std::string>& mpirun_args) {
  try {
    for (const std::string& a : mpirun_args) (void)real::split_shell_words(a);
    real::MpiLaunch launch;
    launch.nodes = nodes;
    launch.hostfile = hostfile;
    launch.node_command = {node_executable()};
    (void)real::detect_environment(launch);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

int run_real_machine(const RealRun& r) {
  if (const int code = checked_before_launch(r); code != kExitOk) return code;
  const std::string config = dsm::to_toml(r.config);
  real::MpiLaunch launch;
  launch.nodes = r.nodes;
  launch.hostfile = r.hostfile;
  // Node 0's verdict comes as its last line (mpirun would add a banner to a non-zero exit); a
  // node that dies is named by mpirun itself.
  std::optional<int> node0_status;
  launch.stdout_filter = [&node0_status](std::string_view line) {
    constexpr std::string_view kStatus = "ncp2-node status ";
    if (!line.starts_with(kStatus)) return true;
    node0_status = std::atoi(std::string(line.substr(kStatus.size())).c_str());
    return false;
  };
  try {
    for (const std::string& a : r.mpirun_args)
      for (std::string& word : real::split_shell_words(a))
        launch.extra_mpirun_args.push_back(std::move(word));
    // Oversubscribed, Open MPI yields the core in every poll of a blocking call, which makes the
    // clock synchronization's round trips long and its bound 3-5x wider (docs/real-machine.md);
    // the agents' own polling does not block. Unless the user chose (Open MPI refuses a repeat).
    const auto names_yield = [](const std::string& w) {
      return w.find("mpi_yield_when_idle") != std::string::npos;
    };
    if (std::getenv("OMPI_MCA_mpi_yield_when_idle") == nullptr &&
        std::none_of(launch.extra_mpirun_args.begin(), launch.extra_mpirun_args.end(), names_yield))
      launch.extra_mpirun_args.insert(launch.extra_mpirun_args.begin(),
                                      {"--mca", "mpi_yield_when_idle", "0"});
    launch.node_command = node_command(r, node_executable(), config);
    launch.mpirun = real::find_mpirun("");
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  // Where the nodes run: a hostfile's hosts, else a Slurm allocation's (mpirun reads it), else here.
  const char* slurm_job = std::getenv("SLURM_JOB_ID");
  const std::string where = !r.hostfile.empty() ? " on the hosts of " + r.hostfile
                            : slurm_job != nullptr && *slurm_job != '\0'
                                ? fmt::format(" on the nodes of Slurm job {}", slurm_job)
                                : std::string(" on this machine");
  fmt::print("machine   real, {} node{} (processes started by {}{})\n", r.nodes, r.nodes == 1 ? "" : "s",
             launch.mpirun, where);
  std::fflush(stdout);
  int status = 0;
  try {
    status = real::run_mpirun(launch);
  } catch (const real::LaunchError& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  if (status == kExitOk && node0_status) return *node0_status;
  const bool interrupted = status == 128 + SIGINT || status == 128 + SIGTERM || status == 128 + SIGHUP;
  const std::string why =
      interrupted
          ? "interrupted"
          : fmt::format(
                "mpirun exited with status {}: a node's agent (ncp2-node) ended without finishing the "
                "run (killed, crashed, out of memory); mpirun's message above names it",
                status);
  fmt::print(stderr, "ncp2: the real run failed: {}\n", why);
  record_failure(r, config, why, interrupted);
  return kExitFailure;
}

}  // namespace ncp2::run
