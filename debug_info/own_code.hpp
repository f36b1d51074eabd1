#pragma once
// Source lines of the running executable's own code (not of a program run from outside): where a
// built-in workload used a stale span (dsm::Runtime::check_spans). The debug information is loaded
// on the first lookup; lookups are thread-safe.
#include <cstdint>

#include "debug_info/source_lines.hpp"

namespace ncp2::debug_info {

// The line of the instruction at `pc` in the executable's own sources (SourceLines::program_line);
// unknown when `pc` is outside the executable (a shared library) or it has no debug information.
[[nodiscard]] SourceLine own_code_line(std::uint64_t pc);

}  // namespace ncp2::debug_info
