// Issue 45's candidates for reaching shared memory from a node's fiber (bench/fiber_candidates.cpp
// has the list and the command line):
//   BM_ArrayWalk{Read,Write}_Plain            loads or stores over an array, nothing checked
//   BM_ArrayWalk{Read,Write}_CheckedPageState Shasta-style: before each access, the check the write
//                                             guards already put before stores (is the address in
//                                             the heap? is its page's state byte "valid"?)
//   BM_ArrayWalk{Read,Write}_CheckedPageStateAndNodeView   the same, and the address moved into the
//                                             node's own copy of the heap (a view per node)
//   BM_Trap_SigsegvMprotectRetry, BM_Trap_MprotectOnePage  what page protection costs instead, as
//                                             bench/tmk/host_floor.c (round 3) measures it
//   BM_CheckedFault_SwitchToEmulatorInstallPageAndBack     a fault found by the check: the node's
//                                             fiber switches to the emulator, which copies a 4 KiB
//                                             page into the node's view, marks it valid and
//                                             switches back (the protocol's emulation not included)
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bench/fiber_candidates.hpp"

namespace {

using namespace ncp2::bench::fiber_candidates;

constexpr unsigned char kInvalid = 0;
constexpr unsigned char kValid = 1;

// The running node's way to shared memory, as the instrumentation would read it.
struct NodeView {
  std::uintptr_t heap_base = 0;               // where the program's pointers into the heap point
  std::uint64_t heap_bytes = 0;               // 0: no heap, nothing is checked
  const unsigned char* page_state = nullptr;  // a byte per host page: kValid when the node holds it
  std::uintptr_t view_base = 0;               // where this node's copy of the heap is mapped
};
NodeView g_node;

// A fault the check found: served by the emulator's fiber when one is waiting (the fault
// benchmark), else only counted (the walks, where every page is valid and none is expected).
struct FaultServer {
  Fiber* node = nullptr;
  std::uintptr_t pending = 0;
  std::uint64_t unexpected = 0;
};
FaultServer g_faults;

[[gnu::noinline]] void access_fault(std::uintptr_t address) {
  if (!g_faults.node) {
    ++g_faults.unexpected;
    return;
  }
  g_faults.pending = address;
  g_faults.node->yield();
}

// The word at a program's address, as instrumented code computes it (an integer, then an access).
template <typename T>
T& word_at(std::uintptr_t address) {
  return *reinterpret_cast<T*>(address);  // NOLINT(performance-no-int-to-ptr): the point of the walks
}

enum class Check { None, PageState, PageStateAndView };

template <Check kCheck>
std::uintptr_t checked_address(std::uintptr_t address) {
  if constexpr (kCheck == Check::None) {
    return address;
  } else {
    const std::uint64_t offset = address - g_node.heap_base;
    if (offset < g_node.heap_bytes) {
      if (g_node.page_state[offset / kHostPage] != kValid) [[unlikely]]
        access_fault(address);
      if constexpr (kCheck == Check::PageStateAndView) return g_node.view_base + offset;
    }
    return address;
  }
}

// Every walk keeps the compiler from vectorizing or hoisting (an empty asm per element), so the
// plain and the checked loops do the same accesses, one 8-byte access per element.
template <Check kCheck>
std::uint64_t read_walk(std::uintptr_t first, std::size_t count) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uintptr_t address = checked_address<kCheck>(first + i * sizeof(std::uint64_t));
    sum += word_at<const std::uint64_t>(address);
    benchmark::DoNotOptimize(sum);
  }
  return sum;
}

template <Check kCheck>
void write_walk(std::uintptr_t first, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uintptr_t address = checked_address<kCheck>(first + i * sizeof(std::uint64_t));
    word_at<std::uint64_t>(address) = i;
    benchmark::ClobberMemory();
  }
}

// An array of `kib` KiB, every page valid; the program's pointers are the array's own addresses,
// or (with a view per node) addresses in an unmapped canonical range that the check moves into
// the array, the node's copy.
struct WalkSetup {
  Mapping array;
  std::vector<unsigned char> page_state;
  std::uintptr_t first = 0;  // the program's address of the first element
  std::size_t count = 0;
};

constexpr std::uintptr_t kCanonicalHeap = 0x5a0000000000;  // tmk/channel.hpp's heap address

WalkSetup set_up_walk(std::size_t kib, Check check) {
  WalkSetup setup{Mapping(kib * 1024, MAP_PRIVATE),
                  std::vector<unsigned char>(kib * 1024 / kHostPage, kValid), 0,
                  kib * 1024 / sizeof(std::uint64_t)};
  if (!setup.array.valid()) return setup;
  std::memset(setup.array.data(), 1, setup.array.size());  // every page present before timing
  const auto array = reinterpret_cast<std::uintptr_t>(setup.array.data());
  setup.first = check == Check::PageStateAndView ? kCanonicalHeap : array;
  g_node = {setup.first, setup.array.size(), setup.page_state.data(), array};
  return setup;
}

void report_walk(benchmark::State& state, const WalkSetup& setup) {
  state.counters["per_access"] =
      benchmark::Counter(static_cast<double>(setup.count),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["unexpected_faults"] = static_cast<double>(g_faults.unexpected);
  g_node = {};
}

template <Check kCheck>
void BM_ArrayWalkRead(benchmark::State& state) {
  const WalkSetup setup = set_up_walk(static_cast<std::size_t>(state.range(0)), kCheck);
  if (!setup.array.valid()) return state.SkipWithError(system_error_text("mmap").c_str());
  for (auto _ : state) benchmark::DoNotOptimize(read_walk<kCheck>(setup.first, setup.count));
  report_walk(state, setup);
}

template <Check kCheck>
void BM_ArrayWalkWrite(benchmark::State& state) {
  const WalkSetup setup = set_up_walk(static_cast<std::size_t>(state.range(0)), kCheck);
  if (!setup.array.valid()) return state.SkipWithError(system_error_text("mmap").c_str());
  for (auto _ : state) write_walk<kCheck>(setup.first, setup.count);
  report_walk(state, setup);
}

void BM_ArrayWalkRead_Plain(benchmark::State& s) { BM_ArrayWalkRead<Check::None>(s); }
void BM_ArrayWalkRead_CheckedPageState(benchmark::State& s) { BM_ArrayWalkRead<Check::PageState>(s); }
void BM_ArrayWalkRead_CheckedPageStateAndNodeView(benchmark::State& s) {
  BM_ArrayWalkRead<Check::PageStateAndView>(s);
}
void BM_ArrayWalkWrite_Plain(benchmark::State& s) { BM_ArrayWalkWrite<Check::None>(s); }
void BM_ArrayWalkWrite_CheckedPageState(benchmark::State& s) { BM_ArrayWalkWrite<Check::PageState>(s); }
void BM_ArrayWalkWrite_CheckedPageStateAndNodeView(benchmark::State& s) {
  BM_ArrayWalkWrite<Check::PageStateAndView>(s);
}

// 256 KiB stays in the core's L2; 64 MiB is walked from memory.
void walk_sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("array_kib")->Arg(256)->Arg(std::int64_t{64} * 1024);
}
BENCHMARK(BM_ArrayWalkRead_Plain)->Apply(walk_sizes);
BENCHMARK(BM_ArrayWalkRead_CheckedPageState)->Apply(walk_sizes);
BENCHMARK(BM_ArrayWalkRead_CheckedPageStateAndNodeView)->Apply(walk_sizes);
BENCHMARK(BM_ArrayWalkWrite_Plain)->Apply(walk_sizes);
BENCHMARK(BM_ArrayWalkWrite_CheckedPageState)->Apply(walk_sizes);
BENCHMARK(BM_ArrayWalkWrite_CheckedPageStateAndNodeView)->Apply(walk_sizes);

// ---------------------------------------------------------------------------------------------
// The trap, as bench/tmk/host_floor.c measures it: a shared mapping of kTrapPages pages, each
// protected on its own (as the protocol protects pages); one write per page.

constexpr std::size_t kTrapPages = 4000;

void repair_page(int /*signal*/, siginfo_t* info, void* /*context*/) {
  auto* byte = static_cast<unsigned char*>(info->si_addr);
  mprotect(byte - reinterpret_cast<std::uintptr_t>(byte) % kHostPage, kHostPage, PROT_READ | PROT_WRITE);
}

// The SIGSEGV handler that repairs the page, for the scope of one benchmark.
class RepairingHandler {
 public:
  RepairingHandler() {
    struct sigaction action {};
    action.sa_sigaction = &repair_page;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    installed_ = sigaction(SIGSEGV, &action, &previous_) == 0;
  }
  RepairingHandler(const RepairingHandler&) = delete;
  RepairingHandler& operator=(const RepairingHandler&) = delete;
  ~RepairingHandler() {
    if (installed_) sigaction(SIGSEGV, &previous_, nullptr);
  }
  [[nodiscard]] bool installed() const { return installed_; }

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

bool protect_each_page(const Mapping& region, int protection) {
  for (std::size_t p = 0; p < region.size() / kHostPage; ++p)
    if (mprotect(region.data() + p * kHostPage, kHostPage, protection) != 0) return false;
  return true;
}

void BM_Trap_SigsegvMprotectRetry(benchmark::State& state) {
  const Mapping region(kTrapPages * kHostPage, MAP_SHARED);
  if (!region.valid()) return state.SkipWithError(system_error_text("mmap").c_str());
  std::memset(region.data(), 1, region.size());
  if (!protect_each_page(region, PROT_READ))
    return state.SkipWithError(system_error_text("mprotect").c_str());
  const RepairingHandler handler;
  if (!handler.installed()) return state.SkipWithError(system_error_text("sigaction").c_str());
  std::size_t page = 0;
  for (auto _ : state) {
    if (page == kTrapPages) {
      state.PauseTiming();
      if (!protect_each_page(region, PROT_READ))
        return state.SkipWithError(system_error_text("mprotect").c_str());
      page = 0;
      state.ResumeTiming();
    }
    *reinterpret_cast<volatile unsigned char*>(region.data() + page++ * kHostPage + 8) = 2;
  }
}
BENCHMARK(BM_Trap_SigsegvMprotectRetry);

void BM_Trap_MprotectOnePage(benchmark::State& state) {
  const Mapping region(kTrapPages * kHostPage, MAP_SHARED);
  if (!region.valid()) return state.SkipWithError(system_error_text("mmap").c_str());
  std::memset(region.data(), 1, region.size());
  std::size_t page = 0;
  for (auto _ : state) {
    if (page == kTrapPages) {
      state.PauseTiming();
      if (mprotect(region.data(), region.size(), PROT_READ | PROT_WRITE) != 0)
        return state.SkipWithError(system_error_text("mprotect").c_str());
      page = 0;
      state.ResumeTiming();
    }
    if (mprotect(region.data() + page++ * kHostPage, kHostPage, PROT_READ) != 0)
      return state.SkipWithError(system_error_text("mprotect").c_str());
  }
}
BENCHMARK(BM_Trap_MprotectOnePage);

// ---------------------------------------------------------------------------------------------
// A fault found by the check, in the fiber design: the node's fiber reads one word of each page
// in turn, every page invalid; each read's check calls access_fault, which switches to the
// emulator (the benchmark loop); the emulator copies a fetched page into the node's view, marks it
// valid and switches back; the read proceeds.

void read_every_page(Fiber& /*self*/, void* /*data*/) {
  std::uint64_t sum = 0;
  for (std::size_t page = 0;; page = (page + 1) % kTrapPages) {
    sum += word_at<const std::uint64_t>(
        checked_address<Check::PageStateAndView>(kCanonicalHeap + page * kHostPage));
    benchmark::DoNotOptimize(sum);
  }
}

void BM_CheckedFault_SwitchToEmulatorInstallPageAndBack(benchmark::State& state) {
  const Mapping view(kTrapPages * kHostPage, MAP_PRIVATE);
  const Mapping fetched(kHostPage, MAP_PRIVATE);
  if (!view.valid() || !fetched.valid()) return state.SkipWithError(system_error_text("mmap").c_str());
  std::memset(view.data(), 1, view.size());
  std::memset(fetched.data(), 2, fetched.size());
  std::vector<unsigned char> page_state(kTrapPages, kInvalid);
  g_node = {kCanonicalHeap, view.size(), page_state.data(), reinterpret_cast<std::uintptr_t>(view.data())};
  Fiber node(&read_every_page, nullptr);
  g_faults.node = &node;
  for (auto _ : state) {
    node.resume();  // runs to its next fault
    const std::size_t page = (g_faults.pending - kCanonicalHeap) / kHostPage;
    std::memcpy(view.data() + page * kHostPage, fetched.data(), kHostPage);
    page_state[page] = kValid;
    if (page + 1 == kTrapPages) std::memset(page_state.data(), kInvalid, page_state.size());
  }
  g_faults.node = nullptr;
  g_node = {};
}
BENCHMARK(BM_CheckedFault_SwitchToEmulatorInstallPageAndBack);

}  // namespace
