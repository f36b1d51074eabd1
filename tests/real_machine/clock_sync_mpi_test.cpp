// real_clock_sync_test: MpiClockSync under mpirun, checked against the shared reference clock
// (all ranks on this host). Plain main: exits non-zero on any failed check; only rank 0 prints.
//   --inject        follower k's RunClock shifted by (-1)^(k+1) k x 37 us and 50 ppm in software
//   --report        one line of numbers per follower (bench/real-clock-sync reads them)
//   --exchanges N   per burst (default 200);  --interval-ms T  between the bursts (default 300)
//   --monotonic     CLOCK_MONOTONIC_RAW instead of the TSC
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "real_machine/clock_sync_mpi.hpp"

namespace {

using ncp2::real::NodeClock;
using ncp2::real::ReferenceCheck;
using ncp2::real::ReferenceOffset;

struct Args {
  bool inject = false;
  bool report = false;
  bool monotonic = false;
  int exchanges = 200;
  int interval_ms = 300;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--inject") a.inject = true;
    if (arg == "--report") a.report = true;
    if (arg == "--monotonic") a.monotonic = true;
    if (arg == "--exchanges" && i + 1 < argc) a.exchanges = std::stoi(argv[++i]);
    if (arg == "--interval-ms" && i + 1 < argc) a.interval_ms = std::stoi(argv[++i]);
  }
  return a;
}

constexpr double kInjectOffsetNs = 37'000;
constexpr double kInjectDriftPpm = 50;

double sign_of(int follower) { return follower % 2 == 1 ? 1.0 : -1.0; }

// Rank 0's checks of one follower; prints what fails (or, with --report, the numbers).
class Checker {
 public:
  explicit Checker(const Args& args) : args_(args) {}

  void expect(bool ok, const std::string& what) {
    if (ok) return;
    ok_ = false;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }

  // The estimate at the reference sample's local time against the reference's true offset.
  void offset(const char* when, const NodeClock& c, const ReferenceOffset& ref) {
    const double estimate = ref.local_ns - c.master_time_ns(ref.local_ns);
    const double error = estimate - ref.true_offset_ns;
    const double bound = c.bound_at(ref.local_ns);
    expect(bound > 0, fmt::format("{}: follower {} bound {} ns is not positive", when, c.node, bound));
    expect(std::abs(error) <= bound + ref.uncertainty_ns,
           fmt::format("{}: follower {} error {:.1f} ns exceeds its bound {:.1f} ns (+ reference {:.1f} ns)",
                       when, c.node, error, bound, ref.uncertainty_ns));
    last_error_ = error;
    last_bound_ = bound;
    last_unc_ = ref.uncertainty_ns;
  }

  void drift(const NodeClock& c, const ReferenceOffset& r1, const ReferenceOffset& r2) {
    const double span = r2.local_ns - r1.local_ns;
    const double true_drift = (r2.true_offset_ns - r1.true_offset_ns) / span * 1e6;
    const double unc = (r1.uncertainty_ns + r2.uncertainty_ns) / span * 1e6;
    expect(c.has_drift, fmt::format("follower {}: no drift after two bursts", c.node));
    expect(c.drift_bound_ppm > 0, fmt::format("follower {}: drift bound is not positive", c.node));
    expect(std::abs(c.drift_ppm - true_drift) <= c.drift_bound_ppm + unc,
           fmt::format("follower {}: drift {:.3f} ppm, true {:.3f} ppm, beyond its bound {:.3f} ppm", c.node,
                       c.drift_ppm, true_drift, c.drift_bound_ppm));
    if (args_.inject) {
      // The injected 50 ppm is on top of the two TSC calibrations' difference (a few ppm).
      const double injected = sign_of(c.node) * c.node * kInjectDriftPpm;
      expect(std::abs(c.drift_ppm - injected) < 20,
             fmt::format("follower {}: drift {:.3f} ppm far from the injected {:.1f}", c.node, c.drift_ppm,
                         injected));
    }
    if (args_.report)
      std::printf(
          "follower=%d inject=%d bound_ns=%.1f error_ns=%.1f ref_unc_ns=%.1f rtt_min_ns=%.0f "
          "rtt_mode_ns=%.0f "
          "rtt_mean_ns=%.0f kept=%llu discarded=%llu drift_ppm=%.3f true_drift_ppm=%.3f "
          "drift_bound_ppm=%.3f\n",
          c.node, args_.inject ? 1 : 0, last_bound_, last_error_, last_unc_, c.rtt_min_ns, c.rtt_mode_ns,
          c.rtt_mean_ns, static_cast<unsigned long long>(c.kept),
          static_cast<unsigned long long>(c.discarded), c.drift_ppm, true_drift, c.drift_bound_ppm);
  }

  [[nodiscard]] bool ok() const { return ok_; }

 private:
  const Args& args_;
  bool ok_ = true;
  double last_error_ = 0, last_bound_ = 0, last_unc_ = 0;
};

// The cost of one RunClock read (best of 5 loops of 100000 reads, CLOCK_MONOTONIC_RAW around them).
double cost_ns(const ncp2::real::RunClock& clock) {
  constexpr int kReads = 100'000;
  double best = 1e300;
  for (int loop = 0; loop < 5; ++loop) {
    const std::uint64_t start = ncp2::timing::monotonic_raw_ns();
    std::int64_t sum = 0;
    for (int i = 0; i < kReads; ++i) sum += clock.now_ns();
    const std::uint64_t end = ncp2::timing::monotonic_raw_ns();
    if (sum == 42) std::puts("");  // keeps the reads
    best = std::min(best, static_cast<double>(end - start) / kReads);
  }
  return best;
}

bool check_all(const Args& args, const std::vector<NodeClock>& first, const std::vector<NodeClock>& last,
               const ReferenceCheck& ref1, const ReferenceCheck& ref2) {
  Checker check(args);
  check.expect(ref1.same_host && ref2.same_host, "no shared reference clock: " + ref1.reason);
  if (!ref1.same_host || !ref2.same_host) return false;
  check.expect(first.size() == ref1.nodes.size() && last.size() == ref2.nodes.size(), "result sizes");
  if (!check.ok()) return false;
  for (std::size_t k = 1; k < last.size(); ++k) {
    check.offset("first burst", first[k], ref1.nodes[k]);
    check.offset("second burst", last[k], ref2.nodes[k]);
    check.drift(last[k], ref1.nodes[k], ref2.nodes[k]);
  }
  return check.ok();
}

int run(const Args& args) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncp2::real::RunClock::Options clock_options;
  clock_options.force_monotonic_raw = args.monotonic;
  const ncp2::real::RunClock base(clock_options);
  const ncp2::real::RunClock clock =
      args.inject && rank > 0
          ? base.shifted(sign_of(rank) * rank * kInjectOffsetNs, sign_of(rank) * rank * kInjectDriftPpm)
          : base;
  if (rank == 0 && args.report)
    std::printf("np=%d clock=%s; now_ns() %.1f ns per call\n", size, clock.describe().c_str(),
                cost_ns(clock));

  ncp2::real::MpiSyncOptions options;
  options.exchanges = args.exchanges;
  bool ok = true;
  {
    ncp2::real::MpiClockSync sync(MPI_COMM_WORLD, clock, options);
    sync.first_burst();
    const std::vector<NodeClock> first = sync.results();
    const ReferenceCheck ref1 = ncp2::real::reference_offsets(MPI_COMM_WORLD, clock);
    std::this_thread::sleep_for(std::chrono::milliseconds(args.interval_ms));  // the run
    sync.second_burst();
    const ReferenceCheck ref2 = ncp2::real::reference_offsets(MPI_COMM_WORLD, clock);
    if (rank == 0) ok = check_all(args, first, sync.results(), ref1, ref2);
  }
  int all_ok = ok ? 1 : 0;
  MPI_Bcast(&all_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && !args.report)
    std::printf("%s (%d ranks%s)\n", all_ok != 0 ? "ok" : "FAILED", size,
                args.inject ? ", injected offsets and drifts" : "");
  return all_ok != 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    status = run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "real_clock_sync_test: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}
