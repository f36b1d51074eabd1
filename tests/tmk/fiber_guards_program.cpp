// The fiber runner's guards without the emulator (tests/tmk/fiber_guards_test.sh): built with
// ncp2-c++, this program starts the runtime's guards as a fiber would (guards::start_fiber) over
// a heap copy and a PageState table of its own, with a fake emulator as the Requester, and makes
// every kind of access to the program's heap addresses (kHeapBase + offset). kHeapBase stays
// unmapped: an access the guards do not move into the copy crashes the program. Each step checks
// the faults the emulator was asked for (page, read or write, in order), the copy against a
// reference made by plain memory operations, and the runtime's counts. Prints "fiber_guards ok"
// and exits 0 when every check passed.
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tmk/channel.hpp"
#include "tmk/fiber_abi.hpp"
#include "tmk/runtime/write_guards.hpp"

namespace {

namespace tmk = ncp2::tmk;
namespace guards = ncp2::tmk::guards;

constexpr std::size_t kHostPage = 4096;
constexpr std::size_t kPageBytes = 8192;  // the emulated page: two host pages, as a fault's reply covers
constexpr std::size_t kHostPerPage = kPageBytes / kHostPage;
constexpr std::size_t kPages = 21;
constexpr std::size_t kHeapBytes = kPages * kPageBytes;
constexpr std::uint32_t kDeferralSlots = 2;

struct Fault {
  std::uint64_t offset;
  bool write;
};

// What the fake emulator was asked, and what it holds.
struct Emulator {
  std::vector<Fault> faults;
  int replays = 0;  // Request::None: the deferred faults replayed (the slots were full)
  bool bad_request = false;
  bool pc_missing = false;
  bool apply_failed = false;
};
Emulator emulator;                           // NOLINT: the fake emulator the Requester reaches
tmk::Channel channel;                        // NOLINT: zeroed, as the emulator's is
std::uint8_t table[kHeapBytes / kHostPage];  // NOLINT: the node's PageState table
std::vector<unsigned char> snapshots(kDeferralSlots* kPageBytes);  // NOLINT
int failures = 0;                                                  // NOLINT

void check(bool ok, const char* what) {
  if (ok) return;
  std::printf("FAIL: %s\n", what);
  ++failures;
}

// The emulator's side of a request: a fault is served with its emulated page's protection, which
// the runtime applies as tmk_runtime.cpp applies a reply's protection runs.
std::int64_t fake_emulator(tmk::Request kind, std::uint64_t address, std::uint64_t write, void* pc) {
  if (kind == tmk::Request::None) {
    ++emulator.replays;
    channel.deferred = 0;
    return 0;
  }
  if (kind != tmk::Request::Fault || address - tmk::kHeapBase >= kHeapBytes) {
    emulator.bad_request = true;
    return 0;
  }
  if (pc == nullptr) emulator.pc_missing = true;
  const std::uint64_t offset = address - tmk::kHeapBase;
  emulator.faults.push_back({offset, write != 0});
  const std::size_t first = offset / kPageBytes * kHostPerPage;
  if (!guards::apply(first, kHostPerPage, write != 0 ? tmk::Protection::ReadWrite : tmk::Protection::Read))
    emulator.apply_failed = true;
  return 0;
}

// The program's view of shared memory, hidden from the optimizer (the accesses stay accesses).
__attribute__((noinline)) unsigned char* heap() {
  auto* p = reinterpret_cast<unsigned char*>(tmk::kHeapBase);
  asm volatile("" : "+r"(p));
  return p;
}

__attribute__((noinline)) int load_int(std::size_t at) { return *reinterpret_cast<int*>(heap() + at); }
__attribute__((noinline)) void store_int(std::size_t at, int v) { *reinterpret_cast<int*>(heap() + at) = v; }
__attribute__((noinline)) std::uint64_t load_unaligned(std::size_t at) {
  std::uint64_t v = 0;
  __builtin_memcpy(&v, heap() + at, sizeof v);  // one 8-byte load once optimized
  return v;
}
__attribute__((noinline)) void store_unaligned(std::size_t at, std::uint64_t v) {
  __builtin_memcpy(heap() + at, &v, sizeof v);
}
__attribute__((noinline)) void copy_out(void* to, std::size_t at, std::size_t n) {
  std::memcpy(to, heap() + at, n);
}
__attribute__((noinline)) void copy_in(std::size_t at, const void* from, std::size_t n) {
  std::memcpy(heap() + at, from, n);
}
__attribute__((noinline)) void copy_within(std::size_t to, std::size_t from, std::size_t n) {
  std::memcpy(heap() + to, heap() + from, n);
}
__attribute__((noinline)) void fill(std::size_t at, int byte, std::size_t n) {
  std::memset(heap() + at, byte, n);
}
__attribute__((noinline)) void move_within(std::size_t to, std::size_t from, std::size_t n) {
  std::memmove(heap() + to, heap() + from, n);
}
__attribute__((noinline)) int fetch_add(std::size_t at, int v) {
  return __atomic_fetch_add(reinterpret_cast<int*>(heap() + at), v, __ATOMIC_SEQ_CST);
}
__attribute__((noinline)) int atomic_load(std::size_t at) {
  return __atomic_load_n(reinterpret_cast<int*>(heap() + at), __ATOMIC_ACQUIRE);
}

// Calls nothing: its guards read the runtime's globals once, at its entry (write_guard_pass.cpp).
__attribute__((noinline)) void scale(int* values, std::size_t n, int factor) {
  for (std::size_t i = 0; i < n; ++i) values[i] *= factor;
}

// Starts the guards, then walks heap memory in a loop of the same function: the loop's guards must
// read the runtime's globals after the start (before the loop), not at the function's entry.
__attribute__((noinline)) long start_then_sum(unsigned char* copy, std::size_t at, std::size_t n) {
  if (!guards::start_fiber(table, reinterpret_cast<std::byte*>(copy), kHeapBytes, kPageBytes)) return -1;
  guards::connect(&channel, snapshots.data(), fake_emulator);
  const auto* values = reinterpret_cast<const int*>(heap() + at);
  long sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += values[i];
  return sum;
}

// The faults of one step against the expected ones, and the copy against the reference.
class Steps {
 public:
  Steps(const unsigned char* copy, const std::vector<unsigned char>& reference)
      : copy_(copy), reference_(reference) {}

  void expect(const char* step, std::initializer_list<Fault> faults) {
    const std::vector<Fault> want(faults);
    const std::size_t got = emulator.faults.size() - seen_;
    bool same = got == want.size();
    for (std::size_t i = 0; same && i < want.size(); ++i) {
      const Fault& f = emulator.faults[seen_ + i];
      same = f.offset == want[i].offset && f.write == want[i].write;
    }
    if (!same) {
      std::printf("FAIL: %s: faults asked:", step);
      for (std::size_t i = seen_; i < emulator.faults.size(); ++i)
        std::printf(" %s@%#llx", emulator.faults[i].write ? "write" : "read",
                    static_cast<unsigned long long>(emulator.faults[i].offset));
      std::printf(" (expected %zu)\n", want.size());
      ++failures;
    }
    seen_ = emulator.faults.size();
    check(std::memcmp(copy_, reference_.data(), kHeapBytes) == 0, step);
  }

 private:
  const unsigned char* copy_;
  const std::vector<unsigned char>& reference_;
  std::size_t seen_ = 0;
};

constexpr std::size_t page(std::size_t n) { return n * kPageBytes; }

template <typename T>
T read_reference(const std::vector<unsigned char>& ref, std::size_t at) {
  T v{};
  std::memcpy(&v, ref.data() + at, sizeof v);
  return v;
}

template <typename T>
void write_reference(std::vector<unsigned char>& ref, std::size_t at, T v) {
  std::memcpy(ref.data() + at, &v, sizeof v);
}

// Loads, stores and crossing accesses; ReadLocalWrite pages taken at once.
void scalar_accesses(Steps& steps, std::vector<unsigned char>& ref) {
  check(load_int(page(0) + 16) == read_reference<int>(ref, page(0) + 16), "a load reads the copy");
  steps.expect("a load of a page not held", {{page(0) + 16, false}});
  check(load_int(page(0) + kHostPage + 4) == read_reference<int>(ref, page(0) + kHostPage + 4),
        "a load of the page's second host page");
  steps.expect("a load of the same emulated page", {});
  store_int(page(0) + 32, 1234);
  write_reference(ref, page(0) + 32, 1234);
  steps.expect("a store to a page held for reading", {{page(0) + 32, true}});
  store_int(page(1) + 8, -5);
  write_reference(ref, page(1) + 8, -5);
  check(load_int(page(1) + 8) == -5, "a load after a store");
  steps.expect("a store to a page not held, then a load", {{page(1) + 8, true}});

  // ReadLocalWrite: readable, and written at once with a snapshot (three pages, two slots).
  for (std::size_t p : {2, 3, 4})
    check(guards::apply(p * kHostPerPage, kHostPerPage, tmk::Protection::ReadLocalWrite), "apply");
  check(load_int(page(2) + 200) == read_reference<int>(ref, page(2) + 200),
        "a load of a ReadLocalWrite page");
  const std::vector<unsigned char> before(ref.begin() + page(2), ref.begin() + page(3));
  store_int(page(2) + 100, 77);
  write_reference(ref, page(2) + 100, 77);
  steps.expect("ReadLocalWrite: a load and a store, no request", {});
  check(channel.deferred == 1 && channel.deferred_fault[0].address == tmk::kHeapBase + page(2) + 100,
        "the store's fault taken at once, at its address");
  check(std::memcmp(snapshots.data(), before.data(), kPageBytes) == 0,
        "the snapshot is the page before the store");
  check(table[page(2) / kHostPage] == 1 && table[page(2) / kHostPage + 1] == 1, "the page writable after it");
  store_int(page(3) + 4, 1);
  store_int(page(4) + 4, 2);
  write_reference(ref, page(3) + 4, 1);
  write_reference(ref, page(4) + 4, 2);
  steps.expect("ReadLocalWrite: three pages, two slots", {});
  check(emulator.replays == 1 && channel.deferred == 1,
        "the full slots replayed by a request, then the third taken");

  // Crossing accesses: within one emulated page one fault, across two pages one each, in order.
  check(
      load_unaligned(page(5) + kHostPage - 2) == read_reference<std::uint64_t>(ref, page(5) + kHostPage - 2),
      "a load crossing host pages");
  steps.expect("a load crossing two host pages of one page", {{page(5) + kHostPage - 2, false}});
  check(load_unaligned(page(7) - 4) == read_reference<std::uint64_t>(ref, page(7) - 4),
        "a load crossing pages");
  steps.expect("a load crossing two pages", {{page(7) - 4, false}, {page(7), false}});
  store_unaligned(page(8) - 3, 0x1122334455667788ULL);
  write_reference<std::uint64_t>(ref, page(8) - 3, 0x1122334455667788ULL);
  steps.expect("a store crossing pages (read-only, then none)", {{page(8) - 3, true}, {page(8), true}});
}

// memcpy from and to the heap, memset, memmove within it, atomics.
void range_accesses(Steps& steps, std::vector<unsigned char>& ref) {
  std::vector<unsigned char> out(9000);
  copy_out(out.data(), page(9) + 100, out.size());
  check(std::memcmp(out.data(), ref.data() + page(9) + 100, out.size()) == 0, "memcpy from the heap");
  steps.expect("memcpy from the heap over two pages", {{page(9) + 100, false}, {page(10), false}});
  std::vector<unsigned char> in(300, 0x5a);
  copy_in(page(11) + 50, in.data(), in.size());
  std::memcpy(ref.data() + page(11) + 50, in.data(), in.size());
  steps.expect("memcpy to the heap", {{page(11) + 50, true}});
  fill(page(12), 0xab, 5000);
  std::memset(ref.data() + page(12), 0xab, 5000);
  steps.expect("memset over two host pages of one page", {{page(12), true}});
  move_within(page(13) + 100, page(13), 10000);
  std::memmove(ref.data() + page(13) + 100, ref.data() + page(13), 10000);
  steps.expect("memmove within the heap, overlapping",
               {{page(13), false}, {page(14), false}, {page(13) + 100, true}, {page(14), true}});
  const int old = read_reference<int>(ref, page(15) + 64);
  check(fetch_add(page(15) + 64, 5) == old, "an atomic add returns the copy's value");
  write_reference(ref, page(15) + 64, old + 5);
  steps.expect("an atomic read-modify-write", {{page(15) + 64, true}});
  check(atomic_load(page(16) + 8) == read_reference<int>(ref, page(16) + 8), "an atomic load");
  steps.expect("an atomic load", {{page(16) + 8, false}});
  copy_within(page(1), page(17), 64);
  std::memcpy(ref.data() + page(1), ref.data() + page(17), 64);
  steps.expect("memcpy from a page not held to a writable one", {{page(17), false}});
  scale(reinterpret_cast<int*>(heap() + page(18)), kPageBytes / sizeof(int), 3);
  for (std::size_t at = page(18); at < page(19); at += sizeof(int))
    write_reference(ref, at, read_reference<int>(ref, at) * 3);
  steps.expect("a loop in a function that calls nothing", {{page(18), false}, {page(18), true}});
  check(load_int(kHeapBytes - 4) == read_reference<int>(ref, kHeapBytes - 4), "the heap's last word");
  steps.expect("the heap's last word", {{kHeapBytes - 4, false}});
}

// Pages already allowed: no request, whatever the access.
void allowed_accesses(Steps& steps, std::vector<unsigned char>& ref) {
  store_int(page(1) + 12, 9);
  write_reference(ref, page(1) + 12, 9);
  check(load_int(page(16) + 8) == read_reference<int>(ref, page(16) + 8), "a load of a page held");
  fill(page(12) + 10, 1, 100);
  std::memset(ref.data() + page(12) + 10, 1, 100);
  std::vector<unsigned char> out(64);
  copy_out(out.data(), page(9), out.size());
  check(std::memcmp(out.data(), ref.data() + page(9), out.size()) == 0, "memcpy from a page held");
  int local = 3;  // private memory: never checked against the table
  store_int(page(0) + 64, local);
  write_reference(ref, page(0) + 64, local);
  steps.expect("accesses the pages' states allow", {});
}

}  // namespace

int main() {
  unsigned char probe = 0;
  if (mincore(reinterpret_cast<void*>(tmk::kHeapBase), kHostPage, &probe) == 0 || errno != ENOMEM) {
    std::printf("FAIL: something is mapped at kHeapBase: this test needs it unmapped\n");
    return 1;
  }
  void* mapped = mmap(nullptr, kHeapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return 1;
  auto* copy = static_cast<unsigned char*>(mapped);
  std::vector<unsigned char> ref(kHeapBytes);
  for (std::size_t i = 0; i < kHeapBytes; ++i) copy[i] = ref[i] = static_cast<unsigned char>(i * 131 + 7);

  channel.deferral_slots = kDeferralSlots;
  check(!guards::start_fiber(table, reinterpret_cast<std::byte*>(copy), kHeapBytes + 1, kPageBytes),
        "start_fiber refuses a heap of part of a page");
  long sum = 0;
  for (std::size_t at = page(19); at < page(19) + kHostPage; at += sizeof(int))
    sum += read_reference<int>(ref, at);
  check(start_then_sum(copy, page(19), kHostPage / sizeof(int)) == sum, "a loop right after the start");
  check(guards::active(), "the guards are active");

  Steps steps(copy, ref);
  steps.expect("a loop right after the start", {{page(19), false}});
  scalar_accesses(steps, ref);
  range_accesses(steps, ref);
  allowed_accesses(steps, ref);

  std::size_t reads = 0;
  for (const Fault& f : emulator.faults) reads += f.write ? 0 : 1;
  const guards::Counts& n = guards::counts();
  check(n.read_faults == reads && n.guarded_faults == emulator.faults.size() - reads,
        "the counts of read and write faults");
  check(n.deferred_faults == 3 && n.mprotects == 0 && n.signal_faults == 0, "taken at once 3, no mprotect");
  check(!emulator.bad_request && !emulator.pc_missing && !emulator.apply_failed,
        "every request a fault in the heap with its pc, every reply applied");
  check(mincore(reinterpret_cast<void*>(tmk::kHeapBase), kHostPage, &probe) != 0, "kHeapBase still unmapped");
  if (failures != 0) {
    std::printf("%d failure(s)\n", failures);
    return 1;
  }
  std::printf("fiber_guards ok: %zu faults (%zu reads), 3 taken at once\n", emulator.faults.size(), reads);
  return 0;
}
