#pragma once
// Running a command as a child, its standard output and error captured together: `mpirun
// --version` (launcher.cpp), and `ncp2-cc` and `ncp2 run` as `ncp2 calibrate` and `ncp2 validate`
// run them; and where ncp2's own executables are.
#include <string>
#include <vector>

namespace ncp2::real {

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal, or could not start
  std::string output;  // standard output and error, interleaved
};

// Runs argv[0] (searched on PATH when it has no '/') with `argv`; never throws for the command's
// own failure (it is in the result), throws std::runtime_error when it cannot be started.
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv);

// The directory of the running ncp2 executable (ncp2-cc and ncp2-node sit next to it).
[[nodiscard]] std::string own_directory();
// `name` (ncp2-node, ncp2-cc, ncp2) next to the running executable; throws std::runtime_error
// saying it is missing.
[[nodiscard]] std::string executable_next_to_us(const std::string& name);

// The last `lines` lines of `text` (for a failure's message).
[[nodiscard]] std::string last_lines(const std::string& text, int lines);

}  // namespace ncp2::real
