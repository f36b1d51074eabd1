#include "tmk/host/output_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

namespace ncp2::tmk {

OutputRelay::~OutputRelay() { finish(); }

int OutputRelay::add(int node, bool is_stderr) {
  std::array<int, 2> fds{};
  if (pipe2(fds.data(), O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe for a node's output");
  sources_.push_back({fds[0], node, is_stderr, {}});
  return fds[1];
}

void OutputRelay::start() {
  if (!sources_.empty()) thread_ = std::thread([this] { loop(); });
}

void OutputRelay::finish() {
  if (thread_.joinable()) thread_.join();
  for (auto& s : sources_)
    if (s.fd >= 0) close(s.fd);
  sources_.clear();
}

namespace {
void emit(std::FILE* out, int node, std::string_view line) {
  fmt::print(out, "[node {}] {}\n", node, line);
  std::fflush(out);
}
}  // namespace

void OutputRelay::loop() {
  std::vector<pollfd> polled;
  std::array<char, 4096> buffer{};
  for (;;) {
    polled.clear();
    for (const auto& s : sources_)
      if (s.fd >= 0) polled.push_back({s.fd, POLLIN, 0});
    if (polled.empty()) return;
    if (poll(polled.data(), polled.size(), -1) < 0 && errno != EINTR) return;
    for (const auto& p : polled) {
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      for (auto& s : sources_) {
        if (s.fd != p.fd) continue;
        const ssize_t n = read(s.fd, buffer.data(), buffer.size());
        if (n <= 0) {  // the process ended: its last unterminated line, then close
          if (!s.partial.empty()) emit(s.is_stderr ? err_ : out_, s.node, s.partial);
          close(s.fd);
          s.fd = -1;
          break;
        }
        s.partial.append(buffer.data(), static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t nl; (nl = s.partial.find('\n', start)) != std::string::npos; start = nl + 1)
          emit(s.is_stderr ? err_ : out_, s.node, std::string_view(s.partial).substr(start, nl - start));
        s.partial.erase(0, start);
        break;
      }
    }
  }
}

}  // namespace ncp2::tmk
