#pragma once
// The words of lazy release consistency, defined once for every run that speaks it: the emulated
// machines (dsm/) and real processes (real_machine/). Identifiers, vector time, a page's
// access, the reserved barriers, the protocol's operations and message kinds, each with its name.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/ids.hpp"  // the node id only: header-only, the core links nothing of the emulator

namespace ncp2::lrc {

using emu::index;
using emu::node_id;
using emu::NodeId;

enum class PageId : std::uint32_t {};
enum class LockId : std::uint32_t {};
enum class BarrierId : std::uint32_t {};

constexpr std::uint32_t raw(PageId p) { return static_cast<std::uint32_t>(p); }
constexpr std::uint32_t raw(LockId l) { return static_cast<std::uint32_t>(l); }
constexpr std::uint32_t raw(BarrierId b) { return static_cast<std::uint32_t>(b); }

// A program's lock ids go from 0 to kMaxLocks - 1, its barrier ids from 0 to kMaxBarriers - 1.
inline constexpr std::uint32_t kMaxLocks = 1U << 20;
inline constexpr std::uint32_t kMaxBarriers = 1024;
// Barriers of the protocol itself, beyond the program's ids.
inline constexpr std::uint32_t kExitBarrier = kMaxBarriers;    // the implicit barrier of Tmk_exit
inline constexpr std::uint32_t kGcBarrier = kMaxBarriers + 1;  // the second barrier of a garbage collection
// A barrier of the program's own (not the exit's or a collection's): only those collect garbage.
constexpr bool is_program_barrier(std::uint32_t id) { return id < kMaxBarriers; }
// "barrier 3", "the exit barrier", "the garbage-collection barrier".
std::string barrier_name(std::uint32_t id);

// Vector time: entry q = the last interval of node q this node has seen.
using VectorTime = std::vector<std::uint32_t>;
// `into` becomes the entry-wise maximum of both (what is known after learning `other`).
inline void merge(VectorTime& into, const VectorTime& other) {
  for (std::size_t i = 0; i < into.size() && i < other.size(); ++i)
    if (other[i] > into[i]) into[i] = other[i];
}

// A node's access to its copy of a page. The byte values are what the typed API's fast path and
// the program's protections read (tmk::Protection extends them).
enum class Access : std::uint8_t { None = 0, Read = 1, Write = 2 };

// The DSM operation a processor is in (CARNIVAL's fourth dimension, SPEC §3.1). Its names are the
// `operation` column of every run's database.
enum class Operation : std::uint8_t {
  None,        // application code
  PageFault,   // fetching a page never held
  DiffFetch,   // fetching the diffs of an invalidated page
  WriteFault,  // first write to a page in an interval (twin)
  LockAcquire,
  LockRelease,
  Barrier,
  GarbageCollection,
  Exit,  // a node that left the program, still serving requests
};
std::string_view to_string(Operation op);

// The protocol's messages. The values are the emulated messages' purposes (emu::Message::purpose)
// and the real runs' MPI tags of the same messages.
enum MessageKind : std::uint16_t {
  kPageRequest = 10,  // a page never held (or dropped by a collection), to its home
  kPageReply,         // the home's copy
  kDiffRequest,       // to one writer: a page and the writer's intervals whose diffs are wanted
  kDiffReply,         // those diffs
  kLockRequest,       // to the lock's manager: the requester and its vector time
  kLockForward,       // the manager to the last requester: the same
  kLockGrant,         // the releaser to the acquirer: the intervals the acquirer lacks
  kBarrierArrival,    // to the barrier manager: vector time, new intervals, the node's usage
  kBarrierRelease,    // the manager to each node: the intervals it lacks, whether to collect
  kMessageKindEnd,
};
// Its name (page_request for kPageRequest, ...); "other" for a value outside the protocol.
std::string_view message_kind_name(std::uint16_t kind);

// A program's misuse of the protocol (a lock released but not held, ids out of range, barrier
// ids that differ): its message names the node, the object and the reason.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ncp2::lrc
