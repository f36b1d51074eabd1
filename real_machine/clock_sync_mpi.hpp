#pragma once
// Clock synchronization of the processes of a real run over MPI (issue 19, item 2): every node
// time-stamps with a RunClock, and MpiClockSync puts all of them on rank 0's timeline with the
// seed-001 method of host_timing/clock_sync.hpp (bursts of round trips, 2 x min RTT filter,
// RTT/2, drift from a second burst, a rigorous bound). The exchanges travel on a communicator
// duplicated from the run's, so they can never match a message of the run itself.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "host_timing/clock_sync.hpp"
#include "host_timing/raw_clocks.hpp"

namespace ncp2::real {

// The clock every node time-stamps with: ns since an arbitrary per-process epoch. The invariant
// TSC calibrated against CLOCK_MONOTONIC_RAW when there is one (one RDTSC, a subtract, a multiply
// and an add), else CLOCK_MONOTONIC_RAW itself; fallback_reason() says why.
class RunClock {
 public:
  struct Options {
    double calibration_s = 0.1;  // TSC calibration interval (the drift it leaves is synchronized away)
    bool force_monotonic_raw = false;
  };
  RunClock() : RunClock(Options{}) {}
  explicit RunClock(const Options& options);

  [[nodiscard]] std::int64_t now_ns() const noexcept {
    const std::uint64_t raw = tsc_ ? timing::read_tsc() : timing::monotonic_raw_ns();
    // Signed: another core's TSC may be a few cycles behind the epoch read just after it.
    const auto since_epoch = static_cast<std::int64_t>(raw - raw_epoch_);
    return static_cast<std::int64_t>(static_cast<double>(since_epoch) * ns_per_unit_ + shift_ns_);
  }
  [[nodiscard]] bool uses_tsc() const { return tsc_; }
  // A TSC reading taken by another process of this host (a node's program) on this clock's
  // timeline; only meaningful when uses_tsc().
  [[nodiscard]] double tsc_to_ns(std::uint64_t raw_tsc) const {
    const auto since_epoch = static_cast<std::int64_t>(raw_tsc - raw_epoch_);
    return static_cast<double>(since_epoch) * ns_per_unit_ + shift_ns_;
  }
  [[nodiscard]] const std::string& fallback_reason() const { return reason_; }  // empty with the TSC
  [[nodiscard]] std::string describe() const;
  // How far this clock's rate may be off CLOCK_MONOTONIC_RAW's (calibration error), ppm.
  [[nodiscard]] double rate_bound_ppm() const { return rate_bound_ppm_; }
  // Rate relative to CLOCK_MONOTONIC_RAW as far as it is known (1 + injected drift).
  [[nodiscard]] double nominal_rate() const { return 1.0 + injected_drift_ppm_ * 1e-6; }

  // Tests: this clock shifted by `offset_ns` and running `drift_ppm` fast, in software (the
  // shift is folded into the multiply-add, so now_ns() costs the same).
  [[nodiscard]] RunClock shifted(double offset_ns, double drift_ppm) const;

  // What makes two clocks of one host the same function of the same counter: its kind, epoch and
  // rate. A node on node 0's host takes node 0's (NodeClocks), so their true offset is zero and the
  // synchronization's measured offset must lie within its bound.
  struct Base {
    std::uint64_t tsc = 0;  // 1: the TSC, 0: CLOCK_MONOTONIC_RAW
    std::uint64_t raw_epoch = 0;
    double ns_per_unit = 1.0;
  };
  [[nodiscard]] Base base() const { return {tsc_ ? 1U : 0U, raw_epoch_, ns_per_unit_}; }
  // Takes `b` if it counts the same counter as this clock (same kind); returns whether it did.
  bool adopt(const Base& b);

 private:
  bool tsc_ = false;
  std::uint64_t raw_epoch_ = 0;
  double ns_per_unit_ = 1.0;
  double shift_ns_ = 0;
  double rate_bound_ppm_ = 0;
  double injected_drift_ppm_ = 0;
  std::string reason_;
};

// One node's clock relative to the master's (rank 0): local - master = offset + drift x (local -
// ref_local). Rank 0's own entry has offset 0 and bound 0.
struct NodeClock {
  int node = 0;
  bool has_drift = false;  // two bursts were made
  double offset_ns = 0;
  double drift_ppm = 0;
  double bound_ns = 0;  // |true offset - offset_ns| at ref_local_ns (the last burst), drift term included
  double drift_bound_ppm = 0;
  double ref_local_ns = 0;
  double rtt_min_ns = 0, rtt_mode_ns = 0, rtt_mean_ns = 0, rtt_max_ns = 0;  // the last burst's kept ones
  std::uint64_t kept = 0, discarded = 0;                                    // both bursts

  [[nodiscard]] double master_time_ns(double local_ns) const {
    return local_ns - (offset_ns + drift_ppm * 1e-6 * (local_ns - ref_local_ns));
  }
  // The bound at another local time: it widens with the drift's bound (without a second burst,
  // the drift assumed possible: MpiSyncOptions::estimate.prior_drift_bound_ppm).
  [[nodiscard]] double bound_at(double local_ns) const;
};

// What an estimate says, as a NodeClock (pure, for the tests); without a drift, its bound is the
// prior one.
[[nodiscard]] NodeClock node_clock_from(int node, const timing::SyncEstimate& estimate,
                                        double prior_drift_bound_ppm);

struct MpiSyncOptions {
  int exchanges = 200;  // round trips per burst and follower
  int warmup = 10;      // round trips before each burst, not used (first-touch costs of the path)
  // A burst of a preempted process can last 100 ms: the drift within it is bounded a priori by
  // 200 ppm (crystals are within ~100 ppm; calibrated TSCs of one host within ~1 ppm).
  timing::SyncOptions estimate{.prior_drift_bound_ppm = 200};
};

// Collective: every rank of `comm` constructs it, calls first_burst() (run start) and, unless the
// run stopped early, second_burst() (run end), in the same order. Destroy it before MPI_Finalize.
class MpiClockSync {
 public:
  MpiClockSync(MPI_Comm comm, const RunClock& clock, MpiSyncOptions options = {});
  ~MpiClockSync();
  MpiClockSync(const MpiClockSync&) = delete;
  MpiClockSync& operator=(const MpiClockSync&) = delete;

  void first_burst();
  void second_burst();

  [[nodiscard]] int rank() const { return rank_; }
  // This node's clock (after a burst); on rank 0 the identity.
  [[nodiscard]] const NodeClock& local() const { return local_; }
  // Every node's NodeClock on rank 0, indexed by rank (gathered after each burst); empty elsewhere.
  [[nodiscard]] const std::vector<NodeClock>& results() const { return results_; }
  // A time of this node's RunClock on rank 0's timeline.
  [[nodiscard]] double to_master_ns(double local_ns) const { return local_.master_time_ns(local_ns); }

 private:
  void burst(std::vector<timing::Exchange>& into);
  void serve_followers() const;
  void run_window(std::vector<timing::Exchange>& into) const;
  void finish();

  MPI_Comm comm_ = MPI_COMM_NULL;  // dup of the run's communicator: sync traffic only
  const RunClock* clock_;
  MpiSyncOptions options_;
  int rank_ = 0;
  int size_ = 1;
  int bursts_ = 0;
  std::vector<timing::Exchange> first_, second_;
  NodeClock local_;
  std::vector<NodeClock> results_;
};

// The honesty check: on one host CLOCK_MONOTONIC_RAW is system-wide, so each node can measure
// its RunClock's true offset from rank 0's. Pure part first: the reading of one node.
struct ReferenceSample {
  double local_ns = 0;      // the RunClock
  double reference_ns = 0;  // CLOCK_MONOTONIC_RAW at the same moment (middle of the bracket)
  double gap_ns = 0;        // width of the bracket around the RunClock read
  double rate = 1;          // RunClock ns per reference ns, nominal
  double rate_bound_ppm = 0;
};
// The RunClock read between two reference reads; the narrowest of `tries`.
[[nodiscard]] ReferenceSample take_reference_sample(const RunClock& clock, int tries = 32);

struct ReferenceOffset {
  int node = 0;
  double local_ns = 0;        // the node's RunClock at the sample
  double true_offset_ns = 0;  // node - master at local_ns
  double uncertainty_ns = 0;  // of true_offset_ns (bracket widths, master's rate over the gap)
};
// Node minus master at the node's sample, the master's clock carried to the node's moment.
[[nodiscard]] ReferenceOffset reference_offset(int node, const ReferenceSample& master,
                                               const ReferenceSample& sample);

struct ReferenceCheck {
  bool same_host = false;
  std::string reason;                  // why there is no reference (ranks on several hosts)
  std::vector<ReferenceOffset> nodes;  // indexed by rank, on every rank; empty without same_host
};
// Collective over `comm`: a barrier, then every rank samples at once.
[[nodiscard]] ReferenceCheck reference_offsets(MPI_Comm comm, const RunClock& clock);

}  // namespace ncp2::real
