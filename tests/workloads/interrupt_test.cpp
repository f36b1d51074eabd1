// Interrupting a run (SIGINT/SIGTERM set the stop flag) stops every workload cleanly at any
// moment — inside a critical section, a barrier, a fault — with the partial profile kept (issue
// 17 item 6: a run stopped while a node held a lock used to crash in the lock guard's release).
#include <atomic>
#include <string>

#include <gtest/gtest.h>

#include "run/runner.hpp"
#include "tests/workloads/custom_workload.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

using testing::machine;

// Runs `w` and raises the stop flag at the kernel's `polls`-th poll (every 1024 events): a
// deterministic moment of the run.
RunOutcome stopped_at(const Workload& w, emu::MachineKind kind, int polls) {
  std::atomic<bool> stop{false};
  int seen = 0;
  RunOptions o;
  o.profile = true;
  o.stop_flag = &stop;
  o.progress_interval = std::chrono::milliseconds(0);
  o.progress = [&](const RunProgress&) {
    if (++seen == polls) stop = true;
  };
  return run_workload(machine(kind, 4), w, w.defaults(), 1, o);
}

TEST(Interrupt, EveryWorkloadStopsCleanlyAtSeveralMoments) {
  for (const Workload& w : all_workloads()) {
    for (auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
      for (const int polls : {1, 2, 5, 17}) {
        const RunOutcome o = stopped_at(w, kind, polls);
        const std::string what =
            w.name + " on " + std::string(emu::to_string(kind)) + " stopped at poll " + std::to_string(polls);
        ASSERT_TRUE(o.status == RunStatus::Stopped || o.status == RunStatus::Completed)
            << what << ": " << to_string(o.status) << ": " << o.diagnosis;
        if (o.status == RunStatus::Completed) {  // finished before that poll
          EXPECT_TRUE(o.ok()) << what << ": " << o.verification;
          continue;
        }
        EXPECT_FALSE(o.verified) << what;
        ASSERT_TRUE(o.profile.has_value()) << what << ": the partial profile is kept";
        EXPECT_FALSE(o.profile->profile.empty()) << what;
      }
    }
  }
}

TEST(Interrupt, AStopInsideACriticalSectionDoesNotReleaseTheLockOnAMachineThatIsGone) {
  std::atomic<bool> stop{false};
  const Workload w = testing::custom(
      [&stop](dsm::Process& p, testing::Lambdas& self) {
        self.array = p.alloc<std::int64_t>("a", 16);
        for (int i = 0; i < 100000; ++i) {
          const auto guard = p.lock(1U);
          if (i == 50 && p.id() == 1) stop = true;  // while node 1 holds the lock
          p.compute(emu::microseconds(1));
        }
      },
      [](dsm::Process&, testing::Lambdas& self) { self.set(true, "unreachable"); });
  RunOptions o;
  o.stop_flag = &stop;
  const RunOutcome out = run_workload(machine(emu::MachineKind::Ncp2, 3), w, w.defaults(), 1, o);
  EXPECT_EQ(out.status, RunStatus::Stopped) << out.diagnosis;
}

}  // namespace
}  // namespace ncp2::workloads
