#include "perf_counters/perf_group.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

namespace ncp2::counters {

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::optional<int> read_perf_event_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

namespace {

std::string errno_name(int error) {
  const char* name = ::strerrorname_np(error);
  return name ? name : fmt::format("errno {}", error);
}

}  // namespace

std::string describe_open_error(int error, std::optional<int> paranoid, bool hardware) {
  const std::string code = errno_name(error);
  switch (error) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      if (hardware)
        return fmt::format(
            "not supported here: no hardware PMU for it in this kernel ({}; usual in virtual machines)",
            code);
      return fmt::format("not supported by this kernel ({})", code);
    case EACCES:
    case EPERM: {
      if (!paranoid)
        return fmt::format(
            "permission denied ({}); /proc/sys/kernel/perf_event_paranoid is missing or unreadable", code);
      const char* meaning = *paranoid >= 3 ? "perf events are forbidden to unprivileged users"
                            : *paranoid >= 2
                                ? "unprivileged users may count their own processes in user space only"
                            : *paranoid >= 1 ? "unprivileged users may not count CPU-wide events"
                                             : "most uses are allowed";
      return fmt::format(
          "permission denied ({}): kernel.perf_event_paranoid is {} ({}); run as root or with CAP_PERFMON, "
          "or "
          "lower it: sysctl kernel.perf_event_paranoid=1",
          code, *paranoid, meaning);
    }
    case ENOSYS:
      return fmt::format(
          "perf_event_open is not available ({}: a kernel without perf events, or a seccomp filter "
          "of the container)",
          code);
    case EINVAL:
      return fmt::format("the kernel rejected the event's encoding ({}): not an event of this CPU?", code);
    case EBUSY:
      return fmt::format("the counter is taken by another user of the PMU ({})", code);
    case EMFILE:
    case ENFILE:
      return fmt::format("too many open files ({})", code);
    case ESRCH:
      return fmt::format("the process is gone ({})", code);
    default:
      return fmt::format("perf_event_open failed: {} ({})", std::strerror(error), code);
  }
}

namespace {

constexpr std::uint64_t kReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

struct OpenResult {
  Fd fd;
  int error = 0;
};

OpenResult open_event(const EventEncoding& e, pid_t pid, int group_fd, bool leader, bool inherit,
                      bool enable_on_exec, bool exclude_kernel) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.config1 = e.config1;
  attr.config2 = e.config2;
  attr.read_format = kReadFormat;
  // The leader holds the group back until it is enabled (at exec, or by enable()); the members
  // follow it.
  attr.disabled = leader ? 1 : 0;
  attr.enable_on_exec = leader && enable_on_exec ? 1 : 0;
  attr.inherit = inherit ? 1 : 0;
  attr.exclude_hv = 1;
  attr.exclude_kernel = exclude_kernel ? 1 : 0;
  const long fd = ::syscall(SYS_perf_event_open, &attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return {Fd(), errno};
  return {Fd(static_cast<int>(fd)), 0};
}

}  // namespace

CounterGroup::CounterGroup(pid_t pid, std::span<const std::string> names, const GroupOptions& options)
    : inherit_(options.inherit) {
  const auto paranoid = read_perf_event_paranoid();
  for (const auto& name : names) {
    EventStatus status;
    status.name = name;
    const Resolution resolved = resolve_event(name);
    if (!resolved.event) {
      status.reason = resolved.error;
      events_.push_back(std::move(status));
      continue;
    }
    const EventEncoding& e = *resolved.event;
    status.source = e.source;
    status.encoding = e.encoding;
    status.perf_type = e.type;
    status.perf_config = e.config;
    status.unit = e.unit;

    const bool leader = members_.empty();
    const int group_fd = leader ? -1 : members_.front().get();
    bool exclude_kernel = false;
    auto attempt = [&](int gfd, bool lead) {
      return open_event(e, pid, gfd, lead, inherit_, options.enable_on_exec, exclude_kernel);
    };
    OpenResult r = attempt(group_fd, leader);
    if (r.error == EACCES || r.error == EPERM) {
      // perf_event_paranoid >= 2 lets a user count their own process in user space only.
      exclude_kernel = true;
      OpenResult user_only = attempt(group_fd, leader);
      if (user_only.error == 0) {
        r = std::move(user_only);
        status.note = fmt::format("user space only (kernel.perf_event_paranoid is {})",
                                  paranoid ? std::to_string(*paranoid) : "unreadable");
      }
    }
    if (r.error == EINVAL && leader && inherit_) {
      // Old kernels refuse inherit with PERF_FORMAT_GROUP: count the process alone.
      inherit_ = false;
      OpenResult alone = attempt(group_fd, leader);
      if (alone.error == 0)
        r = std::move(alone);
      else
        inherit_ = true;
    }
    if (r.error != 0) {
      const bool hardware = !e.is_software();
      if (!leader) {
        // Would it open on its own? Then it is the group that cannot take it.
        OpenResult single = attempt(-1, true);
        status.reason = single.error == 0
                            ? fmt::format("cannot be counted in one group with '{}': {}", leader_name(),
                                          describe_open_error(r.error, paranoid, hardware))
                            : describe_open_error(single.error, paranoid, hardware);
      } else {
        status.reason = describe_open_error(r.error, paranoid, hardware);
      }
      events_.push_back(std::move(status));
      continue;
    }
    status.available = true;
    status.group_index = static_cast<int>(members_.size());
    members_.push_back(std::move(r.fd));
    events_.push_back(std::move(status));
  }
}

std::string CounterGroup::leader_name() const {
  for (const auto& e : events_)
    if (e.group_index == 0) return e.name;
  return "the other events";
}

RawSample CounterGroup::read() const {
  RawSample s;
  if (members_.empty()) return s;
  std::vector<std::uint64_t> buffer(3 + members_.size());
  const ssize_t n = ::read(members_.front().get(), buffer.data(), buffer.size() * sizeof(std::uint64_t));
  if (n < 0) throw std::system_error(errno, std::generic_category(), "reading the counter group");
  if (static_cast<std::size_t>(n) != buffer.size() * sizeof(std::uint64_t) || buffer[0] != members_.size())
    throw std::runtime_error(
        fmt::format("reading the counter group: {} bytes for {} events", n, members_.size()));
  s.enabled_ns = buffer[1];
  s.running_ns = buffer[2];
  s.values.assign(buffer.begin() + 3, buffer.end());
  return s;
}

void CounterGroup::enable() const {
  if (members_.empty()) return;
  if (::ioctl(members_.front().get(), PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0)
    throw std::system_error(errno, std::generic_category(), "enabling the counter group");
}

EventStatus probe_event(std::string_view name) {
  const std::array<std::string, 1> names = {std::string(name)};
  CounterGroup group(0, names, GroupOptions{.inherit = false, .enable_on_exec = false});
  EventStatus status = group.events().front();
  if (!status.available) return status;
  group.enable();
  // Some hypervisors accept the event but never schedule it: count a little work to know.
  volatile std::uint64_t sink = 0;
  for (std::uint64_t i = 0; i < 200'000; ++i) sink = sink + i;
  const RawSample s = group.read();
  if (s.enabled_ns > 0 && s.running_ns == 0) {
    status.available = false;
    status.reason = "opens, but the PMU never counted it (running time 0)";
  }
  return status;
}

}  // namespace ncp2::counters
