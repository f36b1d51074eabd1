#include "emulator/message.hpp"

namespace ncp2::emu {

std::string_view to_string(StampPoint p) {
  switch (p) {
    case StampPoint::Issued:
      return "issued";
    case StampPoint::CpQueued:
      return "cp-queued";
    case StampPoint::CpStarted:
      return "cp-started";
    case StampPoint::CpFinished:
      return "cp-finished";
    case StampPoint::Injected:
      return "injected";
    case StampPoint::Delivered:
      return "delivered";
    case StampPoint::PpInterrupted:
      return "pp-interrupted";
    case StampPoint::PpHandlerStart:
      return "pp-handler-start";
    case StampPoint::PpHandlerEnd:
      return "pp-handler-end";
    case StampPoint::PpResumed:
      return "pp-resumed";
    case StampPoint::WaitBegin:
      return "wait-begin";
    case StampPoint::SyncDelayBegin:
      return "sync-delay-begin";
    case StampPoint::SyncDelayEnd:
      return "sync-delay-end";
  }
  return "?";
}

}  // namespace ncp2::emu
