// ncp2: the NCP2 / TreadMarks emulator with the CARNIVAL profiler.
#include <iostream>

#include "cli/command_line.hpp"

int main(int argc, char** argv) {
  using namespace ncp2::cli;
  const auto cl = make_command_line();
  if (const auto code = parse_command_line(*cl, argc, argv, std::cout, std::cerr)) return *code;
  return run_command(*cl);
}
