#include "host_timing/sync_run.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include <arpa/inet.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "host_timing/tick_clock.hpp"

namespace ncp2::timing {

std::string_view to_string(SyncTransport t) { return t == SyncTransport::Shm ? "shm" : "udp"; }

InjectedClock injected_clock(const SyncRunOptions& options, int follower) {
  const double sign = follower % 2 == 1 ? 1.0 : -1.0;
  return {sign * follower * options.inject_offset_us * 1000.0, sign * follower * options.inject_drift_ppm};
}

bool FollowerReport::within_bound() const { return ok && std::abs(error_ns()) <= estimate.offset_bound_ns; }

bool SyncRunReport::ok() const {
  if (!error.empty() || followers.empty()) return false;
  for (const auto& f : followers)
    if (!f.ok) return false;
  return true;
}

namespace {

constexpr int kMaxProcs = 64;
constexpr int kMaxExchanges = 100'000;
constexpr std::uint32_t kFailed = 0xFFFF;

// The master's answer slot and a follower's request slot, on separate cache lines.
struct alignas(64) Mailbox {
  std::atomic<std::uint64_t> request{0};
  std::array<char, 56> pad{};
  std::atomic<std::uint64_t> reply{0};
  std::atomic<std::int64_t> master_ns{0};
};

struct FollowerResult {
  bool ok = false;
  std::array<char, 160> error{};
  SyncEstimate estimate;
  double true_offset_ns = 0;
};
static_assert(std::is_trivially_copyable_v<SyncEstimate>);

// Everything the processes share: mapped before the fork.
struct Shared {
  alignas(64) std::atomic<std::uint32_t> turn{0};  // futex word: burst << 8 | follower; 0: nobody
  std::atomic<std::uint32_t> abort{0};
  std::array<std::atomic<std::uint32_t>, kMaxProcs> state{};  // bursts completed by follower k, or kFailed
  std::int64_t epoch_ns = 0;
  std::uint16_t port = 0;
  std::array<Mailbox, kMaxProcs> boxes;
  std::array<FollowerResult, kMaxProcs> results;
};

class SharedMapping {
 public:
  SharedMapping() {
    void* p = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw std::runtime_error(fmt::format("mmap of the shared area: {}", std::strerror(errno)));
    shared_ = std::construct_at(static_cast<Shared*>(p));
  }
  ~SharedMapping() {
    std::destroy_at(shared_);
    ::munmap(shared_, sizeof(Shared));
  }
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;
  Shared& operator*() const { return *shared_; }
  Shared* operator->() const { return shared_; }

 private:
  Shared* shared_ = nullptr;
};

class Socket {
 public:
  Socket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::runtime_error(fmt::format("socket: {}", std::strerror(errno)));
  }
  ~Socket() { close(); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  [[nodiscard]] int fd() const { return fd_; }
  void set_receive_timeout(std::chrono::microseconds t) const {
    timeval tv{static_cast<time_t>(t.count() / 1'000'000), static_cast<suseconds_t>(t.count() % 1'000'000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }

 private:
  int fd_;
};

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

struct UdpMessage {
  std::uint32_t follower = 0;
  std::uint32_t pad = 0;
  std::uint64_t seq = 0;
  std::int64_t master_ns = 0;
};

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds timeout) {
  timespec ts{static_cast<time_t>(timeout.count() / 1'000'000'000),
              static_cast<long>(timeout.count() % 1'000'000'000)};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}
void futex_wake_all(std::atomic<std::uint32_t>& word) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

inline void cpu_relax() {
#if NCP2_TIMING_X86
  _mm_pause();
#endif
}

std::int64_t host_ns() { return static_cast<std::int64_t>(monotonic_raw_ns()); }

std::uint32_t turn_code(int burst, int follower) { return static_cast<std::uint32_t>(burst << 8 | follower); }

// A follower's own clock: the host's, shifted and skewed in software.
struct LocalClock {
  std::int64_t epoch_ns = 0;
  InjectedClock injected;
  [[nodiscard]] std::int64_t now() const {
    const std::int64_t h = host_ns();
    return h +
           std::llround(injected.offset_ns + injected.drift_ppm * 1e-6 * static_cast<double>(h - epoch_ns));
  }
  // The true offset (local - host) at local time `local_ns`.
  [[nodiscard]] double true_offset_at(double local_ns) const {
    const double d = injected.drift_ppm * 1e-6;
    const double host = (local_ns - injected.offset_ns + d * static_cast<double>(epoch_ns)) / (1.0 + d);
    return injected.offset_ns + d * (host - static_cast<double>(epoch_ns));
  }
};

class FollowerFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_alive(const Shared& s, std::int64_t deadline_ns) {
  if (s.abort.load(std::memory_order_relaxed)) throw FollowerFailure("aborted by the master");
  if (host_ns() > deadline_ns) throw FollowerFailure("timed out");
}

// A burst goes on until it has `count` exchanges of which at least half lie within 2 x the
// minimum, or 10 x `count` exchanges: on a loaded host many exchanges are stretched by either
// process being descheduled, and the burst waits for enough undisturbed ones.
class Burst {
 public:
  explicit Burst(int count) : count_(static_cast<std::size_t>(count)) { exchanges_.reserve(count_); }
  void add(const Exchange& e) {
    exchanges_.push_back(e);
    if (e.rtt_ns() < min_) {
      min_ = e.rtt_ns();
      good_ = static_cast<std::size_t>(
          std::count_if(exchanges_.begin(), exchanges_.end(),
                        [this](const Exchange& x) { return x.rtt_ns() <= 2 * min_; }));
    } else if (e.rtt_ns() <= 2 * min_) {
      ++good_;
    }
  }
  [[nodiscard]] bool complete() const {
    return (exchanges_.size() >= count_ && 2 * good_ >= count_) || exchanges_.size() >= 10 * count_;
  }
  [[nodiscard]] std::vector<Exchange> take() { return std::move(exchanges_); }

 private:
  std::size_t count_;
  std::vector<Exchange> exchanges_;
  std::int64_t min_ = INT64_MAX;
  std::size_t good_ = 0;
};

// A waiting process spins: with two or more CPUs its peer runs meanwhile on another core (and an
// exchange takes ~0.2 us here). On a single CPU it gives the core away after a short spin, or
// every exchange would last a scheduler time slice. (Pinning master and followers to distinct
// CPUs was tried and made things far worse on a loaded 2-CPU VM: pinned processes cannot move
// away from a busy core.)
bool g_single_cpu = false;
inline void backoff(unsigned spins) {
  if (!g_single_cpu || spins < 1'000)
    cpu_relax();
  else
    sched_yield();
}

std::vector<Exchange> burst_shm(Shared& s, int k, int count, const LocalClock& clock,
                                std::int64_t deadline_ns) {
  Burst burst(count);
  Mailbox& box = s.boxes[k];
  for (std::uint64_t seq = box.request.load(std::memory_order_relaxed) + 1; !burst.complete(); ++seq) {
    Exchange e;
    e.local_send_ns = clock.now();
    box.request.store(seq, std::memory_order_release);
    for (unsigned spins = 0; box.reply.load(std::memory_order_acquire) != seq; ++spins) {
      backoff(spins);
      if ((spins & 0xFFF) == 0xFFF) check_alive(s, deadline_ns);
    }
    e.master_ns = box.master_ns.load(std::memory_order_relaxed);
    e.local_receive_ns = clock.now();
    burst.add(e);
  }
  return burst.take();
}

std::vector<Exchange> burst_udp(Shared& s, const Socket& sock, int k, int count, const LocalClock& clock,
                                std::int64_t deadline_ns, std::uint64_t& seq) {
  Burst burst(count);
  const sockaddr_in master = loopback(s.port);
  while (!burst.complete()) {
    check_alive(s, deadline_ns);
    const UdpMessage request{static_cast<std::uint32_t>(k), 0, ++seq, 0};
    Exchange e;
    e.local_send_ns = clock.now();
    if (::sendto(sock.fd(), &request, sizeof request, 0, reinterpret_cast<const sockaddr*>(&master),
                 sizeof master) != static_cast<ssize_t>(sizeof request))
      throw FollowerFailure(fmt::format("sendto: {}", std::strerror(errno)));
    // Wait for this request's answer; stale answers (to a request given up on) are skipped, a
    // lost one is retried with a new request.
    for (;;) {
      UdpMessage reply{};
      const ssize_t n = ::recv(sock.fd(), &reply, sizeof reply, 0);
      const std::int64_t received = clock.now();
      if (n < 0) break;  // timeout: send again
      if (n != static_cast<ssize_t>(sizeof reply) || reply.seq != request.seq) continue;
      e.master_ns = reply.master_ns;
      e.local_receive_ns = received;
      burst.add(e);
      break;
    }
  }
  return burst.take();
}

void write_error(FollowerResult& r, const std::string& what) {
  std::snprintf(r.error.data(), r.error.size(), "%s", what.c_str());
}

// The follower process: two bursts in its windows, then its estimate into the shared area.
[[noreturn]] void follower_main(Shared& s, const SyncRunOptions& o, int k, std::int64_t deadline_ns) {
  FollowerResult& result = s.results[k];
  const LocalClock clock{s.epoch_ns, injected_clock(o, k)};
  try {
    std::optional<Socket> sock;
    if (o.transport == SyncTransport::Udp) {
      sock.emplace();
      sock->set_receive_timeout(std::chrono::milliseconds(20));
    }
    std::uint64_t seq = 0;
    std::array<std::vector<Exchange>, 2> bursts;
    for (int burst = 1; burst <= 2; ++burst) {
      const std::uint32_t mine = turn_code(burst, k);
      for (std::uint32_t t; (t = s.turn.load(std::memory_order_acquire)) != mine;) {
        check_alive(s, deadline_ns);
        futex_wait(s.turn, t, std::chrono::milliseconds(10));
      }
      bursts[burst - 1] = o.transport == SyncTransport::Shm
                              ? burst_shm(s, k, o.exchanges, clock, deadline_ns)
                              : burst_udp(s, *sock, k, o.exchanges, clock, deadline_ns, seq);
      s.state[k].store(static_cast<std::uint32_t>(burst), std::memory_order_release);
    }
    result.estimate = estimate_sync(bursts[0], bursts[1]);
    result.true_offset_ns = clock.true_offset_at(result.estimate.ref_local_ns);
    result.ok = true;
    ::_exit(0);
  } catch (const std::exception& e) {
    write_error(result, e.what());
  }
  s.state[k].store(kFailed, std::memory_order_release);
  ::_exit(1);
}

// The master's side of follower k's window: answers every new request until the follower says
// its burst is complete. Returns false if the follower failed or the run timed out.
bool serve_shm(Shared& s, int k, int burst, std::int64_t deadline_ns) {
  Mailbox& box = s.boxes[k];
  std::uint64_t answered = box.reply.load(std::memory_order_relaxed);
  for (unsigned spins = 0;; ++spins) {
    const std::uint64_t seq = box.request.load(std::memory_order_acquire);
    if (seq != answered) {
      box.master_ns.store(host_ns(), std::memory_order_relaxed);
      box.reply.store(seq, std::memory_order_release);
      answered = seq;
      spins = 0;
      continue;
    }
    backoff(spins);
    if ((spins & 0xFF) == 0xFF) {
      const std::uint32_t st = s.state[k].load(std::memory_order_acquire);
      if (st == kFailed) return false;
      if (st >= static_cast<std::uint32_t>(burst)) return true;
      if (host_ns() > deadline_ns) return false;
    }
  }
}

bool serve_udp(Shared& s, const Socket& sock, int k, int burst, std::int64_t deadline_ns) {
  for (;;) {
    const std::uint32_t st = s.state[k].load(std::memory_order_acquire);
    if (st == kFailed) return false;
    if (st >= static_cast<std::uint32_t>(burst)) return true;
    if (host_ns() > deadline_ns) return false;
    UdpMessage m{};
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const ssize_t n = ::recvfrom(sock.fd(), &m, sizeof m, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n != static_cast<ssize_t>(sizeof m)) continue;  // timeout: look at the follower's state
    m.master_ns = host_ns();
    ::sendto(sock.fd(), &m, sizeof m, 0, reinterpret_cast<const sockaddr*>(&from), len);
  }
}

void validate(const SyncRunOptions& o) {
  if (o.procs < 2 || o.procs > kMaxProcs)
    throw std::invalid_argument(
        fmt::format("--procs must be 2..{} (a master and at least one follower)", kMaxProcs));
  if (o.exchanges < 1 || o.exchanges > kMaxExchanges)
    throw std::invalid_argument(fmt::format("--exchanges must be 1..{}", kMaxExchanges));
  if (!(o.interval_s > 0) || o.interval_s > 60)
    throw std::invalid_argument("the interval must be in (0, 60] s");
  if (!std::isfinite(o.inject_offset_us) || std::abs(o.inject_offset_us) > 1e9)
    throw std::invalid_argument("--inject-offset-us must be a finite number of at most 1e9 us");
  if (!std::isfinite(o.inject_drift_ppm) || std::abs(o.inject_drift_ppm) * (o.procs - 1) >= 1e5)
    throw std::invalid_argument("--inject-drift-ppm times the followers must stay below 100000 ppm");
}

// The master's UDP socket, bound to an ephemeral port on loopback; the port goes into the shared
// area so that the followers (forked later) know where to send.
std::unique_ptr<Socket> open_master_socket(Shared& s) {
  auto sock = std::make_unique<Socket>();
  const sockaddr_in any = loopback(0);
  if (::bind(sock->fd(), reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0)
    throw std::runtime_error(fmt::format("bind on 127.0.0.1: {}", std::strerror(errno)));
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  ::getsockname(sock->fd(), reinterpret_cast<sockaddr*>(&bound), &len);
  s.port = ntohs(bound.sin_port);
  sock->set_receive_timeout(std::chrono::milliseconds(5));
  return sock;
}

// Decides how waiting processes back off (see backoff()).
bool runs_on_single_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < 2;
}

// Forks followers 1..procs-1 (each runs follower_main and never returns here). Stops at the first
// failed fork, with the reason in `error`; returns the pids of those started.
std::vector<pid_t> fork_followers(Shared& s, const SyncRunOptions& o, std::int64_t deadline,
                                  Socket* master_socket, std::string& error) {
  std::fflush(nullptr);  // the children must not flush the parent's buffered output again
  std::vector<pid_t> pids;
  const pid_t master_pid = ::getpid();
  for (int k = 1; k < o.procs; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      // A follower never outlives the master (e.g. the master interrupted by Ctrl-C).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != master_pid) ::_exit(1);
      if (master_socket) master_socket->close();
      follower_main(s, o, k, deadline);
    }
    if (pid < 0) {
      error = fmt::format("fork: {}", std::strerror(errno));
      break;
    }
    pids.push_back(pid);
  }
  return pids;
}

// The master's side of the run: each follower's window in turn, twice (the second round after
// the interval). Returns, per follower id, whether it failed or timed out.
std::vector<bool> serve_windows(Shared& s, const SyncRunOptions& o, const Socket* master_socket,
                                std::int64_t deadline) {
  std::vector<bool> failed(static_cast<std::size_t>(o.procs), false);
  for (int burst = 1; burst <= 2; ++burst) {
    if (burst == 2) std::this_thread::sleep_for(std::chrono::duration<double>(o.interval_s));
    for (int k = 1; k < o.procs; ++k) {
      if (failed[static_cast<std::size_t>(k)]) continue;
      s.turn.store(turn_code(burst, k), std::memory_order_release);
      futex_wake_all(s.turn);
      const bool served = o.transport == SyncTransport::Shm
                              ? serve_shm(s, k, burst, deadline)
                              : serve_udp(s, *master_socket, k, burst, deadline);
      if (!served) failed[static_cast<std::size_t>(k)] = true;
    }
  }
  return failed;
}

// Collects the followers' wait statuses; any still running a second after the deadline is killed
// (we started it).
std::vector<int> reap_followers(Shared& s, const std::vector<pid_t>& pids, std::int64_t deadline) {
  std::vector<int> status(pids.size(), -1);
  std::size_t remaining = pids.size();
  bool killed = false;
  while (remaining > 0) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (status[i] != -1) continue;
      int st = 0;
      if (::waitpid(pids[i], &st, WNOHANG) == pids[i]) {
        status[i] = st;
        --remaining;
      }
    }
    if (remaining == 0) break;
    if (!killed && host_ns() > deadline + 1'000'000'000) {
      s.abort.store(1);
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (status[i] == -1) ::kill(pids[i], SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return status;
}

// Follower k's report: its estimate if it and its process ended well, else why not.
FollowerReport follower_report(const Shared& s, const SyncRunOptions& o, int k, int status, bool failed) {
  FollowerReport f;
  f.id = k;
  f.injected = injected_clock(o, k);
  const FollowerResult& r = s.results[k];
  const bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  f.ok = r.ok && exited_ok && !failed;
  if (!f.ok) {
    f.error = r.error[0]            ? std::string(r.error.data())
              : WIFSIGNALED(status) ? fmt::format("killed by signal {} (timed out)", WTERMSIG(status))
                                    : std::string("did not finish its exchanges in time");
  } else {
    f.estimate = r.estimate;
    f.true_offset_ns = r.true_offset_ns;
  }
  return f;
}

}  // namespace

SyncRunReport run_clock_sync(const SyncRunOptions& o) {
  validate(o);
  SyncRunReport report;
  report.transport = o.transport;
  report.clock =
      "clock_gettime(CLOCK_MONOTONIC_RAW), shared by all processes; followers' clocks shifted and "
      "skewed in software";
  std::unique_ptr<SharedMapping> shared;
  std::unique_ptr<Socket> master_socket;
  try {
    shared = std::make_unique<SharedMapping>();
    if (o.transport == SyncTransport::Udp) master_socket = open_master_socket(**shared);
  } catch (const std::exception& e) {
    report.error = e.what();
    return report;
  }
  Shared& s = **shared;
  s.epoch_ns = host_ns();
  g_single_cpu = runs_on_single_cpu();
  const std::int64_t deadline = s.epoch_ns + static_cast<std::int64_t>(o.timeout_s * 1e9);

  const std::vector<pid_t> pids = fork_followers(s, o, deadline, master_socket.get(), report.error);
  std::vector<bool> failed(static_cast<std::size_t>(o.procs), false);
  if (report.error.empty()) failed = serve_windows(s, o, master_socket.get(), deadline);
  s.turn.store(0, std::memory_order_release);
  if (!report.error.empty()) s.abort.store(1);
  futex_wake_all(s.turn);

  const std::vector<int> status = reap_followers(s, pids, deadline);
  for (std::size_t i = 0; i < pids.size(); ++i) {
    const int k = static_cast<int>(i) + 1;
    report.followers.push_back(follower_report(s, o, k, status[i], failed[static_cast<std::size_t>(k)]));
  }
  return report;
}

}  // namespace ncp2::timing
