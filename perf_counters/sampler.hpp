#pragma once
// Runs a command under counters, as the paper's tool did but with one group read per sample:
// fork; the child waits on a pipe; the parent opens the group on it (enabled at exec); the child
// execs; the parent reads the group every period until the child exits, and once more after.
#include <chrono>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "perf_counters/model.hpp"

namespace ncp2::counters {

struct SamplerOptions {
  std::vector<std::string> events;  // names (events.hpp); empty: default_event_names()
  Nanoseconds period = std::chrono::milliseconds(100);
  bool inherit = true;  // count the command's children too (a shell script's commands)
};

// The command could not be started (no such program, not executable): nothing was measured.
// exit_code is the shell's: 127 not found, 126 found but not executable.
class CommandError : public std::runtime_error {
 public:
  CommandError(const std::string& message, int exit_code)
      : std::runtime_error(message), exit_code_(exit_code) {}
  [[nodiscard]] int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// No requested event could be opened: the command was not run. `events` says why, per event.
class NoCountersError : public std::runtime_error {
 public:
  NoCountersError(const std::string& message, std::vector<EventStatus> events)
      : std::runtime_error(message), events_(std::move(events)) {}
  [[nodiscard]] const std::vector<EventStatus>& events() const { return events_; }

 private:
  std::vector<EventStatus> events_;
};

// Runs `command` (argv; looked up in PATH) to its end under the counters. SIGINT and SIGQUIT are
// ignored by the sampler meanwhile (the command gets them and its status is reported).
// Throws CommandError, NoCountersError, std::system_error (fork, pipe...), std::invalid_argument
// (empty command, period out of range).
CounterRun run_with_counters(std::span<const std::string> command, const SamplerOptions& options);

// "100 ms", "5 s", "250 us" -> the period; std::invalid_argument if not a duration in
// [kMinPeriod, kMaxPeriod].
Nanoseconds parse_period(std::string_view text);
inline constexpr Nanoseconds kMinPeriod = std::chrono::microseconds(100);
inline constexpr Nanoseconds kMaxPeriod = std::chrono::seconds(60);

}  // namespace ncp2::counters
