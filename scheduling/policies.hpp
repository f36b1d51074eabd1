#pragma once
// The scheduling policies (docs/scheduling.md, "Policies"): which jobs run in the next quantum.
//
// native          time sharing like Linux 2.4's goodness(): the jobs that have had the fewest
//                 quanta first (its per-epoch counters), ties in a seeded pseudo-random order,
//                 first fit; no knowledge of the bus. A job's threads run together (a gang).
// native-threads  the same time sharing of threads, each on its own (as Linux 2.4 did; the sets'
//                 baseline): a parallel application may get some of its threads only; it then
//                 keeps the split progress of its rate per thread given (NodeOptions).
// latest-quantum  Antonopoulos et al.: jobs that ran go to the end of the list; the first job of
//                 the list runs (no starvation); then, while processors are free, among the jobs
//                 not ahead of their fair share (fair_share_slack; our addition), the job whose
//                 bandwidth per thread best fits the bandwidth left per free processor
//                 (fitness 1000 / (1 + |left/free - job/threads|)), with the bandwidth each job
//                 got in its latest quantum.
// quanta-window   the same with the mean of its latest W quanta (bursts smoothed out).
// iabw            Di Xu et al.: the same choice, aimed at a reference bandwidth below the peak:
//                 -0.0118 IABW^2 + 1.4571 IABW - 6.2403 (IABW: the workload's ideal average
//                 bandwidth), with the window mean. iabw-ideal aims at IABW itself, iabw-peak at
//                 the bus capacity (the PBW reference; the same choices as quanta-window).
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/bandwidth.hpp"

namespace ncp2::sched {

enum class PolicyKind { Native, NativeThreads, LatestQuantum, QuantaWindow, Iabw };
enum class Reference { Fitted, Ideal, Peak };

struct Policy {
  PolicyKind kind = PolicyKind::Native;
  Reference reference = Reference::Fitted;  // iabw only
  friend bool operator==(const Policy&, const Policy&) = default;
};

// As on the command line: native, latest-quantum, quanta-window, iabw, iabw-ideal, iabw-peak.
std::string policy_name(const Policy& policy);
std::optional<Policy> parse_policy(std::string_view name);
// The policies of --all, native first (the order of the tables); native-threads is run on request.
std::vector<Policy> all_policies();
std::string policy_names_list();  // "native|latest-quantum|..."

// Di Xu et al.'s fitted reference for a workload of ideal average bandwidth `iabw`. The fit
// is negative below about 4.4 transactions/µs, where it means nothing: there the reference is
// IABW itself. Never above `capacity`.
Bandwidth fitted_reference(Bandwidth iabw, Bandwidth capacity);

// How well a job of `job_per_thread` fills `left_per_processor` (higher is better).
double fitness(Bandwidth left_per_processor, Bandwidth job_per_thread);

// A runnable job as the selection sees it.
struct Candidate {
  JobId id{};
  int threads = 1;
  Bandwidth estimate;  // what it is expected to use (measured), all threads
  // Ran more quanta than the least-served runnable job plus the fair-share slack: chosen only when no
  // other job fits (the policies share the processors as fairly as native does).
  bool over_share = false;
};

// The bandwidth-aware choice: `queue` in list order; the first job that fits runs, then the
// fittest while processors are free, aiming the sum of estimates at `target`.
std::vector<JobId> select_fittest(std::span<const Candidate> queue, int processors, Bandwidth target);
// First fit in list order (native).
std::vector<JobId> select_first_fit(std::span<const Candidate> queue, int processors);

// How many quanta a job may run ahead of the least-served one before it yields to the others
// (docs/scheduling.md, "Our addition: fair share"). With 1, jobs that fall behind together must
// then run together, which decides the mixes instead of the policy.
inline constexpr std::int64_t kDefaultFairShareSlack = 2;

struct SchedulerOptions {
  int processors = 4;
  int window = 5;          // quanta-window and iabw: measurements averaged
  Bandwidth target{29.5};  // the reference the bandwidth-aware policies aim at
  std::uint64_t seed = 1;  // native's tie order
  std::int64_t fair_share_slack = kDefaultFairShareSlack;
};

// A policy with its memory: the list order and each job's measured bandwidths.
class Scheduler {
 public:
  Scheduler(Policy policy, SchedulerOptions options, std::vector<int> threads_per_job);

  // The jobs to run in the next quantum, among those `runnable`: each once, all its threads; for
  // a policy that schedules_threads(), a job once per thread chosen.
  std::vector<JobId> choose(const std::vector<bool>& runnable);
  [[nodiscard]] bool schedules_threads() const { return policy_.kind == PolicyKind::NativeThreads; }
  // After a quantum: what `job` (which ran in it) got of the bus.
  void record(JobId job, Bandwidth measured);
  // The bandwidth the policy expects of `job` now (0 before it ever ran).
  [[nodiscard]] Bandwidth estimate(JobId job) const;

 private:
  [[nodiscard]] std::vector<Candidate> native_order(const std::vector<bool>& runnable) const;

  Policy policy_;
  SchedulerOptions options_;
  std::vector<int> threads_;
  std::vector<JobId> list_;                               // the bandwidth-aware policies' list
  std::vector<std::deque<Bandwidth>> history_;            // latest measurements, newest last
  std::vector<std::int64_t> quanta_;                      // quanta each job has run (native)
  std::vector<std::vector<std::int64_t>> thread_quanta_;  // quanta each thread has run (native-threads)
  [[nodiscard]] std::vector<JobId> choose_threads(const std::vector<bool>& runnable);
  std::uint64_t decisions_ = 0;
};

}  // namespace ncp2::sched
