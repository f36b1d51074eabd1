// The runtime linked into a TreadMarks-API program by ncp2-cc (libncp2tmk.a). Under `ncp2 run`
// each node is a process of the program: this file maps its shared memory at the same address as
// every other node's, keeps the page protections the emulated protocol decides, turns each access
// fault and Tmk call into a request to the emulator (tmk/channel.hpp) and waits for the reply. Run
// directly, the program is one native process with plain memory (the sequential baseline).
//
// No C++ library at run time (no exceptions, no allocation): programs are linked by a C compiler
// too. Everything that runs in a signal handler is async-signal-safe (atomics, syscalls, memcpy).
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

#include <execinfo.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "tmk.h"
#include "tmk/channel.hpp"
#include "tmk/fiber_abi.hpp"
#include "tmk/runtime/die.hpp"
#include "tmk/runtime/fiber_mode.hpp"
#include "tmk/runtime/runtime_internal.hpp"
#include "write_guards.hpp"

using ncp2::tmk::Channel;
using ncp2::tmk::die;
using ncp2::tmk::Protection;
using ncp2::tmk::Request;
using ncp2::tmk::Turn;

extern "C" {
unsigned Tmk_proc_id = 0;
unsigned Tmk_nprocs = 1;
// Written by the instructions ncp2-cc's pass adds (tmk/instrument): instructions executed so far,
// and the count at which the pass's checks call the hook (a sample).
unsigned long long __ncp2_tmk_icount = 0;            // NOLINT: the pass's ABI names
unsigned long long __ncp2_tmk_icount_limit = ~0ULL;  // NOLINT
void __ncp2_tmk_icount_hook();                       // NOLINT
// Race checks (ncp2-cc --ncp2-races): recorded by access_recording.cpp; the marker tells whether
// the program was built with them.
extern unsigned long long __ncp2_tmk_race_bytes;                 // NOLINT: the pass's ABI names
extern const char __ncp2_tmk_race_checks __attribute__((weak));  // NOLINT
}

namespace {

struct State {
  Channel* channel = nullptr;  // null: not under the emulator (native) or not started
  unsigned char* bulk = nullptr;
  bool started = false;
  bool exiting = false;
  std::uintptr_t heap_base = 0;
  std::size_t heap_bytes = 0;
  std::size_t page_bytes = 4096;
  unsigned long long sample_period = 0;
  unsigned long long resumed_at = 0;  // TSC when the node last resumed native execution
};
State g;  // NOLINT: the process's one runtime

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, nullptr, nullptr, 0);
}

void apply_protections(const Channel& c) {
  namespace guards = ncp2::tmk::guards;
  const std::size_t host_pages_per_page =
      g.page_bytes >> ncp2::tmk::kWriteTablePageShift;  // guards: per 4 KiB
  for (std::uint32_t i = 0; i < c.protection_runs; ++i) {
    const auto& run = c.run[i];
    if (guards::active()) {
      if (!guards::apply(std::size_t{run.first_page} * host_pages_per_page,
                         std::size_t{run.pages} * host_pages_per_page, run.protection))
        die("mprotect of shared memory failed");
      continue;
    }
    int prot = PROT_NONE;
    if (run.protection == Protection::Read || run.protection == Protection::ReadLocalWrite) prot = PROT_READ;
    if (run.protection == Protection::ReadWrite) prot = PROT_READ | PROT_WRITE;
    void* at = reinterpret_cast<void*>(g.heap_base + std::size_t{run.first_page} * g.page_bytes);
    if (mprotect(at, std::size_t{run.pages} * g.page_bytes, prot) != 0)
      die("mprotect of shared memory failed");
  }
}

// Data node 0 distributed: [u64 address][u64 size][bytes padded to 8] records in the bulk area.
void apply_distributed(Channel& c) {
  std::size_t at = 0;
  for (std::uint64_t k = 0; k < c.distributed; ++k) {
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    std::memcpy(&address, g.bulk + at, 8);
    std::memcpy(&size, g.bulk + at + 8, 8);
    std::memcpy(ncp2::tmk::fiber::local_address(address), g.bulk + at + 16, size);
    at += 16 + (size + 7) / 8 * 8;
  }
  c.distributed = 0;
}

// Hands the turn to the emulator, waking it if it sleeps.
void post(Channel& c) {
  c.icount = __ncp2_tmk_icount;
  c.resumed_tsc = g.resumed_at;
  c.ticks = __rdtsc() - g.resumed_at;
  const std::uint32_t was =
      c.turn.exchange(static_cast<std::uint32_t>(Turn::Emulator), std::memory_order_acq_rel);
  if ((was & ncp2::tmk::kTurnSleeping) != 0) futex(&c.turn, FUTEX_WAKE, 1);
}

// Posts the request in the channel and waits for the emulator's reply: awake up to 50 us (a 2 us
// spin, then yielding: channel.hpp's await_turn_awake), then asleep on the futex.
// bench/fine-grained, docs/performance.md (issue 41).
void exchange(Channel& c) {
  post(c);
  if (ncp2::tmk::fiber::active()) {
    ncp2::tmk::fiber::hand_off();  // a fiber switch: the emulator replies before it returns
    c.marks = 0;
    c.marks_text_used = 0;
    c.samples = 0;
    c.deferred = 0;
    return;
  }
  const auto emulator = static_cast<std::uint32_t>(Turn::Emulator);
  if (!ncp2::tmk::await_turn_awake(c.turn, Turn::Node, 2'000, 50'000)) {
    for (;;) {
      std::uint32_t word = c.turn.load(std::memory_order_acquire);
      if (ncp2::tmk::is_turn(word, Turn::Node)) break;
      if (word == emulator && !c.turn.compare_exchange_strong(word, emulator | ncp2::tmk::kTurnSleeping,
                                                              std::memory_order_acq_rel))
        continue;  // the reply came meanwhile
      futex(&c.turn, FUTEX_WAIT, emulator | ncp2::tmk::kTurnSleeping);
    }
  }
  c.marks = 0;
  c.marks_text_used = 0;
  c.samples = 0;
  c.deferred = 0;
}

// One request: its reply's protections and distributed data applied before returning.
std::int64_t call(Request request, std::uint64_t arg0, std::uint64_t arg1, void* pc) {
  if (ncp2::tmk::fiber::detached()) return 0;  // being unloaded: no emulator to answer
  Channel& c = *g.channel;
  c.request = request;
  c.arg0 = arg0;
  c.arg1 = arg1;
  c.pc = ncp2::tmk::fiber::program_pc(pc);
  ++c.sequence;
  exchange(c);
  const std::int64_t result = c.result;
  for (;;) {
    apply_protections(c);
    if (!c.more_protections) break;
    c.request = Request::MoreProtections;
    exchange(c);
  }
  if (c.distributed) apply_distributed(c);
  g.resumed_at = __rdtsc();
  return result;
}

// Tells the emulator what went wrong and waits to be ended (the emulator kills the processes).
[[noreturn]] void report(Request kind, int signal_number, std::uint64_t address, void* pc, const char* text) {
  if (!g.channel || ncp2::tmk::fiber::detached()) {  // no emulator to tell
    (void)!write(STDERR_FILENO, text, std::strlen(text));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(70);
  }
  Channel& c = *g.channel;
  std::strncpy(c.text, text, sizeof(c.text) - 1);
  // The stack, so that a crash inside a library (abort, a bad free) is placed in the program.
  void* frames[16];
  const int n = backtrace(frames, 16);
  c.frame_count = n < 0 ? 0 : static_cast<std::uint32_t>(n);
  for (std::uint32_t i = 0; i < c.frame_count; ++i) c.frames[i] = ncp2::tmk::fiber::program_pc(frames[i]);
  c.request = kind;
  c.arg0 = static_cast<std::uint64_t>(signal_number);
  c.arg1 = address;
  c.pc = ncp2::tmk::fiber::program_pc(pc);
  exchange(c);
  _exit(70);  // not reached: the emulator does not answer a crash
}

[[noreturn]] void misuse(const char* text, void* pc) { report(Request::Misuse, 0, 0, pc, text); }

void connect();

// Under the emulator, a call before Tmk_startup is reported (the emulator waits for Tmk_startup).
void require_started(const char* call_name, void* pc) {
  if (g.started) return;
  if (!g.channel) connect();
  if (!g.channel) return;  // native: nothing to join
  char text[160];
  std::snprintf(text, sizeof text, "%s called before Tmk_startup", call_name);
  misuse(text, pc);
}

bool in_heap(std::uintptr_t address) {
  return address >= g.heap_base && address < g.heap_base + g.heap_bytes;
}

void on_fault(int signal_number, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  void* pc = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (signal_number == SIGSEGV && g.started && in_heap(address)) {
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    // Code without the guards writing a page a guarded store already faulted in: no request.
    if (write && ncp2::tmk::guards::allow_unguarded_write(address)) return;
    ++ncp2::tmk::guards::counts().signal_faults;
    call(Request::Fault, address, write ? 1 : 0, pc);
    return;  // the instruction runs again, now with the page's new protection
  }
  char text[160];
  std::snprintf(text, sizeof text, "%s at address %#lx", strsignal(signal_number),
                static_cast<unsigned long>(address));
  report(Request::Crash, signal_number, address, pc, text);
}

void on_abort(int signal_number, siginfo_t* /*info*/, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  void* pc = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
  report(Request::Crash, signal_number, 0, pc, strsignal(signal_number));
}

void install_handlers() {
  void* preload[1];
  backtrace(preload, 1);                   // loads the unwinder now: a crash handler must not
  static char alternate_stack[64 * 1024];  // a stack overflow still gets its report
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof alternate_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = on_fault;
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
  sigaction(SIGFPE, &sa, nullptr);
  sigaction(SIGILL, &sa, nullptr);
  sa.sa_sigaction = on_abort;
  sigaction(SIGABRT, &sa, nullptr);
}

// NCP2_HOST_STATS set: how this process's faults reached the emulator, on its standard error.
void report_host_counts() {
  if (!std::getenv("NCP2_HOST_STATS")) return;
  const auto& n = ncp2::tmk::guards::counts();
  char text[256];
  const int length = std::snprintf(
      text, sizeof text,
      "ncp2 tmk host: write guards %s, %llu guarded write faults, %llu signalled faults, "
      "%llu taken at once, %llu unguarded writes let through, %llu mprotect calls, %llu guarded read "
      "faults\n",
      ncp2::tmk::guards::active() ? "on" : "off", static_cast<unsigned long long>(n.guarded_faults),
      static_cast<unsigned long long>(n.signal_faults), static_cast<unsigned long long>(n.deferred_faults),
      static_cast<unsigned long long>(n.unguarded_writes), static_cast<unsigned long long>(n.mprotects),
      static_cast<unsigned long long>(n.read_faults));
  if (ncp2::tmk::fiber::active()) {  // the node's own standard error (ncp2's descriptor 2 is shared)
    std::fputs(text, stderr);
    return;
  }
  (void)!write(STDERR_FILENO, text, static_cast<std::size_t>(length));
}

// Returning from main or calling exit() without Tmk_exit: the same as Tmk_exit(status).
// The emulator does not answer an exit: the process ends at once, its shared memory stays with
// the emulator (the other nodes may still need its pages and diffs).
void post_exit(int status, void* pc) {
  g.exiting = true;
  report_host_counts();
  __ncp2_tmk_race_bytes = 0;  // the emulator takes the log now, while this process still runs
  Channel& c = *g.channel;
  c.request = Request::Exit;
  c.arg0 = static_cast<std::uint64_t>(static_cast<unsigned>(status));
  c.pc = ncp2::tmk::fiber::program_pc(pc);
  ++c.sequence;
  post(c);
  // A fiber's node ends here: the emulator never resumes it after its Exit.
  if (ncp2::tmk::fiber::active())
    for (;;) ncp2::tmk::fiber::hand_off();
}

void on_process_exit(int status, void* /*unused*/) {
  if (g.started && g.channel && !g.exiting) post_exit(status, nullptr);
}

int first_object(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  *static_cast<std::uint64_t*>(data) = info->dlpi_addr;
  return 1;  // the first object is the executable
}

}  // namespace

int ncp2::tmk::runtime::fd_from_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return -1;
  char* end = nullptr;
  const long fd = std::strtol(value, &end, 10);
  if (*end != '\0' || fd < 0) die("malformed file descriptor in the environment");
  return static_cast<int>(fd);
}

namespace {
using ncp2::tmk::runtime::fd_from_env;

void connect() {
  const int channel_fd = fd_from_env(ncp2::tmk::kChannelFdEnv);
  if (channel_fd < 0) return;  // run directly: native, one node
  void* at = mmap(nullptr, ncp2::tmk::kChannelMapBytes, PROT_READ | PROT_WRITE, MAP_SHARED, channel_fd, 0);
  if (at == MAP_FAILED) die("cannot map the channel to the emulator");
  close(channel_fd);  // the mapping is all the program needs
  g.channel = static_cast<Channel*>(at);
  g.bulk = static_cast<unsigned char*>(at) + ncp2::tmk::kChannelBytes;
  if (g.channel->magic != ncp2::tmk::kChannelMagic || g.channel->version != ncp2::tmk::kChannelVersion ||
      g.channel->layout_bytes != sizeof(Channel))
    die("this program was built against another version of the ncp2 runtime; rebuild it with ncp2-cc");
  dl_iterate_phdr(first_object, &g.channel->load_base);
}

// The fiber runner keeps the node's page states in the guards' table whether or not the program was
// built with the guards: code without them reaches the heap through the emulator's backstop (a trap
// per page and turn, tmk/host/node_fiber.cpp), which reads the same table.
void start_fiber_guards() {
  const ncp2::tmk::FiberAttach& a = ncp2::tmk::fiber::attachment();
  if (!ncp2::tmk::guards::start_fiber(a.table, a.heap, g.heap_bytes, g.page_bytes))
    misuse("the guards could not start over the node's copy of the shared heap", nullptr);
}

void map_heap() {
  const int heap_fd = fd_from_env(ncp2::tmk::kHeapFdEnv);
  if (heap_fd < 0) die("the emulator did not pass the shared memory");
  void* want = reinterpret_cast<void*>(g.heap_base);
  void* at = mmap(want, g.heap_bytes, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE, heap_fd, 0);
  const int map_error = errno;
  const char* why = nullptr;
  if (at == want && !ncp2::tmk::guards::start(heap_fd, g.heap_base, g.heap_bytes, g.page_bytes, &why) &&
      why) {
    char text[200];  // the program still runs, with a signal per write fault
    const int n = std::snprintf(text, sizeof text, "ncp2 tmk runtime: write guards off (%s)\n", why);
    (void)!write(STDERR_FILENO, text, static_cast<std::size_t>(n));
  }
  close(heap_fd);
  if (at != want) {
    char text[200];
    std::snprintf(text, sizeof text, "cannot map %zu bytes of shared memory at %p: %s", g.heap_bytes, want,
                  std::strerror(map_error));
    die(text);
  }
}

}  // namespace

extern "C" {

void Tmk_startup(int /*argc*/, char** /*argv*/) {
  if (g.started) misuse("Tmk_startup called twice", __builtin_return_address(0));
  if (!g.channel) connect();
  if (!g.channel) {
    g.started = true;
    return;
  }
  Channel& c = *g.channel;
  const bool fiber = ncp2::tmk::fiber::active();
  if (!fiber) {  // a fiber shares the emulator's process: its signals and its exit are the runner's
    install_handlers();
    on_exit(on_process_exit, nullptr);
  }
  // Startup's reply carries the heap's place and its first protections: map before applying.
  c.request = Request::Startup;
  c.race_checks = &__ncp2_tmk_race_checks != nullptr ? 1 : 0;
  c.pc = ncp2::tmk::fiber::program_pc(__builtin_return_address(0));
  ++c.sequence;
  exchange(c);
  Tmk_proc_id = c.node;
  Tmk_nprocs = c.nodes;
  g.heap_base = c.heap_base;
  g.sample_period = c.sample_period;
  g.heap_bytes = c.heap_bytes;
  g.page_bytes = c.page_bytes;
  if (fiber)
    start_fiber_guards();
  else
    map_heap();
  ncp2::tmk::guards::connect(g.channel, g.bulk + ncp2::tmk::kBulkBytes, call);
  if (!fiber)
    ncp2::tmk::runtime::map_access_log(g.heap_base, g.heap_bytes, g.page_bytes);
  else if (std::byte* log = ncp2::tmk::fiber::attachment().access_log)
    ncp2::tmk::runtime::use_access_log(log, g.heap_base, g.heap_bytes, g.page_bytes);
  g.started = true;
  for (;;) {
    apply_protections(c);
    if (!c.more_protections) break;
    c.request = Request::MoreProtections;
    exchange(c);
  }
  g.resumed_at = __rdtsc();
  if (g.sample_period) __ncp2_tmk_icount_limit = __ncp2_tmk_icount + g.sample_period;
}

// The counting pass calls this when the count reaches the limit: a sample of where the program is.
// The instructions are counted before the check, so samples fall at the same counts on any host.
__attribute__((noinline)) void __ncp2_tmk_icount_hook() {  // NOLINT: the pass's ABI name
  if (!g.channel || !g.started || !g.sample_period) {
    __ncp2_tmk_icount_limit = ~0ULL;
    return;
  }
  Channel& c = *g.channel;
  if (c.samples == ncp2::tmk::kMaxSamples) call(Request::None, 0, 0, __builtin_return_address(0));
  c.sample[c.samples++] = {__ncp2_tmk_icount, ncp2::tmk::fiber::program_pc(__builtin_return_address(0))};
  __ncp2_tmk_icount_limit = __ncp2_tmk_icount + g.sample_period;
}

void Tmk_exit(int status) {
  require_started("Tmk_exit", __builtin_return_address(0));
  if (ncp2::tmk::fiber::active()) ncp2::tmk::fiber::finalize_copy();            // as std::exit below would
  if (g.channel && !g.exiting) post_exit(status, __builtin_return_address(0));  // a fiber ends here
  std::exit(status);
}

void* Tmk_malloc(size_t size) {
  require_started("Tmk_malloc", __builtin_return_address(0));
  if (!g.channel) {
    void* p = nullptr;
    if (posix_memalign(&p, 16, size == 0 ? 1 : size) != 0) die("Tmk_malloc: out of memory");
    return p;
  }
  return reinterpret_cast<void*>(call(Request::Malloc, size, 0, __builtin_return_address(0)));
}

void Tmk_free(void* ptr) {
  require_started("Tmk_free", __builtin_return_address(0));
  if (!g.channel) {
    std::free(ptr);
    return;
  }
  if (ptr) call(Request::Free, reinterpret_cast<std::uint64_t>(ptr), 0, __builtin_return_address(0));
}

namespace {
// Whether [address, address + size) lies on the calling thread's stack: a local variable, whose
// address in the other nodes' processes holds something else (their stacks differ).
bool on_the_stack(std::uintptr_t address, std::size_t size) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
  void* base = nullptr;
  std::size_t stack_bytes = 0;
  const bool known = pthread_attr_getstack(&attr, &base, &stack_bytes) == 0;
  pthread_attr_destroy(&attr);
  const auto low = reinterpret_cast<std::uintptr_t>(base);
  return known && address < low + stack_bytes && address + size > low;
}
}  // namespace

void Tmk_distribute(const void* ptr, size_t size) {
  void* pc = __builtin_return_address(0);
  require_started("Tmk_distribute", pc);
  if (!g.channel) return;
  if (Tmk_proc_id != 0) misuse("Tmk_distribute called by a node other than 0", pc);
  if (size + 16 > ncp2::tmk::kBulkBytes) misuse("Tmk_distribute of more than 64 MiB at once", pc);
  if (ncp2::tmk::fiber::active() ? !ncp2::tmk::fiber::in_program_image(ptr, size)
                                 : on_the_stack(reinterpret_cast<std::uintptr_t>(ptr), size))
    misuse(
        "Tmk_distribute of a local variable: the other nodes hold something else at its address "
        "(distribute a global or a static variable)",
        pc);
  const std::uint64_t address = ncp2::tmk::fiber::program_address(ptr);  // the same on every node
  const std::uint64_t bytes = size;
  std::memcpy(g.bulk, &address, 8);
  std::memcpy(g.bulk + 8, &bytes, 8);
  std::memcpy(g.bulk + 16, ptr, size);
  call(Request::Distribute, address, size, pc);
}

void Tmk_barrier(unsigned id) {
  require_started("Tmk_barrier", __builtin_return_address(0));
  if (g.channel) call(Request::Barrier, id, 0, __builtin_return_address(0));
}

void Tmk_lock_acquire(unsigned id) {
  require_started("Tmk_lock_acquire", __builtin_return_address(0));
  if (g.channel) call(Request::LockAcquire, id, 0, __builtin_return_address(0));
}

void Tmk_lock_release(unsigned id) {
  require_started("Tmk_lock_release", __builtin_return_address(0));
  if (g.channel) call(Request::LockRelease, id, 0, __builtin_return_address(0));
}

namespace {
std::uint32_t keep_text(Channel& c, const char* text) {
  const std::size_t n = std::strlen(text) + 1;
  if (c.marks_text_used + n > sizeof c.marks_text) return UINT32_MAX;
  const std::uint32_t at = c.marks_text_used;
  std::memcpy(c.marks_text + at, text, n);
  c.marks_text_used += static_cast<std::uint32_t>(n);
  return at;
}

// Scope marks travel with the next request; a full buffer is flushed by an empty one.
void mark(const char* name, const char* file, int line, bool begin) {
  if (!g.channel || !g.started) return;
  Channel& c = *g.channel;
  if (c.marks == ncp2::tmk::kMaxScopeMarks || c.marks_text_used + 1024 > sizeof c.marks_text)
    call(Request::None, 0, 0, __builtin_return_address(0));
  auto& m = c.mark[c.marks++];
  m.icount = __ncp2_tmk_icount;
  m.line = static_cast<std::uint32_t>(line < 0 ? 0 : line);
  m.begin = begin ? 1 : 0;
  m.name_at = keep_text(c, name ? name : "");
  m.file_at = keep_text(c, file ? file : "");
}
}  // namespace

void Tmk_scope_begin(const char* name, const char* file, int line) { mark(name, file, line, true); }
void Tmk_scope_end(const char* file, int line) { mark(nullptr, file, line, false); }

}  // extern "C"

// The fiber runner's backstop found code without the guards (libc) touching shared memory at
// `address` (tmk/fiber_abi.hpp FiberFault): the faults a guarded access would ask, at its pc.
extern "C" void __ncp2_tmk_fiber_fault(std::uint64_t address, int write, void* pc) {  // NOLINT: the ABI
  ncp2::tmk::guards::fault(address, 1, write != 0, pc);
}

// The runtime's requests for the fiber mode (runtime_internal.hpp).
namespace ncp2::tmk::runtime {

std::int64_t request(Request kind, std::uint64_t arg0, std::uint64_t arg1, void* pc) {
  return call(kind, arg0, arg1, pc);
}
void report_and_stop(Request kind, int signal_number, std::uint64_t address, void* pc, const char* text) {
  report(kind, signal_number, address, pc, text);
}
bool started() { return g.started; }
void exit_started_node(int status, void* pc) {
  if (!g.exiting) post_exit(status, pc);
}
void use_channel(Channel* channel) {
  g.channel = channel;
  g.bulk = reinterpret_cast<unsigned char*>(channel) + kChannelBytes;
}

}  // namespace ncp2::tmk::runtime
