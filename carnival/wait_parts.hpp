#pragma once
// How CARNIVAL shows each part of a wait (dsm/wait_parts.hpp, the parts themselves): the store's
// columns, the reports, the JSON/CSV and trace exports, the `categories` table and the GUI take
// their names, SQL columns, colours, glyphs and descriptions from kWaitPartTable. A row per part,
// in the enum's order (checked below), so that a part cannot exist without its colour and column.
#include <array>
#include <cstddef>
#include <string_view>

#include "dsm/wait_parts.hpp"

namespace ncp2::carnival {

using dsm::kWaitParts;
using dsm::WaitPart;

struct WaitPartInfo {
  WaitPart part;
  std::string_view name;    // "CPLWait": the categories table, reports, JSON keys (name + "_ps")
  std::string_view column;  // "cplwait_ps": the SQL column of waits and wait_summary
  std::string_view color;   // "#rrggbb", one colour-blind-safe palette (Tol)
  std::string_view glyph;   // in text bars
  std::string_view description;
};

inline constexpr std::array<WaitPartInfo, kWaitParts> kWaitPartTable = {{
    {WaitPart::CPLWait, "CPLWait", "cplwait_ps", "#88CCEE", "░",
     "intervals 1 and 11: command waits in the local CP's queue"},
    {WaitPart::CPLComp, "CPLComp", "cplcomp_ps", "#44AA99", "▒",
     "intervals 2 and 12: the local CP executes (treadmarks: the local PP's protocol work)"},
    {WaitPart::CPComm, "CPComm", "cpcomm_ps", "#117733", "▓",
     "intervals 3 and 10: transmission between the nodes"},
    {WaitPart::CPRWait, "CPRWait", "cprwait_ps", "#DDCC77", "▚",
     "intervals 4 and 8: command waits in the remote CP's queue"},
    {WaitPart::CPRComp, "CPRComp", "cprcomp_ps", "#999933", "▞", "intervals 5 and 9: the remote CP executes"},
    {WaitPart::PPRWait, "PPRWait", "pprwait_ps", "#CC6677", "▄",
     "interval 6: the interrupt reaches the remote PP"},
    {WaitPart::PPRComp, "PPRComp", "pprcomp_ps", "#882255", "▀",
     "interval 7: the remote PP's handler executes"},
    {WaitPart::PPLWait, "PPLWait", "pplwait_ps", "#AA4499", "▐",
     "interval 13: the notification reaches the local PP, which resumes"},
    {WaitPart::SyncDelay, "SyncDelay", "sync_delay_ps", "#332288", "█",
     "waiting for another processor (the last arrival at a barrier, the lock holder)"},
}};

constexpr const WaitPartInfo& info(WaitPart p) { return kWaitPartTable[static_cast<std::size_t>(p)]; }
constexpr std::string_view to_string(WaitPart p) { return info(p).name; }

// The table is in enum order (info() indexes it).
static_assert([] {
  for (std::size_t i = 0; i < kWaitParts; ++i)
    if (static_cast<std::size_t>(kWaitPartTable[i].part) != i) return false;
  return true;
}());

}  // namespace ncp2::carnival
