#pragma once
// perf_event_open(2) as one group per measured process: the first event that opens leads, the
// others join it, so one read() returns every value with the group's TOTAL_TIME_ENABLED and
// TOTAL_TIME_RUNNING. An event that cannot be opened is kept out of the group with the reason.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "perf_counters/events.hpp"
#include "perf_counters/model.hpp"

namespace ncp2::counters {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }
  void reset();

 private:
  int fd_ = -1;
};

// /proc/sys/kernel/perf_event_paranoid, or nothing if the kernel has no perf events.
std::optional<int> read_perf_event_paranoid();

// Why perf_event_open failed, in words a user can act on (names the errno and, for permissions,
// the paranoid setting and what to change).
std::string describe_open_error(int error, std::optional<int> paranoid, bool hardware);

// Can this event be counted on this machine? Opens it on the calling thread and closes it.
// The status's reason says why not.
EventStatus probe_event(std::string_view name);

struct GroupOptions {
  bool inherit = true;         // count the process's future children too
  bool enable_on_exec = true;  // start counting at the process's next exec (else: at once)
};

class CounterGroup {
 public:
  // Opens every event of `names` on process `pid` (0: the caller). Every name gets an
  // EventStatus; those that opened have group_index >= 0, in the order of the values read().
  CounterGroup(pid_t pid, std::span<const std::string> names, const GroupOptions& options = {});

  [[nodiscard]] const std::vector<EventStatus>& events() const { return events_; }
  [[nodiscard]] std::vector<EventStatus>& events() { return events_; }
  [[nodiscard]] std::size_t size() const { return members_.size(); }
  [[nodiscard]] bool empty() const { return members_.empty(); }
  [[nodiscard]] bool inherit() const { return inherit_; }

  // One read() of the group: enabled, running and the values. Throws std::system_error.
  RawSample read() const;

  // Starts counting now (for enable_on_exec = false).
  void enable() const;

 private:
  [[nodiscard]] std::string leader_name() const;

  std::vector<EventStatus> events_;
  std::vector<Fd> members_;  // members_[0] leads
  bool inherit_ = true;
};

}  // namespace ncp2::counters
