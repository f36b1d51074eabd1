// Names of the protocol's operations, messages and reserved barriers (lrc/types.hpp).
#include "lrc/types.hpp"

#include <fmt/format.h>

namespace ncp2::lrc {

std::string barrier_name(std::uint32_t id) {
  if (id == kExitBarrier) return "the exit barrier";
  if (id == kGcBarrier) return "the garbage-collection barrier";
  return fmt::format("barrier {}", id);
}

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::None:
      return "none";
    case Operation::PageFault:
      return "page fault";
    case Operation::DiffFetch:
      return "diff fetch";
    case Operation::WriteFault:
      return "write fault";
    case Operation::LockAcquire:
      return "lock acquire";
    case Operation::LockRelease:
      return "lock release";
    case Operation::Barrier:
      return "barrier";
    case Operation::GarbageCollection:
      return "garbage collection";
    case Operation::Exit:
      return "exit";
  }
  return "?";
}

std::string_view message_kind_name(std::uint16_t kind) {
  switch (kind) {
    case kPageRequest:
      return "page_request";
    case kPageReply:
      return "page_reply";
    case kDiffRequest:
      return "diff_request";
    case kDiffReply:
      return "diff_reply";
    case kLockRequest:
      return "lock_request";
    case kLockForward:
      return "lock_forward";
    case kLockGrant:
      return "lock_grant";
    case kBarrierArrival:
      return "barrier_arrival";
    case kBarrierRelease:
      return "barrier_release";
    default:
      return "other";
  }
}

}  // namespace ncp2::lrc
