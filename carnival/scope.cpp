// CARNIVAL_SCOPE's guard: the PP's scope while a workload's block runs (carnival/scope.hpp).
#include "carnival/scope.hpp"

namespace ncp2::carnival {

ScopeGuard::ScopeGuard(dsm::Process& p, const ScopeSite& site)
    : pp_(p.runtime().cluster().pp(p.node())), previous_(pp_.attribution().scope) {
  pp_.set_scope(site.id);
}

ScopeGuard::~ScopeGuard() { pp_.set_scope(previous_); }

}  // namespace ncp2::carnival
