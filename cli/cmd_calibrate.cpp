// `ncp2 calibrate --machine real -o FILE.toml`: the basic operation costs measured on real
// processes, an emulated machine's costs fitted to them, written as a preset (validation/,
// docs/validation.md).
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/output_paths.hpp"
#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "run/real_run.hpp"
#include "validation/calibrate_host.hpp"

namespace ncp2::cli {

namespace {

namespace fs = std::filesystem;

struct CalibrateCommand {
  std::string machine;
  validation::CalibrateOptions run;
  std::string output;
  std::string json;   // --json: the measurements and the fit for scripts (empty: none)
  std::string refit;  // --refit: a kept calibration's JSON fitted again, nothing measured (empty: measure)
  bool force = false;
};

// The output is checked before the real runs start (they take a while).
int check_output(const CalibrateCommand& c) {
  if (c.machine != "real") {
    fmt::print(stderr,
               "ncp2: calibrate fits a preset to measured runs: give --machine real (the emulated machines "
               "have nothing to measure)\n");
    return kExitUsage;
  }
  for (const auto& [path, option] : {std::pair{c.output, "-o"}, std::pair{c.json, "--json"}}) {
    if (path.empty()) continue;
    try {  // the directory takes files, the path is none (carnival/output_paths.hpp)
      carnival::check_output_file(path, option);
    } catch (const carnival::OutputError& e) {
      fmt::print(stderr, "ncp2: {}\n", e.what());
      return kExitUsage;
    }
    std::error_code ec;
    if (fs::exists(path, ec) && !c.force) {
      fmt::print(stderr, "ncp2: {} {}: the file exists; give --force to replace it\n", option, path);
      return kExitUsage;
    }
  }
  if (!c.json.empty() &&
      fs::absolute(c.json).lexically_normal() == fs::absolute(c.output).lexically_normal()) {
    fmt::print(stderr, "ncp2: --json and -o name the same file, {}\n", c.output);
    return kExitUsage;
  }
  if (!c.refit.empty() &&
      fs::absolute(c.refit).lexically_normal() == fs::absolute(c.output).lexically_normal()) {
    fmt::print(stderr, "ncp2: --refit and -o name the same file, {}\n", c.output);
    return kExitUsage;
  }
  if (!c.refit.empty()) return kExitOk;  // nothing is run
  if (const auto problem = run::real_launch_problem(c.run.nodes, c.run.hostfile, c.run.mpirun_args)) {
    fmt::print(stderr, "ncp2: cannot measure on real processes: {}\n", *problem);
    return kExitUsage;
  }
  return kExitOk;
}

void print_header() {
  fmt::print("{:<28} {:>12} {:>24} {:>8} {:>12} {:>8}\n", "basic cost", "measured us", "range (rounds)",
             "p90 us", "preset us", "error");
}

// One measured cost beside what the preset reproduces of `target_us` (none: "-"), and a note.
void print_row(const validation::MeasuredCost& m, std::optional<double> preset_us, double target_us,
               std::string_view note = {}) {
  const std::string range = fmt::format("{:.1f} .. {:.1f} ({})", m.min_us, m.max_us, m.rounds);
  if (!preset_us) {
    fmt::print("{:<28} {:>12.1f} {:>24} {:>8.1f} {:>12} {:>8}\n", m.operation, m.median_us, range, m.p90_us,
               "-", "-");
    return;
  }
  fmt::print("{:<28} {:>12.1f} {:>24} {:>8.1f} {:>12.1f} {:>+7.1f}%{}\n", m.operation, m.median_us, range,
             m.p90_us, *preset_us, 100 * (*preset_us / target_us - 1), note);
}

// The costs beside nodes that load the host, and the factor the preset's software costs carry.
void print_loaded(const validation::Calibration& cal) {
  if (cal.loaded.empty()) return;
  fmt::print("\nthe same beside {} nodes that load the host (validation/load_factor.hpp):\n", cal.nodes - 2);
  print_header();
  for (const auto& m : cal.loaded) {
    const auto it = cal.load.reproduced.find(m.operation);
    const bool read = it != cal.load.reproduced.end() && validation::reads_the_load(m.operation);
    print_row(m, read ? std::optional(it->second) : std::nullopt, m.median_us);
  }
  fmt::print(
      "read off: the host's load, every software cost x{:.3g} (mean |log(preset / measured)| {:.2f}); the "
      "fitted values below are before it\n",
      cal.load.factor, cal.load.mean_log_error);
}

void print_table(const validation::Calibration& cal) {
  print_header();
  for (const auto& m : cal.measured) {
    const auto it = cal.fit.reproduced.find(m.operation);
    print_row(m, it == cal.fit.reproduced.end() ? std::nullopt : std::optional(it->second),
              validation::fitted_target(cal, m),
              validation::fitted_to_slow_mode(cal, m) ? " of the slow mode" : "");
  }
  fmt::print("\n{}\n", validation::busy_modes_text(cal.busy_modes));
  fmt::print(
      "read off: the scheduler's tick {:.0f} us (the slow mode spread evenly up to a tick), prompt service "
      "{:.0f} % of the requests from {:.0f} us after the server ran, the close {:.3g} us per written page, "
      "{:.0f} % of the message costs in the network, not the cores (diff-miss-crossed)\n",
      cal.busy_tick_us, 100 * cal.prompt.share, cal.prompt.after_us, cal.close_per_page_us,
      100 * cal.latency_share);
  print_loaded(cal);
  fmt::print("\nfitted (treadmarks machine: a real node, its server sharing its program's core):\n");
  for (std::size_t j = 0; j < cal.parameters.size(); ++j) {
    const auto& p = cal.parameters[j];
    fmt::print("  {:<42} {:>10.4g} {}\n", p.name, cal.fit.values[j], p.per_byte ? "ns/B" : "us");
  }
}

// The kept measurements fitted again: a file that is not one a calibration wrote is the user's
// input, refused as such (exit 2), before anything is written.
std::optional<validation::HostCalibration> refit(const CalibrateCommand& c) {
  try {
    fmt::print("fitting the basic costs kept in {} again, with this build's model (nothing is measured)...\n",
               c.refit);
    std::fflush(stdout);
    return validation::refit_calibration(c.refit);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: --refit: {}\n", e.what());
    return std::nullopt;
  }
}

int run(CalibrateCommand& c) {
  if (const int code = check_output(c); code != kExitOk) return code;
  std::optional<validation::HostCalibration> refitted;
  if (!c.refit.empty() && !(refitted = refit(c))) return kExitUsage;
  try {
    if (!refitted) {
      fmt::print("measuring the basic costs on {} real processes ({} rounds each)...\n", c.run.nodes,
                 c.run.rounds);
      std::fflush(stdout);
    }
    const validation::HostCalibration made =
        refitted ? std::move(*refitted) : validation::calibrate_this_host(c.run);
    const validation::Calibration& cal = made.calibration;
    print_table(cal);
    carnival::write_file_atomically(c.output, [&](std::ostream& out) { out << made.toml; });
    fmt::print("\npreset    {} (use it with --config {})\n", c.output, c.output);
    if (!c.json.empty()) {
      const std::string json = validation::calibration_json(cal, made.command_line);
      carnival::write_file_atomically(c.json, [&](std::ostream& out) { out << json; });
      fmt::print("json      {} (every basic cost: median, min, max, p90, rounds; the fit)\n", c.json);
    }
    fmt::print("the preset reproduces the measured costs within {:.1f} %{}\n", 100 * cal.fit.worst_error,
               cal.fit.worst_error > 0.10 ? " (over 10 %: the costs vary more than the model can follow; "
                                            "see the ranges, and docs/validation.md)"
                                          : "");
    return kExitOk;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: {}\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

Subcommand add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateCommand>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Measure the basic operation costs on real processes and fit an emulated machine to them (a preset)");
  cmd->add_option("--machine", o->machine, "what to measure: real (processes over Open MPI)")
      ->required()
      ->type_name("real");
  auto* nodes =
      cmd->add_option("--nodes", o->run.nodes,
                      "processes to measure on (2 or more; from 3 on, every cost is timed again beside nodes "
                      "that load the host, and the preset carries the factor read off: docs/validation.md)")
          ->check(whole_number(2, 4096))
          ->default_val(2);
  auto* rounds = cmd->add_option("--rounds", o->run.rounds,
                                 "times each basic operation is measured (the median is fitted)")
                     ->check(whole_number(1, 1000))
                     ->default_val(9);
  add_real_launch_options(*cmd, o->run.hostfile, o->run.mpirun_args, "");
  cmd->add_option("-o,--output", o->output, "the preset to write (TOML)")->required()->type_name("FILE.toml");
  cmd->add_option(
         "--json", o->json,
         "also write the measurements (median, min, max, 90th percentile, rounds of every basic cost) "
         "and the fit as JSON")
      ->type_name("FILE.json");
  cmd->add_option("--refit", o->refit,
                  "measure nothing: fit the basic costs a calibration kept (its --json file) again with this "
                  "build's model, e.g. after a change of the model (the preset names the measurement's host "
                  "and date)")
      ->type_name("FILE.json")
      ->check(CLI::ExistingFile)
      ->excludes(nodes)
      ->excludes(rounds)
      ->excludes("--hostfile")
      ->excludes("--mpirun-args");
  cmd->add_flag("--force", o->force, "replace FILE.toml (and FILE.json) if it exists");
  cmd->footer(
      "Example: ncp2 calibrate --machine real -o calibrated.toml, then\n"
      "         ncp2 validate ./prog --preset calibrated.toml -- ARGS\n"
      "The basic operations are those of `ncp2 reproduce basic-costs`; one fit, the one the period\n"
      "presets use, sets the treadmarks machine's software and network costs (docs/validation.md).");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
