#pragma once
// Where a call is written, captured as a default argument: std::source_location, except under
// clang 14 (Debian 12's clang-tidy), which cannot compile libstdc++ 12's <source_location>; it has
// the builtins instead (g++ 12 lacks __builtin_COLUMN, so each compiler gets what it has).
#if !defined(__clang__) || __clang_major__ >= 15
#include <source_location>
#endif

namespace ncp2::dsm {

struct SourcePosition {
  const char* file;
  int line;
  int column;
#if defined(__clang__) && __clang_major__ < 15
  static constexpr SourcePosition here(const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                                       int column = __builtin_COLUMN()) {
    return {file, line, column};
  }
#else
  static constexpr SourcePosition here(std::source_location where = std::source_location::current()) {
    return {where.file_name(), static_cast<int>(where.line()), static_cast<int>(where.column())};
  }
#endif
};

}  // namespace ncp2::dsm
