// Running mpirun: fork/exec with its own environment, waiting, forwarding SIGINT/SIGTERM.
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "real_machine/launcher.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace ncp2::real {
namespace {

std::atomic<pid_t> g_mpirun{0};  // the running mpirun, for the signal handler
static_assert(std::atomic<pid_t>::is_always_lock_free);

void forward_signal(int sig, siginfo_t* info, void* /*context*/) {
  // A Ctrl-C at the terminal (SI_KERNEL) already reached mpirun, which shares our process group;
  // a second SIGINT would make it kill the ranks without letting them finish their output.
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  const pid_t pid = g_mpirun.load();
  if (pid > 0) kill(pid, sig);
}

// Forwards SIGINT and SIGTERM to mpirun while it runs; the previous handlers come back after.
class SignalForwarding {
 public:
  explicit SignalForwarding(pid_t mpirun) {
    g_mpirun.store(mpirun);
    struct sigaction action {};
    action.sa_sigaction = forward_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    g_mpirun.store(0);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;
  SignalForwarding(SignalForwarding&&) = delete;
  SignalForwarding& operator=(SignalForwarding&&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Our environment with `vars` set (replacing same-named ones), as "NAME=value" strings.
std::vector<std::string> child_environment(const std::vector<EnvironmentEntry>& vars) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& var : vars) merged[var.first] = var.second;
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& entry : merged) out.push_back(entry.first + "=" + entry.second);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Forks and execs; everything the child needs is prepared before the fork. Throws when exec
// fails (the child reports errno through a close-on-exec pipe).
pid_t start(std::vector<std::string>& argv_strings, std::vector<std::string>& env_strings, int stdout_fd) {
  auto argv = pointers(argv_strings);
  auto envp = pointers(env_strings);
  std::array<int, 2> report{};
  if (pipe2(report.data(), O_CLOEXEC) != 0) throw LaunchError(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw LaunchError(std::string("cannot fork mpirun: ") + std::strerror(errno));
  if (pid == 0) {
    close(report[0]);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
    execve(argv[0], argv.data(), envp.data());
    const int error = errno;
    (void)!write(report[1], &error, sizeof error);
    _exit(127);
  }
  close(report[1]);
  int error = 0;
  ssize_t n = 0;
  do {
    n = read(report[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == sizeof error) {
    waitpid(pid, nullptr, 0);
    throw LaunchError("cannot run " + argv_strings[0] + ": " + std::strerror(error));
  }
  return pid;
}

// mpirun's output, line by line through the filter, until every rank closed it.
void relay_lines(int fd, const std::function<bool(std::string_view)>& filter) {
  std::string pending;
  std::array<char, 4096> buffer{};
  const auto emit = [&filter](std::string_view line) {
    if (!filter(line)) return;
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  };
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer.data(), static_cast<std::size_t>(n));
    for (std::size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      emit(std::string_view(pending).substr(0, end));
      pending.erase(0, end + 1);
    }
  }
  if (!pending.empty()) emit(pending);
}

}  // namespace

int run_mpirun(const MpiLaunch& launch) {
  const MpiEnvironment env = detect_environment(launch);
  std::vector<std::string> argv = mpirun_argv(launch, env);
  std::vector<std::string> envp = child_environment(mpirun_environment(launch, env));
  if (launch.verbose) {
    if (env.root) std::cerr << "ncp2: running as root: OMPI_ALLOW_RUN_AS_ROOT{,_CONFIRM}=1 for mpirun\n";
    std::cerr << "ncp2: launching";
    for (const auto& word : argv) std::cerr << ' ' << word;
    std::cerr << std::endl;
  }
  std::array<int, 2> out{-1, -1};
  if (launch.stdout_filter && pipe2(out.data(), O_CLOEXEC) != 0)
    throw LaunchError(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = start(argv, envp, out[1]);
  const SignalForwarding forwarding(pid);
  if (launch.stdout_filter) {
    close(out[1]);
    relay_lines(out[0], launch.stdout_filter);
    close(out[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw LaunchError(std::string("waiting for mpirun: ") + std::strerror(errno));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace ncp2::real
