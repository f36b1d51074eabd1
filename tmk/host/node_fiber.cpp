// The fiber runner's nodes (node_fiber.hpp): the program's object loaded once per node, each
// node's memory, its fiber and the switches between it and the emulator.
#include "tmk/host/node_fiber.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "tmk/host/fiber_object.hpp"
#include "tmk/loaded_image.hpp"
#include "workloads/workload.hpp"

namespace ncp2::tmk {

namespace {

constexpr std::size_t kHostPage = std::size_t{1} << kWriteTablePageShift;
// A process's main thread gets 8 MiB of stack by default: a node's program gets as much (only the
// pages it touches cost memory). A stack overflow cannot be reported from inside the fiber: it
// ends the emulator (docs/tmk-programs.md).
constexpr std::size_t kStackBytes = std::size_t{8} << 20;

thread_local NodeFiber* t_running = nullptr;   // NOLINT: the node whose program runs on this thread
thread_local NodeFiber* t_starting = nullptr;  // NOLINT: the node whose fiber is entered for the first time

[[noreturn]] void refuse(const std::string& text) { throw workloads::WorkloadError(text); }

// The program's address of the shared heap's byte `offset` (fixed: tmk/channel.hpp kHeapBase).
void* heap_address(std::size_t offset) {
  return reinterpret_cast<void*>(kHeapBase + offset);  // NOLINT(performance-no-int-to-ptr): a fixed address
}

void* map_anonymous(std::size_t bytes, int flags, const char* what) {
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_NORESERVE | flags, -1, 0);
  if (at == MAP_FAILED)
    refuse(fmt::format("the fiber runner cannot map {} bytes for {}: {}", bytes, what, std::strerror(errno)));
  return at;
}

}  // namespace

// ---- The signal handlers
// A node's program runs inside the emulator's process, so its faults arrive at the emulator. SIGSEGV inside
// the shared heap's program addresses is code without the guards (a libc function given a pointer into shared
// memory): the backstop serves it. Any other SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT raised while
// a node's program runs is that node's crash, reported with its line as the process runner reports
// it. Signals raised by the emulator's own code go to the handlers that were there before. A timer
// ticks every 50 ms (a real-time signal, to this thread) so that a node's program that computes
// without a request still lets the run's limits (--max-wall, Ctrl-C) be checked.
namespace {

constexpr std::array<int, 5> kSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
std::array<struct sigaction, kSignals.size()> g_previous{};  // NOLINT: the handlers we replaced
int g_users = 0;                                             // NOLINT

// A signal the emulator itself raised: what would have happened without us.
void chain(int signal_number, siginfo_t* info, void* context) {
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (kSignals[i] != signal_number) continue;
    const struct sigaction& before = g_previous[i];
    if ((before.sa_flags & SA_SIGINFO) != 0 && before.sa_sigaction != nullptr) {
      before.sa_sigaction(signal_number, info, context);
      return;
    }
    if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN && before.sa_handler != nullptr) {
      before.sa_handler(signal_number);
      return;
    }
  }
  // The default action: the faulting instruction runs again without us and ends the process as
  // it would have (a core, the right signal in the exit status).
  signal(signal_number, SIG_DFL);
  if (signal_number == SIGABRT) raise(SIGABRT);
}

// Runs on the fiber's own stack (no SA_ONSTACK: the backstop switches to the emulator and back,
// which an alternate stack shared by every fiber could not survive) and with the signal not
// blocked (SA_NODEFER: another node may fault while this one waits for its page).
void on_signal(int signal_number, siginfo_t* info, void* context) {
  NodeFiber* node = NodeFiber::running();
  if (!node) {
    chain(signal_number, info, context);
    return;
  }
  auto* uc = static_cast<ucontext_t*>(context);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a register's value
  void* pc = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (signal_number == SIGSEGV) {
    const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    if (node->backstop(address, write, pc)) return;  // the access runs again, on the node's page
  }
  node->report_signal(signal_number, signal_number == SIGSEGV || signal_number == SIGBUS ? address : 0, pc);
}

// The tick: every 50 ms of this thread's time, a chance to check the run's limits while a node's
// program runs its own code (NodeFiber::tick).
void on_tick(int /*signal_number*/, siginfo_t* /*info*/, void* context) {
  NodeFiber* node = NodeFiber::running();
  if (!node) return;
  const auto* uc = static_cast<const ucontext_t*>(context);
  node->tick(
      reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]));  // NOLINT(performance-no-int-to-ptr)
}

int tick_signal() { return SIGRTMAX - 2; }
struct sigaction g_previous_tick {};  // NOLINT
timer_t g_timer{};                    // NOLINT
bool g_timer_made = false;            // NOLINT

void start_ticks() {
  struct sigaction sa {};
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = on_tick;
  sigaction(tick_signal(), &sa, &g_previous_tick);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = tick_signal();
  event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));    // the emulator's thread
  if (timer_create(CLOCK_MONOTONIC, &event, &g_timer) != 0) return;  // no ticks: limits at requests only
  g_timer_made = true;
  const itimerspec every{{0, 50'000'000}, {0, 50'000'000}};
  timer_settime(g_timer, 0, &every, nullptr);
}

void stop_ticks() {
  if (g_timer_made) timer_delete(g_timer);
  g_timer_made = false;
  sigaction(tick_signal(), &g_previous_tick, nullptr);
}

void acquire_signals() {
  if (g_users++ > 0) return;
  struct sigaction sa {};
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = on_signal;
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &sa, &g_previous[i]);
  start_ticks();
}

void release_signals() {
  if (g_users == 0 || --g_users > 0) return;
  stop_ticks();
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

}  // namespace

// ---- LibcState

extern "C" {
extern char* optarg;  // NOLINT: POSIX getopt's state
extern int optind;    // NOLINT
extern int opterr;    // NOLINT
extern int optopt;    // NOLINT
}

LibcState LibcState::current() { return LibcState{errno, stdout, stderr, optind, optarg, opterr, optopt}; }

void LibcState::install() const {
  errno = error;
  stdout = out;  // NOLINT: libc's own pointers, swapped as a process switch would
  stderr = err;  // NOLINT
  optind = opt_index;
  optarg = opt_arg;
  opterr = opt_err;
  optopt = opt_opt;
}

// ---- The host's limits

void check_fiber_mappings(std::size_t nodes) {
  // Counted in /proc/self/smaps of a run (docs/tmk-programs.md): the copy 6, the stack 2, the
  // channel, page states and heap copy 1 each. The emulator's own fibers are made already (in use).
  constexpr std::size_t kPerNode = 11;
  std::size_t limit = 0;
  std::ifstream("/proc/sys/vm/max_map_count") >> limit;  // 0 when unreadable: no check
  std::ifstream maps("/proc/self/maps");
  const auto in_use = static_cast<std::size_t>(
      std::count(std::istreambuf_iterator<char>(maps), std::istreambuf_iterator<char>(), '\n'));
  const std::size_t needed = in_use + nodes * kPerNode + 1024;  // and room for the emulator's own
  if (limit == 0 || needed <= limit) return;
  refuse(
      fmt::format("the fiber runner needs about {} memory mappings for {} nodes ({} in use, {} per node), "
                  "and this host allows {} (vm.max_map_count): run fewer nodes, raise the limit (as root: "
                  "sysctl -w vm.max_map_count={}), or use --runner process",
                  needed, nodes, in_use, kPerNode, limit, needed));
}

// ---- FiberProgram

FiberProgram::FiberProgram(const std::string& executable, std::size_t heap_bytes)
    : executable_(executable), heap_bytes_(heap_bytes) {
  FiberObject object = read_fiber_object(executable);
  if (!object.found()) refuse(object.error);
  bytes_ = std::move(object.bytes);
  loaded_bytes_ = object.loaded_bytes;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (tmp && *tmp ? std::string(tmp) : std::string("/tmp")) + "/ncp2-fiber-XXXXXX";
  if (!mkdtemp(pattern.data()))
    refuse(fmt::format("the fiber runner cannot create a temporary directory {}: {}", pattern,
                       std::strerror(errno)));
  directory_ = pattern;
  object_path_ = directory_ + "/" + std::filesystem::path(executable).filename().string() + ".ncp2-fiber.so";
  std::ofstream out(object_path_, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes_.data()), static_cast<std::streamsize>(bytes_.size()));
  out.close();
  const bool written = out.good();
  if (!written)
    refuse(fmt::format("the fiber runner cannot write {}: {}", object_path_, std::strerror(errno)));
  // The heap's program addresses: nothing of the emulator may lie there, and an access by code
  // without the guards must trap (the backstop maps the running node's page there).
  void* want = heap_address(0);
  void* got = mmap(want, heap_bytes_, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got != want) {
    if (got != MAP_FAILED) munmap(got, heap_bytes_);
    refuse(fmt::format("the fiber runner cannot reserve the shared heap's addresses at {:#x}: {}", kHeapBase,
                       std::strerror(errno)));
  }
  acquire_signals();
}

FiberProgram::~FiberProgram() {
  release_signals();
  munmap(heap_address(0), heap_bytes_);
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

// The copy's bytes in a memfd, opened through a symbolic link of its own name: glibc knows a loaded
// object by the name it was opened by (a descriptor's /proc/self/fd/N would be reused by the next
// copy once closed) and by its inode (each memfd's own). The link and the descriptor go once it is
// loaded, so that a node costs no descriptor (4,096 nodes and more).
void* FiberProgram::load_copy(int node) {
  const std::string name = fmt::format("ncp2-fiber-node-{}", node);
  const int fd = static_cast<int>(syscall(SYS_memfd_create, name.c_str(), MFD_CLOEXEC));
  if (fd < 0)
    refuse(fmt::format("node {}: the fiber runner cannot create its copy of the program: {}", node,
                       std::strerror(errno)));
  const auto close_fd = [fd] { close(fd); };
  std::size_t done = 0;
  while (done < loaded_bytes_) {
    const ssize_t n = write(fd, bytes_.data() + done, loaded_bytes_ - done);
    if (n <= 0) {
      close_fd();
      refuse(fmt::format("node {}: cannot write its copy of the program: {}", node, std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
  const std::string link = fmt::format("{}/node-{}.so", directory_, node);
  if (symlink(fmt::format("/proc/self/fd/{}", fd).c_str(), link.c_str()) != 0) {
    close_fd();
    refuse(fmt::format("node {}: the fiber runner cannot name its copy of the program: {}", node,
                       std::strerror(errno)));
  }
  void* handle = dlopen(link.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* why = handle ? nullptr : dlerror();
  unlink(link.c_str());
  close_fd();  // the mappings keep the memory
  if (!handle)
    refuse(fmt::format("node {}: the fiber runner cannot load {}'s fiber object: {}", node, executable_,
                       why ? why : "unknown reason"));
  return handle;
}

// ---- NodeFiber

namespace {
template <class T>
T symbol(void* handle, const char* name, const std::string& program) {
  void* at = dlsym(handle, name);
  if (!at)
    refuse(fmt::format("{}: its fiber object has no {} (rebuild it with this version's ncp2-cc)", program,
                       name));
  return reinterpret_cast<T>(at);
}
}  // namespace

NodeFiber::NodeFiber(const FiberLaunch& launch) : object_(*launch.program), node_(launch.node) {
  const std::string& program = object_.executable();
  handle_ = object_.load_copy(node_);
  link_map* map = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &map) == 0 && map) image_ = loaded_image(map->l_addr);
  const auto* abi = symbol<const std::uint32_t*>(handle_, kFiberAbiSymbol, program);
  if (abi[0] != kFiberAbiVersion || abi[1] != sizeof(FiberAttach) || abi[2] != sizeof(Channel))
    refuse(fmt::format("{} was built against another version of the ncp2 runtime; rebuild it with ncp2-cc",
                       program));
  main_ = symbol<FiberMain>(handle_, kFiberMainSymbol, program);
  signal_ = symbol<FiberSignal>(handle_, kFiberSignalSymbol, program);
  fault_ = symbol<FiberFault>(handle_, kFiberFaultSymbol, program);
  detach_ = symbol<FiberDetach>(handle_, kFiberDetachSymbol, program);

  auto* base = static_cast<unsigned char*>(map_anonymous(kChannelMapBytes, MAP_PRIVATE, "a node's channel"));
  // Default-initialized, not value-initialized: the fresh mapping is zero already, and writing its
  // 200 KiB of zeros would make every node pay for pages its program may never use.
  channel_ = new (base) Channel;  // NOLINT(cppcoreguidelines-owning-memory): placement in our mapping
  channel_->magic = kChannelMagic;
  channel_->version = kChannelVersion;
  channel_->layout_bytes = sizeof(Channel);
  // Shared, so that the backstop can map its pages at the program's addresses (mremap of size 0).
  heap_ = static_cast<std::byte*>(map_anonymous(object_.heap_bytes(), MAP_SHARED, "a node's shared heap"));
  table_bytes_ = (object_.heap_bytes() / kHostPage + kHostPage - 1) / kHostPage * kHostPage;
  table_ = static_cast<std::uint8_t*>(map_anonymous(table_bytes_, MAP_PRIVATE, "a node's page states"));
  stack_bytes_ = kStackBytes + kHostPage;
  stack_ = map_anonymous(stack_bytes_, MAP_PRIVATE | MAP_STACK, "a node's stack");
  mprotect(stack_, kHostPage, PROT_NONE);  // the guard page: an overflow faults instead of writing on

  attach_.channel = channel_;
  attach_.heap = heap_;
  attach_.table = table_;
  attach_.access_log = launch.access_log;
  attach_.hand_off = &NodeFiber::hand_off;
  attach_.finish = &NodeFiber::finish;
  attach_.host = this;
  arg_strings_.push_back(program);
  arg_strings_.insert(arg_strings_.end(), launch.args.begin(), launch.args.end());
  for (auto& a : arg_strings_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
  // The node's standard streams: buffered as a process's are when they go to a pipe or a file.
  libc_ = LibcState::current();
  libc_.error = 0;
  libc_.opt_index = 1;
  libc_.opt_arg = nullptr;
  libc_.opt_err = 1;
  libc_.opt_opt = '?';
  libc_.out = launch.stdout_fd >= 0 ? fdopen(launch.stdout_fd, "w") : nullptr;
  libc_.err = launch.stderr_fd >= 0 ? fdopen(launch.stderr_fd, "w") : nullptr;
  if (!libc_.out || !libc_.err) {
    close_output();
    refuse(fmt::format("node {}: the fiber runner cannot open its output: {}", node_, std::strerror(errno)));
  }
  setvbuf(libc_.err, nullptr, _IONBF, 0);
}

NodeFiber::~NodeFiber() {
  close_output();
  if (handle_) {
    detach_();  // a program that did not end must not ask anything of an emulator that is gone
    dlclose(handle_);
  }
  if (stack_) munmap(stack_, stack_bytes_);
  if (table_) munmap(table_, table_bytes_);
  if (heap_) munmap(heap_, object_.heap_bytes());
  if (channel_) munmap(channel_, kChannelMapBytes);
}

void NodeFiber::close_output() {
  // libc's streams, as a process's stdout and stderr are: closed here, with their descriptors.
  if (libc_.out) std::fclose(libc_.out);  // NOLINT(cppcoreguidelines-owning-memory)
  if (libc_.err) std::fclose(libc_.err);  // NOLINT(cppcoreguidelines-owning-memory)
  libc_.out = nullptr;
  libc_.err = nullptr;
}

NodeFiber* NodeFiber::running() { return t_running; }

void NodeFiber::entry(emu::fiber_switch::Context* /*from*/, emu::fiber_switch::Context* /*self*/) {
  NodeFiber* self = t_starting;
  t_starting = nullptr;
  self->main_(&self->attach_, static_cast<int>(self->argv_.size() - 1), self->argv_.data());
  std::abort();  // not reached: the program's fiber ends with a last hand-off
}

void NodeFiber::hand_off(void* host) {
  auto* self = static_cast<NodeFiber*>(host);
  emu::fiber_switch::switch_to(self->program_, self->host_);
}

void NodeFiber::finish(void* host, int status) {
  auto* self = static_cast<NodeFiber*>(host);
  self->exited_ = true;
  self->status_ = status < 0 ? (-status & 0x7f) : W_EXITCODE(status & 0xff, 0);  // killed, or exited
  emu::fiber_switch::switch_to(self->program_, self->host_);
  std::abort();  // never resumed
}

WaitResult NodeFiber::run_program() {
  if (exited_) return WaitResult::Exited;
  if (!started_) {
    started_ = true;
    emu::fiber_switch::prepare(program_, static_cast<char*>(stack_) + stack_bytes_, &NodeFiber::entry);
    t_starting = this;
  }
  for (;;) {
    const LibcState emulator = LibcState::current();
    NodeFiber* const outer = t_running;
    libc_.install();
    t_running = this;
    emu::fiber_switch::switch_to(host_, program_);
    t_running = outer;
    libc_ = LibcState::current();
    emulator.install();
    drop_backstop();
    if (!ticked_) break;
    ticked_ = false;
    if (check_) check_();  // a limit throws: the run stops, the program left at the tick
  }
  return exited_ ? WaitResult::Exited : WaitResult::Request;
}

void NodeFiber::tick(const void* pc) {
  const auto at = reinterpret_cast<std::uintptr_t>(pc);
  if (!image_.contains(at)) return;  // in a library: the next tick
  ticked_ = true;
  emu::fiber_switch::switch_to(program_, host_);
}

int NodeFiber::reap() {
  close_output();  // the node ended: its output is complete (the relay sees the pipes close)
  if (exited_) return status_;
  const Channel& c = *channel_;
  if (c.request == Request::Exit) status_ = W_EXITCODE(static_cast<int>(c.arg0 & 0xff), 0);
  if (c.request == Request::Crash) status_ = static_cast<int>(c.arg0 & 0x7f);  // "killed by" the signal
  return status_;
}

bool NodeFiber::backstop(std::uintptr_t address, bool write, void* pc) {
  const std::uintptr_t offset = address - kHeapBase;
  if (offset >= object_.heap_bytes()) return false;
  const std::size_t page = offset / kHostPage;
  const auto allowed = [&] {
    const auto state = static_cast<PageState>(table_[page]);
    return write ? state == PageState::Write : state != PageState::None;
  };
  if (!allowed()) fault_(address, write ? 1 : 0, pc);  // the node's fiber is switched out meanwhile
  if (!allowed()) return false;
  void* at = heap_address(page * kHostPage);
  void* got = mremap(heap_ + page * kHostPage, 0, kHostPage, MREMAP_MAYMOVE | MREMAP_FIXED, at);
  if (got != at) return false;
  backstop_pages_.push_back(static_cast<std::uint32_t>(page));
  if (static_cast<PageState>(table_[page]) != PageState::Write) mprotect(at, kHostPage, PROT_READ);
  return true;
}

void NodeFiber::drop_backstop() {
  // A page left mapped would show this node's data to the next node's unguarded code: no going on.
  for (const std::uint32_t page : backstop_pages_)
    if (mmap(heap_address(std::size_t{page} * kHostPage), kHostPage, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
      refuse(fmt::format("the fiber runner cannot unmap a page of the shared heap's addresses: {}",
                         std::strerror(errno)));
  backstop_pages_.clear();
}

void NodeFiber::report_signal(int signal_number, std::uintptr_t address, void* pc) {
  signal_(signal_number, address, pc);
  std::abort();  // not reached: the emulator does not resume a crashed node
}

}  // namespace ncp2::tmk
