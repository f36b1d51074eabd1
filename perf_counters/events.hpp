#pragma once
// Event names -> perf_event_attr encodings. libpfm4 first (it knows the generic perf names and the
// CPU's own events, e.g. INST_RETIRED:ANY, L1D_ALL_REF on a Core 2), then the built-in table of
// generic perf events (the names `perf list` prints, and rNNNN for a raw encoding) when libpfm4
// does not know the name or cannot start.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::counters {

struct EventEncoding {
  std::string name;      // as requested
  std::string source;    // "libpfm4" | "generic"
  std::string encoding;  // libpfm4's fully qualified name, or "PERF_TYPE_SOFTWARE/PERF_COUNT_SW_TASK_CLOCK"
  std::uint32_t type = 0;
  std::uint64_t config = 0;
  std::uint64_t config1 = 0;
  std::uint64_t config2 = 0;
  std::string unit;  // "ns" for task-clock and cpu-clock
  [[nodiscard]] bool is_software() const;
};

struct Resolution {
  std::optional<EventEncoding> event;
  std::string error;  // why the name is unknown, when !event
};

enum class Resolver { libpfm4_then_generic, generic_only };

Resolution resolve_event(std::string_view name, Resolver how = Resolver::libpfm4_then_generic);

// The events sampled when --events is not given (the list; generic names, so that they
// resolve on any CPU).
const std::vector<std::string>& default_event_names();

// Every name of the generic table, for --list-events.
std::vector<std::string> generic_event_names();

// libpfm4's state: "libpfm4 4.13 (PMUs: perf, amd64_fam19h_zen4)" or why it did not start.
std::string libpfm4_description();

// Splits "a,b, c" into names; empty entries are an error (std::invalid_argument), as are duplicates.
std::vector<std::string> parse_event_list(std::string_view list);

}  // namespace ncp2::counters
