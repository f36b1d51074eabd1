#pragma once
// CARNIVAL scopes in workload code: `CARNIVAL_SCOPE(p, "relax");` at the top of a C++ block marks
// that block as the scope "relax": it begins at the macro's line and ends at the closing brace of
// the innermost block containing the macro (brace matching on the source text; see
// scope_end_line). Time of process p while the block runs is attributed to the scope.
#include <cstdint>

#include "carnival/scope_sites.hpp"
#include "dsm/process.hpp"

namespace ncp2::carnival {

class ScopeGuard {
 public:
  ScopeGuard(dsm::Process& p, const ScopeSite& site);
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  emu::Processor& pp_;
  std::uint32_t previous_;
};

}  // namespace ncp2::carnival

#define CARNIVAL_CONCAT_INNER(a, b) a##b
#define CARNIVAL_CONCAT(a, b) CARNIVAL_CONCAT_INNER(a, b)
#define CARNIVAL_SCOPE_KIND(process, name, kind)                                                  \
  static const ::ncp2::carnival::ScopeSite CARNIVAL_CONCAT(carnival_site_, __LINE__){name, kind}; \
  const ::ncp2::carnival::ScopeGuard CARNIVAL_CONCAT(carnival_scope_, __LINE__) {                 \
    process, CARNIVAL_CONCAT(carnival_site_, __LINE__)                                            \
  }
#define CARNIVAL_SCOPE(process, name) CARNIVAL_SCOPE_KIND(process, name, "block")
