// The runtime's side of ncp2-cc's guards (write_guards.hpp).
#include "write_guards.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "tmk/fiber_abi.hpp"
#include "tmk/runtime/die.hpp"
#include "tmk/runtime/fiber_mode.hpp"

extern "C" {
// The pass defines the marker in every module it guards; weak here, so its address tells whether
// the program was built with the guards. The pass reads the bounds before each access it guards
// (0: the access is left alone), then the table's address and the alias.
extern const char __ncp2_tmk_write_guards __attribute__((weak));  // NOLINT: the pass's ABI names
unsigned long long __ncp2_tmk_guard_bytes = 0;                    // NOLINT: stores
unsigned long long __ncp2_tmk_load_bytes = 0;                     // NOLINT: loads (fiber runner only)
unsigned long long __ncp2_tmk_guard_table = 0;                    // NOLINT: a PageState per host page
unsigned long long __ncp2_tmk_guard_alias = 0;                    // NOLINT: added to guarded addresses
// Where libc's wrappers (shared_strings.cpp) read shared memory: the heap itself under the process
// runner (0: its page protections still apply), the node's copy under the fiber runner.
extern unsigned long long __ncp2_tmk_icount;                                       // NOLINT
void __ncp2_tmk_write_guard(unsigned long long address, unsigned long long size);  // NOLINT
void __ncp2_tmk_read_guard(unsigned long long address, unsigned long long size);   // NOLINT
}

namespace ncp2::tmk::guards {
namespace {

struct State {
  bool active = false;
  bool fiber = false;            // the fiber runner's guards: no mapping, no mprotect
  std::uintptr_t heap_base = 0;  // the program's address of the heap (kHeapBase)
  std::size_t host_pages = 0;
  std::size_t page_bytes = 0;  // the emulated page
  Channel* channel = nullptr;
  unsigned char* snapshots = nullptr;
  Requester request = nullptr;
  std::uint8_t* table = nullptr;    // PageState per host page: what the guards read
  unsigned char* mapped = nullptr;  // process runner: Protection of the heap's mapping, per host page
  Counts counts;
};
State g;  // NOLINT: the program's one heap

constexpr std::size_t kHostPage = std::size_t{1} << kWriteTablePageShift;
constexpr auto kNoAccess = static_cast<std::uint8_t>(PageState::None);
constexpr auto kWritable = static_cast<std::uint8_t>(PageState::Write);
constexpr auto kLocalWriteFault = static_cast<std::uint8_t>(PageState::ReadLocalWrite);
constexpr auto kReadable = static_cast<std::uint8_t>(PageState::Read);
constexpr std::size_t kNone = ~std::size_t{0};

std::uint8_t state_of(Protection p) {
  switch (p) {
    case Protection::ReadWrite:
      return kWritable;
    case Protection::ReadLocalWrite:
      return kLocalWriteFault;
    case Protection::Read:
      return kReadable;
    case Protection::None:
      break;
  }
  return kNoAccess;
}

// Whether a page in `state` lets the node write (a store) or read (a load) without asking.
bool allowed(std::uint8_t state, bool write) { return write ? state == kWritable : state != kNoAccess; }

// Where the heap's bytes at a program address are (the alias: the always-writable mapping under
// the process runner, the node's copy under the fiber runner).
const void* bytes_at(std::uint64_t program_address) {
  return reinterpret_cast<const void*>(program_address + __ncp2_tmk_guard_alias);
}

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

// The pass's globals, the bounds last: a guarded access looks at the table only once they are set.
void publish(std::uint64_t table, std::uint64_t alias, std::uint64_t guard_bytes, std::uint64_t load_bytes) {
  __ncp2_tmk_guard_table = table;
  __ncp2_tmk_guard_alias = alias;
  __ncp2_tmk_guard_bytes = guard_bytes;
  __ncp2_tmk_load_bytes = load_bytes;
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
  g.table = static_cast<std::uint8_t*>(table);
  g.mapped = static_cast<unsigned char*>(mapped);  // zero: Protection::None, as the heap is mapped
  g.active = true;
  // Loads stay unguarded: the heap's own mapping keeps their protections.
  // Loads are guarded too (and read through the alias, which every page of the heap may be read
  // at): a read fault is a call, not a signal and an mprotect, asked from the same place as under
  // the fiber runner (the same profile). memmove keeps its overlap test: both operands move alike.
  publish(kWriteTableBase, kWriteAliasOffset, heap_bytes, heap_bytes);
  return true;
}

bool start_fiber(std::uint8_t* table, std::byte* heap_copy, std::size_t heap_bytes, std::size_t page_bytes) {
  if (table == nullptr || heap_copy == nullptr || heap_bytes % kHostPage != 0 || page_bytes == 0 ||
      page_bytes % kHostPage != 0)
    return false;
  g.heap_base = kHeapBase;  // the program's addresses stay those of the process runner
  g.host_pages = heap_bytes / kHostPage;
  g.page_bytes = page_bytes;
  g.table = table;
  g.fiber = true;
  g.active = true;
  publish(reinterpret_cast<std::uintptr_t>(table), reinterpret_cast<std::uintptr_t>(heap_copy) - kHeapBase,
          heap_bytes, heap_bytes);
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
  std::memset(g.table + first_host_page, state_of(protection), host_pages);
  if (g.fiber) return true;  // no mapping of its own: the guards are the only way in
  return protect(first_host_page, host_pages,
                 protection == Protection::None ? Protection::None : Protection::Read);
}

bool allow_unguarded_write(std::uintptr_t address) {
  if (!g.active || g.fiber || address < g.heap_base) return false;
  const std::size_t page = (address - g.heap_base) / kHostPage;
  if (page >= g.host_pages || g.table[page] != kWritable) return false;
  ++g.counts.unguarded_writes;
  return protect(page, 1, Protection::ReadWrite);
}

Counts& counts() { return g.counts; }

namespace {

// The first host page of [offset, offset + size) of the heap this node may not write (`write`)
// or read yet, or kNone.
std::size_t first_denied(std::uint64_t offset, std::uint64_t size, bool write) {
  const std::uint64_t heap = std::uint64_t{g.host_pages} * kHostPage;
  if (size == 0 || offset >= heap) return kNone;
  const std::uint64_t end = size < heap - offset ? offset + size : heap;
  for (std::size_t p = offset / kHostPage; p <= (end - 1) / kHostPage; ++p)
    if (!allowed(g.table[p], write)) return p;
  return kNone;
}

// Takes the write fault of the emulated page holding host page `page` at once: a snapshot of the
// page as it is (its twin), a DeferredFault for the emulator to replay before the next request, and
// the page writable. False when the emulator does not take deferred faults.
bool take_at_once(std::size_t page, std::uint64_t address, void* pc) {
  Channel& c = *g.channel;
  if (c.deferral_slots == 0) return false;
  if (c.deferred >= c.deferral_slots) g.request(Request::None, 0, 0, pc);  // full: the emulator replays them
  if (g.table[page] != kLocalWriteFault) return true;                      // the reply changed it: look again
  const std::size_t per_page = g.page_bytes / kHostPage;
  const std::size_t first = page / per_page * per_page;
  const std::uint32_t slot = c.deferred;
  std::memcpy(g.snapshots + std::size_t{slot} * g.page_bytes, bytes_at(g.heap_base + first * kHostPage),
              g.page_bytes);
  c.deferred_fault[slot] = {address, __ncp2_tmk_icount, fiber::program_pc(pc), c.marks, c.samples};
  // Published with the snapshot before the page is written: a real run's agent serving the page
  // meanwhile serves the snapshot (real_machine/agent_service.cpp, untold_write_snapshot).
  std::atomic_ref(c.deferred).store(slot + 1, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::memset(g.table + first, kWritable, per_page);
  ++g.counts.deferred_faults;
  return true;
}

// The faults a guarded access needs before it may go on: each host page of [address, address +
// size) the node may not access so, in address order, asked of the emulator as a signal handler
// would (a write to a ReadLocalWrite page taken at once when it may be). A reply may change any
// page's state: the pages are looked at again from the first after each.
void ask_for_pages(std::uint64_t address, std::uint64_t size, bool write, void* pc) {
  const std::uint64_t offset = address - g.heap_base;
  std::size_t last = kNone;
  for (std::size_t page = first_denied(offset, size, write); page != kNone;
       page = first_denied(offset, size, write)) {
    const std::uint64_t page_address = g.heap_base + std::uint64_t{page} * kHostPage;
    const std::uint64_t at = address > page_address ? address : page_address;
    if (write && g.table[page] == kLocalWriteFault && take_at_once(page, at, pc)) continue;
    if (page == last)
      die(write ? "the emulator did not let this node write a page after its write fault"
                : "the emulator did not let this node read a page after its read fault");
    last = page;
    ++(write ? g.counts.guarded_faults : g.counts.read_faults);
    g.request(Request::Fault, at, write ? 1 : 0, pc);
  }
}

}  // namespace

void fault(std::uint64_t address, std::uint64_t size, bool write, void* pc) {
  ask_for_pages(address, size, write, pc);
}

// A guarded store (tmk/instrument/write_guard_pass.cpp) to pages this node may not write yet: the
// write fault a signal would report, without the signal (taken at once when it is local); the
// store then goes through the alias.
extern "C" __attribute__((noinline)) void __ncp2_tmk_write_guard(unsigned long long address,
                                                                 unsigned long long size) {
  // Inside the call: the access's line.
  ask_for_pages(address, size, true, static_cast<char*>(__builtin_return_address(0)) - 1);
}

// A guarded load (fiber runner) of pages this node does not hold: the read fault, then the load
// goes through the alias.
extern "C" __attribute__((noinline)) void __ncp2_tmk_read_guard(unsigned long long address,
                                                                unsigned long long size) {
  ask_for_pages(address, size, false, static_cast<char*>(__builtin_return_address(0)) - 1);
}

}  // namespace ncp2::tmk::guards
