#pragma once
// The cost of one read of each time source and its observed resolution (the papers' tables:
// seed 001 Tables 1 and 6, seed 000 Table 1), measured on this host.
#include <memory>
#include <string>
#include <vector>

#include "host_timing/statistics.hpp"
#include "host_timing/tick_clock.hpp"
#include "host_timing/time_source.hpp"

namespace ncp2::timing {

struct SourceMeasurement {
  std::string name;
  bool available = false;
  std::string reason;  // why not available
  std::string note;    // a caveat when available
  // Cost of one read, ns: each sample is the read bracketed by two reads of the reference clock,
  // minus the cost of an empty bracket (its minimum); includes one virtual call.
  Summary overhead_ns;
  Summary overhead_cycles;  // the same in TSC cycles (empty when the TSC frequency is unknown)
  // The same with the private caches' data evicted before each read (seed 001 evicted the
  // caches too); fewer samples. Not LLC- nor instruction-cache-cold.
  Summary cold_overhead_ns;
  double resolution_ns = 0;           // smallest non-zero step between consecutive reads
  double declared_resolution_ns = 0;  // clock_getres, HPET period, 1 us for gettimeofday; 0: none
};

struct MeasureOptions {
  int samples = 10000;
  int cold_samples = 20;
  int resolution_samples = 200;
  double tsc_hz = 0;  // to express costs in cycles (0: not expressed)
};

// `reference` brackets every read (the calibrated TSC where usable).
[[nodiscard]] std::vector<SourceMeasurement> measure_sources(
    const std::vector<std::unique_ptr<TimeSource>>& sources, const TickClock& reference,
    const MeasureOptions& options);

// The project's time-stamp read (TickClock::now) against a bare RDTSC: mean ns per read over
// loops of reads (best of several loops), and their ratio (the goal is <= 1.2).
struct TimestampCost {
  double project_ns = 0;
  double bare_rdtsc_ns = 0;
  [[nodiscard]] double ratio() const { return bare_rdtsc_ns > 0 ? project_ns / bare_rdtsc_ns : 0; }
};
[[nodiscard]] TimestampCost measure_timestamp_cost(const TickClock& clock, int reads_per_loop = 1000,
                                                   int loops = 50);

}  // namespace ncp2::timing
