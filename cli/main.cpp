// ncp2: the NCP2 / TreadMarks emulator with the CARNIVAL profiler.
#include <cstdio>
#include <exception>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "emulator/config.hpp"

int main(int argc, char** argv) {
  using namespace ncp2::cli;
  CLI::App app{"ncp2 — emulator of the NCP2 parallel machine running the TreadMarks DSM, "
               "with the CARNIVAL cause-and-effect profiler.\n"
               "Exit codes: 0 success, 1 run-time failure, 2 usage or configuration error."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ncp2 0.1.0");

  std::map<CLI::App*, Runner> runners;
  for (auto&& sub : {add_config_command(app), add_demo_network_command(app)}) runners[sub.app] = sub.run;

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and the usage hint
    return kExitUsage;
  }

  try {
    for (auto* sub : app.get_subcommands())
      if (auto it = runners.find(sub); it != runners.end()) return it->second();
    return kExitUsage;
  } catch (const ncp2::emu::ConfigError& e) {
    fmt::print(stderr, "ncp2: configuration error: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ncp2: error: {}\n", e.what());
    return kExitFailure;
  }
}
