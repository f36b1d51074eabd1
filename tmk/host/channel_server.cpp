// One server of a program's requests for both backends (tmk/host/channel_server.hpp).
#include "tmk/host/channel_server.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

#include <fmt/format.h>

#include "lrc/types.hpp"
#include "tmk/host/page_set.hpp"
#include "tmk/host/shared_heap.hpp"

namespace ncp2::tmk {

ChannelServer::ChannelServer(ChannelSizes sizes) : sizes_(sizes) {}

void ChannelServer::fail(RequestHandler& h, const std::string& what) const {
  h.abort(fmt::format("node {}: {}{}", sizes_.node, what, h.where()));
  std::terminate();  // RequestHandler::abort never returns
}

void ChannelServer::startup(Channel& c) const {
  c.node = static_cast<std::uint32_t>(sizes_.node);
  c.nodes = static_cast<std::uint32_t>(sizes_.nodes);
  c.heap_base = kHeapBase;
  c.heap_bytes = sizes_.heap_bytes;
  c.page_bytes = sizes_.page_bytes;
  c.sample_period = sizes_.sample_period;
  c.deferral_slots =
      static_cast<std::uint32_t>(std::min(kMaxDeferredFaults, kSnapshotBytes / sizes_.page_bytes));
}

std::uint32_t ChannelServer::checked_id(const Channel& c, RequestHandler& h, std::uint32_t limit,
                                        const char* call, const char* ids) const {
  if (c.arg0 >= limit) fail(h, fmt::format("{}({}): {} ids go from 0 to {}", call, c.arg0, ids, limit - 1));
  return static_cast<std::uint32_t>(c.arg0);
}

std::uint32_t ChannelServer::page_of(std::uint64_t address, RequestHandler& h, const char* what) const {
  if (address < kHeapBase || address - kHeapBase >= sizes_.heap_bytes)
    fail(h, fmt::format("{} at {:#x}, outside the shared heap", what, address));
  return static_cast<std::uint32_t>((address - kHeapBase) / sizes_.page_bytes);
}

std::span<const DeferredFault> ChannelServer::deferred_faults(const Channel& c, RequestHandler& h) const {
  if (c.deferred > c.deferral_slots || c.deferral_slots > kMaxDeferredFaults)
    fail(h, fmt::format("reports {} write faults taken at once, beyond its {} slots (its channel was "
                        "overwritten?)",
                        c.deferred, c.deferral_slots));
  return {c.deferred_fault, c.deferred};
}

// NOLINTNEXTLINE(readability-function-size): one case per request of the channel
bool ChannelServer::serve(Channel& c, const unsigned char* bulk, RequestHandler& h) {
  c.result = 0;
  switch (c.request) {
    case Request::Startup:
      startup(c);
      h.startup();
      return true;
    case Request::None:
    case Request::MoreProtections:
      return true;
    case Request::Exit:
      if (c.arg0 != 0 && c.pc == 0)  // exit() without Tmk_exit: the others may wait for it; say why
        fmt::print(stderr, "ncp2: node {} exits with status {}{}\n", sizes_.node, c.arg0, h.where());
      h.exit(c.arg0);
      return false;
    case Request::Crash:
      fail(h, "crashed: " + std::string(c.text, strnlen(c.text, kTextBytes)));
    case Request::Misuse:
      fail(h, std::string(c.text, strnlen(c.text, kTextBytes)));
    default:
      break;
  }
  h.begin_request(c);
  switch (c.request) {
    case Request::Malloc: {
      const auto [address, why] = h.malloc(c.arg0);
      if (address == 0) fail(h, fmt::format("Tmk_malloc({} bytes): {}", c.arg0, why));
      c.result = static_cast<std::int64_t>(address);
      return true;
    }
    case Request::Free:
      if (!h.free(c.arg0))
        fail(h, fmt::format("Tmk_free({:#x}): not an address Tmk_malloc returned (or freed twice)", c.arg0));
      return true;
    case Request::Distribute: {
      if (c.arg1 > kBulkBytes - 16)
        fail(h, fmt::format("Tmk_distribute of {} bytes: more than the {} MiB a request carries", c.arg1,
                            kBulkBytes >> 20));
      std::vector<std::byte> record(16 + (c.arg1 + 7) / 8 * 8);
      std::memcpy(record.data(), bulk, 16 + c.arg1);
      h.distribute(std::move(record));
      return true;
    }
    case Request::Barrier:
      h.barrier(checked_id(c, h, lrc::kMaxBarriers, "Tmk_barrier", "barrier"));
      return true;
    case Request::LockAcquire:
      h.lock_acquire(checked_id(c, h, lrc::kMaxLocks, "Tmk_lock_acquire", "lock"));
      return true;
    case Request::LockRelease:
      h.lock_release(checked_id(c, h, lrc::kMaxLocks, "Tmk_lock_release", "lock"));
      return true;
    case Request::Fault:
      h.fault(page_of(c.arg0, h, "an access fault"), c.arg1 != 0);
      return true;
    default:
      fail(h, fmt::format("sent an unknown request ({}): is it built with this version's ncp2-cc?",
                          static_cast<unsigned>(c.request)));
  }
}

void ChannelServer::sort_pages(std::vector<std::uint32_t>& pages) {
  sort_unique_pages(pages, this->pages(), bits_);
}

void ChannelServer::distributed(std::span<const std::byte> records, std::uint64_t count) {
  distribute_.insert(distribute_.end(), records.begin(), records.end());
  records_ += count;
}

void ChannelServer::fill_reply(Channel& c, unsigned char* bulk) {
  const std::size_t n = std::min(pending_.size(), kMaxProtectionRuns);
  std::copy_n(pending_.begin(), n, c.run);
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  c.protection_runs = static_cast<std::uint32_t>(n);
  c.more_protections = pending_.empty() ? 0 : 1;
  if (records_ > 0 && distribute_.size() <= kBulkBytes) {
    std::memcpy(bulk, distribute_.data(), distribute_.size());
    c.distributed = records_;
    distribute_.clear();
    records_ = 0;
  }
}

std::string heap_exhausted(const SharedHeap& heap) {
  return fmt::format(
      "the shared heap of {} MiB is exhausted ({} bytes in use, the largest free block {} bytes); raise it "
      "with --set tmk.heap_mb=N",
      heap.capacity() >> 20, heap.in_use(), heap.largest_free());
}

}  // namespace ncp2::tmk
