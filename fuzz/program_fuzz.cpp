// Fuzz target: what `ncp2 run ./prog` reads of a program built with ncp2-cc, without running it:
// with --detect-races, whether its ELF has the section marking race checks (built_with_race_checks,
// what program_workload checks first), and the source lines of code addresses from its DWARF
// (debug_info/source_lines.hpp: where a Tmk call, a fault or a crash happened, the function's
// lines, the files). The input is the executable. A damaged file must read as "no race checks" or
// unknown lines, never crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "debug_info/source_lines.hpp"
#include "fuzz/fuzz_check.hpp"
#include "tmk/host/access_log.hpp"

namespace {

// The input as a file of its own (libelf and libdw read files), one per process; removed at exit.
class InputFile {
 public:
  InputFile() : path_(fmt::format("/tmp/ncp2-fuzz-program-{}", ::getpid())) {}
  ~InputFile() { std::remove(path_.c_str()); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    ncp2::fuzz::check(f != nullptr, "cannot write the input file");
    const bool ok = std::fwrite(data, 1, size, f) == size;
    ncp2::fuzz::check(std::fclose(f) == 0 && ok, "cannot write the input file");
    return path_;
  }

 private:
  std::string path_;
};

// The ELF64 header's entry point, or 0: the addresses looked up are around it.
std::uint64_t entry_point(const std::uint8_t* data, std::size_t size) {
  std::uint64_t entry = 0;
  if (size >= 32) std::memcpy(&entry, data + 24, 8);
  return entry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const InputFile file;
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
