#pragma once
// Node 0 of a real run puts every node's record (node_record.hpp) on one timeline, node 0's
// clock, with each node's synchronized offset and drift, and writes the run's database in the
// emulated runs' schema (machine "real"), plus the `clocks` table: each node's offset, drift and
// error bound.
#include <string>
#include <vector>

#include "carnival/model.hpp"
#include "real_machine/node_record.hpp"

namespace ncp2::real {

// A node's clock relative to node 0's: master = local - (offset + drift * (local - ref)).
struct ClockMap {
  int node = 0;
  double offset_ns = 0;
  double drift_ppm = 0;
  double ref_local_ns = 0;
  double bound_ns = 0;  // |true offset - offset_ns| at the run's end, drift included
  double drift_bound_ppm = 0;
  double rtt_min_ns = 0;
  bool synchronized = false;  // false: a single node, or the synchronization did not run
  bool has_drift = false;     // both bursts ran (the run finished)
  [[nodiscard]] double to_master_ns(double local_ns) const {
    return local_ns - (offset_ns + drift_ppm * 1e-6 * (local_ns - ref_local_ns));
  }
};

struct RunMeta {
  std::string program;  // as the user named it
  std::string args;     // the program's arguments, as one text
  std::string config;   // the effective configuration, TOML
  std::string started_at;
  double wall_seconds = 0;
  std::string clock_source;  // "TSC at 2596.1 MHz", ...
};

// The run's data; `records` and `clocks` are indexed by node.
[[nodiscard]] carnival::RunData assemble_run(const std::vector<NodeRecord>& records,
                                             const std::vector<ClockMap>& clocks, const RunMeta& meta);

// Writes it atomically (nothing at `path` until it is complete), the clocks included. Throws
// carnival::StoreError.
// `max_wait_rows`, `max_timeline_rows`: instances and timeline stretches kept (the per-scope
// summary stays complete), as for an emulated run.
void write_real_run(const std::string& path, bool replace, const carnival::RunData& data,
                    const std::vector<ClockMap>& clocks, const std::string& clock_source,
                    std::size_t max_wait_rows, std::size_t max_timeline_rows);

}  // namespace ncp2::real
