#pragma once
// Counter sampling of a command (SPEC §5, `ncp2 counters`): what one run produces, what the SQLite
// writer stores (docs/schema.md, counter_* tables), what the JSON, text and PNG outputs show.
// Raw readings are kept as read; scaling and deltas are derived (perf_counters/series.hpp).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ncp2::counters {

using Nanoseconds = std::chrono::nanoseconds;

// One requested event and what became of it.
struct EventStatus {
  std::string name;             // as requested ("task-clock", "L1-dcache-loads", "INST_RETIRED:ANY")
  bool available = false;       // opened and counted: its values are real counts
  std::string reason;           // why not, when !available ("not supported here: ...")
  std::string note;             // a caveat when available ("user space only: ...")
  std::string source;           // "libpfm4" | "generic" | "" (name not resolved)
  std::string encoding;         // libpfm4's full name, or the generic perf event it is
  std::uint32_t perf_type = 0;  // perf_event_attr.type / .config
  std::uint64_t perf_config = 0;
  std::string unit;      // "ns" for the clock events (their rate is CPUs), "" for counts
  int group_index = -1;  // position among the values of a group read; -1: not in the group
};

// One read of the group: the times and the values of the group's events, unscaled.
struct RawSample {
  Nanoseconds wall{0};                // since the command was let go (just before its exec)
  std::uint64_t enabled_ns = 0;       // PERF_FORMAT_TOTAL_TIME_ENABLED of the group
  std::uint64_t running_ns = 0;       // PERF_FORMAT_TOTAL_TIME_RUNNING (< enabled: multiplexed)
  std::vector<std::uint64_t> values;  // one per group member, in group_index order
  bool late = false;                  // the sampler woke more than half a period after its deadline
  bool operator==(const RawSample& o) const = default;
};

struct CounterRun {
  std::vector<std::string> command;
  Nanoseconds period{0};
  std::string started_at;  // ISO 8601, UTC
  double wall_seconds = 0;
  std::vector<EventStatus> events;  // every requested event, in the order requested
  std::vector<RawSample> samples;   // the kept samples (repeated ones dropped), the last at exit
  std::uint64_t samples_dropped = 0;
  std::uint64_t samples_late = 0;          // reads more than half a period after their deadline
  int exit_code = 0;                       // the command's: its exit status, or 128 + signal
  std::string exit_description;            // "exited with status 0", "killed by signal 9 (SIGKILL)"
  std::optional<int> perf_event_paranoid;  // /proc/sys/kernel/perf_event_paranoid, if readable
  bool inherit = true;                     // the command's children were counted too
};

}  // namespace ncp2::counters
