#pragma once
// The parts of one wait, defined once: the 8 categories of the paper's Table 1 (each covering one
// or two of the 13 timed intervals of the request's path) plus the synchronization delay. The
// fold (dsm/wait_chain.hpp) produces them; their presentation — names, SQL columns, colours,
// glyphs, descriptions — is CARNIVAL's (carnival/wait_parts.hpp, kWaitPartTable: a row per part,
// in this order, checked at compile time).
//
// Adding a part: add the enum value here and its row there (same order). The schema, INSERTs and
// SELECTs, report columns, trace keys and the GUI's lists follow from the table; only code that
// treats one part specially (the fold's rules, SyncDelay's cause) needs a look.
#include <cstddef>
#include <cstdint>

namespace ncp2::dsm {

enum class WaitPart : std::uint8_t {
  CPLWait,
  CPLComp,
  CPComm,
  CPRWait,
  CPRComp,
  PPRWait,
  PPRComp,
  PPLWait,
  SyncDelay,
};
inline constexpr std::size_t kWaitParts = 9;

}  // namespace ncp2::dsm
