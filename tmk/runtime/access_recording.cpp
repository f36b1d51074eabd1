// Race checks of a program built with ncp2-cc --ncp2-races (tmk/instrument/race_pass.cpp): the
// runtime's side, recording each access to shared memory in the access log the emulator passed
// (tmk/channel.hpp AccessLogLayout), page by page. Part of libncp2tmk; no C++ library at run time.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "tmk/channel.hpp"
#include "tmk/runtime/die.hpp"
#include "tmk/runtime/fiber_mode.hpp"
#include "tmk/runtime/runtime_internal.hpp"

extern "C" {
// The pass calls these for an access at `address` when `address - kHeapBase < __ncp2_tmk_race_bytes`,
// which stays 0 (nothing recorded) unless the run detects data races. The pass defines the marker
// in every module it instruments; weak here, so its address tells whether the program was built
// for race checks.
unsigned long long __ncp2_tmk_race_bytes = 0;  // NOLINT: the pass's ABI names
void __ncp2_tmk_race_read(unsigned long long address, unsigned long long size);   // NOLINT
void __ncp2_tmk_race_write(unsigned long long address, unsigned long long size);  // NOLINT
extern const char __ncp2_tmk_race_checks __attribute__((weak));                   // NOLINT
}

namespace {

// The access log shared with the emulator (tmk/channel.hpp AccessLogLayout); null when not recording.
struct AccessLog {
  ncp2::tmk::AccessLogHeader* header = nullptr;
  std::uint32_t* touched = nullptr;
  ncp2::tmk::AccessSites* sites = nullptr;
  std::uint64_t* bits = nullptr;
  std::size_t words = 0;
  unsigned page_shift = 12;
};
AccessLog g_log;  // NOLINT: the process's one log

// Sets bits [from, from + count) of a bitmap; count > 0.
void set_bits(std::uint64_t* bits, std::size_t from, std::size_t count) {
  const std::size_t last = (from + count - 1) / 64;
  std::size_t w = from / 64;
  const std::uint64_t first_mask = ~std::uint64_t{0} << (from % 64);
  const std::uint64_t last_mask = ~std::uint64_t{0} >> (63 - (from + count - 1) % 64);
  if (w == last) {
    bits[w] |= first_mask & last_mask;
    return;
  }
  bits[w++] |= first_mask;
  for (; w < last; ++w) bits[w] = ~std::uint64_t{0};
  bits[last] |= last_mask;
}

// An access the pass found to be in shared memory, page by page (memcpy and unaligned accesses
// may cross pages). The emulator reads the log only while this process waits for it.
void record(std::uint64_t address, std::uint64_t size, bool write, std::uint64_t pc) {
  const std::uint64_t heap = __ncp2_tmk_race_bytes;
  std::uint64_t offset = address - ncp2::tmk::kHeapBase;
  if (offset >= heap || size == 0) return;
  if (size > heap - offset) size = heap - offset;
  const std::uint64_t page_bytes = std::uint64_t{1} << g_log.page_shift;
  while (size > 0) {
    const auto page = static_cast<std::uint32_t>(offset >> g_log.page_shift);
    const std::uint64_t in_page = offset & (page_bytes - 1);
    const std::uint64_t piece = size < page_bytes - in_page ? size : page_bytes - in_page;
    ncp2::tmk::AccessSites& sites = g_log.sites[page];
    if (!ncp2::tmk::page_touched(sites)) g_log.touched[g_log.header->touched++] = page;
    ncp2::tmk::note_access_site(write ? sites.write : sites.read, pc, static_cast<std::uint32_t>(in_page),
                                static_cast<std::uint32_t>(in_page + piece - 1));
    set_bits(g_log.bits + (std::size_t{page} * 2 + (write ? 1 : 0)) * g_log.words, in_page, piece);
    offset += piece;
    size -= piece;
  }
}

}  // namespace

// The access log, when the emulator passed one (the run detects races): recording starts if the
// program was built with the checks (otherwise the emulator refuses the run at its startup).
void ncp2::tmk::runtime::map_access_log(std::uintptr_t heap_base, std::size_t heap_bytes,
                                        std::size_t page_bytes) {
  const int fd = fd_from_env(ncp2::tmk::kAccessLogFdEnv);
  if (fd < 0) return;
  const ncp2::tmk::AccessLogLayout layout = ncp2::tmk::access_log_layout(heap_bytes, page_bytes);
  void* at = mmap(nullptr, layout.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (at == MAP_FAILED) die("cannot map the access log of the race checks");
  use_access_log(static_cast<std::byte*>(at), heap_base, heap_bytes, page_bytes);
}

void ncp2::tmk::runtime::use_access_log(std::byte* log, std::uintptr_t heap_base, std::size_t heap_bytes,
                                        std::size_t page_bytes) {
  const ncp2::tmk::AccessLogLayout layout = ncp2::tmk::access_log_layout(heap_bytes, page_bytes);
  auto* base = reinterpret_cast<unsigned char*>(log);
  auto* header = reinterpret_cast<ncp2::tmk::AccessLogHeader*>(base);
  if (header->magic != ncp2::tmk::kChannelMagic || header->pages != layout.pages ||
      header->page_bytes != page_bytes)
    die("the emulator's access log does not match the shared heap");
  if (&__ncp2_tmk_race_checks == nullptr || heap_base != ncp2::tmk::kHeapBase) return;
  g_log.header = header;
  g_log.touched = reinterpret_cast<std::uint32_t*>(base + layout.touched_at);
  g_log.sites = reinterpret_cast<ncp2::tmk::AccessSites*>(base + layout.sites_at);
  g_log.bits = reinterpret_cast<std::uint64_t*>(base + layout.bits_at);
  g_log.words = layout.words;
  g_log.page_shift = static_cast<unsigned>(__builtin_ctzll(page_bytes));
  __ncp2_tmk_race_bytes = heap_bytes;
}

extern "C" {

// The race checks' calls (their return address is the access's place in the program).
__attribute__((noinline)) void __ncp2_tmk_race_read(unsigned long long address, unsigned long long size) {
  record(address, size, false, ncp2::tmk::fiber::program_pc(__builtin_return_address(0)));
}

__attribute__((noinline)) void __ncp2_tmk_race_write(unsigned long long address, unsigned long long size) {
  record(address, size, true, ncp2::tmk::fiber::program_pc(__builtin_return_address(0)));
}

}  // extern "C"
