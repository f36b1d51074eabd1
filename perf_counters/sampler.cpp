#include "perf_counters/sampler.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <ctime>
#include <system_error>

#include <fmt/format.h>

#include "carnival/utc_time.hpp"
#include "perf_counters/events.hpp"
#include "perf_counters/perf_group.hpp"
#include "perf_counters/series.hpp"

namespace ncp2::counters {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

struct Pipe {
  Fd read;
  Fd write;
};

Pipe make_pipe() {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) throw_errno("pipe2");
  return {Fd(fds[0]), Fd(fds[1])};
}

// The forked child: killed and reaped if the sampler leaves early (an exception), reaped by wait().
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() {
    if (reaped_) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  [[nodiscard]] pid_t pid() const { return pid_; }

  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) throw_errno("waitpid");
    }
    reaped_ = true;
    return status;
  }
  // Has it exited (without reaping it)?
  [[nodiscard]] bool exited() const {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid_;
  }

 private:
  pid_t pid_;
  bool reaped_ = false;
};

// Like time(1) and perf stat: Ctrl-C goes to the command; the sampler stays to report its status.
class IgnoreInterrupts {
 public:
  IgnoreInterrupts() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGINT, &ignore, &old_int_);
    ::sigaction(SIGQUIT, &ignore, &old_quit_);
  }
  ~IgnoreInterrupts() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGQUIT, &old_quit_, nullptr);
  }
  IgnoreInterrupts(const IgnoreInterrupts&) = delete;
  IgnoreInterrupts& operator=(const IgnoreInterrupts&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
};

void describe_status(int status, CounterRun& run) {
  if (WIFEXITED(status)) {
    run.exit_code = WEXITSTATUS(status);
    run.exit_description = fmt::format("exited with status {}", run.exit_code);
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    run.exit_code = 128 + sig;
    const char* abbrev = ::sigabbrev_np(sig);
    run.exit_description = fmt::format("killed by signal {} (SIG{})", sig, abbrev ? abbrev : "?");
  } else {
    run.exit_code = 1;
    run.exit_description = fmt::format("ended with wait status {:#x}", status);
  }
}

timespec to_timespec(Clock::duration d) {
  const auto ns = std::chrono::duration_cast<Nanoseconds>(d).count();
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void child_main(int go_read, int go_write, int error_write, char* const* argv) {
  ::close(go_write);  // so that the parent's end alone decides: a byte means go, EOF means abort
  char byte = 0;
  ssize_t n = 0;
  do {
    n = ::read(go_read, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(125);
  ::execvp(argv[0], argv);
  const int error = errno;
  [[maybe_unused]] const ssize_t w = ::write(error_write, &error, sizeof error);
  ::_exit(error == ENOENT ? 127 : 126);
}

// execvp's argv: pointers into `args`, which must outlive it.
std::vector<char*> exec_argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// The child's pidfd, to wait for its exit in ppoll; invalid if the kernel has none (< 5.3).
Fd open_pidfd(pid_t pid) {
  const long raw_pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  return Fd(raw_pidfd < 0 ? -1 : static_cast<int>(raw_pidfd));
}

// Once the child was told to go: EOF on the error pipe means the exec succeeded (the pipe closed
// on exec); an errno means it failed, and then the child is reaped and CommandError thrown.
void check_exec(const Fd& exec_error, Child& child, const std::string& program) {
  int exec_errno = 0;
  ssize_t n = 0;
  do {
    n = ::read(exec_error.get(), &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    child.wait();
    throw CommandError(fmt::format("cannot execute '{}': {}", program, std::strerror(exec_errno)),
                       exec_errno == ENOENT ? 127 : 126);
  }
}

// Sleeps until the next deadline or the child's exit, whichever first. Returns true on its exit.
bool wait_for_deadline_or_exit(const Fd& pidfd, const Child& child, Clock::time_point deadline,
                               Clock::time_point now) {
  if (pidfd.valid()) {
    pollfd exit_watch{pidfd.get(), POLLIN, 0};
    const timespec timeout = to_timespec(deadline - now);
    const int rc = ::ppoll(&exit_watch, 1, &timeout, nullptr);
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) throw_errno("ppoll");
  } else {
    // No pidfd (kernel < 5.3): look for the exit every few milliseconds.
    const timespec nap = to_timespec(std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(5)));
    ::nanosleep(&nap, nullptr);
    if (child.exited()) return true;
  }
  return false;
}

// Reads the group once per period from `start` until the child exits.
SampleSeries sample_until_exit(const CounterGroup& group, const Child& child, const Fd& pidfd,
                               Clock::time_point start, Clock::duration period) {
  SampleSeries series;
  Clock::time_point deadline = start + period;
  for (;;) {
    Clock::time_point now = Clock::now();
    if (now < deadline) {
      if (wait_for_deadline_or_exit(pidfd, child, deadline, now)) break;
      now = Clock::now();
      if (now < deadline) continue;
    }
    RawSample sample = group.read();
    // The time after the read: the values are no later than it. A sampler delayed before or
    // during the read shows as a late sample.
    const Clock::time_point read_at = Clock::now();
    sample.wall = std::chrono::duration_cast<Nanoseconds>(read_at - start);
    sample.late = read_at - deadline > period / 2;
    series.add(std::move(sample));
    while (deadline <= read_at) deadline += period;
  }
  return series;
}

// After the child's exit: reaps it, takes the final reading and fills in the run's outcome.
void finish_run(const CounterGroup& group, Child& child, Clock::time_point start, SampleSeries& series,
                CounterRun& run) {
  const int status = child.wait();
  RawSample final_sample = group.read();
  const Clock::time_point end = Clock::now();
  final_sample.wall = std::chrono::duration_cast<Nanoseconds>(end - start);
  series.add_final(std::move(final_sample));

  describe_status(status, run);
  run.wall_seconds = std::chrono::duration<double>(end - start).count();
  run.samples_dropped = series.dropped();
  run.samples_late = series.late();
  run.samples = series.take();
  mark_uncounted_events(run);
}

}  // namespace

Nanoseconds parse_period(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value))
    throw std::invalid_argument(
        fmt::format("period '{}': expected a duration such as 1ms, 100ms or 5s", text));
  std::string_view unit(end, static_cast<std::size_t>(s.data() + s.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  double scale_ns = 0;
  if (unit == "us")
    scale_ns = 1e3;
  else if (unit == "ms")
    scale_ns = 1e6;
  else if (unit == "s")
    scale_ns = 1e9;
  else
    throw std::invalid_argument(fmt::format("period '{}': the unit must be us, ms or s (e.g. 100ms)", text));
  const double ns = value * scale_ns;
  if (!(ns >= static_cast<double>(kMinPeriod.count()) && ns <= static_cast<double>(kMaxPeriod.count())))
    throw std::invalid_argument(fmt::format("period '{}': must be between 100us and 60s", text));
  return Nanoseconds(static_cast<std::int64_t>(std::llround(ns)));
}

CounterRun run_with_counters(std::span<const std::string> command, const SamplerOptions& options) {
  if (command.empty()) throw std::invalid_argument("no command to run");
  if (options.period < kMinPeriod || options.period > kMaxPeriod)
    throw std::invalid_argument("the period must be between 100us and 60s");
  const std::vector<std::string>& names = options.events.empty() ? default_event_names() : options.events;

  // Everything the child needs is ready before the fork (no allocation after it).
  std::vector<std::string> args(command.begin(), command.end());
  const std::vector<char*> argv = exec_argv(args);

  CounterRun run;
  run.command = args;
  run.period = options.period;
  run.perf_event_paranoid = read_perf_event_paranoid();

  Pipe go = make_pipe();
  Pipe exec_error = make_pipe();
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) child_main(go.read.get(), go.write.get(), exec_error.write.get(), argv.data());

  Child child(pid);
  go.read.reset();
  exec_error.write.reset();
  const IgnoreInterrupts interrupts;

  // The child is blocked on the pipe: open the group on it, enabled by its exec.
  CounterGroup group(pid, names, GroupOptions{.inherit = options.inherit, .enable_on_exec = true});
  run.events = group.events();
  run.inherit = group.inherit();
  if (group.empty()) throw NoCountersError("no requested event can be counted on this machine", run.events);
  const Fd pidfd = open_pidfd(pid);

  run.started_at = carnival::utc_now_iso();
  const Clock::time_point start = Clock::now();
  if (::write(go.write.get(), "g", 1) != 1) throw_errno("starting the command");
  go.write.reset();
  check_exec(exec_error.read, child, args.front());

  SampleSeries series = sample_until_exit(group, child, pidfd, start, options.period);
  finish_run(group, child, start, series, run);
  return run;
}

}  // namespace ncp2::counters
