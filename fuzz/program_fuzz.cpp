// Fuzz target: what `ncp2 run ./prog` reads of a program built with ncp2-cc, without running it:
// with --detect-races, whether its ELF has the section marking race checks (built_with_race_checks,
// what program_workload checks first), and the source lines of code addresses from its DWARF
// (debug_info/source_lines.hpp: where a Tmk call, a fault or a crash happened, the function's
// lines, the files). The input is the executable. A damaged file must read as "no race checks" or
// unknown lines, never crash.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "debug_info/source_lines.hpp"
#include "fuzz/fuzz_check.hpp"
#include "fuzz/input_file.hpp"
#include "tmk/host/access_log.hpp"

namespace {

// The ELF64 header's entry point, or 0: the addresses looked up are around it.
std::uint64_t entry_point(const std::uint8_t* data, std::size_t size) {
  std::uint64_t entry = 0;
  if (size >= 32) std::memcpy(&entry, data + 24, 8);
  return entry;
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's entry point
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ncp2::fuzz::InputFile file("program");
  const std::string& path = file.write(data, size);
  static_cast<void>(ncp2::tmk::built_with_race_checks(path));
  const ncp2::debug_info::SourceLines lines(path, 0);
  static_cast<void>(lines.files());
  const std::uint64_t entry = entry_point(data, size);
  for (std::uint64_t offset = 0; offset < 256; offset += 16) {
    const std::uint64_t pc = entry + offset;
    // Whatever is known of a place, it is described (an address at least).
    ncp2::fuzz::check(!lines.at(pc).describe(pc).empty(), "an empty description");
    ncp2::fuzz::check(!lines.program_line(pc).describe(pc).empty(), "an empty description");
    ncp2::fuzz::check(!lines.before_return(pc).describe(pc).empty(), "an empty description");
  }
  return 0;
}
