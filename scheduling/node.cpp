#include "scheduling/node.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "emulator/kernel.hpp"

namespace ncp2::sched {

namespace {

// A job's place in its trace: the step it is in and the fraction of that step done.
struct JobState {
  std::size_t step = 0;
  double done = 0;  // in [0, 1)
  bool finished = false;
  Duration finish{0};
  double served_in_quantum = 0;  // transactions
};

// Doubles of step fractions: a step whose remainder is below this is complete (the event time is
// rounded up to a whole picosecond, so the fraction lands a hair short or past 1).
constexpr double kStepEpsilon = 1e-9;
// About a minute of a run; the sets need a few tens of thousands each.
constexpr std::uint64_t kMaxEvents = 50'000'000;

class NodeSimulation {
 public:
  NodeSimulation(const std::vector<DemandTrace>& workload, const Policy& policy, const NodeOptions& options,
                 Bandwidth target)
      : workload_(workload),
        options_(options),
        model_(options.capacity, options.peak_per_thread, options.queueing),
        scheduler_(policy, scheduler_options(options, target), threads_of(workload)),
        jobs_(workload.size()) {}

  void run() {
    kernel_.at(emu::kTimeZero, [this] { start_quantum(); });
    // Every job progresses at a positive rate, but a bus far too slow for the demands would take
    // a very long virtual time: give up, and say so, rather than run for hours.
    const auto result = kernel_.run(emu::kTimeZero + limit());
    if (result.status != emu::RunStatus::Completed || events_ > kMaxEvents)
      throw std::runtime_error(
          "the node did not finish the workload within its limits (a bus far too slow for the demands?)");
  }

  [[nodiscard]] std::vector<JobResult> results() const {
    std::vector<JobResult> out;
    out.reserve(workload_.size());
    for (std::size_t i = 0; i < workload_.size(); ++i)
      out.push_back({workload_[i].name, workload_[i].endless, jobs_[i].finished ? jobs_[i].finish : end_,
                     workload_[i].solo_time()});
    return out;
  }
  [[nodiscard]] std::vector<BusSample> bus() const { return bus_; }

 private:
  static SchedulerOptions scheduler_options(const NodeOptions& o, Bandwidth target) {
    return {o.processors, o.window, target, o.seed, o.fair_share_slack};
  }
  static std::vector<int> threads_of(const std::vector<DemandTrace>& workload) {
    std::vector<int> out;
    out.reserve(workload.size());
    for (const auto& t : workload) out.push_back(t.threads);
    return out;
  }
  // 1000 times the solo times, in doubles: the sum of long traces must not overflow.
  [[nodiscard]] Duration limit() const {
    double ps = static_cast<double>(options_.quantum.count()) * 1000;
    for (const auto& t : workload_) ps += static_cast<double>(t.solo_time().count()) * 1000;
    return Duration{static_cast<std::int64_t>(std::min(ps, 4e18))};
  }
  [[nodiscard]] Duration now() const { return kernel_.now().time_since_epoch(); }
  [[nodiscard]] bool all_ending_jobs_done() const {
    for (std::size_t i = 0; i < workload_.size(); ++i)
      if (!workload_[i].endless && !jobs_[i].finished) return false;
    return true;
  }

  void start_quantum() {
    if (all_ending_jobs_done()) {
      end_ = now();
      return;  // no event left: the kernel's run returns
    }
    std::vector<bool> runnable(jobs_.size());
    for (std::size_t i = 0; i < jobs_.size(); ++i) runnable[i] = !jobs_[i].finished;
    set_running(scheduler_.choose(runnable));
    quantum_start_ = now();
    last_ = now();
    demand_time_ = 0;
    for (auto& j : jobs_) j.served_in_quantum = 0;
    schedule_next();
  }

  // The chosen jobs, each once; a job chosen for fewer threads than it has (native-threads)
  // runs partly.
  void set_running(const std::vector<JobId>& chosen) {
    running_.clear();
    progress_.clear();
    for (const JobId id : chosen) {
      if (std::find(running_.begin(), running_.end(), id) != running_.end()) continue;
      running_.push_back(id);
      const auto given = scheduler_.schedules_threads() ? std::count(chosen.begin(), chosen.end(), id) : 0;
      const int threads = workload_[index_of(id)].threads;
      progress_.push_back(scheduler_.schedules_threads() && given < threads
                              ? options_.split_progress * static_cast<double>(given) / threads
                              : 1.0);
    }
  }

  void compute_shares() {
    loads_.clear();
    for (std::size_t k = 0; k < running_.size(); ++k) {
      const auto& trace = workload_[index_of(running_[k])];
      // A partly running job keeps split_progress of what its running threads would do (0: they
      // spin at their next synchronization, no bus traffic).
      const Bandwidth demand = trace.demand[jobs_[index_of(running_[k])].step] * progress_[k];
      loads_.push_back({demand, trace.threads});
    }
    shares_ = model_.shares(loads_);
    for (std::size_t k = 0; k < running_.size(); ++k)
      if (progress_[k] < 1) shares_[k].rate *= progress_[k];  // and that share of its progress
  }

  void schedule_next() {
    compute_shares();
    Duration next = quantum_start_ + options_.quantum - now();
    for (std::size_t k = 0; k < running_.size(); ++k) {
      const auto i = index_of(running_[k]);
      const double left_ps = (1 - jobs_[i].done) * static_cast<double>(workload_[i].step.count());
      const double to_boundary_ps = std::ceil(left_ps / shares_[k].rate);
      // Compared as doubles: a very slow job's boundary may lie beyond what an int64 holds.
      if (to_boundary_ps < static_cast<double>(next.count()))
        next = std::max(Duration{static_cast<std::int64_t>(to_boundary_ps)}, Duration{1});
    }
    kernel_.after(next, [this] { advance(); });
  }

  void advance() {
    if (++events_ > kMaxEvents) {
      kernel_.stop();
      return;
    }
    const Duration elapsed = now() - last_;
    last_ = now();
    bool someone_finished = false;
    for (std::size_t k = 0; k < running_.size(); ++k) {
      const auto i = index_of(running_[k]);
      JobState& job = jobs_[i];
      const auto& trace = workload_[i];
      job.served_in_quantum += shares_[k].served.per_us() * to_microseconds(elapsed);
      demand_time_ += loads_[k].demand.per_us() * to_microseconds(elapsed);
      job.done +=
          shares_[k].rate * static_cast<double>(elapsed.count()) / static_cast<double>(trace.step.count());
      if (job.done < 1 - kStepEpsilon) continue;
      job.done = 0;
      if (++job.step < trace.demand.size()) continue;
      job.step = 0;
      if (trace.endless) continue;
      job.finished = true;
      job.finish = now();
      someone_finished = true;
    }
    if (someone_finished || now() >= quantum_start_ + options_.quantum) {
      end_quantum();
      start_quantum();
    } else {
      schedule_next();
    }
  }

  void end_quantum() {
    const Duration length = now() - quantum_start_;
    if (length <= Duration{0}) return;
    const double us = to_microseconds(length);
    BusSample sample{quantum_start_, length, Bandwidth(demand_time_ / us), Bandwidth{}, 0};
    for (const JobId id : running_) {
      const double served = jobs_[index_of(id)].served_in_quantum;
      sample.served += Bandwidth(served / us);
      ++sample.jobs_running;
      scheduler_.record(id, Bandwidth(served / us));
    }
    bus_.push_back(sample);
  }

  const std::vector<DemandTrace>& workload_;
  NodeOptions options_;
  ContentionModel model_;
  Scheduler scheduler_;
  emu::Kernel kernel_;
  std::vector<JobState> jobs_;
  std::vector<JobId> running_;
  std::vector<double> progress_;  // per running_: < 1 when only some of its threads were given processors
  std::vector<BusLoad> loads_;
  std::vector<JobShare> shares_;
  std::vector<BusSample> bus_;
  Duration quantum_start_{0};
  Duration last_{0};
  Duration end_{0};
  double demand_time_ = 0;  // transactions the running jobs asked for in this quantum
  std::uint64_t events_ = 0;
};

}  // namespace

Duration parse_quantum(std::string_view text) {
  const std::string original(text);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double scale_us = 0;
  for (const auto& [suffix, us] : {std::pair<std::string_view, double>{"us", 1}, {"ms", 1e3}, {"s", 1e6}})
    if (text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      scale_us = us;
      break;
    }
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (scale_us == 0 || text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(
        fmt::format("--quantum '{}': expected a duration with its unit (100ms, 1s, 500us)", original));
  const double us = value * scale_us;
  // Below 100 us a run of the sets takes minutes and no scheduler decides that often.
  if (!(us >= 100) || us > 3.6e9)
    throw std::invalid_argument(fmt::format("--quantum '{}': must be from 100us to 1 hour", original));
  return emu::picoseconds(static_cast<std::int64_t>(std::llround(us * 1e6)));
}

void check_node_options(const NodeOptions& o) {
  if (o.processors < 1 || o.processors > 1024) throw std::invalid_argument("--processors must be 1..1024");
  // Bounds that keep a run of the sets to seconds: far below them the demands of the synthetic
  // programs would stretch a run a thousandfold.
  if (!(o.capacity.per_us() >= 0.1 && o.capacity.per_us() <= 1e6))
    throw std::invalid_argument(
        "the bus capacity (--bus) must be a number more than 0 (0.1 to 1e6 transactions/us)");
  if (!(o.peak_per_thread.per_us() >= 0.01 && o.peak_per_thread.per_us() <= 1e6))
    throw std::invalid_argument(
        "the peak bandwidth of a thread (--thread-peak) must be 0.01 to 1e6 transactions/us");
  if (!(o.queueing >= 1e-4 && o.queueing <= 1e3))
    throw std::invalid_argument("the queueing constant (--queueing) must be 0.0001 to 1000");
  if (o.quantum <= Duration{0}) throw std::invalid_argument("the quantum must be longer than 0");
  if (o.window < 1 || o.window > 1000) throw std::invalid_argument("--window must be 1..1000 quanta");
  if (o.fair_share_slack < 0 || o.fair_share_slack > 1'000'000)
    throw std::invalid_argument("--fair-share-slack must be 0..1000000 quanta");
  if (!(o.split_progress >= 0 && o.split_progress <= 1))
    throw std::invalid_argument("--split-progress must be 0..1 (the share of progress a split job keeps)");
}

Bandwidth ideal_average_bandwidth(const std::vector<DemandTrace>& workload, int processors) {
  Duration longest{0};
  for (const auto& t : workload)
    if (!t.endless) longest = std::max(longest, t.solo_time());
  double transactions = 0;
  double processor_us = 0;
  for (const auto& t : workload) {
    const double us = to_microseconds(t.endless ? longest : t.solo_time());
    transactions += t.mean_demand().per_us() * us;
    processor_us += us * t.threads;
  }
  if (processor_us <= 0) return Bandwidth{};
  // Ideal completion: the processor time spread over the P processors.
  return Bandwidth(transactions / (processor_us / processors));
}

NodeRun run_node(const std::vector<DemandTrace>& workload, const Policy& policy, const NodeOptions& options) {
  check_node_options(options);
  bool some_job_ends = false;
  for (const auto& t : workload) {
    check_trace(t, t.name.empty() ? "a job" : t.name);
    if (t.threads > options.processors)
      throw std::invalid_argument(
          fmt::format("{} needs {} processors; the node has {}", t.name, t.threads, options.processors));
    some_job_ends = some_job_ends || !t.endless;
  }
  if (!some_job_ends) throw std::invalid_argument("the workload has no job that ends (all are endless)");

  NodeRun out;
  out.ideal_average = ideal_average_bandwidth(workload, options.processors);
  out.target = options.capacity;
  if (policy.kind == PolicyKind::Iabw && policy.reference == Reference::Fitted)
    out.target = fitted_reference(out.ideal_average, options.capacity);
  else if (policy.kind == PolicyKind::Iabw && policy.reference == Reference::Ideal)
    out.target = Bandwidth(std::min(out.ideal_average.per_us(), options.capacity.per_us()));
  NodeSimulation simulation(workload, policy, options, out.target);
  simulation.run();
  out.jobs = simulation.results();
  out.bus = simulation.bus();
  return out;
}

}  // namespace ncp2::sched
