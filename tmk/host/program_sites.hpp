#pragma once
// Where the instructions of a program built with ncp2-cc are, for CARNIVAL and for messages: its
// line tables (loaded once, at the load address of its first node process), the scope sites of
// an instruction (its line and its function, looked up once per address), `__FILE__` names
// resolved to the line tables' own, and the source place of a request for an error message.
// Shared by the emulator's driver (program.cpp) and the agents of real runs (real_machine/).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "tmk/channel.hpp"

namespace ncp2::debug_info {
class SourceLines;
}

namespace ncp2::tmk {

class ProgramSites {
 public:
  explicit ProgramSites(std::string program);
  // The line tables come from `file` instead of the program (the fiber runner's shared object, at
  // addresses relative to 0); `__FILE__` names still resolve against the program's directory.
  void read_lines_from(std::string file) { lines_file_ = std::move(file); }
  ~ProgramSites();
  ProgramSites(const ProgramSites&) = delete;
  ProgramSites& operator=(const ProgramSites&) = delete;

  // The line tables, loaded at the first call (the node process tells its load address with its
  // first request; 0 for an executable that is not position-independent).
  const debug_info::SourceLines* load(std::uint64_t load_base);
  [[nodiscard]] const debug_info::SourceLines* lines() const { return lines_.get(); }

  struct Sites {
    std::uint32_t line = 0;      // a scope of kind `line` (0: unknown)
    std::uint32_t function = 0;  // a scope of kind `function` (0: unknown)
  };
  // The sites of the instruction at `pc` (a faulting instruction; a return address minus 1).
  const Sites& at(std::uint64_t pc);

  // `__FILE__` as the compiler saw it (often relative to where it ran): the line tables' absolute
  // name of the same file when there is one, else relative to the program's directory.
  [[nodiscard]] std::string resolve_file(const std::string& file) const;

  // " at prog.c:12 (in main)" for the request in `c` (a crash inside a library: the program's
  // innermost frame on the stack); "" when unknown.
  [[nodiscard]] std::string where(const Channel& c) const;

 private:
  std::string program_;
  std::string lines_file_;  // empty: the program's
  std::unique_ptr<debug_info::SourceLines> lines_;
  std::unordered_map<std::uint64_t, Sites> sites_by_pc_;
  // Real runs ask where for every remote acquire and barrier (deadlock reports): cached.
  mutable std::unordered_map<std::uint64_t, std::string> where_by_pc_;
};

}  // namespace ncp2::tmk
