// carnival_fixture OUT.db [--incomplete] [--waits N]: writes the synthetic run of fixture.hpp as a
// store file (for tests/cli/cli_test.sh). --waits N writes the larger run with N waits instead.
#include <cstdio>
#include <exception>
#include <string>

#include "carnival/store.hpp"
#include "fixture.hpp"

int main(int argc, char** argv) {
  using namespace ncp2::carnival;
  if (argc < 2) {
    std::fprintf(stderr, "usage: carnival_fixture OUT.db [--incomplete] [--waits N]\n");
    return 2;
  }
  RunData data = testing::make_fixture();
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--incomplete") {
      data.run.status = "incomplete";
    } else if (arg == "--waits" && i + 1 < argc) {
      const RunInfo run = data.run;
      data = testing::make_large(std::stoul(argv[++i]));
      data.run = run;
    } else {
      std::fprintf(stderr, "carnival_fixture: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  try {
    write_run(argv[1], data, {.force = true});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "carnival_fixture: %s\n", e.what());
    return 1;
  }
  return 0;
}
