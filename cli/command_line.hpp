#pragma once
// The `ncp2` command line: the app with every subcommand, parsed apart from running, so that a
// test or a fuzz target (fuzz/command_line_fuzz.cpp) can parse any argv without running anything.
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace ncp2::cli {

struct CommandLine {
  CLI::App app;
  std::map<CLI::App*, Runner> runners;  // each subcommand's run callback
};

// The app with every subcommand registered (nothing parsed, nothing run).
std::unique_ptr<CommandLine> make_command_line();

// Parses argv. Returns the exit code when there is nothing to run (help, version, a usage error:
// its message written to `out` / `err`), or nullopt: run_command() runs the chosen subcommand.
std::optional<int> parse_command_line(CommandLine& cl, int argc, const char* const* argv, std::ostream& out,
                                      std::ostream& err);

// Runs the subcommand parse_command_line() chose; configuration and run-time errors become the
// documented exit codes with a message on stderr.
int run_command(const CommandLine& cl);

}  // namespace ncp2::cli
