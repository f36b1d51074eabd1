#include "run/runner.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "carnival/scope.hpp"
#include "carnival/scope_sites.hpp"
#include "dsm/process.hpp"
#include "emulator/cluster.hpp"
#include "emulator/kernel.hpp"
#include "run/code_places.hpp"
#include "run/race_report.hpp"
#include "run/workload_names.hpp"

namespace ncp2::run {

std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Completed:
      return "completed";
    case RunStatus::Deadlock:
      return "deadlock";
    case RunStatus::TimeLimit:
      return "time-limit";
    case RunStatus::Stopped:
      return "stopped";
    case RunStatus::Error:
      return "error";
    case RunStatus::Invalid:
      return "invalid";
  }
  return "?";
}

dsm::NodeStats RunOutcome::totals() const {
  dsm::NodeStats t;
  for (const auto& s : node_stats) {
    t.messages += s.messages;
    t.bytes += s.bytes;
    static_cast<lrc::Counters&>(t) += s;  // every protocol count
    for (std::size_t i = 0; i < t.messages_by_purpose.size() && i < s.messages_by_purpose.size(); ++i)
      t.messages_by_purpose[i] += s.messages_by_purpose[i];
  }
  t.barriers = barrier_episodes;
  return t;
}

std::uint64_t RunOutcome::total_interrupts() const {
  std::uint64_t sum = 0;
  for (auto i : interrupts) sum += i;
  return sum;
}

namespace {

// "scope 'relax' (sor.cpp:120)": where a node is, for a diagnosis.
std::string scope_place(std::uint64_t scope) {
  const auto sites = carnival::scope_sites();
  if (scope == 0 || scope > sites.size()) return {};
  const carnival::ScopeSite& site = *sites[scope - 1];
  const std::string file = site.file;
  return fmt::format("scope '{}' ({}:{})", site.name, file.substr(file.find_last_of('/') + 1), site.line);
}

}  // namespace

namespace {

RunStatus from_kernel(emu::RunStatus s) {
  switch (s) {
    case emu::RunStatus::Completed:
      return RunStatus::Completed;
    case emu::RunStatus::Deadlock:
      return RunStatus::Deadlock;
    case emu::RunStatus::TimeLimit:
      return RunStatus::TimeLimit;
    case emu::RunStatus::Stopped:
      return RunStatus::Stopped;
  }
  return RunStatus::Error;
}

// The machine and the counters of one run. Each node snapshots its own counters as it leaves the
// exit barrier; node 0 verifies only when every node has, so the verification's page traffic
// stays out of the timed statistics.
struct Session {
  Session(const dsm::SystemConfig& config, const RunOptions& options)
      : kernel(kernel_options(config, options)), cluster(kernel, config), dsm(kernel, cluster, config) {
    const auto n = static_cast<std::size_t>(cluster.size());
    snapshot.resize(n);
    interrupts.resize(n, 0);
    taken.resize(n, false);
  }
  emu::KernelOptions kernel_options(const dsm::SystemConfig& config, const RunOptions& options) {
    emu::KernelOptions o;
    o.stop_flag = options.stop_flag;
    if (options.progress || options.max_wall.count() > 0) {
      // `this` outlives the kernel's polls: the kernel is a member of this session.
      o.on_poll = [this, report = options.progress, interval = options.progress_interval,
                   max_wall = options.max_wall] {
        const auto t = std::chrono::steady_clock::now();
        if (max_wall.count() > 0 && t - started >= max_wall && !wall_limit_hit) {
          wall_limit_hit = true;  // --max-wall: the loop ends after this poll
          kernel.stop();
        }
        if (!report || t - last_progress < interval) return;
        last_progress = t;
        report(RunProgress{kernel.now(), dsm.barrier_episodes(), kernel.events_processed(),
                           std::chrono::duration<double>(t - started).count()});
      };
    }
    o.fiber_stack_bytes = config.emulator.fiber_stack_bytes();
    return o;
  }

  void after_exit(dsm::Process& p, Instance& instance) {
    const auto i = static_cast<std::size_t>(p.id());
    snapshot[i] = dsm.stats(p.node());
    interrupts[i] = cluster.pp(p.node()).stats().interrupts;
    taken[i] = true;
    if (++exited == cluster.size()) {
      network_messages = cluster.network().messages();
      network_bytes = cluster.network().bytes();
      if (verifier_waiting) cluster.pp(emu::node_id(0)).wake();
    }
    if (p.id() == 0) {
      while (exited < cluster.size()) {
        verifier_waiting = true;
        cluster.pp(p.node()).wait("the other nodes to leave the exit barrier (before verifying)");
      }
      verifier_waiting = false;
    }
    instance.verify(p);
  }

  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool wall_limit_hit = false;
  std::chrono::steady_clock::time_point last_progress = started;
  emu::Kernel kernel;
  emu::Cluster cluster;
  dsm::Runtime dsm;
  std::vector<dsm::NodeStats> snapshot;
  std::vector<std::uint64_t> interrupts;
  std::vector<bool> taken;
  int exited = 0;
  bool verifier_waiting = false;
  std::optional<std::uint64_t> network_messages;
  std::unique_ptr<carnival::Profiler> profiler;
  std::int64_t network_bytes = 0;
};

void collect(RunOutcome& out, Session& s) {
  const int n = s.cluster.size();
  out.node_stats.clear();
  out.interrupts.clear();
  out.exit_times.clear();
  for (int i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const bool taken = s.taken[u];
    out.node_stats.push_back(taken ? s.snapshot[u] : s.dsm.stats(emu::node_id(i)));
    out.interrupts.push_back(taken ? s.interrupts[u] : s.cluster.pp(emu::node_id(i)).stats().interrupts);
    out.exit_times.push_back(s.dsm.exit_time(emu::node_id(i)));
  }
  out.barrier_episodes = s.dsm.barrier_episodes();
  out.network_messages = s.network_messages.value_or(s.cluster.network().messages());
  out.network_bytes = s.network_messages ? s.network_bytes : s.cluster.network().bytes();
  out.timed_end = s.dsm.timed_end();
  out.end_time = s.kernel.now();
  out.events = s.kernel.events_processed();
}

// The time model, the diagnoses' places, the caller's hook and the profiler, on a new session.
void attach(Session& s, const RunOptions& options) {
  if (options.compute_meter) s.dsm.set_compute_meter(options.compute_meter);
  // Diagnoses name the CARNIVAL scope a node is in (a program run from outside sets its lines).
  s.dsm.set_sites(
      [&cluster = s.cluster](dsm::NodeId n) { return std::uint64_t{cluster.pp(n).attribution().scope}; },
      [](std::uint64_t scope) { return scope_place(scope); });
  if (options.detect_races) s.dsm.enable_race_detection();
  if (options.check_spans) s.dsm.check_spans();
  s.dsm.set_code_places(code_places());  // a stale span's report names lines
  if (options.on_cluster) options.on_cluster(s.cluster);
  if (options.profile) s.profiler = std::make_unique<carnival::Profiler>(s.dsm, s.cluster, options.profiler);
}

void take_races(RunOutcome& out, dsm::Runtime& runtime, const Instance& work) {
  out.races_checked = true;
  out.races = collect_races(runtime, work);
  out.race_pairs = runtime.race_detector()->race_pairs();
}

// The verdict: the workload's check, unless the run did not complete or has data races.
void judge(RunOutcome& out, const Instance& work) {
  if (out.status == RunStatus::Completed && !out.races.empty()) {
    out.verified = false;  // whatever the check said: the result depends on the schedule
    out.verification = fmt::format("completed with {} data race{} (the check: {})", out.races.size(),
                                   out.races.size() == 1 ? "" : "s", work.verdict().message);
  } else if (out.status == RunStatus::Completed) {
    out.verified = work.verdict().verified;
    out.verification = work.verdict().message;
  } else {
    out.verified = false;
    out.verification = "not verified: the run did not complete";
  }
}

}  // namespace

namespace {
// Where a node's PP is: the source scope its time goes to now (a line, a function, a block).
std::string node_place(const emu::Processor& pp) {
  const std::uint32_t scope = pp.attribution().scope;
  const auto sites = carnival::scope_sites();
  if (scope == 0 || scope > sites.size()) return "in the program";
  const carnival::ScopeSite& site = *sites[scope - 1];
  return fmt::format("in {} ({}:{})", site.name, std::filesystem::path(site.file).filename().string(),
                     site.line);
}

// A run stopped by --max-virtual-time or --max-wall: which limit, when, and each node's place.
std::string limit_diagnosis(Session& s, const emu::RunResult& r, const RunOptions& options) {
  std::string text =
      s.wall_limit_hit
          ? fmt::format(
                "stopped after {:.1f} s of host time (--max-wall) at {} of virtual time; the partial "
                "results are kept, marked incomplete",
                options.max_wall.count(), emu::format_time(r.end_time))
          : fmt::format(
                "stopped at the virtual-time limit {} (--max-virtual-time); the partial results are "
                "kept, marked incomplete",
                emu::format_time(options.max_virtual_time));
  for (int n = 0; n < s.cluster.size(); ++n) {
    const emu::NodeId node = emu::node_id(n);
    const bool exited = s.taken[static_cast<std::size_t>(n)];
    text += fmt::format("\n  node {}: {}", n, exited ? "had exited" : node_place(s.cluster.pp(node)));
  }
  return text;
}

// Runs the machine until the end, a deadlock, a limit or an error: the outcome's status and
// diagnosis (the run's limits installed first, --max-virtual-time and --max-wall).
void run_session(Session& s, Instance& work, const RunOptions& options, RunOutcome& out) {
  if (options.max_virtual_time != emu::TimePoint::max() || options.max_wall.count() > 0)
    s.dsm.set_limit_check([&s, &options] {
      if (s.kernel.now() > options.max_virtual_time) throw RunLimitReached("the virtual-time limit");
      if (options.max_wall.count() > 0 && std::chrono::steady_clock::now() - s.started >= options.max_wall) {
        s.wall_limit_hit = true;
        throw RunLimitReached("the host-time limit");
      }
    });
  try {
    s.dsm.start([&work](dsm::Process& p) { work.run(p); },
                [&s, &work](dsm::Process& p) { s.after_exit(p, work); });
    const emu::RunResult r = s.kernel.run(options.max_virtual_time);
    out.status = from_kernel(r.status);
    if (r.status != emu::RunStatus::Completed) out.diagnosis = r.diagnosis;
    if (r.status == emu::RunStatus::TimeLimit || s.wall_limit_hit) {
      out.status = RunStatus::TimeLimit;
      out.diagnosis = limit_diagnosis(s, r, options);
    }
  } catch (const RunLimitReached&) {
    out.status = RunStatus::TimeLimit;
    emu::RunResult stopped;
    stopped.end_time = s.kernel.now();
    out.diagnosis = limit_diagnosis(s, stopped, options);
  } catch (const dsm::DsmError& e) {
    out.status = RunStatus::Error;
    out.diagnosis = e.what();
  } catch (const WorkloadError& e) {
    out.status = RunStatus::Error;
    out.diagnosis = e.what();
  } catch (const emu::ConfigError& e) {
    out.status = RunStatus::Error;
    out.diagnosis = fmt::format("configuration: {}", e.what());
  } catch (const std::exception& e) {  // a bug in a workload: still an outcome, not a crash
    out.status = RunStatus::Error;
    out.diagnosis = fmt::format("unexpected error: {}", e.what());
  }
}
}  // namespace

RunOutcome run_workload(const dsm::SystemConfig& config, const Workload& workload, const Params& params,
                        std::uint64_t seed, const RunOptions& options) {
  RunOutcome out;
  out.workload = workload.name;
  out.params = params;
  out.seed = seed;
  out.machine = config.machine.kind;
  out.nodes = config.machine.nodes;

  std::unique_ptr<Instance> instance;
  std::unique_ptr<Session> session;
  try {
    if (!workload.make) throw WorkloadError(fmt::format("workload '{}' has no factory", workload.name));
    dsm::validate(config);
    workload.check(params, config.machine.nodes);
    instance = workload.make(params, config.machine.nodes, seed);
    session = std::make_unique<Session>(config, options);
  } catch (const emu::ConfigError& e) {
    out.status = RunStatus::Invalid;
    out.diagnosis = fmt::format("configuration: {}", e.what());
    return out;
  } catch (const WorkloadError& e) {
    out.status = RunStatus::Invalid;
    out.diagnosis = e.what();
    return out;
  } catch (const std::exception& e) {  // e.g. no memory for the machine
    out.status = RunStatus::Error;
    out.diagnosis = fmt::format("cannot set up the run: {}", e.what());
    return out;
  }

  Session& s = *session;
  Instance& work = *instance;
  attach(s, options);
  const auto wall_start = std::chrono::steady_clock::now();
  run_session(s, work, options, out);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  out.peak_rss_kib = peak_rss_kib();
  collect(out, s);
  if (options.detect_races) take_races(out, s.dsm, work);
  if (s.profiler) {
    carnival::RunInfo info;
    info.workload = workload.name;
    info.machine = std::string(emu::to_string(config.machine.kind));
    info.virtual_time_ps = emu::to_ps(out.timed_end);
    info.seed = seed;
    info.wall_seconds = out.wall_seconds;
    try {
      out.profile = s.profiler->finish(info);
    } catch (const std::exception& e) {
      out.status = RunStatus::Error;
      out.diagnosis = fmt::format("profiler: {}", e.what());
    }
  }
  judge(out, work);
  return out;
}

std::uint64_t peak_rss_kib() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss < 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss);  // KiB on Linux
}

std::string host_usage(double wall_seconds, std::uint64_t peak_rss_kib, int nodes) {
  const double per_node = static_cast<double>(peak_rss_kib) / std::max(nodes, 1);
  return fmt::format("{:.2f} s wall; peak RSS {:.0f} MiB, {:.0f} KiB per node", wall_seconds,
                     static_cast<double>(peak_rss_kib) / 1024.0, per_node);
}

}  // namespace ncp2::run
