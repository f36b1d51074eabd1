#pragma once
// The server of a program's channel (tmk/channel.hpp), one per node process, written once for the
// two places that serve programs: the emulated machines (tmk/host/program.cpp) and the agents of
// real runs (real_machine/). It reads a request, checks what the program asked (ids, addresses,
// slots) and hands it to the node's RequestHandler, which runs it its way; then it builds the
// reply: the protections that changed, as runs of equal protection (the program asks for the
// rest when they do not fit), and data distributed by node 0.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lrc/types.hpp"
#include "tmk/channel.hpp"

namespace ncp2::tmk {

class SharedHeap;

// What a node's requests do: run on the emulated machine, or over MPI by a real run's agent.
class RequestHandler {
 public:
  // Before a request that does protocol or heap work (not startup, exit or a crash).
  virtual void begin_request(const Channel& c) = 0;
  virtual void startup() = 0;  // the channel's sizes are filled in already
  // An address of the shared heap for `bytes` bytes; 0 and the reason when there is none.
  virtual std::pair<std::uint64_t, std::string> malloc(std::uint64_t bytes) = 0;
  virtual bool free(std::uint64_t address) = 0;  // false: not an address malloc returned
  // Node 0's Tmk_distribute: one record of the bulk area (address, size, bytes padded to 8).
  virtual void distribute(std::vector<std::byte> record) = 0;
  virtual void barrier(std::uint32_t id) = 0;
  virtual void lock_acquire(std::uint32_t lock) = 0;
  virtual void lock_release(std::uint32_t lock) = 0;
  virtual void fault(std::uint32_t page, bool write) = 0;
  virtual void exit(std::uint64_t status) = 0;
  // " at prog.c:12 (in main)": where the program's current request is ("" when unknown).
  [[nodiscard]] virtual std::string where() const = 0;
  // Ends the run: `text` names the node, what went wrong and where.
  [[noreturn]] virtual void abort(const std::string& text) = 0;

 protected:
  RequestHandler() = default;
  ~RequestHandler() = default;
  RequestHandler(const RequestHandler&) = default;
  RequestHandler& operator=(const RequestHandler&) = default;
};

// The run's sizes, as a node's Tmk_startup learns them.
struct ChannelSizes {
  int node = 0;
  int nodes = 1;
  std::size_t heap_bytes = 0;
  std::size_t page_bytes = 0;
  std::uint64_t sample_period = 0;  // instructions between samples (0: none)
};

// A page's protection for the program, on either machine: its access (the values agree, below),
// and whether a write fault on it may be taken at once (readable, and the fault needs nothing but
// the node itself: lrc::Node::write_is_local).
constexpr Protection protection_for(lrc::Access access, bool write_is_local) {
  if (access == lrc::Access::Read && write_is_local) return Protection::ReadLocalWrite;
  return static_cast<Protection>(access);
}
static_assert(static_cast<std::uint32_t>(Protection::None) == static_cast<std::uint32_t>(lrc::Access::None) &&
              static_cast<std::uint32_t>(Protection::Read) == static_cast<std::uint32_t>(lrc::Access::Read) &&
              static_cast<std::uint32_t>(Protection::ReadWrite) ==
                  static_cast<std::uint32_t>(lrc::Access::Write));

class ChannelServer {
 public:
  explicit ChannelServer(ChannelSizes sizes);

  // Serves the request in `c` (`bulk`: the channel's bulk area) with `h`: false when the program
  // exited (Tmk_exit or exit()).
  bool serve(Channel& c, const unsigned char* bulk, RequestHandler& h);
  // Aborts the run with "node N: `what`" and the place of the request.
  [[noreturn]] void fail(RequestHandler& h, const std::string& what) const;
  [[nodiscard]] const ChannelSizes& sizes() const { return sizes_; }
  [[nodiscard]] std::uint32_t pages() const {
    return static_cast<std::uint32_t>(sizes_.heap_bytes / sizes_.page_bytes);
  }

  // The write faults the program took at once since its last request (checked against its slots).
  [[nodiscard]] std::span<const DeferredFault> deferred_faults(const Channel& c, RequestHandler& h) const;
  // The page of an address of the shared heap (outside it: the run fails, naming `what`).
  [[nodiscard]] std::uint32_t page_of(std::uint64_t address, RequestHandler& h, const char* what) const;

  // Pages whose protection may have changed (any order, repeats allowed; reordered here) with
  // `protection(page)` now: queued for the next replies as runs of equal protection.
  template <class F>
  void protections_changed(std::vector<std::uint32_t>& pages, F&& protection) {
    sort_pages(pages);
    for (std::size_t i = 0; i < pages.size();) {
      const Protection p = protection(pages[i]);
      std::size_t j = i + 1;
      while (j < pages.size() && pages[j] == pages[j - 1] + 1 && protection(pages[j]) == p) ++j;
      pending_.push_back({pages[i], static_cast<std::uint32_t>(j - i), p, 0});
      i = j;
    }
  }
  // Every page's protection (Tmk_startup).
  template <class F>
  void all_protections(F&& protection) {
    pending_.clear();
    for (std::uint32_t page = 0; page < pages();) {
      const Protection p = protection(page);
      std::uint32_t end = page + 1;
      while (end < pages() && protection(end) == p) ++end;
      pending_.push_back({page, end - page, p, 0});
      page = end;
    }
  }
  // Records of node 0's Tmk_distribute for this node's process (`count` of them).
  void distributed(std::span<const std::byte> records, std::uint64_t count);
  [[nodiscard]] std::size_t distributed_bytes() const { return distribute_.size(); }
  // The reply: as many protections as fit (the program asks for the rest), the distributed data.
  void fill_reply(Channel& c, unsigned char* bulk);

 private:
  void startup(Channel& c) const;
  void sort_pages(std::vector<std::uint32_t>& pages);
  [[nodiscard]] std::uint32_t checked_id(const Channel& c, RequestHandler& h, std::uint32_t limit,
                                         const char* call, const char* ids) const;

  ChannelSizes sizes_;
  std::vector<ProtectionRun> pending_;
  std::vector<std::byte> distribute_;
  std::uint64_t records_ = 0;
  std::vector<std::uint64_t> bits_;
};

// "the shared heap of 64 MiB is exhausted (... bytes in use, the largest free block ... bytes);
// raise it with --set tmk.heap_mb=N": why Tmk_malloc failed.
std::string heap_exhausted(const SharedHeap& heap);

}  // namespace ncp2::tmk
