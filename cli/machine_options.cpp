#include "cli/machine_options.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "cli/option_checks.hpp"

namespace ncp2::cli {

void add_machine_options(CLI::App& app, MachineOptions& options, bool allow_real) {
  if (allow_real)
    app.add_option("--machine", options.machine,
                   "ncp2 (protocol controllers), treadmarks (no CP: protocol work on the PP), or real (a "
                   "program on real processes over Open MPI, one per node: docs/real-machine.md)")
        ->check(CLI::IsMember({"ncp2", "treadmarks", "real"}));
  else
    app.add_option("--machine", options.machine,
                   "ncp2 (protocol controllers) or treadmarks (no CP: protocol work on the PP)")
        ->check(CLI::IsMember({"ncp2", "treadmarks"}));
  app.add_option("--config", options.config_file, "TOML file overriding the built-in defaults");
  app.add_option("--set", options.overrides, "override one key, e.g. --set network.link_latency=200ns")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app.add_option("--nodes", options.nodes, "number of nodes (overrides machine.nodes)")
      ->check(whole_number(1, emu::kMaxNodes));
}

dsm::SystemConfig load_machine_config(const MachineOptions& options) {
  using emu::MachineKind;
  dsm::SystemConfig config =
      dsm::default_config(options.machine == "treadmarks" ? MachineKind::TreadMarks : MachineKind::Ncp2);
  if (!options.config_file.empty()) {
    if (!std::filesystem::exists(options.config_file))
      throw emu::ConfigError(fmt::format("{}: no such configuration file", options.config_file));
    if (!std::filesystem::is_regular_file(options.config_file))
      throw emu::ConfigError(
          fmt::format("{}: is not a configuration file (a directory or a device); give a TOML file",
                      options.config_file));
    dsm::apply_toml_file(config, options.config_file);
  }
  for (const auto& assignment : options.overrides) dsm::apply_override(config, assignment);
  if (options.nodes) config.machine.nodes = *options.nodes;
  if (!options.machine.empty())
    config.machine.kind = options.machine == "treadmarks" ? MachineKind::TreadMarks : MachineKind::Ncp2;
  try {
    dsm::validate(config);
  } catch (const emu::ConfigError& e) {
    std::string origin = options.config_file.empty() ? std::string("configuration") : options.config_file;
    throw emu::ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
  return config;
}

void add_real_launch_options(CLI::App& cmd, std::string& hostfile, std::vector<std::string>& mpirun_args,
                             const std::string& prefix) {
  cmd.add_option("--hostfile", hostfile,
                 prefix + "the hosts to run the nodes on (Open MPI's hostfile: `host slots=N` per line)")
      ->type_name("FILE");
  cmd.add_option(
         "--mpirun-args", mpirun_args,
         prefix + "one more option for mpirun (repeatable), e.g. --mpirun-args=--mca=btl_tcp_if_include=eth0")
      ->type_name("ARG")
      ->allow_extra_args(false);
}

}  // namespace ncp2::cli
