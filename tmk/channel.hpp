#pragma once
// The channel between a program's node process and the emulator (ncp2 run ./prog): one shared
// memory block per node, written by one side at a time. The node process posts a request (a Tmk
// call, an access fault, a scope mark, its exit or crash) and hands the turn to the emulator;
// the emulator runs the request on the emulated machine at the node's virtual time, writes the
// reply (the page protections that changed, data distributed by node 0) and hands the turn back.
// Only one side runs at a time, so the layout needs no locks: the turn word (a futex) orders
// everything. Included by the runtime linked into user programs (no library dependencies) and
// by the emulator's driver.
#include <sched.h>
#include <time.h>
#include <x86intrin.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ncp2::tmk {

inline constexpr std::uint32_t kChannelMagic = 0x4e435032;  // "NCP2"
inline constexpr std::uint32_t kChannelVersion = 6;         // 6: the turn word's sleeping bit
// Shared memory is mapped at this address in every node process (the same address is the same
// datum on every node). High enough to stay clear of the program, its heap and its libraries.
inline constexpr std::uint64_t kHeapBase = 0x5a0000000000ULL;
// ncp2-cc's write guards (tmk/instrument/write_guard_pass.cpp): an instrumented store to shared
// memory first reads the byte of its host page in the table at kWriteTableBase (1: this node may
// write the page, so its write fault was served) and then writes through a second mapping of the
// shared memory at kHeapBase + kWriteAliasOffset that is always writable. Write faults then cost no
// signal and no mprotect; the first mapping keeps the protections for loads and for code built
// without the guards. The heap must be smaller than the offset.
inline constexpr std::uint64_t kWriteAliasOffset = 0x10000000000ULL;  // 1 TiB
inline constexpr std::uint64_t kWriteTableBase = 0x5c0000000000ULL;
inline constexpr unsigned kWriteTablePageShift = 12;  // one byte per 4 KiB host page

// Environment of a node process started by the emulator.
inline constexpr const char* kChannelFdEnv = "NCP2_TMK_CHANNEL_FD";
inline constexpr const char* kHeapFdEnv = "NCP2_TMK_HEAP_FD";
// Set only when the run detects data races: the node's access log (AccessLogLayout).
inline constexpr const char* kAccessLogFdEnv = "NCP2_TMK_ACCESS_LOG_FD";

enum class Turn : std::uint32_t { Node = 1, Emulator = 2 };
// The hand-off (docs/performance.md, issues 33 and 41): the side waiting for the turn spins a
// moment (2-3 us), then yields the core up to 50 us (it stays runnable, and a host with fewer
// cores than runnable processes gives the core to whoever needs it), then sets this bit on the
// turn word (the other side's value) and sleeps on the futex; the side that hands the turn over
// swaps its value in and makes the wake-up system call only when the bit was set.
inline constexpr std::uint32_t kTurnSleeping = 0x100;
[[nodiscard]] inline bool is_turn(std::uint32_t word, Turn turn) {
  return (word & ~kTurnSleeping) == static_cast<std::uint32_t>(turn);
}

// The hand-off's waiting side before it sleeps: spin `spin_ns` (a reply often comes within a
// microsecond or two), then yield the core until `awake_ns` have passed (runnable: a later reply
// costs no wake-up, and whoever needs the core gets it). True when `turn` came; false when it is
// time to set kTurnSleeping and sleep on the futex. Both sides wait this way
// (tmk/runtime/tmk_runtime.cpp, tmk/host/node_process.cpp). clock_gettime, not std::chrono: the
// runtime linked into C programs has no libstdc++.
inline bool await_turn_awake(const std::atomic<std::uint32_t>& word, Turn turn, long spin_ns, long awake_ns) {
  const auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);  // vDSO: ~20 ns, read every 16 pauses
    return t.tv_sec * 1'000'000'000L + t.tv_nsec;
  };
  const long start = now();
  for (int k = 1;; ++k) {
    if (is_turn(word.load(std::memory_order_acquire), turn)) return true;
    _mm_pause();
    if (k % 16 != 0) continue;
    const long waited = now() - start;
    if (waited > awake_ns) return false;
    if (waited > spin_ns) sched_yield();
  }
}

enum class Request : std::uint32_t {
  None = 0,
  Startup,          // Tmk_startup
  Malloc,           // arg0 = size
  Free,             // arg0 = address
  Distribute,       // arg0 = address, arg1 = size; the bytes in the bulk area
  Barrier,          // arg0 = id
  LockAcquire,      // arg0 = id
  LockRelease,      // arg0 = id
  Fault,            // arg0 = address, arg1 = 1 for a write
  Exit,             // arg0 = status
  Crash,            // arg0 = signal, arg1 = address; text: what happened
  Misuse,           // text: the API misuse the runtime found itself (e.g. a call before Tmk_startup)
  MoreProtections,  // the node applied a full reply's protections and asks for the rest
};

// ReadLocalWrite: readable, and a write fault needs nothing but this node's own state (the page is
// valid and its last diff made), so a guarded store may take it at once and report it with the
// next request (DeferredFault); for the page's mapping it is Read.
enum class Protection : std::uint32_t { None = 0, Read = 1, ReadWrite = 2, ReadLocalWrite = 3 };

struct ProtectionRun {
  std::uint32_t first_page;
  std::uint32_t pages;
  Protection protection;
  std::uint32_t reserved;
};

// A scope mark recorded by the node between requests (flushed with the next one): the
// instruction count when it happened, so the emulator charges the computation before it to the
// enclosing scope.
struct ScopeMark {
  std::uint64_t icount;
  std::uint32_t line;     // 0: the end of the enclosing block (C++ RAII form)
  std::uint32_t begin;    // 1: begin, 0: end
  std::uint32_t name_at;  // offset of the name in `marks_text`
  std::uint32_t file_at;  // offset of the file in `marks_text`
};

// A deterministic sample: every `sample_period` counted instructions the counting pass's hook
// records where the program is (a loop header or a function entry), so that the computation
// between two requests is spread over the lines that ran it.
struct Sample {
  std::uint64_t icount;
  std::uint64_t pc;  // a return address inside the sampled function
};

// A write fault a guarded store took at once on a ReadLocalWrite page (tmk/runtime/write_guards.cpp):
// the emulator replays it before the next request, at its instruction count and after the marks
// and samples recorded before it, with the page as it was then (a snapshot in the snapshot area,
// slot i at i * page_bytes). The same fault, the same virtual time, without a round trip.
struct DeferredFault {
  std::uint64_t address;
  std::uint64_t icount;
  std::uint64_t pc;
  std::uint32_t marks;    // scope marks recorded before it
  std::uint32_t samples;  // samples recorded before it
};

inline constexpr std::size_t kMaxDeferredFaults = 1024;
inline constexpr std::size_t kMaxProtectionRuns = 4096;
inline constexpr std::size_t kMaxSamples = 4096;
inline constexpr std::size_t kMaxScopeMarks = 1024;
inline constexpr std::size_t kMarksTextBytes = 16384;
inline constexpr std::size_t kTextBytes = 4096;

struct Channel {
  std::atomic<std::uint32_t> turn;  // a Turn value; futex word
  std::uint32_t magic;
  std::uint32_t version;
  std::uint32_t
      layout_bytes;  // sizeof(Channel) of the emulator: a program built against another layout is refused

  // ---- node -> emulator (the request)
  Request request;
  std::uint32_t sequence;
  std::uint64_t arg0;
  std::uint64_t arg1;
  std::uint64_t pc;           // where: the call's return address or the faulting instruction
  std::uint64_t icount;       // instructions executed so far (ncp2-cc's instrumentation)
  std::uint64_t ticks;        // TSC ticks of native execution since the last request (measured model)
  std::uint64_t resumed_tsc;  // the TSC when that execution began (real runs: the wait's last part)
  std::uint64_t load_base;    // the executable's load address (set at startup)
  std::uint64_t frames[16];   // Crash: the return addresses of the crashed thread's stack
  std::uint32_t frame_count;
  std::uint32_t samples;  // samples since the last request
  std::uint32_t marks;    // scope marks since the last request
  std::uint32_t marks_text_used;
  std::uint32_t race_checks;  // Startup: 1 when the program records its accesses (ncp2-cc --ncp2-races)
  std::uint32_t deferred;     // write faults taken at once since the last request (deferred_fault)
  char text[kTextBytes];      // a message (Crash, Misuse)

  // ---- emulator -> node (the reply)
  std::int64_t result;          // Malloc: the address
  std::uint32_t node;           // Startup: Tmk_proc_id
  std::uint32_t nodes;          // Startup: Tmk_nprocs
  std::uint64_t heap_base;      // Startup
  std::uint64_t heap_bytes;     // Startup
  std::uint64_t page_bytes;     // Startup: the emulated page size
  std::uint64_t sample_period;  // Startup: instructions between samples (0: none)
  std::uint32_t protection_runs;
  std::uint32_t more_protections;  // 1: apply these, then ask for the rest (MoreProtections)
  std::uint64_t distributed;       // Distribute records waiting in the bulk area
  std::uint64_t bulk_used;
  std::uint32_t deferral_slots;  // Startup: write faults the node may take at once per request (0: none)
  std::uint32_t reserved;

  ScopeMark mark[kMaxScopeMarks];
  Sample sample[kMaxSamples];
  char marks_text[kMarksTextBytes];
  ProtectionRun run[kMaxProtectionRuns];
  DeferredFault deferred_fault[kMaxDeferredFaults];
};

// Bytes of the channel's shared memory: the Channel, then the bulk area (Tmk_distribute data:
// records of [u64 address][u64 size][bytes, padded to 8]), then the snapshot area (DeferredFault).
inline constexpr std::size_t kBulkBytes = std::size_t{64} << 20;
inline constexpr std::size_t kSnapshotBytes = std::size_t{4} << 20;
inline constexpr std::size_t kChannelBytes = (sizeof(Channel) + 4095) / 4096 * 4096;
inline constexpr std::size_t kChannelMapBytes = kChannelBytes + kBulkBytes + kSnapshotBytes;

// The access log of a node whose program was built with ncp2-cc --ncp2-races, in a second shared
// mapping (only when the run detects data races): per page of the shared heap, the bytes read and
// written since the emulator last took them (a bit per byte, 64 bytes per word) and, per kind, up
// to kAccessSitesPerKind places that made them (a return address in the program, 0: none) with
// the bytes each touched, so that a race names the access that touched its byte. The program only
// appends to it while it runs; the emulator merges it into the race detector and clears it while
// the program waits, so the pages' list spares it a scan of the heap.
struct AccessLogHeader {
  std::uint32_t magic;    // kChannelMagic once the emulator set the log up
  std::uint32_t touched;  // entries of the touched-pages list
  std::uint64_t page_bytes;
  std::uint64_t pages;
};

// One place and the hull [first, last] of the page's bytes it touched.
struct AccessSiteRange {
  std::uint64_t pc;
  std::uint32_t first;
  std::uint32_t last;
};

inline constexpr std::size_t kAccessSitesPerKind = 4;

struct AccessSites {
  AccessSiteRange read[kAccessSitesPerKind];
  AccessSiteRange write[kAccessSitesPerKind];
};

// Notes that `pc` touched bytes [first, last]: widens its range, or takes a free slot; when all
// are taken by other places the bytes stay in the bitmap, blamed on the first place.
inline void note_access_site(AccessSiteRange (&sites)[kAccessSitesPerKind], std::uint64_t pc,
                             std::uint32_t first, std::uint32_t last) {
  for (AccessSiteRange& s : sites) {
    if (s.pc == 0) {
      s = AccessSiteRange{pc, first, last};
      return;
    }
    if (s.pc != pc) continue;
    if (first < s.first) s.first = first;
    if (last > s.last) s.last = last;
    return;
  }
}

inline bool page_touched(const AccessSites& sites) { return (sites.read[0].pc | sites.write[0].pc) != 0; }

struct AccessLogLayout {
  std::size_t pages = 0;
  std::size_t words = 0;        // 64-bit words of one page's bitmap
  std::size_t touched_at = 0;   // std::uint32_t[pages]: page numbers, in the order first touched
  std::size_t sites_at = 0;     // AccessSites[pages]
  std::size_t bits_at = 0;      // per page: `words` words of reads, then `words` words of writes
  std::size_t total_bytes = 0;  // rounded to host pages
};

constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

constexpr AccessLogLayout access_log_layout(std::size_t heap_bytes, std::size_t page_bytes) {
  AccessLogLayout l;
  l.pages = page_bytes == 0 ? 0 : heap_bytes / page_bytes;
  l.words = page_bytes / 64;
  l.touched_at = round_up(sizeof(AccessLogHeader), 64);
  l.sites_at = round_up(l.touched_at + l.pages * sizeof(std::uint32_t), 64);
  l.bits_at = round_up(l.sites_at + l.pages * sizeof(AccessSites), 4096);
  l.total_bytes = round_up(l.bits_at + l.pages * 2 * l.words * sizeof(std::uint64_t), 4096);
  return l;
}

}  // namespace ncp2::tmk
