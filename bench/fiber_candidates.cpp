// Issue 45, first step: what running users' programs as fibers in the emulator's process would
// cost, measured for each candidate design in one run (docs/fiber-runner.md has the results):
//   build/bin/ncp2_bench_fiber_candidates --benchmark_min_time=0.2 --benchmark_repetitions=3
// This file: the switch and per-fiber libc state.
//   BM_FiberSwitchAndBack_*       a switch to a fiber and back: the emulator's own stack switch
//                                 (emulator/fiber_switch.hpp), Boost.Context's fiber (the
//                                 emulator's before issue 21), and the emulator's switch with what
//                                 a runner must swap per node in libc (errno, stdout, stderr)
//   BM_FsBaseWrite_*              the price of a thread pointer per fiber (TLS): wrfsbase, arch_prctl
//   BM_Demo_ErrnoAndTlsSharedByFibers   errno and a thread_local seen by two fibers (counters)
// bench/fiber_candidates_access.cpp: reaching shared memory (inline checks against the trap).
// bench/fiber_candidates_loading.cpp: private globals (mmap, copy, dlmopen, dlopen of copies).
// No speed is asserted anywhere: these are measurements.
#include <asm/hwcap2.h>
#include <asm/prctl.h>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "bench/fiber_candidates.hpp"
#include "emulator/fiber_switch.hpp"

namespace {

using namespace ncp2::bench::fiber_candidates;

void yield_forever(Fiber& self, void* /*data*/) {
  for (;;) self.yield();
}

void BM_FiberSwitchAndBack_EmulatorKernelSwitch(benchmark::State& state) {
  Fiber fiber(&yield_forever, nullptr);
  for (auto _ : state) fiber.resume();
}
BENCHMARK(BM_FiberSwitchAndBack_EmulatorKernelSwitch);

void BM_FiberSwitchAndBack_BoostContextFiber(benchmark::State& state) {
  namespace ctx = boost::context;
  ctx::fiber fiber{[](ctx::fiber&& caller) {
    for (;;) caller = std::move(caller).resume();
    return std::move(caller);
  }};
  for (auto _ : state) fiber = std::move(fiber).resume();
}
BENCHMARK(BM_FiberSwitchAndBack_BoostContextFiber);

// What one node's libc state takes per switch when the runner swaps it (shared libc, one thread):
// errno saved and restored, stdout and stderr pointed at the node's own streams.
struct LibcState {
  int saved_errno = 0;
  FILE* out = stdout;
  FILE* err = stderr;
};

void swap_in(const LibcState& node) {
  errno = node.saved_errno;
  stdout = node.out;
  stderr = node.err;
}

void swap_out(LibcState& node) {
  node.saved_errno = errno;
  node.out = stdout;
  node.err = stderr;
}

void BM_FiberSwitchAndBack_SwappingErrnoStdoutStderr(benchmark::State& state) {
  Fiber fiber(&yield_forever, nullptr);
  LibcState node;
  LibcState emulator;
  for (auto _ : state) {
    swap_out(emulator);
    swap_in(node);
    fiber.resume();
    swap_out(node);
    swap_in(emulator);
  }
}
BENCHMARK(BM_FiberSwitchAndBack_SwappingErrnoStdoutStderr);

// A thread pointer per fiber (its own TLS block) means writing the FS base at each switch: the
// cost of that write, to the value it already has (a real runner would also need a valid glibc
// thread control block per fiber, which is the hard part, not this write).
void BM_FsBaseWrite_Wrfsbase(benchmark::State& state) {
  if ((getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) == 0)
    return state.SkipWithError("the kernel does not let user code write the FS base (no FSGSBASE)");
  for (auto _ : state) {
    std::uint64_t base = 0;
    asm volatile("rdfsbase %0" : "=r"(base));
    asm volatile("wrfsbase %0" : : "r"(base) : "memory");
  }
}
BENCHMARK(BM_FsBaseWrite_Wrfsbase);

void BM_FsBaseWrite_ArchPrctlSyscall(benchmark::State& state) {
  unsigned long base = 0;
  if (syscall(SYS_arch_prctl, ARCH_GET_FS, &base) != 0)
    return state.SkipWithError(system_error_text("arch_prctl(ARCH_GET_FS)").c_str());
  for (auto _ : state) syscall(SYS_arch_prctl, ARCH_SET_FS, base);
}
BENCHMARK(BM_FsBaseWrite_ArchPrctlSyscall);

// ---------------------------------------------------------------------------------------------
// errno and thread_local variables when fibers share a thread

thread_local int tls_probe = 0;

struct ErrnoDemo {
  int set_by_a = 0;   // errno right after fiber A's failing call
  int seen_by_a = 0;  // errno when fiber A looks again, after fiber B ran
  const void* tls_a = nullptr;
  const void* tls_b = nullptr;
};

void fiber_a(Fiber& self, void* data) {
  auto& demo = *static_cast<ErrnoDemo*>(data);
  for (;;) {
    (void)close(-1);  // EBADF
    demo.set_by_a = errno;
    demo.tls_a = &tls_probe;
    self.yield();
    demo.seen_by_a = errno;
    self.yield();
  }
}

void fiber_b(Fiber& self, void* data) {
  auto& demo = *static_cast<ErrnoDemo*>(data);
  for (;;) {
    (void)open("/nonexistent/ncp2-fiber-demo", O_RDONLY);  // ENOENT
    demo.tls_b = &tls_probe;
    self.yield();
  }
}

// A's call, B's call, A looks at errno; with `per_fiber` the runner keeps an errno per fiber.
ErrnoDemo run_errno_demo(bool per_fiber) {
  ErrnoDemo demo;
  Fiber a(&fiber_a, &demo);
  Fiber b(&fiber_b, &demo);
  LibcState state_a;
  LibcState state_b;
  LibcState runner;
  auto turn = [&](Fiber& fiber, LibcState& node) {
    if (per_fiber) {
      swap_out(runner);
      swap_in(node);
    }
    fiber.resume();
    if (per_fiber) {
      swap_out(node);
      swap_in(runner);
    }
  };
  turn(a, state_a);
  turn(b, state_b);
  turn(a, state_a);
  return demo;
}

std::string errno_name(int value) {
  const char* name = strerrorname_np(value);
  return name ? name : std::to_string(value);
}

void BM_Demo_ErrnoAndTlsSharedByFibers(benchmark::State& state) {
  ErrnoDemo shared;
  ErrnoDemo per_fiber;
  for (auto _ : state) {
    shared = run_errno_demo(false);
    per_fiber = run_errno_demo(true);
  }
  state.counters["errno_shared"] = shared.seen_by_a != shared.set_by_a ? 1 : 0;
  state.counters["errno_kept_when_runner_swaps"] = per_fiber.seen_by_a == per_fiber.set_by_a ? 1 : 0;
  state.counters["thread_local_same_address"] = shared.tls_a == shared.tls_b ? 1 : 0;
  state.SetLabel("fiber A's errno " + errno_name(shared.set_by_a) + " reads " + errno_name(shared.seen_by_a) +
                 " after fiber B ran; with errno swapped per fiber: " + errno_name(per_fiber.seen_by_a));
}
BENCHMARK(BM_Demo_ErrnoAndTlsSharedByFibers)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
