#pragma once
// Clock synchronization by round trips (seeds 001 §2.2, 000 §3), apart from any transport so it
// can be tested on synthetic exchanges:
//   - a burst of exchanges characterizes the delay: min, mode, mean, max of the round trip;
//   - exchanges with RTT > 2 x the minimum are discarded;
//   - the offset comes from the best exchanges (smallest RTT): the master's time t_ref plus
//     RTT/2 (symmetric paths), i.e. offset = (send + receive)/2 - t_ref on the follower's clock;
//   - a second burst after an interval gives the drift.
// The error bound is rigorous: in exchange i the master read its clock at some moment between
// the follower's send and receive, so the true offset lies within o_i +- RTT_i/2 whatever the
// asymmetry; the bound is min_i(|estimate - o_i| + RTT_i/2) (+ drift terms), never below RTT_min/2.
#include <cstddef>
#include <cstdint>
#include <span>

namespace ncp2::timing {

// One round trip of a follower with the master.
struct Exchange {
  std::int64_t local_send_ns = 0;     // follower's clock when it sent the request
  std::int64_t master_ns = 0;         // master's clock when it answered (t_ref)
  std::int64_t local_receive_ns = 0;  // follower's clock when the answer arrived
  [[nodiscard]] std::int64_t rtt_ns() const { return local_receive_ns - local_send_ns; }
  [[nodiscard]] double mid_local_ns() const {
    return (static_cast<double>(local_send_ns) + static_cast<double>(local_receive_ns)) / 2.0;
  }
  // Follower minus master, assuming the request and the answer took equally long.
  [[nodiscard]] double offset_ns() const { return mid_local_ns() - static_cast<double>(master_ns); }
};

struct DelayStats {  // round-trip times of the kept exchanges, ns
  double min = 0;
  double mode = 0;  // centre of the fullest histogram bin (bins of max(1 ns, min/20))
  double mean = 0;
  double max = 0;
  double max_all = 0;  // before the 2 x minimum filter
};

struct SyncOptions {
  double discard_factor = 2.0;  // keep RTT <= factor x minimum
  double best_fraction = 0.25;  // the offset is the mean over this fraction of the kept exchanges
  std::size_t max_best = 16;    // ... at most this many (the ones with the smallest RTT)
  // How fast the clocks may drift apart before the drift is measured, ppm: the first pass (and a
  // lone burst) widens each exchange's interval by it. 0 takes the drift over a burst as
  // negligible, which is not safe when a burst can last long (a preempted process on a loaded
  // host: 100 ppm over 100 ms is 10 us).
  double prior_drift_bound_ppm = 0;
};

struct BurstEstimate {
  double offset_ns = 0;     // follower - master at ref_local_ns
  double bound_ns = 0;      // |true offset - offset_ns| <= bound_ns
  double ref_local_ns = 0;  // follower's time the offset refers to (the best exchange's middle)
  DelayStats rtt;
  std::size_t kept = 0;
  std::size_t discarded = 0;
  std::size_t used = 0;  // best exchanges averaged
};

// Offset from one burst. `drift_ppm` (with its bound) corrects each exchange to ref_local_ns;
// with 0 / 0 the drift over the burst is taken as negligible. Throws std::invalid_argument on an
// empty burst or a negative round trip.
[[nodiscard]] BurstEstimate estimate_burst(std::span<const Exchange> burst, double drift_ppm = 0,
                                           double drift_bound_ppm = 0, const SyncOptions& options = {});

struct SyncEstimate {
  BurstEstimate first;
  BurstEstimate second;
  bool has_drift = false;  // two bursts were given
  double offset_ns = 0;    // follower - master at ref_local_ns (the second burst's when there is one)
  double offset_bound_ns = 0;
  double ref_local_ns = 0;
  double drift_ppm = 0;  // follower's clock gains this much per unit of its own time
  double drift_bound_ppm = 0;

  // The master's time for a follower time, with this estimate.
  [[nodiscard]] double master_time_ns(double local_ns) const {
    return local_ns - (offset_ns + drift_ppm * 1e-6 * (local_ns - ref_local_ns));
  }
};

// Offset and drift from a burst and a later re-synchronization burst (`second` may be empty: no
// drift). Two passes: offsets without drift, the drift from them, then both offsets again with
// each exchange corrected for the drift.
[[nodiscard]] SyncEstimate estimate_sync(std::span<const Exchange> first, std::span<const Exchange> second,
                                         const SyncOptions& options = {});

}  // namespace ncp2::timing
