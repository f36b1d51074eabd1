#pragma once
// Identifiers and small value types of the DSM layer.
#include <cstdint>
#include <string_view>
#include <vector>

#include "emulator/ids.hpp"

namespace ncp2::dsm {

using emu::NodeId;

enum class PageId : std::uint32_t {};
enum class LockId : std::uint32_t {};
enum class BarrierId : std::uint32_t {};

constexpr std::uint32_t raw(PageId p) { return static_cast<std::uint32_t>(p); }
constexpr std::uint32_t raw(LockId l) { return static_cast<std::uint32_t>(l); }
constexpr std::uint32_t raw(BarrierId b) { return static_cast<std::uint32_t>(b); }

inline constexpr std::uint32_t kMaxLocks = 1u << 20;
inline constexpr std::uint32_t kMaxBarriers = 1024;

// The DSM operation a processor is in when it waits (SPEC §3.1's fourth dimension).
enum class Operation : std::uint8_t {
  None,        // application code
  PageFault,   // fetching a page never held
  DiffFetch,   // fetching the diffs of an invalidated page
  WriteFault,  // first write to a page in an interval (twin)
  LockAcquire,
  LockRelease,
  Barrier,
  GarbageCollection,
  Exit,  // a PP that left the workload, still serving requests
};
std::string_view to_string(Operation op);

// Vector time: entry q = the last interval of node q this node has seen.
using VectorTime = std::vector<std::uint32_t>;

// Message purposes on the network (emu::Message::purpose).
enum Purpose : std::uint16_t {
  kPageRequest = 10,
  kPageReply,
  kDiffRequest,
  kDiffReply,
  kLockRequest,
  kLockForward,
  kLockGrant,
  kBarrierArrival,
  kBarrierRelease,
  kPurposeEnd,
};
std::string_view purpose_name(std::uint16_t purpose);

}  // namespace ncp2::dsm
