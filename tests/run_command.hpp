#pragma once
// Runs the ncp2 executable (NCP2_BINARY, set by CMake) as a user would, for tests that check its
// output: the exit status and stdout (stderr discarded).
#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace ncp2::testing {

struct CommandResult {
  int status = -1;  // the exit code; -1 when it could not run or was killed
  std::string out;
};

inline CommandResult run_ncp2(const std::string& args) {
  const std::string command = std::string(NCP2_BINARY) + " " + args + " 2>/dev/null";
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace ncp2::testing
