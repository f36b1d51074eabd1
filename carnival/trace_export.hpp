#pragma once
// Chrome trace-event JSON ("traceEvents" array format) of one run, for Perfetto UI
// (ui.perfetto.dev) or chrome://tracing: one process per node, threads PP and CP, a slice per
// timeline segment and per wait, flow arrows from a waiter to the node that served it and back.
// `ncp2 export-trace` is the front end; docs/schema.md describes the mapping.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "carnival/model.hpp"

namespace ncp2::carnival {

struct TraceCounts {
  std::size_t processes = 0;  // nodes (each with a process_name and 2 thread_name events)
  std::size_t metadata = 0;   // "ph":"M" events
  std::size_t segments = 0;  // "X" slices from the timeline (segments crossing a wait's boundary split there)
  std::size_t waits = 0;     // "X" slices of waits
  std::size_t flows = 0;     // "s" and "f" events (4 per wait served by another node)
  [[nodiscard]] std::size_t events() const { return metadata + segments + waits + flows; }
};

// Trace-event process and thread ids: pid = node + 1 (Perfetto reserves pid 0), PP tid = 2 node + 1,
// CP tid = 2 node + 2 (unique across processes).
inline int trace_pid(int node) { return node + 1; }
inline int trace_tid(int node, bool cp) { return 2 * node + (cp ? 2 : 1); }

// Timestamps in microseconds, exact to the picosecond ("12.000345").
std::string trace_microseconds(std::int64_t ps);

TraceCounts write_trace(const RunData& data, std::ostream& out);
// Writes `path` atomically ("<path>.tmp-<pid>", then renamed over it). Throws std::runtime_error.
TraceCounts export_trace(const RunData& data, const std::string& path);

}  // namespace ncp2::carnival
