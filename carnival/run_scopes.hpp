#pragma once
// The scopes and source files of a finished run: the CARNIVAL_SCOPE sites the run used, the
// registered sites that enclose them (so a loop whose body is all inner scopes stays in the tree),
// their line ranges from the source text, nested by range under the whole program (scope 0).
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::carnival {

struct RunScopes {
  std::vector<Scope> scopes;  // scope 0 (the program) first, then by id
  std::vector<SourceFile> sources;
};

// `used`: the scope ids the run's profile and waits mention (0 is the program); `program_name`
// names scope 0.
// A source path as the compiler recorded it, relative to the source tree when inside it (the form
// the scopes' `file` column has).
[[nodiscard]] std::string relative_source_path(const std::string& file);

[[nodiscard]] RunScopes collect_run_scopes(std::set<std::uint32_t> used, const std::string& program_name);

}  // namespace ncp2::carnival
