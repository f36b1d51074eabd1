#pragma once
// Folding a wait's stamp chain into the paper's Table 1 (SPEC §3.2): consecutive segments from t0
// (the PP starts waiting) to t13 (it resumes), each assigned to one of 8 categories by where it
// runs and what it is, plus the synchronization delay (waiting for another processor) with its
// cause. The parts sum exactly to the wait. The rules, per machine, are in docs/protocol.md.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "dsm/wait_parts.hpp"
#include "emulator/ids.hpp"
#include "emulator/message.hpp"
#include "emulator/time.hpp"

namespace ncp2::dsm {

struct WaitBreakdown {
  std::array<emu::Duration, kWaitParts> by_category{};
  std::array<emu::Duration, 14> by_interval{};  // [1..13]; [0] unused
  emu::Duration total{0};
  bool has_cause = false;
  emu::NodeId cause{};            // the processor that made this one wait (with SyncDelay)
  std::uint32_t cause_scope = 0;  // the scope it was executing then
  int remote = -1;                // the first other node on the path (who served the request)
  [[nodiscard]] emu::Duration operator[](WaitPart c) const {
    return by_category[static_cast<std::size_t>(c)];
  }
};

// `waiter` is the node that waited, `has_cp` the machine kind. The chain runs from its WaitBegin
// stamp to its last stamp (PpResumed); throws std::logic_error when the stamps go back in time.
struct WaitSegment {
  emu::TimePoint from;
  emu::TimePoint to;
  WaitPart category{};
};
WaitBreakdown fold_wait(std::span<const emu::Stamp> stamps, emu::NodeId waiter, bool has_cp,
                        std::vector<WaitSegment>* segments = nullptr);
inline WaitBreakdown fold_wait(const emu::StampChain& chain, emu::NodeId waiter, bool has_cp,
                               std::vector<WaitSegment>* segments = nullptr) {
  return fold_wait(chain.stamps(), waiter, has_cp, segments);
}

}  // namespace ncp2::dsm
