#pragma once
// Options every machine-using subcommand shares: --machine, --config, --set, --nodes; and those of
// every command that starts real runs: --hostfile, --mpirun-args.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "carnival/exit_codes.hpp"
#include "dsm/config.hpp"

namespace ncp2::cli {

// Exit codes of every subcommand (carnival/exit_codes.hpp: real runs' nodes report the same).
using carnival::kExitDeadlock;
using carnival::kExitFailure;
using carnival::kExitLimit;
using carnival::kExitOk;
using carnival::kExitRaces;
using carnival::kExitUsage;

struct MachineOptions {
  std::string machine;  // empty: from the config file, else ncp2
  std::string config_file;
  std::vector<std::string> overrides;
  std::optional<int> nodes;
};

// `allow_real`: --machine real too (ncp2 run: a program on real processes over Open MPI).
void add_machine_options(CLI::App& app, MachineOptions& options, bool allow_real = false);
// Builds the effective configuration: defaults, then --config, then --set, then --nodes and
// --machine. Throws emu::ConfigError with a message naming the file or option and the key.
dsm::SystemConfig load_machine_config(const MachineOptions& options);

// --hostfile and --mpirun-args, for every command that starts real runs (run, calibrate,
// validate; run/real_run.hpp); `prefix` begins their help ("--machine real: " where the command
// also runs emulated).
void add_real_launch_options(CLI::App& cmd, std::string& hostfile, std::vector<std::string>& mpirun_args,
                             const std::string& prefix);

}  // namespace ncp2::cli
