// Splits one node's protocol-controller time over the scopes its PP was in at the time.
//
// The CP runs beside the PP: what it did (CPComp, CPIdle) while the node was in scope s is s's CP
// time, so that per scope the CP categories sum to the PP's elapsed time there, like the PP's
// categories do (docs/schema.md). Both processors' stretches arrive in time order but not in step
// (a CP idle stretch is known only when its next command starts; a PP span only when it ends), so
// each side waits here until the other covers it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <utility>

#include "carnival/model.hpp"

namespace ncp2::carnival {

class CpByScope {
 public:
  // Receives each attributed piece: (scope, CP category, picoseconds).
  using Sink = std::function<void(std::uint32_t scope, Category category, std::int64_t ps)>;

  CpByScope() = default;
  explicit CpByScope(Sink sink) : sink_(std::move(sink)) {}

  // A stretch of PP time [from, to) counted in `scope` (the PP's categories of the profile).
  void pp(std::int64_t from, std::int64_t to, std::uint32_t scope);
  // A stretch of CP time [from, to) in `category` (CPComp, CPWait or CPIdle).
  void cp(std::int64_t from, std::int64_t to, Category category);
  // The run ended: CP time no PP stretch covers went on after the node's last counted PP activity
  // and goes to scope 0, the whole program. (CP time in a gap between two PP stretches goes to
  // the scope of the first.)
  void finish();

  // Stretches held back (for tests of the bound: same-scope PP stretches merge).
  [[nodiscard]] std::size_t pending() const { return pp_.size() + cp_.size(); }

 private:
  struct PpStretch {
    std::int64_t from;
    std::int64_t to;
    std::uint32_t scope;
  };
  struct CpStretch {
    std::int64_t from;
    std::int64_t to;
    Category category;
  };
  void settle();

  Sink sink_;

  std::deque<PpStretch> pp_;
  std::deque<CpStretch> cp_;
  std::uint32_t last_scope_ = 0;  // the scope of the last PP stretch consumed
};

}  // namespace ncp2::carnival
