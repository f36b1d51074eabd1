#pragma once
// CARNIVAL's scope sites: a loop, a function, a phase, a block or a line, identified by its source
// lines, with a process-wide id. Static ones come from CARNIVAL_SCOPE in workload code
// (carnival/scope.hpp); run-time ones from a program's functions and lines (tmk/host, and the
// agents of real runs, which need no emulator). Scopes nest by their line ranges (the static
// nesting of the source, as in CARNIVAL); the whole program is scope 0.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dsm/source_position.hpp"

namespace ncp2::carnival {

// Where a CARNIVAL_SCOPE is written.
using SourcePosition = dsm::SourcePosition;

// One occurrence of CARNIVAL_SCOPE in the source: created once (a static), with a process-wide id.
struct ScopeSite {
  ScopeSite(const char* name, const char* kind, SourcePosition where = SourcePosition::here());
  // A site known at run time with its line range (a function or line of a program run from
  // outside, tmk/): the strings must live as long as the process.
  ScopeSite(const char* name, const char* kind, const char* file, int line, int end_line);
  const char* name;
  const char* kind;
  const char* file;
  int line;
  int column;
  std::uint32_t id;  // >= 1
  int end_line = 0;  // 0: the end of the innermost block containing (line, column) in the file
};

// Every site registered so far (index = id - 1).
std::vector<const ScopeSite*> scope_sites();

// A site known only at run time (a program's function or line, a workload's line), created on
// its first use and kept for the process's life like the static ones: the same arguments give
// the same site.
ScopeSite& site_for(const std::string& name, const char* kind, const std::string& file, int line,
                    int end_line);

// The scope of kind `line` of source line `at` ("line 183" of its file): where the profiler puts
// the PP's time of a call the typed API makes there (dsm::Runtime::attribute_lines).
std::uint32_t line_scope(const SourcePosition& at);

// The line of the closing brace of the innermost block that contains (line, column) in `text`,
// skipping comments and string or character literals; `line` itself when there is none.
int scope_end_line(std::string_view text, int line, int column);

}  // namespace ncp2::carnival
