// Fuzz target: parsing the `ncp2` command line (cli/command_line.hpp) without running anything.
// The input is argv after "ncp2", one argument per line. Any argv must end in a subcommand to run,
// or in help / a usage error with an exit code; never a crash or an escaped exception.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/machine_options.hpp"
#include "fuzz/fuzz_check.hpp"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args{"ncp2"};
  while (!text.empty() && args.size() < 64) {
    const auto end = text.find('\n');
    args.emplace_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  std::vector<const char*> argv;
  argv.reserve(args.size() + 1);
  for (const auto& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);

  const auto cl = ncp2::cli::make_command_line();
  std::ostringstream out;
  std::ostringstream err;
  const auto code = ncp2::cli::parse_command_line(*cl, static_cast<int>(args.size()), argv.data(), out, err);
  if (code) {
    // A refusal says why.
    ncp2::fuzz::check(*code == ncp2::cli::kExitOk || !err.str().empty(), "usage error without a message");
  } else {
    ncp2::fuzz::check(cl->app.get_subcommands().size() == 1, "parsed without exactly one subcommand");
  }
  return 0;
}
