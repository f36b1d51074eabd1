#pragma once
// THE sequence of every LRC operation, written once for every machine (issue 41): an access
// fault with its page and diff fetches, a lock's acquire and release, a barrier with the garbage
// collection it may start. The decisions are lrc::Node's; the sequence — which decision comes
// after which reply, what is grouped, what is waited for — is here. What differs between the
// machines is behind lrc::Transport: the emulated machine (dsm/, messages through CPs and
// interrupts, modelled costs) and real processes (real_machine/, UCX between processes Open MPI starts,
// measured time). As in SimGrid, an operation says what to wait for and the transport decides how to block.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "lrc/node.hpp"
#include "lrc/types.hpp"

namespace ncp2::lrc {

// One diff request of a diff fetch: to `writer`, the writer's intervals whose diffs are wanted.
struct DiffRequest {
  NodeId writer{};
  std::span<const std::uint32_t> intervals;
};

// Where the driver charges a processor's entry into TreadMarks code (each machine its own cost).
enum class Entry : std::uint8_t {
  AccessTrap,  // an access to a page without access traps into the fault handler
  WriteTrap,   // a first write to a readable page traps (where the machine has no snoopy logic)
  Handler,     // a synchronization call runs the protocol's handler
};

// What a barrier's release tells a node.
struct BarrierOutcome {
  bool collect = false;  // the manager asks for a garbage collection (program barriers only)
};

// How one node's operations reach the other nodes, and what the machine adds around them. Each
// exchange method sends, blocks the caller its own way until the reply (or every reply) has been
// taken in through the reply functions below, and records the wait it was (one wait each).
class Transport {
 public:
  // The operation the node's processor is attributed to (CARNIVAL's fourth dimension).
  [[nodiscard]] virtual Operation operation() const = 0;
  virtual void set_operation(Operation op) = 0;
  virtual void charge(Entry entry) = 0;
  // A synchronization starts (`after` false) or has completed for this node (`after` true): the
  // machine's checks of what the program did in between (race detection, stale spans).
  virtual void synchronizing(Operation op, std::uint64_t object, bool after) = 0;
  // The modelled costs of what the node's processor does itself (NoCosts where time is measured).
  virtual CostSink& costs() = 0;
  // A core call given costs() is over: the costs it told are spent now (the driver calls it after
  // each). A core call is never interrupted halfway: another node's request served meanwhile (an
  // emulated processor runs its handlers while it computes) could find the node's state half
  // changed.
  virtual void settle_costs() {}

  // A page fault's fetch from `home`; the reply goes through page_arrived.
  virtual void fetch_page(PageId page, NodeId home) = 0;
  // A diff fetch: every request sent at once; each reply goes through take_diff_reply, and when
  // the last is in, apply_received.
  virtual void fetch_diffs(PageId page, std::span<const DiffRequest> requests) = 0;
  // A lock request (to the manager, or the manager's forward to the last requester) and the wait
  // for the grant, taken in through Node::granted.
  virtual void request_lock(LockId lock, const AcquireStep& step) = 0;
  // This node hands the lock to `next` (queued here), with the intervals it lacks.
  virtual void grant_lock(LockId lock, const LockWaiter& next) = 0;
  // Arrival at the barrier with this node's usage, and the wait for the release (taken in
  // through Node::released).
  virtual BarrierOutcome exchange_at_barrier(BarrierId barrier, std::size_t usage) = 0;

 protected:
  Transport() = default;
  ~Transport() = default;
  Transport(const Transport&) = default;
  Transport& operator=(const Transport&) = default;
};

// A diff request's body as both machines carry it: the writer's intervals, 4 bytes each. The
// reply's encoding, also for both: per interval asked, (interval u32, bytes u32, the diff's
// encoding). encode_diff_reply returns the bytes a real TreadMarks would send (Diff::modeled_bytes
// plus the headers) and tells the node the diffs were served.
std::size_t encode_diff_reply(Node& node, PageId page, std::span<const std::byte> intervals, CostSink& costs,
                              std::vector<std::byte>& out);
// One writer's reply taken in (kept by the node until apply_received). Throws std::runtime_error
// for a reply that does not parse.
void take_diff_reply(Node& node, NodeId writer, std::span<const std::byte> reply, CostSink& costs);

// One node's operations. `guard`, when given, is held around every use of the node's state (a
// real run serves other nodes from another thread); never while the transport waits.
class Driver {
 public:
  Driver(Node& node, Transport& transport, std::mutex* guard = nullptr)
      : node_(node), transport_(transport), guard_(guard) {}

  // An access of kind `wanted` to `page`: the fault's fetches as the node's state requires, then
  // the access granted (a write's twin made).
  void access(PageId page, Access wanted);
  // The diffs of the page's write notices: one request per writer, in node order.
  void fetch_diffs(PageId page);
  void lock_acquire(LockId lock, std::uint64_t site);
  void lock_release(LockId lock);
  // A program's barrier, the exit barrier, or a collection's: arrival, release, and the
  // collection the release asks for.
  void barrier(BarrierId barrier);

 private:
  class Hold;
  void collect_garbage();

  Node& node_;
  Transport& transport_;
  std::mutex* guard_;
  std::vector<std::uint32_t> intervals_;  // a diff fetch's requests (capacity reused)
  std::vector<DiffRequest> requests_;
};

}  // namespace ncp2::lrc
