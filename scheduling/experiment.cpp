#include "scheduling/experiment.hpp"

#include <algorithm>
#include <map>

#include "scheduling/programs.hpp"

namespace ncp2::sched {

namespace {

constexpr int kInstances = 2;
constexpr std::size_t kInstanceShiftSteps = 7;  // 35 ms of the synthetic traces: within a quantum

// The instances are the jobs of the workload that end (workload_of).
double mean_turnaround_of_instances(const NodeRun& run) {
  double sum = 0;
  int instances = 0;
  for (const auto& job : run.jobs)
    if (!job.endless) {
      sum += to_seconds(job.turnaround);
      ++instances;
    }
  return sum / std::max(instances, 1);
}

}  // namespace

std::optional<Mix> parse_mix(std::string_view name) {
  if (name == "A") return Mix::A;
  if (name == "B") return Mix::B;
  if (name == "C") return Mix::C;
  return std::nullopt;
}

std::string mix_name(Mix mix) {
  switch (mix) {
    case Mix::A:
      return "A";
    case Mix::B:
      return "B";
    case Mix::C:
      return "C";
  }
  return "?";
}

WorkloadSet standard_set(Mix mix) { return {mix_name(mix), mix, characterized_programs()}; }

std::vector<DemandTrace> workload_of(const DemandTrace& application, Mix mix) {
  // The microbenchmarks first: they are the background the applications arrive into, so a
  // policy's list starts with them (before any measurement every job looks alike to it).
  std::vector<DemandTrace> jobs;
  const int bbma = mix == Mix::A ? 4 : (mix == Mix::B ? 0 : 2);
  const int nbbma = mix == Mix::A ? 0 : (mix == Mix::B ? 4 : 2);
  jobs.reserve(static_cast<std::size_t>(bbma) + static_cast<std::size_t>(nbbma) + kInstances);
  for (int i = 0; i < bbma; ++i) jobs.push_back(bbma_trace());
  for (int i = 0; i < nbbma; ++i) jobs.push_back(nbbma_trace());
  for (int i = 1; i <= kInstances; ++i) jobs.push_back(instance_of(application, i));
  return jobs;
}

DemandTrace instance_of(const DemandTrace& application, int number) {
  DemandTrace instance = application;
  instance.name = application.name + "#" + std::to_string(number);
  instance.endless = false;  // the application of interest always ends
  // Two runs of one program are not in lockstep to the step: the second starts its trace a little
  // further on (the steps it skips come at its end), so the bursts of two instances run side by
  // side do not coincide step for step.
  if (!instance.demand.empty()) {
    const auto shift = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(number - 1) *
                                                   kInstanceShiftSteps % instance.demand.size());
    std::rotate(instance.demand.begin(), instance.demand.begin() + shift, instance.demand.end());
  }
  return instance;
}

Policy baseline_policy() { return {PolicyKind::NativeThreads, Reference::Fitted}; }

Experiment run_experiment(const std::vector<WorkloadSet>& sets, const std::vector<Policy>& policies,
                          const NodeOptions& options) {
  check_node_options(options);
  Experiment out;
  out.options = options;
  const Policy baseline = baseline_policy();
  const std::string baseline_name = policy_name(baseline);
  for (const auto& set : sets)
    for (const auto& application : set.applications) {
      const auto workload = workload_of(application, set.mix);
      const NodeRun baseline_run = run_node(workload, baseline, options);
      const double baseline_s = mean_turnaround_of_instances(baseline_run);
      const auto add = [&](const Policy& policy, const NodeRun& run) {
        const double turnaround = mean_turnaround_of_instances(run);
        const std::string name = policy_name(policy);
        out.rows.push_back({set.name, application.name, name, turnaround,
                            (baseline_s - turnaround) / baseline_s * 100, baseline_name});
        out.bus.push_back(
            {set.name, application.name, name, options.capacity, run.target, run.ideal_average, run.bus});
      };
      add(baseline, baseline_run);  // its own row: the turnaround the others are measured against
      for (const auto& policy : policies)
        if (policy != baseline) add(policy, run_node(workload, policy, options));
    }
  return out;
}

std::vector<PolicySummary> summarize(const Experiment& experiment) {
  std::vector<PolicySummary> out;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  std::vector<int> counts;
  for (const auto& r : experiment.rows) {
    const auto key = std::make_pair(r.set, r.policy);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back({r.set, r.policy, 0, r.improvement_pct, r.improvement_pct});
      counts.push_back(0);
    }
    PolicySummary& s = out[it->second];
    s.mean_pct += r.improvement_pct;
    s.worst_pct = std::min(s.worst_pct, r.improvement_pct);
    s.best_pct = std::max(s.best_pct, r.improvement_pct);
    ++counts[it->second];
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].mean_pct /= counts[i];
  return out;
}

}  // namespace ncp2::sched
