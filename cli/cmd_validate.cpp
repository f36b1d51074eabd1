// `ncp2 validate ./prog --nodes N [--preset FILE] [--repeat R] -- ARGS`: the emulator's prediction
// of a program against its measured real runs (validation/validate.hpp, docs/validation.md).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "dsm/config.hpp"
#include "emulator/config_error.hpp"
#include "run/real_run.hpp"
#include "validation/validate.hpp"

namespace ncp2::cli {

namespace {

namespace fs = std::filesystem;

struct ValidateCommand {
  validation::ValidateOptions run;
  bool json = false;
  bool force = false;
};

// A directory holding an earlier validation is kept unless --force: its databases would be
// replaced one by one as the new runs finish.
bool holds_earlier_results(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "comparison.json" || name == "emulated.db" ||
        (name.starts_with("real-") && name.ends_with(".db")))
      return true;
  }
  return false;
}

// Everything that can be refused is refused before the first run (they take a while).
int check(ValidateCommand& c) {
  validation::ValidateOptions& o = c.run;
  if (const std::optional<std::string> problem = run::program_problem(
          o.program, o.args, "",
          fmt::format("validate runs programs built with ncp2-cc on real processes (give their path, e.g. "
                      "./prog); {} is not one",
                      o.program))) {
    fmt::print(stderr, "ncp2: {}\n", *problem);
    return kExitUsage;
  }
  if (!o.preset.empty()) {
    try {
      dsm::SystemConfig config = dsm::default_config(emu::MachineKind::TreadMarks);
      dsm::apply_toml_file(config, o.preset);
      dsm::validate(config);
    } catch (const emu::ConfigError& e) {
      fmt::print(stderr, "ncp2: --preset {}: {}\n", o.preset, e.what());
      return kExitUsage;
    }
  }
  if (o.out_dir.empty())
    o.out_dir = fmt::format("runs/validate-{}-{}n", fs::path(o.program).filename().string(), o.nodes);
  std::error_code ec;
  if (fs::exists(o.out_dir, ec) && !fs::is_directory(o.out_dir, ec)) {
    fmt::print(stderr, "ncp2: --out {}: is not a directory\n", o.out_dir);
    return kExitUsage;
  }
  if (!c.force && holds_earlier_results(o.out_dir)) {
    fmt::print(stderr,
               "ncp2: --out {}: holds an earlier validation (its databases and comparison); give --force to "
               "replace it, or another --out\n",
               o.out_dir);
    return kExitUsage;
  }
  if (const auto problem = run::real_launch_problem(o.nodes, o.hostfile, o.mpirun_args)) {
    fmt::print(stderr, "ncp2: cannot run on real processes: {}\n", *problem);
    return kExitUsage;
  }
  fs::create_directories(o.out_dir, ec);
  if (ec) {
    fmt::print(stderr, "ncp2: --out {}: cannot create it: {}\n", o.out_dir, ec.message());
    return kExitUsage;
  }
  return kExitOk;
}

int run(ValidateCommand& c) {
  if (const int code = check(c); code != kExitOk) return code;
  try {
    if (!c.json)
      fmt::print("{} real run{} of {} on {} nodes, then its emulated prediction (into {})...\n", c.run.repeat,
                 c.run.repeat == 1 ? "" : "s", c.run.program, c.run.nodes, c.run.out_dir);
    std::fflush(stdout);
    if (!c.json)
      c.run.progress = [](const std::string& line) {
        fmt::print("  {}\n", line);
        std::fflush(stdout);
      };
    const validation::Validation v = validation::validate(c.run);
    if (c.json)
      fmt::print("{}\n", validation::validation_json(v).dump(2));
    else
      fmt::print("{}\nstored    {}/real-*.db, emulated.db, comparison.txt, comparison.json\n",
                 validation::validation_text(v), c.run.out_dir);
    return kExitOk;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

Subcommand add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateCommand>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Run a program on real processes and on the emulated machine, and compare prediction and measurement");
  cmd->add_option("program", o->run.program, "the program (built with ncp2-cc)")->required();
  cmd->add_option("args", o->run.args, "the program's arguments (after --)");
  cmd->add_option("--nodes", o->run.nodes, "nodes (processes) of both runs")
      ->check(whole_number(1, 4096))
      ->default_val(2);
  cmd->add_option("--repeat", o->run.repeat, "real runs (the median is compared, their spread reported)")
      ->check(whole_number(1, 100))
      ->default_val(3);
  cmd->add_option("--preset", o->run.preset, "the emulated machine: a preset (e.g. from ncp2 calibrate)")
      ->type_name("FILE.toml");
  cmd->add_option("--out", o->run.out_dir,
                  "where the databases and the comparison go (default runs/validate-PROG-Nn)")
      ->type_name("DIR");
  add_real_launch_options(*cmd, o->run.hostfile, o->run.mpirun_args, "");
  cmd->add_flag("--force", o->force, "replace an earlier validation in --out");
  cmd->add_flag("--json", o->json, "print the comparison as one JSON object");
  cmd->footer(
      "Example: ncp2 validate ./jacobi --nodes 2 --preset calibrated.toml -- 130 130 6\n"
      "The emulated run charges computation by the host's measured time (--time-model measured), so\n"
      "the prediction is of this host; the preset (ncp2 calibrate) gives its protocol and network\n"
      "costs. What a real run cannot observe is said, not compared (docs/validation.md).");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
