#pragma once
// The emulated SMP node (docs/scheduling.md, "The node"): P processors sharing one memory bus of
// capacity B, running a workload of demand traces under a policy, on the discrete-event kernel
// (emulator/kernel.hpp). A quantum begins with the policy's choice; inside it the node moves from
// one trace step of a running job to the next (the demands change there) and shares the bus by
// the contention model; it ends after the quantum length, or early when a job finishes (its
// processors would otherwise idle). All jobs arrive at time 0; the run ends when every job that
// is not endless has finished.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/contention.hpp"
#include "scheduling/policies.hpp"
#include "scheduling/trace.hpp"

namespace ncp2::sched {

struct NodeOptions {
  int processors = 4;
  Bandwidth capacity{kSurveyBusCapacity};         // the survey's measured sustained maximum
  Bandwidth peak_per_thread{kDefaultThreadPeak};  // what a thread that only transfers issues on an idle bus
  double queueing = survey_queueing();            // k of the latency 1 + k U / (1 - U) (contention.hpp)
  Duration quantum = emu::milliseconds(100);
  int window = 5;
  std::uint64_t seed = 1;
  std::int64_t fair_share_slack = kDefaultFairShareSlack;  // the bandwidth-aware policies (policies.hpp)
  // native-threads: the share of its progress a parallel job keeps per thread it is given while
  // some of its threads wait (0: none, it spins at its next synchronization; 1: its threads never
  // synchronize). A job given g of its n threads runs at split_progress x g/n of its rate and asks
  // that share of its bus demand. 0.25: set once (docs/scheduling.md, "The baseline").
  double split_progress = 0.25;
};

// "100ms", "50 ms", "1s", "500us": a quantum (100us to 1 hour). Throws std::invalid_argument with the reason.
Duration parse_quantum(std::string_view text);

// Throws std::invalid_argument with the reason when the options cannot describe a node.
void check_node_options(const NodeOptions& options);

struct JobResult {
  std::string name;
  bool endless = false;
  Duration turnaround{0};  // finish time (all arrive at 0); for an endless job, the end of the run
  Duration solo{0};        // one pass of its trace alone
};

// One quantum of the bus: the running jobs' solo demand and what the bus served, time-averaged.
struct BusSample {
  Duration start{0};
  Duration length{0};
  Bandwidth demand;
  Bandwidth served;
  int jobs_running = 0;
};

struct NodeRun {
  std::vector<JobResult> jobs;  // in workload order
  std::vector<BusSample> bus;
  Bandwidth ideal_average;  // IABW of the workload
  Bandwidth target;         // what the policy aimed at (capacity for native and Antonopoulos')
};

// The workload's ideal average bandwidth: all its bus transactions over its ideal completion time
// (its work spread over the P processors without contention). Endless jobs count as running as
// long as the longest job that ends.
Bandwidth ideal_average_bandwidth(const std::vector<DemandTrace>& workload, int processors);

// Runs the workload. Throws std::invalid_argument (bad options, a job wider than the node, no job
// that ends) or TraceError (a malformed trace).
NodeRun run_node(const std::vector<DemandTrace>& workload, const Policy& policy, const NodeOptions& options);

}  // namespace ncp2::sched
