// The runtime's side of ncp2-cc's write guards (write_guards.hpp).
#include "write_guards.hpp"

#include "tmk/runtime/die.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

extern "C" {
// The pass defines the marker in every module it guards; weak here, so its address tells whether
// the program was built with the guards. The pass reads __ncp2_tmk_guard_bytes before each store.
extern const char __ncp2_tmk_write_guards __attribute__((weak));  // NOLINT: the pass's ABI names
unsigned long long __ncp2_tmk_guard_bytes = 0;                    // NOLINT
extern unsigned long long __ncp2_tmk_icount;                      // NOLINT
void __ncp2_tmk_write_guard(unsigned long long address, unsigned long long size);  // NOLINT
}

namespace ncp2::tmk::guards {
namespace {

// What the heap's own mapping currently allows, per host page (so that unchanged pages cost no
// mprotect): the emulator's None and Read, or ReadWrite after an unguarded write was let through.
struct State {
  bool active = false;
  std::uintptr_t heap_base = 0;
  std::size_t host_pages = 0;
  std::size_t page_bytes = 0;  // the emulated page
  Channel* channel = nullptr;
  unsigned char* snapshots = nullptr;
  Requester request = nullptr;
  unsigned char* writable = nullptr;  // the table the guarded stores read (kWriteTableBase)
  unsigned char* mapped = nullptr;    // Protection of the heap's mapping, per host page
  Counts counts;
};
State g;  // NOLINT: the process's one heap

constexpr std::size_t kHostPage = std::size_t{1} << kWriteTablePageShift;
// The table's values; the pass tests for kWritable alone.
constexpr unsigned char kNotWritable = 0;
constexpr unsigned char kWritable = 1;
constexpr unsigned char kLocalWriteFault = 2;  // Protection::ReadLocalWrite
constexpr std::size_t kNone = ~std::size_t{0};

int prot_of(Protection p) {
  if (p == Protection::ReadWrite) return PROT_READ | PROT_WRITE;
  return p == Protection::Read ? PROT_READ : PROT_NONE;
}

void* map_fixed(std::uintptr_t at, std::size_t bytes, int prot, int flags, int fd) {
  void* want = reinterpret_cast<void*>(at);
  void* got = mmap(want, bytes, prot, flags | MAP_FIXED_NOREPLACE, fd, 0);
  if (got == MAP_FAILED) return nullptr;
  if (got != want) {  // a kernel without MAP_FIXED_NOREPLACE placed it elsewhere
    munmap(got, bytes);
    return nullptr;
  }
  return got;
}

// mprotect of the heap's mapping over [first, first + count) host pages, skipping pages already so.
bool protect(std::size_t first, std::size_t count, Protection want) {
  const auto code = static_cast<unsigned char>(want);
  std::size_t p = first;
  while (p < first + count) {
    if (g.mapped[p] == code) {
      ++p;
      continue;
    }
    std::size_t end = p;
    while (end < first + count && g.mapped[end] != code) g.mapped[end++] = code;
    ++g.counts.mprotects;
    if (mprotect(reinterpret_cast<void*>(g.heap_base + p * kHostPage), (end - p) * kHostPage,
                 prot_of(want)) != 0)
      return false;
    p = end;
  }
  return true;
}

}  // namespace

bool start(int heap_fd, std::uintptr_t heap_base, std::size_t heap_bytes, std::size_t page_bytes,
           const char** why) {
  *why = nullptr;
  if (&__ncp2_tmk_write_guards == nullptr) return false;  // built without them: nothing to say
  if (heap_base != kHeapBase || heap_bytes > kWriteAliasOffset || heap_bytes % kHostPage != 0 ||
      page_bytes % kHostPage != 0) {
    *why = "the shared heap is not where the guards expect it";
    return false;
  }
  const std::size_t pages = heap_bytes / kHostPage;
  const std::size_t table_bytes = (pages + kHostPage - 1) / kHostPage * kHostPage;
  if (!map_fixed(heap_base + kWriteAliasOffset, heap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, heap_fd)) {
    *why = std::strerror(errno);
    return false;
  }
  void* table =
      map_fixed(kWriteTableBase, table_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  void* mapped = mmap(nullptr, table_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!table || mapped == MAP_FAILED) {
    *why = std::strerror(errno);
    munmap(reinterpret_cast<void*>(heap_base + kWriteAliasOffset), heap_bytes);
    if (table) munmap(table, table_bytes);
    if (mapped != MAP_FAILED) munmap(mapped, table_bytes);
    return false;
  }
  g.heap_base = heap_base;
  g.host_pages = pages;
  g.page_bytes = page_bytes;
  g.writable = static_cast<unsigned char*>(table);
  g.mapped = static_cast<unsigned char*>(mapped);  // zero: Protection::None, as the heap is mapped
  g.active = true;
  __ncp2_tmk_guard_bytes = heap_bytes;
  return true;
}

bool active() { return g.active; }

void connect(Channel* channel, unsigned char* snapshots, Requester request) {
  g.channel = channel;
  g.snapshots = snapshots;
  g.request = request;
}

bool apply(std::size_t first_host_page, std::size_t host_pages, Protection protection) {
  if (first_host_page >= g.host_pages) return true;
  if (host_pages > g.host_pages - first_host_page) host_pages = g.host_pages - first_host_page;
  unsigned char value = kNotWritable;
  if (protection == Protection::ReadWrite) value = kWritable;
  if (protection == Protection::ReadLocalWrite) value = kLocalWriteFault;
  std::memset(g.writable + first_host_page, value, host_pages);
  return protect(first_host_page, host_pages,
                 protection == Protection::None ? Protection::None : Protection::Read);
}

bool allow_unguarded_write(std::uintptr_t address) {
  if (!g.active || address < g.heap_base) return false;
  const std::size_t page = (address - g.heap_base) / kHostPage;
  if (page >= g.host_pages || g.writable[page] != kWritable) return false;
  ++g.counts.unguarded_writes;
  return protect(page, 1, Protection::ReadWrite);
}

Counts& counts() { return g.counts; }

namespace {

// The first host page of [offset, offset + size) of the heap this node may not write yet, or kNone.
std::size_t first_unwritable(std::uint64_t offset, std::uint64_t size) {
  const std::uint64_t heap = std::uint64_t{g.host_pages} * kHostPage;
  if (size == 0 || offset >= heap) return kNone;
  const std::uint64_t end = offset + size < heap ? offset + size : heap;
  for (std::size_t p = offset / kHostPage; p <= (end - 1) / kHostPage; ++p)
    if (g.writable[p] != kWritable) return p;
  return kNone;
}

// Takes the write fault of the emulated page holding host page `page` at once: a snapshot of the
// page as it is (its twin), a DeferredFault for the emulator to replay before the next request, and
// the page writable. False when the emulator does not take deferred faults.
bool take_at_once(std::size_t page, std::uint64_t address, void* pc) {
  Channel& c = *g.channel;
  if (c.deferral_slots == 0) return false;
  if (c.deferred >= c.deferral_slots) g.request(Request::None, 0, 0, pc);  // full: the emulator replays them
  if (g.writable[page] != kLocalWriteFault) return true;                   // the reply changed it: look again
  const std::size_t per_page = g.page_bytes / kHostPage;
  const std::size_t first = page / per_page * per_page;
  const std::uint32_t slot = c.deferred;
  std::memcpy(g.snapshots + std::size_t{slot} * g.page_bytes,
              reinterpret_cast<const void*>(g.heap_base + first * kHostPage), g.page_bytes);
  c.deferred_fault[slot] = {address, __ncp2_tmk_icount, reinterpret_cast<std::uint64_t>(pc), c.marks,
                            c.samples};
  // Published with the snapshot before the page is written: a real run's agent serving the page
  // meanwhile serves the snapshot (real_machine/agent_service.cpp, untold_write_snapshot).
  std::atomic_ref(c.deferred).store(slot + 1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::memset(g.writable + first, kWritable, per_page);
  ++g.counts.deferred_faults;
  return true;
}
}  // namespace

// A guarded store (tmk/instrument/write_guard_pass.cpp) to pages this node may not write yet: the
// write fault a signal would report, without the signal (taken at once when it is local); the
// store then goes through the alias.
extern "C" __attribute__((noinline)) void __ncp2_tmk_write_guard(unsigned long long address,
                                                                 unsigned long long size) {
  void* pc = static_cast<char*>(__builtin_return_address(0)) - 1;  // inside the call: the store's line
  const std::uint64_t offset = address - g.heap_base;
  std::size_t last = kNone;
  for (std::size_t page = first_unwritable(offset, size); page != kNone;
       page = first_unwritable(offset, size)) {
    const std::uint64_t page_address = g.heap_base + std::uint64_t{page} * kHostPage;
    const std::uint64_t at = address > page_address ? address : page_address;
    if (g.writable[page] == kLocalWriteFault && take_at_once(page, at, pc)) continue;
    if (page == last) die("the emulator did not let this node write a page after its write fault");
    last = page;
    ++g.counts.guarded_faults;
    g.request(Request::Fault, at, 1, pc);
  }
}

}  // namespace ncp2::tmk::guards
