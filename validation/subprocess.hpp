#pragma once
// Running one of our own commands as a child (`ncp2 calibrate` and `ncp2 validate` run `ncp2-cc`
// and `ncp2 run` as a user would), its standard output and error captured together.
#include <string>
#include <vector>

namespace ncp2::validation {

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal, or could not start
  std::string output;  // standard output and error, interleaved
};

// Runs argv[0] (searched on PATH when it has no '/') with `argv`; never throws for the command's
// own failure (it is in the result), throws std::runtime_error when it cannot be started.
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv);

// The directory of the running ncp2 executable (ncp2-cc and ncp2-node sit next to it).
[[nodiscard]] std::string own_directory();

// The last `lines` lines of `text` (for a failure's message).
[[nodiscard]] std::string last_lines(const std::string& text, int lines);

}  // namespace ncp2::validation
