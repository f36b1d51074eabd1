// Node 0's shared heap in a real run (heap_service.hpp).
#include "real_machine/heap_service.hpp"

#include <optional>

#include "tmk/channel.hpp"
#include "tmk/host/channel_server.hpp"

namespace ncp2::real {

HeapService::HeapService(Transport& transport, std::size_t heap_bytes)
    : transport_(transport), heap_(heap_bytes) {}

std::pair<std::uint64_t, std::string> HeapService::allocate(std::uint64_t bytes) {
  const std::lock_guard guard(mutex_);
  const std::optional<std::size_t> offset = heap_.allocate(bytes);
  if (!offset) return {0, tmk::heap_exhausted(heap_)};
  return {tmk::kHeapBase + *offset, {}};
}

bool HeapService::free(std::uint64_t address) {
  const std::lock_guard guard(mutex_);
  return address >= tmk::kHeapBase && address < tmk::kHeapBase + heap_.capacity() &&
         heap_.free(address - tmk::kHeapBase);
}

void HeapService::on_malloc(const Message& m) {
  WireReader r(m.body);
  const auto [address, error] = allocate(r.u64());
  WireWriter w;
  w.u64(address).text(error);
  transport_.send(m.from, Tag::MallocReply, std::move(w).take());
}

void HeapService::on_free(const Message& m) {
  WireReader r(m.body);
  const bool ok = free(r.u64());
  WireWriter w;
  w.u32(ok ? 1 : 0);
  transport_.send(m.from, Tag::FreeReply, std::move(w).take());
}

}  // namespace ncp2::real
