#pragma once
// Runs a workload on an emulated machine: Kernel + Cluster + dsm::Runtime, the workload's body on
// every node, verification after the exit barrier, and the statistics of the timed region.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "carnival/model.hpp"
#include "carnival/profiler.hpp"
#include "dsm/runtime.hpp"
#include "emulator/config.hpp"
#include "emulator/time.hpp"
#include "run/workload_names.hpp"
#include "workloads/workload.hpp"

namespace ncp2::run {

enum class RunStatus {
  Completed,  // every node left the exit barrier and the verification ran
  Deadlock,   // the kernel found blocked processors and no pending event (see diagnosis)
  TimeLimit,
  Stopped,
  Error,    // a dsm::DsmError or WorkloadError at run time (see diagnosis)
  Invalid,  // parameters impossible for this machine, or a bad configuration (see diagnosis)
};
std::string_view to_string(RunStatus s);  // "completed", "deadlock", ...

struct RunOutcome {
  std::string workload;
  Params params;
  std::uint64_t seed = 0;
  emu::MachineKind machine = emu::MachineKind::Ncp2;
  int nodes = 0;

  RunStatus status = RunStatus::Invalid;
  std::string diagnosis;  // why the run did not complete (empty when it did)
  bool verified = false;
  std::string verification;  // the verdict's message

  emu::TimePoint timed_end = emu::kTimeZero;  // Runtime::timed_end(): the last node's exit
  emu::TimePoint end_time = emu::kTimeZero;   // the whole run, verification included
  std::uint64_t events = 0;
  double wall_seconds = 0;  // host time of the run (not deterministic; not in the stats JSON)
  // The host process's peak resident set (KiB) when the run ended, whatever ran before it in the
  // process included (not deterministic; not in the stats JSON): memory per emulated node.
  std::uint64_t peak_rss_kib = 0;

  // The timed region's statistics (up to each node's exit from the exit barrier; the traffic of
  // the verification is not included). On a run that did not complete: the counters at its end.
  std::vector<dsm::NodeStats> node_stats;
  std::vector<std::uint64_t> interrupts;  // PP interrupts per node
  std::vector<emu::TimePoint> exit_times;
  std::uint64_t barrier_episodes = 0;  // Runtime::barrier_episodes(), the exit barrier included
  std::uint64_t network_messages = 0;  // injected into the network
  std::int64_t network_bytes = 0;      // on the wire, headers included

  // The CARNIVAL profile of the timed region, when profiling was asked for.
  std::optional<carnival::RunData> profile;

  // Data races (RunOptions::detect_races): distinct races, and every pair of intervals found.
  bool races_checked = false;
  std::vector<carnival::RaceRow> races;
  std::uint64_t race_pairs = 0;

  // Completed and verified (a run with data races is not: `verified` is false).
  [[nodiscard]] bool ok() const { return status == RunStatus::Completed && verified; }
  // Every counter summed over the nodes, except `barriers`: the number of episodes, counted once.
  [[nodiscard]] dsm::NodeStats totals() const;
  [[nodiscard]] std::uint64_t total_interrupts() const;
};

// Builds the machine from `config`, checks `params` against `workload` and the node count, runs
// and verifies. Does not throw: dsm::DsmError, WorkloadError, emu::ConfigError and any other
// std::exception escaping the workload become a failed outcome (status Invalid before the run,
// Error during it) with the message in `diagnosis`.
// Where a run stands, for progress displays.
struct RunProgress {
  emu::TimePoint now = emu::kTimeZero;  // the emulated clock
  std::uint64_t barrier_episodes = 0;   // completed so far
  std::uint64_t events = 0;
  double wall_seconds = 0;
};

struct RunOptions {
  bool profile = false;  // attach the CARNIVAL profiler (RunOutcome::profile)
  carnival::ProfilerOptions profiler;
  const std::atomic<bool>* stop_flag = nullptr;  // set (e.g. by a signal handler) to stop the run
  // The measured time model's meter (docs/timing.md); null: the deterministic model.
  dsm::ComputeMeter* compute_meter = nullptr;
  // Called with the machine once it is built, before the run (e.g. for a compute meter that reads
  // the PPs' attribution: per-scope counters, docs/counters.md).
  std::function<void(emu::Cluster&)> on_cluster;
  // Called from inside the run about every `progress_interval` of host time (never more often).
  std::function<void(const RunProgress&)> progress;
  std::chrono::milliseconds progress_interval{200};
  // Detect data races (dsm/race_detector.hpp): RunOutcome::races; a run with races is not verified.
  bool detect_races = false;
  // Check spans (dsm::Runtime::check_spans): a span used after its node's next synchronization
  // ends the run with an error naming the line. Also on when NCP2_CHECK_SPANS is set (the tests).
  bool check_spans = false;
  // Run limits (issue 36): stop cleanly at this virtual time, or after this much host time (0:
  // none); the outcome is TimeLimit, its diagnosis names where each node was.
  emu::TimePoint max_virtual_time = emu::TimePoint::max();
  std::chrono::duration<double> max_wall{0};
};

RunOutcome run_workload(const dsm::SystemConfig& config, const Workload& workload, const Params& params,
                        std::uint64_t seed, const RunOptions& options = {});

// The host process's peak resident set so far, in KiB (getrusage; 0 if unavailable).
std::uint64_t peak_rss_kib();
// The summary's host line: "1.52 s wall; peak RSS 396 MiB, 396 KiB per node" (per node: the
// process's peak over the emulated nodes, so for few nodes it is mostly the program itself).
std::string host_usage(double wall_seconds, std::uint64_t peak_rss_kib, int nodes);

}  // namespace ncp2::run
