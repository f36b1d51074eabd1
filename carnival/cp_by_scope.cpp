#include "carnival/cp_by_scope.hpp"

#include <algorithm>

namespace ncp2::carnival {

void CpByScope::pp(std::int64_t from, std::int64_t to, std::uint32_t scope) {
  if (to <= from) return;
  // Contiguous stretches of one scope are one: the queue then holds only scope changes.
  if (!pp_.empty() && pp_.back().scope == scope && pp_.back().to == from) {
    pp_.back().to = to;
  } else {
    pp_.push_back({from, to, scope});
  }
  settle();
}

void CpByScope::cp(std::int64_t from, std::int64_t to, Category category) {
  if (to <= from) return;
  if (!cp_.empty() && cp_.back().category == category && cp_.back().to == from) {
    cp_.back().to = to;
  } else {
    cp_.push_back({from, to, category});
  }
  settle();
}

void CpByScope::settle() {
  while (!pp_.empty() && !cp_.empty()) {
    PpStretch& p = pp_.front();
    CpStretch& c = cp_.front();
    if (c.from < p.from) {
      // CP time in a gap of the PP's (before this PP stretch): the scope the PP was last in.
      const std::int64_t end = std::min(c.to, p.from);
      sink_(last_scope_, c.category, end - c.from);
      c.from = end;
    } else if (c.from < p.to) {
      const std::int64_t end = std::min(c.to, p.to);
      sink_(p.scope, c.category, end - c.from);
      c.from = end;
      last_scope_ = p.scope;
    }
    if (c.from >= c.to) cp_.pop_front();
    if (!cp_.empty() && cp_.front().from >= p.to) {
      last_scope_ = p.scope;
      pp_.pop_front();
    }
  }
}

void CpByScope::finish() {
  for (const CpStretch& c : cp_) sink_(0, c.category, c.to - c.from);
  cp_.clear();
  pp_.clear();
}

}  // namespace ncp2::carnival
