// `ncp2 sweep`'s options turned into a checked sweep (cli/sweep_checks.hpp).
#include "cli/sweep_checks.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "emulator/config.hpp"
#include "run/run_session.hpp"
#include "tmk/channel.hpp"
#include "tmk/host/program.hpp"
#include "workloads/registry.hpp"

namespace ncp2::cli {

using sweep::GridError;

bool built_with_ncp2_cc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes.find(tmk::kChannelFdEnv) != std::string::npos;
}

namespace {

namespace fs = std::filesystem;

std::vector<std::string> machines_of(const SweepRequest& r) {
  if (!r.machines) {
    MachineOptions configured;
    configured.config_file = r.config_file;
    try {
      const dsm::SystemConfig c = load_machine_config(configured);
      return {c.machine.kind == emu::MachineKind::TreadMarks ? "treadmarks" : "ncp2"};
    } catch (const emu::ConfigError& e) {
      throw GridError(fmt::format("configuration error: {}", e.what()));
    }
  }
  std::vector<std::string> machines = sweep::split_list(*r.machines, "--machine");
  for (const std::string& m : machines) {
    if (m == "real")
      throw GridError(
          "--machine real: a sweep runs the emulated machines (ncp2, treadmarks); real runs are measured, "
          "not "
          "emulated, and points running side by side would compete for the host's cores (run a program on "
          "real "
          "processes with ncp2 run ./prog --machine real)");
    if (m != "ncp2" && m != "treadmarks")
      throw GridError(fmt::format("--machine: '{}' is not one of: ncp2, treadmarks", m));
  }
  return machines;
}

std::vector<int> nodes_of(const SweepRequest& r) {
  const CLI::Validator check = whole_number(1, emu::kMaxNodes);
  std::vector<int> nodes;
  for (std::string text : sweep::split_list(r.nodes, "--nodes")) {
    if (const std::string why = check(text); !why.empty()) throw GridError(fmt::format("--nodes: {}", why));
    nodes.push_back(std::stoi(text));
  }
  std::sort(nodes.begin(), nodes.end());
  if (std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end())
    throw GridError(fmt::format("--nodes '{}': a node count is given twice", r.nodes));
  return nodes;
}

std::vector<sweep::SettingAxis> axes_of(const SweepRequest& r) {
  std::vector<sweep::SettingAxis> axes;
  for (const std::string& set : r.sets) {
    sweep::SettingAxis axis = sweep::parse_axis(set);
    if (axis.key == "machine.nodes" || axis.key == "machine.kind")
      throw GridError(
          fmt::format("--set {}: give the sweep's {} with {} (a list, e.g. {})", axis.key,
                      axis.key == "machine.nodes" ? "node counts" : "machines",
                      axis.key == "machine.nodes" ? "--nodes" : "--machine",
                      axis.key == "machine.nodes" ? "--nodes 1,2,4" : "--machine ncp2,treadmarks"));
    for (const sweep::SettingAxis& other : axes)
      if (other.key == axis.key)
        throw GridError(fmt::format(
            "--set {} is given twice: give all its values in one list (--set {}=V1,V2)", axis.key, axis.key));
    axes.push_back(std::move(axis));
  }
  return axes;
}

MachineOptions machine_options(const SweepRequest& r, const std::string& machine, int nodes,
                               std::vector<std::string> overrides) {
  MachineOptions o;
  o.machine = machine;
  o.config_file = r.config_file;
  o.overrides = std::move(overrides);
  o.nodes = nodes;
  return o;
}

// Each value alone, as `ncp2 run --set` reads it (unknown key, unit, range); two values that give
// the same configuration ("200ns", "0.2us") are one value given twice.
void check_values(const SweepRequest& r, const sweep::SweepSpec& spec) {
  for (const sweep::SettingAxis& axis : spec.settings) {
    std::map<std::string, std::string> seen;  // the effective configuration -> the value giving it
    for (const std::string& value : axis.values) {
      const std::string assignment = fmt::format("{}={}", axis.key, value);
      std::string toml;
      try {
        toml = dsm::to_toml(
            load_machine_config(machine_options(r, spec.machines.front(), spec.nodes.back(), {assignment})));
      } catch (const emu::ConfigError& e) {
        std::string_view why = e.what();
        if (why.starts_with("--set: ")) why.remove_prefix(7);  // the assignment is named already
        throw GridError(fmt::format("--set {}: {}", assignment, why));
      }
      if (const auto [it, fresh] = seen.emplace(toml, value); !fresh)
        throw GridError(fmt::format("--set {}: {} and {} are the same value", axis.key, it->second, value));
    }
  }
}

// A program's path: it exists, runs, and was built with ncp2-cc (`ncp2 run`'s checks, and the last
// one before anything runs rather than at each point's start).
std::string checked_program(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec) && fs::is_regular_file(path, ec) && !built_with_ncp2_cc(path))
    throw GridError(fmt::format(
        "{} was not built with ncp2-cc (it has no TreadMarks runtime of ncp2): build it with ncp2-cc, e.g. "
        "ncp2-cc -O2 -o prog prog.c",
        path));
  try {
    (void)tmk::program_workload({path, {}, {}, false});
  } catch (const workloads::WorkloadError& e) {
    throw GridError(e.what());
  }
  return fs::absolute(path).lexically_normal().string();
}

// Every point as `ncp2 run` would start it: its configuration validated, its session built.
void check_points(const SweepRequest& r, const sweep::SweepSpec& spec) {
  const bool program = tmk::looks_like_program(spec.target);
  for (const sweep::Point& p : sweep::expand_grid(spec)) {
    std::vector<std::string> overrides;
    for (const auto& s : p.settings) overrides.push_back(fmt::format("{}={}", s.key, s.value));
    dsm::SystemConfig config;
    try {
      config = load_machine_config(machine_options(r, p.machine, p.nodes, overrides));
    } catch (const emu::ConfigError& e) {
      throw GridError(fmt::format("point {}: {}", p.name, e.what()));
    }
    run::SessionOptions s;
    s.workload = spec.target;
    s.preset = r.preset;
    s.params = r.params;
    s.history = false;
    try {
      if (program) s.program = tmk::program_workload({spec.target, spec.program_args, {}, false});
      const run::RunSession session(std::move(config), std::move(s));
    } catch (const std::runtime_error& e) {  // run::SessionError, workloads::WorkloadError
      throw GridError(fmt::format("point {}: {}", p.name, e.what()));
    }
  }
}

// The options every point gets, as words of `ncp2 run`.
std::vector<std::string> shared_run_options(const SweepRequest& r, const std::string& config_file) {
  std::vector<std::string> words;
  if (!config_file.empty()) words.insert(words.end(), {"--config", config_file});
  if (!r.preset.empty()) words.insert(words.end(), {"--preset", r.preset});
  for (const std::string& p : r.params) words.insert(words.end(), {"--param", p});
  if (!r.seed.empty()) words.insert(words.end(), {"--seed", r.seed});
  if (r.time_model.model != "deterministic") words.insert(words.end(), {"--time-model", r.time_model.model});
  if (r.time_model.target_mhz)
    words.insert(words.end(), {"--target-mhz", fmt::format("{}", *r.time_model.target_mhz)});
  if (r.time_model.scale) words.insert(words.end(), {"--scale", fmt::format("{}", *r.time_model.scale)});
  return words;
}

}  // namespace

sweep::SweepSpec build_sweep_spec(const SweepRequest& r) {
  sweep::SweepSpec spec;
  const bool program = tmk::looks_like_program(r.target);
  if (!program && !r.program_args.empty())
    throw GridError(fmt::format(
        "{} is a built-in workload: program arguments are for programs built with ncp2-cc (give their path, "
        "e.g. ./prog)",
        r.target));
  if (r.time_model.model != "measured" && (r.time_model.target_mhz || r.time_model.scale))
    throw GridError("--target-mhz and --scale need --time-model measured");
  spec.target = program ? checked_program(r.target) : r.target;
  if (program) spec.content_files.push_back(spec.target);
  spec.program_args = r.program_args;
  spec.nodes = nodes_of(r);
  spec.machines = machines_of(r);
  spec.settings = axes_of(r);
  std::string config_file;
  if (!r.config_file.empty()) {
    config_file = fs::absolute(r.config_file).lexically_normal().string();
    std::error_code ec;
    if (fs::is_regular_file(config_file, ec)) spec.content_files.push_back(config_file);
  }
  spec.run_options = shared_run_options(r, config_file);
  check_values(r, spec);
  check_points(r, spec);
  return spec;
}

}  // namespace ncp2::cli
