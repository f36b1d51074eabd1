// Commands as children (real_machine/subprocess.hpp).
#include "real_machine/subprocess.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

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

}  // namespace ncp2::real
