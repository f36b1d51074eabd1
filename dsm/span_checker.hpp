#pragma once
// Stale spans (issue 16): a span of the typed API (ArrayView::read_span / write_span) points into
// the node's copy of a region and is valid until the node's next synchronization — after it, the
// page may have been invalidated and a fresh copy would have had to be fetched. The checking mode
// (Runtime::check_spans) catches any use of a span after that synchronization, reads and writes
// alike, through the span or through its .data() pointer.
//
// How: each node's copy of a checked region is a memfd mapped several times. The primary mapping
// is what the protocol and ArrayView get/set use. Spans point into views of the same memory, a
// ring of kViews mappings per node and region: the node's first span on the region after a
// synchronization opens the next view (read-write), every span until the next synchronization
// points into that view, and the synchronization closes it (PROT_NONE). A stale span thus points
// into a closed view, whichever page it covers and whatever newer spans were taken since. Its use
// faults; the SIGSEGV handler notes the node, the address, the instruction and whether it wrote,
// reopens that host page so the program can go on, and the runtime reports the use at the node's
// next DSM entry (Runtime::check_stale). A SIGSEGV elsewhere goes to the disposition from before.
//
// Cost: two mprotect calls per node, region and stretch between synchronizations in which the
// node took spans on the region; nothing per access. Limits (docs/writing-workloads.md): a view
// is reused kViews openings later, so a span first used after the node opened kViews newer views
// of the same region points into an open view again and goes unnoticed; accesses outside a span's
// own range (pointer arithmetic past it) are not checked.
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "dsm/types.hpp"

namespace ncp2::dsm {

// The synchronization that closed a node's views: a lock acquire or release, or a barrier.
struct SyncPoint {
  Operation operation = Operation::None;
  std::uint32_t id = 0;  // the lock's or the barrier's
};

class SpanChecker {
 public:
  static constexpr int kViews = 8;  // per node and region: how many stretches back a use is caught

  explicit SpanChecker(int nodes);
  ~SpanChecker();
  SpanChecker(const SpanChecker&) = delete;
  SpanChecker& operator=(const SpanChecker&) = delete;

  // Maps region `region` (the runtime's index), `bytes` zeroed bytes per node. Throws
  // std::system_error when the host refuses the memory or the mappings.
  void add_region(std::uint32_t region, std::size_t bytes);
  [[nodiscard]] bool checks(std::uint32_t region) const {
    return region < regions_.size() && regions_[region] != nullptr;
  }
  // Node `node`'s copy of the region, as the protocol sees it.
  [[nodiscard]] std::byte* primary(std::uint32_t region, int node) const;

  // Node `node` takes a span of `bytes` bytes at byte `offset` of the region, written at
  // file:line. Returns where the region starts for spans of the node's current stretch.
  std::byte* take(int node, std::uint32_t region, std::size_t offset, std::size_t bytes, const char* file,
                  int line);
  // Node `node` synchronizes: the views it opened since its previous synchronization close.
  void synchronize(int node, SyncPoint sync);

  // A use of a closed view.
  struct StaleUse {
    std::uint32_t region = 0;
    std::size_t offset = 0;            // the byte used, in the region
    int write = -1;                    // 1: a write, 0: a read, -1: unknown (not on x86-64)
    std::uint64_t pc = 0;              // the instruction (0: unknown)
    std::uint64_t stack_top = 0;       // the word at the stack pointer: the return address when the
                                       // instruction is in a leaf library function (memcpy)
    const char* taken_file = nullptr;  // where the span was taken (null: no span of the view covers
    int taken_line = 0;                // the byte, the pointer went past its span)
    SyncPoint closed_by;
  };
  // Whether node `node` used a stale span since the last take_stale; cheap.
  [[nodiscard]] bool stale(int node) const;
  // The node's first stale use since the last call (stale(node) must be true), and forgets it.
  [[nodiscard]] StaleUse take_stale(int node);

 private:
  struct Region;
  struct Pending;
  friend void on_segv(int signal, siginfo_t* info, void* context);
  // From the SIGSEGV handler: `address` in `region`'s views. True when it was a stale use (noted,
  // and the page reopened); false when the address is in a view that is open (not ours to handle).
  bool note_fault(Region& region, std::uintptr_t address, const void* context) noexcept;

  int nodes_;
  std::vector<std::unique_ptr<Region>> regions_;  // by the runtime's region index; null: unchecked
  std::vector<std::vector<Region*>> open_;        // per node: regions with a view open
  std::unique_ptr<Pending[]> pending_;            // NOLINT(modernize-avoid-c-arrays): per node, fixed
};

}  // namespace ncp2::dsm
