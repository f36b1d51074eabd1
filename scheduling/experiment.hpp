#pragma once
// The survey's experiments (docs/scheduling.md, "Sets"): each application of a set runs as two
// instances of 2 processors beside microbenchmarks, under each policy; its turnaround time is
// compared with the baseline's: native-threads, Linux 2.4's time sharing of threads one by one
// (the survey's "planificador nativo"), with NodeOptions::split_progress.
//   A: 2 instances + 4 BBMA            (a bus already saturated)
//   B: 2 instances + 4 nBBMA           (low-demand jobs available)
//   C: 2 instances + 2 BBMA + 2 nBBMA
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/node.hpp"

namespace ncp2::sched {

enum class Mix { A, B, C };
std::optional<Mix> parse_mix(std::string_view name);
std::string mix_name(Mix mix);

struct WorkloadSet {
  std::string name;  // "A", "B", "C", or the trace file's path
  Mix mix = Mix::A;
  std::vector<DemandTrace> applications;
};

// A, B or C with the characterized programs.
WorkloadSet standard_set(Mix mix);
// The workload of one application in a mix: the microbenchmarks first, then its two instances.
std::vector<DemandTrace> workload_of(const DemandTrace& application, Mix mix);
// Instance `number` (1, 2, ...) of an application: named "app#N", ending, its trace started
// 7 x (N - 1) steps further on than the first's (kInstanceShiftSteps, experiment.cpp).
DemandTrace instance_of(const DemandTrace& application, int number);

struct ResultRow {
  std::string set;
  std::string application;
  std::string policy;
  double turnaround_s = 0;     // mean of its two instances
  double improvement_pct = 0;  // (baseline - this) / baseline x 100
  std::string baseline;        // the policy improvement_pct is measured against
};

// The policy of the sets' baseline.
Policy baseline_policy();

struct BusSeries {
  std::string set;
  std::string application;
  std::string policy;
  Bandwidth capacity;
  Bandwidth target;
  Bandwidth ideal_average;
  std::vector<BusSample> samples;
};

struct Experiment {
  NodeOptions options;
  std::vector<ResultRow> rows;  // set by set, application by application, policies in order
  std::vector<BusSeries> bus;   // one per row
};

// Runs every application of every set under native and `policies` (rows only for `policies`).
Experiment run_experiment(const std::vector<WorkloadSet>& sets, const std::vector<Policy>& policies,
                          const NodeOptions& options);

// Per set and policy: mean, worst and best improvement over the set's applications.
struct PolicySummary {
  std::string set;
  std::string policy;
  double mean_pct = 0;
  double worst_pct = 0;
  double best_pct = 0;
};
std::vector<PolicySummary> summarize(const Experiment& experiment);

}  // namespace ncp2::sched
