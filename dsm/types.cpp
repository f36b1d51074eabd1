// Names of the DSM operations and message purposes (dsm/types.hpp).
#include "dsm/types.hpp"

#include <string_view>

namespace ncp2::dsm {

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

std::string_view purpose_name(std::uint16_t purpose) {
  switch (purpose) {
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

}  // namespace ncp2::dsm
