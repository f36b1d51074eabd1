#pragma once
// Options every machine-using subcommand shares: --machine, --config, --set, --nodes.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dsm/config.hpp"

namespace ncp2::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the run failed (an error, verification, I/O)
inline constexpr int kExitUsage = 2;    // bad command line or configuration
inline constexpr int kExitDeadlock =
    3;                                // the run deadlocked: every node blocked (the diagnosis says on what)
inline constexpr int kExitRaces = 4;  // the run completed with data races (--detect-races)
inline constexpr int kExitLimit = 5;  // stopped by --max-virtual-time or --max-wall (results kept)

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

}  // namespace ncp2::cli
