#include "dsm/wait_chain.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::dsm {

using emu::Resource;
using emu::Stamp;
using emu::StampPoint;

namespace {

// The category of the segment that ends at stamp `b`, coming from stamp `a`.
WaitPart category(const Stamp& a, const Stamp& b, emu::NodeId waiter, bool has_cp) {
  const bool local = b.node == waiter;
  const bool from_local = a.node == waiter;
  switch (b.point) {
    case StampPoint::SyncDelayEnd:
      return WaitPart::SyncDelay;
    case StampPoint::CpStarted:
      return local ? WaitPart::CPLWait : WaitPart::CPRWait;
    case StampPoint::CpFinished:
      return local ? WaitPart::CPLComp : WaitPart::CPRComp;
    case StampPoint::Injected:
      if (a.point == StampPoint::CpFinished) return WaitPart::CPComm;  // waiting for the link
      return local ? WaitPart::CPLComp : WaitPart::PPRComp;            // a PP's software send path
    case StampPoint::Delivered:
      return WaitPart::CPComm;
    case StampPoint::CpQueued:
      if (a.point == StampPoint::Delivered) return WaitPart::CPComm;
      if (a.resource == Resource::PP) return local ? WaitPart::CPLWait : WaitPart::PPRComp;  // PP posts
      return local ? WaitPart::CPLComp : WaitPart::CPRComp;
    case StampPoint::PpInterrupted:
      if (a.point == StampPoint::Delivered) return WaitPart::CPComm;
      return local ? WaitPart::CPLComp : WaitPart::CPRComp;
    case StampPoint::PpHandlerStart:
      if (local) return has_cp ? WaitPart::PPLWait : WaitPart::CPLWait;
      return WaitPart::PPRWait;
    case StampPoint::PpHandlerEnd:
      if (local) return has_cp ? WaitPart::PPLWait : WaitPart::CPLComp;
      return WaitPart::PPRComp;
    case StampPoint::PpResumed:
      return WaitPart::PPLWait;
    case StampPoint::Issued:
      return local ? WaitPart::CPLComp : WaitPart::PPRComp;
    case StampPoint::SyncDelayBegin:
    case StampPoint::WaitBegin:
      // Whatever ran up to here, by where the previous stamp is.
      if (a.resource == Resource::PP) return from_local ? WaitPart::PPLWait : WaitPart::PPRComp;
      return from_local ? WaitPart::CPLComp : WaitPart::CPRComp;
  }
  return WaitPart::PPLWait;
}

// The interval number (1..13) of a category, given the phase of the round trip: before the
// remote side (out), at the remote side (before or after its PP), or back home.
int interval_of(WaitPart c, bool returned, bool remote_pp_seen, bool from_remote) {
  switch (c) {
    case WaitPart::CPLWait:
      return returned ? 11 : 1;
    case WaitPart::CPLComp:
      return returned ? 12 : 2;
    case WaitPart::CPComm:
      return returned || from_remote ? 10 : 3;
    case WaitPart::CPRWait:
      return remote_pp_seen ? 8 : 4;
    case WaitPart::CPRComp:
      return remote_pp_seen ? 9 : 5;
    case WaitPart::PPRWait:
      return 6;
    case WaitPart::PPRComp:
      return 7;
    case WaitPart::PPLWait:
      return 13;
    case WaitPart::SyncDelay:
      return 0;
  }
  return 0;
}

}  // namespace

WaitBreakdown fold_wait(std::span<const emu::Stamp> stamps, emu::NodeId waiter, bool has_cp,
                        std::vector<WaitSegment>* segments) {
  WaitBreakdown out;
  std::size_t first = 0;
  while (first < stamps.size() && stamps[first].point != StampPoint::WaitBegin) ++first;
  if (first == stamps.size()) throw std::logic_error("wait chain without a WaitBegin stamp");
  bool remote_seen = false;
  bool returned = false;
  bool remote_pp_seen = false;
  bool in_sync = false;
  for (std::size_t i = first + 1; i < stamps.size(); ++i) {
    const Stamp& a = stamps[i - 1];
    const Stamp& b = stamps[i];
    const emu::Duration gap = b.time - a.time;
    if (gap < emu::Duration{0})
      throw std::logic_error(fmt::format("wait chain of node {} goes back in time at stamp {} ({} after {})",
                                         emu::index(waiter), i, emu::to_string(b.point),
                                         emu::to_string(a.point)));
    WaitPart c;
    if (b.point == StampPoint::SyncDelayBegin) {
      in_sync = true;
      out.has_cause = true;
      out.cause = b.node;
      out.cause_scope = b.aux;
      c = category(a, b, waiter, has_cp);
    } else if (in_sync) {
      c = WaitPart::SyncDelay;
      if (b.point == StampPoint::SyncDelayEnd) in_sync = false;
    } else {
      c = category(a, b, waiter, has_cp);
    }
    const bool sync_stamp = b.point == StampPoint::SyncDelayBegin || b.point == StampPoint::SyncDelayEnd;
    if (b.point == StampPoint::SyncDelayEnd) out.cause_scope = b.aux;
    if (segments && gap > emu::Duration{0}) segments->push_back({a.time, b.time, c});
    if (!sync_stamp && out.remote < 0 && b.node != waiter) out.remote = emu::index(b.node);
    if (!sync_stamp) {
      if (b.node != waiter)
        remote_seen = true;
      else if (remote_seen && b.point != StampPoint::WaitBegin)
        returned = true;
      if (b.node != waiter && b.resource == Resource::PP) remote_pp_seen = true;
    }
    out.by_category[static_cast<std::size_t>(c)] += gap;
    out.by_interval[static_cast<std::size_t>(interval_of(c, returned, remote_pp_seen, a.node != waiter))] +=
        gap;
    out.total += gap;
  }
  out.by_interval[0] = emu::Duration{0};
  return out;
}

}  // namespace ncp2::dsm
