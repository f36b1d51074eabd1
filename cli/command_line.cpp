#include "cli/command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "cli/machine_options.hpp"
#include "cli/option_checks.hpp"
#include "emulator/config.hpp"

namespace ncp2::cli {

std::unique_ptr<CommandLine> make_command_line() {
  auto cl = std::make_unique<CommandLine>();
  CLI::App& app = cl->app;
  app.description(
      "ncp2 — emulator of the NCP2 parallel machine running the TreadMarks DSM, "
      "with the CARNIVAL cause-and-effect profiler.\n"
      "Exit codes: 0 success, 1 run-time failure, 2 usage or configuration error.");
  app.require_subcommand(1);
  app.set_version_flag("--version", "ncp2 0.1.0");
  for (auto&& sub : {add_config_command(app), add_demo_network_command(app), add_workloads_command(app),
                     add_run_command(app), add_report_command(app), add_export_trace_command(app),
                     add_compare_command(app), add_counters_command(app), add_schedule_command(app),
                     add_reproduce_command(app), add_calibrate_command(app), add_validate_command(app)})
    cl->runners[sub.app] = sub.run;
  for (auto&& sub : {add_timing_command(app), add_clocksync_command(app)}) cl->runners[sub.app] = sub.run;
  // Design-space sweeps (sweep/): a grid of `ncp2 run` points of this very executable.
  const Subcommand sweeps = add_sweep_command(app);
  cl->runners[sweeps.app] = sweeps.run;
  return cl;
}

std::optional<int> parse_command_line(CommandLine& cl, int argc, const char* const* argv, std::ostream& out,
                                      std::ostream& err) {
  CLI::App& app = cl.app;
  // A mistyped command deserves better than "a subcommand is required".
  const auto& runners = cl.runners;
  if (argc > 1 && argv[1][0] != '-' &&
      runners.end() == std::find_if(runners.begin(), runners.end(),
                                    [&](const auto& r) { return r.first->get_name() == argv[1]; })) {
    std::string known;
    for (const auto& [sub, run] : runners) known += (known.empty() ? "" : ", ") + sub->get_name();
    err << fmt::format("ncp2: unknown command '{}' (commands: {}); see ncp2 --help\n", argv[1], known);
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    const std::string command = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
    err << fmt::format("ncp2: {}\n", explain_parse_error(e, command));
    return kExitUsage;
  }
  return std::nullopt;
}

int run_command(const CommandLine& cl) {
  try {
    for (auto* sub : cl.app.get_subcommands())
      if (auto it = cl.runners.find(sub); it != cl.runners.end()) return it->second();
    return kExitUsage;
  } catch (const ncp2::emu::ConfigError& e) {
    fmt::print(stderr, "ncp2: configuration error: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: error: {}\n", e.what());
    return kExitFailure;
  }
}

}  // namespace ncp2::cli
