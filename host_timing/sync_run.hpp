#pragma once
// Clock synchronization of real processes on this machine (`ncp2 clocksync`): one master and
// N-1 forked followers, over shared memory or UDP on loopback. Each follower in turn gets a
// time window of its own (no other synchronization traffic meanwhile, SPEC §4): a burst of
// exchanges, then, after an interval, a second burst for the drift. Each follower's clock can be
// shifted and skewed in software, so the true offset is known and the real error is reported
// next to the bound.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host_timing/clock_sync.hpp"

namespace ncp2::timing {

enum class SyncTransport { Shm, Udp };
[[nodiscard]] std::string_view to_string(SyncTransport t);

struct SyncRunOptions {
  int procs = 3;        // master included: procs - 1 followers (2..64)
  int exchanges = 100;  // per burst (1..100000)
  SyncTransport transport = SyncTransport::Shm;
  double inject_offset_us = 0;  // follower k: (-1)^(k+1) * k * this
  double inject_drift_ppm = 0;  // follower k: (-1)^(k+1) * k * this
  double interval_s = 0.25;     // between the two bursts
  double timeout_s = 20;        // the whole run; followers are killed after it
};

// Follower k's injected clock: local = host + offset + drift * (host - epoch).
struct InjectedClock {
  double offset_ns = 0;
  double drift_ppm = 0;
};
[[nodiscard]] InjectedClock injected_clock(const SyncRunOptions& options, int follower);

struct FollowerReport {
  int id = 0;  // 1..procs-1
  bool ok = false;
  std::string error;
  SyncEstimate estimate;
  InjectedClock injected;
  double true_offset_ns = 0;  // at estimate.ref_local_ns (follower - master)
  [[nodiscard]] double error_ns() const { return estimate.offset_ns - true_offset_ns; }
  [[nodiscard]] bool within_bound() const;
};

struct SyncRunReport {
  SyncTransport transport = SyncTransport::Shm;
  std::string clock;  // the host clock every process reads
  std::vector<FollowerReport> followers;
  std::string error;  // set when the run itself failed (no followers' results)
  [[nodiscard]] bool ok() const;
};

// Runs it. Never throws for run-time trouble (fork, sockets, a follower that hangs): the report
// says what failed. Throws std::invalid_argument for options out of range.
[[nodiscard]] SyncRunReport run_clock_sync(const SyncRunOptions& options);

}  // namespace ncp2::timing
