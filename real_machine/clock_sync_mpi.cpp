#include "real_machine/clock_sync_mpi.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "host_timing/calibration.hpp"
#include "host_timing/tick_clock.hpp"
#include "host_timing/time_source.hpp"

namespace ncp2::real {

namespace {

// Tags on the duplicated communicator (nothing else travels on it).
constexpr int kGoTag = 1;       // master -> follower: your window starts
constexpr int kRequestTag = 2;  // follower -> master: one round trip
constexpr int kReplyTag = 3;    // master -> follower: the master's clock
constexpr int kEndTag = 4;      // master -> follower: every window is over

static_assert(std::is_trivially_copyable_v<NodeClock>);
static_assert(std::is_trivially_copyable_v<ReferenceSample>);

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(fmt::format("clock sync: {} failed ({})", what, rc));
}

// Waits for an empty message while sleeping, not spinning: on an oversubscribed host the
// follower whose window it is and the master get the CPUs (Open MPI's blocking receive polls).
void sleepy_receive(MPI_Comm comm, int source, int tag) {
  int arrived = 0;
  for (;;) {
    check(MPI_Iprobe(source, tag, comm, &arrived, MPI_STATUS_IGNORE), "MPI_Iprobe");
    if (arrived != 0) break;
    const timespec pause{0, 500'000};  // 0.5 ms: a few thousand wake-ups a second in all
    nanosleep(&pause, nullptr);
  }
  check(MPI_Recv(nullptr, 0, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
}

int as_int(std::size_t n) { return static_cast<int>(n); }

}  // namespace

RunClock::RunClock(const Options& options) {
  const timing::TscInfo info = timing::detect_tsc();
  const timing::ClockChoice choice = timing::choose_clock(info);
  if (choice.use_tsc && !options.force_monotonic_raw) {
    const timing::CalibrationResult cal = timing::calibrate_host_tsc(options.calibration_s);
    tsc_ = true;
    ns_per_unit_ = 1e9 / cal.frequency_hz;
    rate_bound_ppm_ = cal.error_bound_ppm;
    raw_epoch_ = timing::read_tsc();
    return;
  }
  reason_ = options.force_monotonic_raw ? "clock_gettime(CLOCK_MONOTONIC_RAW) requested" : choice.reason;
  raw_epoch_ = timing::monotonic_raw_ns();
}

std::string RunClock::describe() const {
  // ns_per_unit_ includes an injected drift; the TSC's own rate is without it.
  std::string s = tsc_ ? fmt::format("invariant TSC at {:.3f} MHz (calibration bound {:.2f} ppm)",
                                     1e3 / ns_per_unit_ * nominal_rate(), rate_bound_ppm_)
                       : "clock_gettime(CLOCK_MONOTONIC_RAW): " + reason_;
  if (injected_drift_ppm_ != 0 || shift_ns_ != 0)
    s += fmt::format(", shifted in software ({:+.1f} ppm)", injected_drift_ppm_);
  return s;
}

bool RunClock::adopt(const Base& b) {
  if ((b.tsc != 0) != tsc_ || injected_drift_ppm_ != 0 || shift_ns_ != 0) return false;
  raw_epoch_ = b.raw_epoch;
  ns_per_unit_ = b.ns_per_unit;
  return true;
}

RunClock RunClock::shifted(double offset_ns, double drift_ppm) const {
  // local' = local x (1 + d) + offset, with local = raw x ns_per_unit + shift.
  RunClock c = *this;
  const double factor = 1.0 + drift_ppm * 1e-6;
  c.ns_per_unit_ = ns_per_unit_ * factor;
  c.shift_ns_ = shift_ns_ * factor + offset_ns;
  c.injected_drift_ppm_ = ((1.0 + injected_drift_ppm_ * 1e-6) * factor - 1.0) * 1e6;
  return c;
}

double NodeClock::bound_at(double local_ns) const {
  const double away = std::abs(local_ns - ref_local_ns);
  return bound_ns + drift_bound_ppm * 1e-6 * away;
}

NodeClock node_clock_from(int node, const timing::SyncEstimate& estimate, double prior_drift_bound_ppm) {
  NodeClock c;
  c.node = node;
  c.has_drift = estimate.has_drift;
  c.offset_ns = estimate.offset_ns;
  c.drift_ppm = estimate.drift_ppm;
  c.bound_ns = estimate.offset_bound_ns;
  c.drift_bound_ppm = estimate.has_drift ? estimate.drift_bound_ppm : prior_drift_bound_ppm;
  c.ref_local_ns = estimate.ref_local_ns;
  const timing::BurstEstimate& last = estimate.has_drift ? estimate.second : estimate.first;
  c.rtt_min_ns = last.rtt.min;
  c.rtt_mode_ns = last.rtt.mode;
  c.rtt_mean_ns = last.rtt.mean;
  c.rtt_max_ns = last.rtt.max;
  c.kept = estimate.first.kept + (estimate.has_drift ? estimate.second.kept : 0);
  c.discarded = estimate.first.discarded + (estimate.has_drift ? estimate.second.discarded : 0);
  return c;
}

MpiClockSync::MpiClockSync(MPI_Comm comm, const RunClock& clock, MpiSyncOptions options)
    : clock_(&clock), options_(options) {
  if (options_.exchanges < 1 || options_.warmup < 0)
    throw std::invalid_argument("clock sync: at least one exchange per burst, no negative warm-up");
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  local_.node = rank_;
}

MpiClockSync::~MpiClockSync() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiClockSync::first_burst() {
  first_.clear();
  second_.clear();
  bursts_ = 0;
  burst(first_);
}

void MpiClockSync::second_burst() {
  if (bursts_ == 0) throw std::logic_error("clock sync: second_burst() before first_burst()");
  second_.clear();
  burst(second_);
}

void MpiClockSync::burst(std::vector<timing::Exchange>& into) {
  ++bursts_;
  if (rank_ == 0)
    serve_followers();
  else
    run_window(into);
  finish();
}

// The master: one window per follower in turn, then the end of all windows.
void MpiClockSync::serve_followers() const {
  const int total = options_.warmup + options_.exchanges;
  for (int k = 1; k < size_; ++k) {
    check(MPI_Send(nullptr, 0, MPI_BYTE, k, kGoTag, comm_), "MPI_Send");
    for (int i = 0; i < total; ++i) {
      std::int64_t request = 0;
      check(MPI_Recv(&request, 1, MPI_INT64_T, k, kRequestTag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      const std::int64_t t_ref = clock_->now_ns();
      check(MPI_Send(&t_ref, 1, MPI_INT64_T, k, kReplyTag, comm_), "MPI_Send");
    }
  }
  for (int k = 1; k < size_; ++k) check(MPI_Send(nullptr, 0, MPI_BYTE, k, kEndTag, comm_), "MPI_Send");
}

// A follower: waits (asleep) for its window, makes the round trips, waits for everyone's end.
void MpiClockSync::run_window(std::vector<timing::Exchange>& into) const {
  sleepy_receive(comm_, 0, kGoTag);
  into.reserve(static_cast<std::size_t>(options_.exchanges));
  const int total = options_.warmup + options_.exchanges;
  for (int i = 0; i < total; ++i) {
    timing::Exchange e;
    e.local_send_ns = clock_->now_ns();
    check(MPI_Send(&e.local_send_ns, 1, MPI_INT64_T, 0, kRequestTag, comm_), "MPI_Send");
    check(MPI_Recv(&e.master_ns, 1, MPI_INT64_T, 0, kReplyTag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    e.local_receive_ns = clock_->now_ns();
    if (i >= options_.warmup) into.push_back(e);
  }
  sleepy_receive(comm_, 0, kEndTag);
}

// Each follower estimates its own clock; rank 0 gathers them.
void MpiClockSync::finish() {
  if (rank_ != 0)
    local_ = node_clock_from(rank_, timing::estimate_sync(first_, second_, options_.estimate),
                             options_.estimate.prior_drift_bound_ppm);
  if (rank_ == 0) {
    local_ = NodeClock{};
    local_.has_drift = bursts_ >= 2;
    results_.assign(static_cast<std::size_t>(size_), NodeClock{});
  }
  check(MPI_Gather(&local_, as_int(sizeof(NodeClock)), MPI_BYTE, results_.data(), as_int(sizeof(NodeClock)),
                   MPI_BYTE, 0, comm_),
        "MPI_Gather");
}

ReferenceSample take_reference_sample(const RunClock& clock, int tries) {
  ReferenceSample best;
  bool have = false;
  for (int i = 0; i < std::max(tries, 1); ++i) {
    const auto before = static_cast<double>(timing::monotonic_raw_ns());
    const auto local = static_cast<double>(clock.now_ns());
    const auto after = static_cast<double>(timing::monotonic_raw_ns());
    if (have && after - before >= best.gap_ns) continue;
    best.local_ns = local;
    best.reference_ns = (before + after) / 2.0;
    best.gap_ns = after - before;
    have = true;
  }
  best.rate = clock.nominal_rate();
  best.rate_bound_ppm = clock.rate_bound_ppm();
  return best;
}

ReferenceOffset reference_offset(int node, const ReferenceSample& master, const ReferenceSample& sample) {
  const double apart = sample.reference_ns - master.reference_ns;
  ReferenceOffset r;
  r.node = node;
  r.local_ns = sample.local_ns;
  r.true_offset_ns = sample.local_ns - (master.local_ns + apart * master.rate);
  // Each read is somewhere in its bracket; the master's rate is known to its calibration bound.
  r.uncertainty_ns =
      sample.gap_ns / 2.0 + master.gap_ns / 2.0 + std::abs(apart) * master.rate_bound_ppm * 1e-6;
  return r;
}

namespace {

// Why the ranks have no common reference: their hosts' names.
std::string hosts_reason(MPI_Comm comm, int size) {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  MPI_Get_processor_name(name.data(), &length);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                comm);
  std::vector<std::string> hosts;
  for (int i = 0; i < size; ++i) {
    std::string h(all.data() + static_cast<std::ptrdiff_t>(i) * MPI_MAX_PROCESSOR_NAME);
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return fmt::format("the ranks run on {} hosts ({}): no clock is shared, no reference offsets", hosts.size(),
                     fmt::join(hosts, ", "));
}

}  // namespace

ReferenceCheck reference_offsets(MPI_Comm comm, const RunClock& clock) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm shared = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared), "MPI_Comm_split_type");
  int shared_size = 0;
  MPI_Comm_size(shared, &shared_size);
  MPI_Comm_free(&shared);
  int all_shared = shared_size == size ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_shared, 1, MPI_INT, MPI_MIN, comm);
  ReferenceCheck out;
  if (all_shared == 0) {
    out.reason = hosts_reason(comm, size);
    return out;
  }
  out.same_host = true;
  check(MPI_Barrier(comm), "MPI_Barrier");
  const ReferenceSample mine = take_reference_sample(clock);
  std::vector<ReferenceSample> all(static_cast<std::size_t>(size));
  check(MPI_Allgather(&mine, as_int(sizeof mine), MPI_BYTE, all.data(), as_int(sizeof mine), MPI_BYTE, comm),
        "MPI_Allgather");
  for (int i = 0; i < size; ++i)
    out.nodes.push_back(reference_offset(i, all.front(), all[static_cast<std::size_t>(i)]));
  return out;
}

}  // namespace ncp2::real
