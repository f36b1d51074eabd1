#pragma once
// An application as a bus-bandwidth demand over time: what it asks of the bus, step by step, when
// it runs alone (its solo time). The file format (docs/scheduling.md, "Trace files") is written
// by `ncp2 counters --trace` from a real command and read by `ncp2 schedule --set FILE`:
//
//   ncp2-bandwidth-trace 1
//   name sor                # what the tables call it
//   threads 1               # processors it needs (run as a gang)
//   step_us 100000          # solo time per demand line
//   endless 0               # 1: a background job that restarts its trace until the others end
//   source ...              # free text (how it was recorded), optional
//   data
//   12.5                    # transactions per microsecond in step 1, all its threads together
//   ...
#include <stdexcept>
#include <string>
#include <vector>

#include "scheduling/bandwidth.hpp"

namespace ncp2::sched {

// More than any bus carries: beyond it a demand is a mistake (a count not divided by time).
inline constexpr double kMaxDemand = 1e6;

struct DemandTrace {
  std::string name;
  int threads = 1;
  Duration step{0};
  bool endless = false;
  std::string source;
  std::vector<Bandwidth> demand;  // one per step, >= 0

  // Solo time: how long it runs alone, uncontended (one pass of its trace).
  [[nodiscard]] Duration solo_time() const { return step * static_cast<std::int64_t>(demand.size()); }
  // Mean demand over one pass (all threads together).
  [[nodiscard]] Bandwidth mean_demand() const;
};

// A trace file that cannot be read, or a trace that breaks the rules above: "FILE:LINE: why".
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks the rules a trace must follow (name, threads >= 1, step > 0, at least one finite demand
// >= 0). Throws TraceError naming `where`.
void check_trace(const DemandTrace& trace, const std::string& where);

DemandTrace parse_trace(const std::string& text, const std::string& where);
DemandTrace read_trace_file(const std::string& path);
std::string format_trace(const DemandTrace& trace);
// Written atomically (a temporary renamed over `path`). Throws TraceError.
void write_trace_file(const std::string& path, const DemandTrace& trace);

}  // namespace ncp2::sched
