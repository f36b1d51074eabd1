// `ncp2 validate ./prog --nodes N [--preset FILE] [--repeat R] [--predictions P] -- ARGS`: the
// emulator's prediction of a program against its measured real runs, with this host's kept
// calibration unless a preset is given (validation/validate.hpp, validation/calibration_cache.hpp,
// docs/validation.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "run/real_run.hpp"
#include "validation/calibration_cache.hpp"
#include "validation/validate.hpp"

namespace ncp2::cli {

namespace {

namespace fs = std::filesystem;

struct ValidateCommand {
  validation::ValidateOptions run;
  bool json = false;
  bool force = false;
  // Without --preset: this host's kept calibration (validation/calibration_cache.hpp).
  validation::CacheRequest cache;
  int calibrate_rounds = 9;
};

// A directory holding an earlier validation is kept unless --force: its databases would be
// replaced one by one as the new runs finish.
bool holds_earlier_results(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "comparison.json" || name == "emulated.db" ||
        ((name.starts_with("real-") || name.starts_with("emulated-")) && name.ends_with(".db")))
      return true;
  }
  return false;
}

// Without --preset: where this host's calibration is kept, and what it must match to be reused.
int check_cache(ValidateCommand& c) {
  validation::CacheRequest& q = c.cache;
  try {
    q.dir = validation::calibration_cache_dir();
    if (const auto problem = validation::cache_dir_problem(q.dir)) {
      fmt::print(
          stderr,
          "ncp2: cannot keep this host's calibration: {} (NCP2_CALIBRATION_CACHE chooses the directory; "
          "or give --preset FILE)\n",
          *problem);
      return kExitUsage;
    }
    q.host = validation::this_host();
    q.build = validation::this_build();
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitUsage;
  }
  // The basic costs need two nodes at least (a one-node program has no messages to cost).
  q.calibrate.nodes = std::max(c.run.nodes, 2);
  q.calibrate.rounds = c.calibrate_rounds;
  q.calibrate.hostfile = c.run.hostfile;
  q.calibrate.mpirun_args = c.run.mpirun_args;
  return kExitOk;
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
    if (const auto problem = validation::preset_problem(o.preset)) {
      fmt::print(stderr, "ncp2: --preset {}: {}\n", o.preset, *problem);
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
  if (o.preset.empty())
    if (const int code = check_cache(c); code != kExitOk) return code;
  fs::create_directories(o.out_dir, ec);
  if (ec) {
    fmt::print(stderr, "ncp2: --out {}: cannot create it: {}\n", o.out_dir, ec.message());
    return kExitUsage;
  }
  return kExitOk;
}

int run(ValidateCommand& c) {
  if (const int code = check(c); code != kExitOk) return code;
  // With --json, stdout is the one JSON object: everything else is said on stderr.
  std::FILE* said = c.json ? stderr : stdout;
  const auto say = [said](const std::string& line) {
    fmt::print(said, "{}\n", line);
    std::fflush(said);
  };
  if (c.run.preset.empty()) {
    try {
      const validation::CacheMessages messages{
          say, [](const std::string& line) { fmt::print(stderr, "ncp2: {}\n", line); }};
      c.run.calibration = validation::cached_calibration(c.cache, validation::host_calibrator(), messages);
      c.run.preset = c.run.calibration->path;
    } catch (const std::exception& e) {
      fmt::print(stderr, "ncp2: calibrating this host failed: {}\n", e.what());
      return kExitFailure;
    }
  }
  try {
    say(fmt::format("{} real run{} of {} on {} node{} and {} emulated prediction{}, in turn (into {})...",
                    c.run.repeat, c.run.repeat == 1 ? "" : "s", c.run.program, c.run.nodes,
                    c.run.nodes == 1 ? "" : "s", c.run.predictions, c.run.predictions == 1 ? "" : "s",
                    c.run.out_dir));
    c.run.progress = [say](const std::string& line) { say("  " + line); };
    const validation::Validation v = validation::validate(c.run);
    if (c.json)
      fmt::print("{}\n", validation::validation_json(v).dump(2));
    else
      fmt::print(
          "{}\nstored    {}/real-*.db, emulated-*.db, preset.toml (the preset used), comparison.txt, "
          "comparison.json\n",
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
  cmd->add_option("--predictions", o->run.predictions,
                  "emulated runs (they vary: the computation is timed on the host; the median is compared, "
                  "their spread reported)")
      ->check(whole_number(1, 100))
      ->default_val(3);
  auto* preset = cmd->add_option("--preset", o->run.preset,
                                 "the emulated machine: a preset (e.g. from ncp2 calibrate); default: this "
                                 "host's calibration, made once and kept")
                     ->type_name("FILE.toml");
  cmd->add_flag("--recalibrate", o->cache.recalibrate,
                "make this host's kept calibration again (without --preset)")
      ->excludes(preset);
  cmd->add_option("--calibrate-rounds", o->calibrate_rounds,
                  "rounds of each basic cost when this host is calibrated (a kept calibration with fewer is "
                  "made again)")
      ->check(whole_number(1, 1000))
      ->default_val(9)
      ->excludes(preset);
  cmd->add_option("--out", o->run.out_dir,
                  "where the databases and the comparison go (default runs/validate-PROG-Nn)")
      ->type_name("DIR");
  add_real_launch_options(*cmd, o->run.hostfile, o->run.mpirun_args, "");
  cmd->add_flag("--force", o->force, "replace an earlier validation in --out");
  cmd->add_flag(
      "--json", o->json,
      "print the comparison as one JSON object on stdout (what is said while it runs goes to stderr)");
  cmd->footer(
      "Example: ncp2 validate ./jacobi --nodes 2 -- 514 514 20\n"
      "Without --preset the emulated machine is this host's calibration (ncp2 calibrate --machine real),\n"
      "made at the first validation on N nodes and kept in $NCP2_CALIBRATION_CACHE, else\n"
      "$XDG_CACHE_HOME/ncp2/calibrations, else ~/.cache/ncp2/calibrations; it is made again with\n"
      "--recalibrate, or when the host, the build or the launch changed, or when it cannot be read.\n"
      "The emulated runs charge computation by the host's measured time (--time-model measured), so\n"
      "the prediction is of this host and varies: the median of P is compared. A program whose real runs\n"
      "spread more than 15 % is said too short, with the input length that would do. What a real run\n"
      "cannot observe is said, not compared (docs/validation.md).");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
