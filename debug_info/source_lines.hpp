#pragma once
// Source lines of a program's instructions, from its DWARF line tables (elfutils' libdw): where a
// Tmk call was made, where an access fault or a crash happened, which function it was in and that
// function's line range; where the running executable itself used a stale span (own_code.hpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ncp2::debug_info {

struct SourceLine {
  std::string file;      // absolute when the compiler recorded its directory
  int line = 0;          // 0: unknown (no debug information)
  std::string function;  // "" when unknown
  int function_begin = 0;
  int function_end = 0;

  [[nodiscard]] bool known() const { return line > 0; }
  // "jacobi.c:42 (in relax)", or "0x401234" without debug information.
  [[nodiscard]] std::string describe(std::uint64_t pc) const;
};

class SourceLines {
 public:
  // The executable at `path`, loaded at `load_base` (its first object's load bias). Never
  // throws: without debug information every lookup is unknown.
  SourceLines(const std::string& path, std::uint64_t load_base);
  ~SourceLines();
  SourceLines(const SourceLines&) = delete;
  SourceLines& operator=(const SourceLines&) = delete;

  [[nodiscard]] bool has_debug_info() const { return has_lines_; }
  // The line of the instruction at `pc` (a fault), or of the call before a return address.
  [[nodiscard]] SourceLine at(std::uint64_t pc) const;
  // The same in the program's own sources: an instruction of code inlined from a system header
  // (/usr/..., e.g. std::span's operator[]) is named by the line its innermost call was inlined at.
  [[nodiscard]] SourceLine program_line(std::uint64_t pc) const;
  // Every source file the line tables name (absolute when the compiler recorded its directory).
  [[nodiscard]] const std::vector<std::string>& files() const;
  [[nodiscard]] SourceLine before_return(std::uint64_t return_address) const {
    return at(return_address == 0 ? 0 : return_address - 1);
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool has_lines_ = false;
};

}  // namespace ncp2::debug_info
