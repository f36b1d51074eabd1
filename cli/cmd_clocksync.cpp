// `ncp2 clocksync`: clock synchronization of real processes on this machine (SPEC §4, seed 001):
// a master and N-1 forked followers, each synchronized in its own time window by round trips over
// shared memory or UDP on loopback; with injected offsets and drifts the real error is shown
// beside the bound.
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_options.hpp"
#include "host_timing/sync_run.hpp"

namespace ncp2::cli {

namespace {

struct ClocksyncOptions {
  timing::SyncRunOptions run;
  std::string transport = "shm";
  double interval_ms = 250;
  bool json = false;
};

// The truth is known on one host even without injection (every process reads the same clock),
// so the real error is always reported.
nlohmann::json follower_json(const timing::FollowerReport& f) {
  nlohmann::json j{{"id", f.id}, {"ok", f.ok}};
  if (!f.ok) {
    j["error"] = f.error;
    return j;
  }
  const timing::SyncEstimate& e = f.estimate;
  j["offset_ns"] = e.offset_ns;
  j["drift_ppm"] = e.drift_ppm;
  j["error_bound_ns"] = e.offset_bound_ns;
  j["drift_bound_ppm"] = e.drift_bound_ppm;
  j["true_offset_ns"] = f.true_offset_ns;
  j["true_drift_ppm"] = f.injected.drift_ppm;
  j["error_ns"] = f.error_ns();
  j["drift_error_ppm"] = e.drift_ppm - f.injected.drift_ppm;
  j["within_bound"] = f.within_bound();
  j["rtt_ns"] = {{"min", e.second.rtt.min},
                 {"mode", e.second.rtt.mode},
                 {"mean", e.second.rtt.mean},
                 {"max", e.second.rtt.max},
                 {"max_before_filter", e.second.rtt.max_all}};
  j["kept"] = e.first.kept + e.second.kept;
  j["discarded"] = e.first.discarded + e.second.discarded;
  j["used"] = e.first.used + e.second.used;
  return j;
}

int run(ClocksyncOptions o) {
  o.run.transport = o.transport == "udp" ? timing::SyncTransport::Udp : timing::SyncTransport::Shm;
  o.run.interval_s = o.interval_ms / 1000.0;
  timing::SyncRunReport report;
  try {
    report = timing::run_clock_sync(o.run);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "ncp2: clocksync: {}\n", e.what());
    return kExitUsage;
  }
  bool all_within = true;
  for (const auto& f : report.followers) all_within = all_within && f.within_bound();

  if (o.json) {
    nlohmann::json j;
    j["master"] = 0;
    j["transport"] = std::string(timing::to_string(report.transport));
    j["procs"] = o.run.procs;
    j["exchanges"] = o.run.exchanges;
    j["interval_ms"] = o.interval_ms;
    j["clock"] = report.clock;
    j["inject_offset_us"] = o.run.inject_offset_us;
    j["inject_drift_ppm"] = o.run.inject_drift_ppm;
    j["followers"] = nlohmann::json::array();
    for (const auto& f : report.followers) j["followers"].push_back(follower_json(f));
    j["ok"] = report.ok();
    if (!report.error.empty()) j["error"] = report.error;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print(
        "master 0, {} follower(s), transport {}, {} exchanges per burst, re-synchronized after {} ms\n",
        report.followers.size(), timing::to_string(report.transport), o.run.exchanges, o.interval_ms);
    fmt::print("clock: {}\n", report.clock);
    fmt::print("{:>3} {:>14} {:>10} {:>10} {:>14} {:>10} {:>9} {:>10} {:>9} {:>9} {:>9} {:>11}\n", "id",
               "offset ns", "bound ns", "error ns", "true offset", "drift ppm", "+- ppm", "true drift",
               "rtt min", "rtt mode", "rtt mean", "kept/disc.");
    for (const auto& f : report.followers) {
      if (!f.ok) {
        fmt::print("{:>3} failed: {}\n", f.id, f.error);
        continue;
      }
      const auto& e = f.estimate;
      fmt::print(
          "{:>3} {:>14.1f} {:>10.1f} {:>10.1f} {:>14.1f} {:>10.3f} {:>9.3f} {:>10.3f} {:>9.0f} {:>9.0f} "
          "{:>9.0f} "
          "{:>5}/{:<5}{}\n",
          f.id, e.offset_ns, e.offset_bound_ns, f.error_ns(), f.true_offset_ns, e.drift_ppm,
          e.drift_bound_ppm, f.injected.drift_ppm, e.second.rtt.min, e.second.rtt.mode, e.second.rtt.mean,
          e.first.kept + e.second.kept, e.first.discarded + e.second.discarded,
          f.within_bound() ? "" : "  ERROR BEYOND THE BOUND");
    }
  }
  if (!report.error.empty()) fmt::print(stderr, "ncp2: clocksync: {}\n", report.error);
  for (const auto& f : report.followers)
    if (!f.ok) fmt::print(stderr, "ncp2: clocksync: follower {} failed: {}\n", f.id, f.error);
  if (report.ok() && !all_within)
    fmt::print(stderr, "ncp2: clocksync: a follower's real error exceeds its bound (a bug in the bound)\n");
  return report.ok() && all_within ? kExitOk : kExitFailure;
}

}  // namespace

Subcommand add_clocksync_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("clocksync",
                         "Synchronize the clocks of N real processes on this machine (one master) by round "
                         "trips; with injected offsets/drift, show the real error beside the bound");
  auto o = std::make_shared<ClocksyncOptions>();
  cmd->add_option("--procs", o->run.procs, "processes, the master included")
      ->check(CLI::Range(2, 64))
      ->capture_default_str();
  cmd->add_option("--exchanges", o->run.exchanges, "round trips per burst (two bursts per follower)")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  cmd->add_option("--transport", o->transport, "shm (shared memory) or udp (loopback)")
      ->check(CLI::IsMember({"shm", "udp"}))
      ->capture_default_str();
  cmd->add_option("--inject-offset-us", o->run.inject_offset_us,
                  "shift follower k's clock by (-1)^(k+1) k X microseconds")
      ->check(CLI::Range(-1e9, 1e9));
  cmd->add_option("--inject-drift-ppm", o->run.inject_drift_ppm,
                  "skew follower k's clock by (-1)^(k+1) k Y ppm")
      ->check(CLI::Range(-1000.0, 1000.0));
  cmd->add_option("--interval-ms", o->interval_ms, "time between the two bursts (the drift's baseline)")
      ->check(CLI::Range(1.0, 60'000.0))
      ->capture_default_str();
  cmd->add_option("--timeout", o->run.timeout_s, "seconds before hung followers are killed")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print JSON (master, transport, followers)");
  return {cmd, [o] { return run(*o); }};
}

}  // namespace ncp2::cli
