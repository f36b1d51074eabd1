// Stale spans through the runner (RunOptions::check_spans, the tests' NCP2_CHECK_SPANS): a run
// that uses a span after a barrier ends in error with the line of the use; unchecked, the same
// run silently reads the value from before the barrier.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "run/runner.hpp"
#include "tests/workloads/custom_workload.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

using testing::custom;
using testing::Lambdas;
using testing::machine;

int g_use_line = 0;
int g_seen = -1;  // what node 1 read through its stale span

// Node 1 takes a span of element 0, node 0 then writes the element, and after the barriers node 1
// reads the span again (its validity ended at barrier 1, its page was invalidated at barrier 2).
Workload stale_reader() {
  return custom(
      [](dsm::Process& p, Lambdas& self) {
        self.array = p.alloc<std::int64_t>("values", 1024);
        auto v = p.view(self.array);
        p.barrier(0);
        const std::span<const std::int64_t> before = v.read_span(0, 8);
        p.barrier(1);
        if (p.id() == 0) v.set(0, 42);
        p.barrier(2);
        if (p.id() == 1) {
          g_use_line = __LINE__ + 1;
          g_seen = static_cast<int>(before[0]);
        }
      },
      [](dsm::Process&, Lambdas& self) { self.set(true, "fine"); });
}

TEST(StaleSpanRuns, ACheckedRunEndsInErrorNamingTheLine) {
  RunOptions checked;
  checked.check_spans = true;
  const Workload w = stale_reader();
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 2), w, w.defaults(), 1, checked);
  EXPECT_EQ(o.status, RunStatus::Error);
  EXPECT_NE(
      o.diagnosis.find("node 1 read element 0 of 'values' through a span that barrier 1 invalidated, at "),
      std::string::npos)
      << o.diagnosis;
  EXPECT_NE(
      o.diagnosis.find("stale_span_run_test.cpp:" + std::to_string(g_use_line) + " (the span was taken at "),
      std::string::npos)
      << o.diagnosis;
}

TEST(StaleSpanRuns, UncheckedAStaleSpanReadsTheValueFromBeforeTheBarrier) {
  const char* before = std::getenv("NCP2_CHECK_SPANS");
  const std::string saved = before != nullptr ? before : "";
  ::unsetenv("NCP2_CHECK_SPANS");
  const Workload w = stale_reader();
  g_seen = -1;
  const RunOutcome o = run_workload(machine(emu::MachineKind::Ncp2, 2), w, w.defaults(), 1);
  if (before != nullptr) ::setenv("NCP2_CHECK_SPANS", saved.c_str(), 1);
  EXPECT_TRUE(o.ok()) << o.diagnosis;
  EXPECT_EQ(g_seen, 0);  // node 0 wrote 42 before the barrier: the page was invalidated, not refetched
}

}  // namespace
}  // namespace ncp2::workloads
