#include "tmk/host/node_process.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

extern char** environ;  // NOLINT: POSIX

namespace ncp2::tmk {

namespace {

int make_memfd(const char* name, std::size_t bytes) {
  const int fd = static_cast<int>(syscall(SYS_memfd_create, name, 0));
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create shared memory: {}", std::strerror(errno)));
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int e = errno;
    close(fd);
    throw std::runtime_error(
        fmt::format("cannot size shared memory to {} bytes: {}", bytes, std::strerror(e)));
  }
  return fd;
}

void* map_shared(int fd, std::size_t bytes) {
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (at == MAP_FAILED)
    throw std::runtime_error(
        fmt::format("cannot map {} bytes of shared memory: {}", bytes, std::strerror(errno)));
  return at;
}

long futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, value, timeout, nullptr, 0);
}

// In the forked child, before exec: only async-signal-safe calls.
[[noreturn]] void exec_node(const LaunchSpec& spec, char* const* argv, char* const* envp) {
  personality(ADDR_NO_RANDOMIZE);    // globals at the same address on every node
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the emulator
  if (spec.stdout_fd >= 0) dup2(spec.stdout_fd, STDOUT_FILENO);
  if (spec.stderr_fd >= 0) dup2(spec.stderr_fd, STDERR_FILENO);
  execve(spec.program.c_str(), argv, envp);
  static constexpr std::string_view kMessage = "ncp2: cannot start the program\n";
  (void)!write(STDERR_FILENO, kMessage.data(), kMessage.size());
  _exit(127);
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int s = WTERMSIG(status);
    const char* name = sigabbrev_np(s);
    return fmt::format("was killed by SIG{} ({})", name ? name : "?", strsignal(s));
  }
  return fmt::format("ended with wait status {:#x}", status);
}

NodeProcess::NodeProcess(const LaunchSpec& spec) : heap_bytes_(spec.heap_bytes) {
  channel_fd_ = make_memfd("ncp2-tmk-channel", kChannelMapBytes);
  heap_fd_ = make_memfd("ncp2-tmk-heap", heap_bytes_);
  auto* base = static_cast<unsigned char*>(map_shared(channel_fd_, kChannelMapBytes));
  channel_ = new (base) Channel{};  // NOLINT(cppcoreguidelines-owning-memory): placement in shared memory
  channel_->magic = kChannelMagic;
  channel_->version = kChannelVersion;
  channel_->layout_bytes = sizeof(Channel);
  channel_->turn.store(static_cast<std::uint32_t>(Turn::Node));
  bulk_ = base + kChannelBytes;
  heap_ = static_cast<std::byte*>(map_shared(heap_fd_, heap_bytes_));

  // argv and environment prepared before fork: the child only calls async-signal-safe functions.
  std::vector<std::string> arg_strings{spec.program};
  arg_strings.insert(arg_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "NCP2_TMK_", 9) != 0) env_strings.emplace_back(*e);
  env_strings.push_back(fmt::format("{}={}", kChannelFdEnv, channel_fd_));
  env_strings.push_back(fmt::format("{}={}", kHeapFdEnv, heap_fd_));
  if (spec.access_log_fd >= 0)
    env_strings.push_back(fmt::format("{}={}", kAccessLogFdEnv, spec.access_log_fd));
  std::vector<char*> argv;
  std::vector<char*> envp;
  argv.reserve(arg_strings.size() + 1);
  envp.reserve(env_strings.size() + 1);
  for (auto& a : arg_strings) argv.push_back(a.data());
  for (auto& e : env_strings) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0)
    throw std::runtime_error(fmt::format("cannot start node {}: {}", spec.node, std::strerror(errno)));
  if (pid_ == 0) exec_node(spec, argv.data(), envp.data());
  // The mappings stay; the descriptors went to the child. Closing them here keeps the emulator at
  // a few descriptors per node (runs of hundreds of nodes) and the next nodes from inheriting them.
  close(channel_fd_);
  close(heap_fd_);
  channel_fd_ = -1;
  heap_fd_ = -1;
}

NodeProcess::~NodeProcess() {
  kill();
  if (channel_) munmap(channel_, kChannelMapBytes);
  if (heap_) munmap(heap_, heap_bytes_);
  if (channel_fd_ >= 0) close(channel_fd_);
  if (heap_fd_ >= 0) close(heap_fd_);
}

bool NodeProcess::still_running() {
  if (reaped_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    status_ = status;
    return false;
  }
  return true;
}

WaitResult NodeProcess::wait_for_request() {
  // Awake up to 50 us (channel.hpp's await_turn_awake: a node often posts again within
  // microseconds, and a wake-up costs several), then asleep on the futex. On one core only the
  // yielding. Both sides spinning the whole 50 us take each other's cores;
  // sleeping after the spin cost 8 % of wall time on the examples at 8 nodes (bench/fine-grained,
  // docs/performance.md, issue 41).
  static const bool one_core = sysconf(_SC_NPROCESSORS_ONLN) < 2;
  const long spin_ns = one_core ? 0 : 3'000;
  const auto node = static_cast<std::uint32_t>(Turn::Node);
  if (await_turn_awake(channel_->turn, Turn::Emulator, spin_ns, 50'000)) return WaitResult::Request;
  const timespec timeout{0, 50'000'000};  // look whether the process died every 50 ms
  for (;;) {
    std::uint32_t word = channel_->turn.load(std::memory_order_acquire);
    if (is_turn(word, Turn::Emulator)) return WaitResult::Request;
    if (word == node &&
        !channel_->turn.compare_exchange_strong(word, node | kTurnSleeping, std::memory_order_acq_rel))
      continue;  // posted meanwhile
    if (futex_wait(&channel_->turn, node | kTurnSleeping, &timeout) != 0 && errno == ETIMEDOUT) {
      if (!still_running())  // it may have posted its exit (or a crash) just before ending
        return is_turn(channel_->turn.load(std::memory_order_acquire), Turn::Emulator) ? WaitResult::Request
                                                                                       : WaitResult::Exited;
      if (wait_timeout_) wait_timeout_();
    }
  }
}

WaitResult NodeProcess::resume() {
  const std::uint32_t was =
      channel_->turn.exchange(static_cast<std::uint32_t>(Turn::Node), std::memory_order_acq_rel);
  if ((was & kTurnSleeping) != 0)
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&channel_->turn), FUTEX_WAKE, 1, nullptr, nullptr, 0);
  return wait_for_request();
}

int NodeProcess::reap() {
  if (!reaped_) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    status_ = status;
  }
  return status_;
}

void NodeProcess::kill() {
  if (pid_ <= 0 || reaped_) return;
  if (still_running()) {
    ::kill(pid_, SIGKILL);
    reap();
  }
}

}  // namespace ncp2::tmk
