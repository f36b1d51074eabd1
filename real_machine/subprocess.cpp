// Commands as children (real_machine/subprocess.hpp).
#include "real_machine/subprocess.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace ncp2::real {

CommandResult run_command(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("run_command: no command");
  std::array<int, 2> pipe_fds{};
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    const std::string why = fmt::format("cannot run {}: {}\n", argv[0], std::strerror(errno));
    (void)!::write(STDERR_FILENO, why.data(), why.size());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  CommandResult r;
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t got = ::read(pipe_fds[0], buffer.data(), buffer.size());
    if (got > 0) {
      r.output.append(buffer.data(), static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string own_directory() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the ncp2 executable (/proc/self/exe)");
  return self.parent_path().string();
}

std::string executable_next_to_us(const std::string& name) {
  std::string path = own_directory() + "/" + name;
  if (::access(path.c_str(), X_OK) != 0)
    throw std::runtime_error(
        fmt::format("{} is missing: it is built and installed with ncp2 (rebuild or reinstall ncp2)", path));
  return path;
}

std::string last_lines(const std::string& text, int lines) {
  std::size_t at = text.size();
  for (int k = 0; k <= lines && at > 0; ++k) {
    const std::size_t nl = text.rfind('\n', at - 1);
    if (nl == std::string::npos) return text;
    at = nl;
  }
  return text.substr(at + 1);
}

std::string command_line_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::string_view("-_./=:,+%@").find(c) != std::string_view::npos;
    });
    if (!out.empty()) out += ' ';
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (const char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

BackgroundCommand::BackgroundCommand(const std::vector<std::string>& argv, const std::string& output_path) {
  if (argv.empty()) throw std::invalid_argument("BackgroundCommand: no command");
  const int out = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0)
    throw std::runtime_error(fmt::format("cannot write {}: {}", output_path, std::strerror(errno)));
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(out);
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(e)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // The starter gone (killed outright), the command stops as it would on Ctrl-C.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execvp(args[0], args.data());
    const std::string why = fmt::format("cannot run {}: {}\n", argv[0], std::strerror(errno));
    (void)!::write(STDERR_FILENO, why.data(), why.size());
    ::_exit(127);
  }
  // Also here: a signal sent to the group before the child ran setpgid must reach it.
  ::setpgid(pid, pid);
  ::close(out);
  pid_ = pid;
}

BackgroundCommand::~BackgroundCommand() {
  if (pid_ <= 0 || exit_code_) return;
  ::kill(-pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

BackgroundCommand::BackgroundCommand(BackgroundCommand&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), exit_code_(other.exit_code_) {}

BackgroundCommand& BackgroundCommand::operator=(BackgroundCommand&& other) noexcept {
  if (this != &other) {
    BackgroundCommand gone(std::move(*this));
    pid_ = std::exchange(other.pid_, -1);
    exit_code_ = other.exit_code_;
  }
  return *this;
}

std::optional<int> BackgroundCommand::poll() {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  int status = 0;
  pid_t got = 0;
  do {
    got = ::waitpid(pid_, &status, WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == pid_)
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  else if (got < 0)
    exit_code_ = -1;  // not our child any more: nothing to wait for
  return exit_code_;
}

void BackgroundCommand::signal(int signal) const {
  if (pid_ > 0 && !exit_code_) ::kill(pid_, signal);
}

void BackgroundCommand::signal_group(int signal) const {
  // The leader may have ended and been reaped while others of its group still run.
  if (pid_ > 0) ::kill(-pid_, signal);
}

}  // namespace ncp2::real
