// Slow (ctest label "slow"): the workloads' paper presets verify on 8 nodes on both machines, and
// run faster in virtual time than on one node.
#include <string>

#include <gtest/gtest.h>

#include "run/runner.hpp"
#include "workloads/registry.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

class PaperPreset : public ::testing::TestWithParam<std::string> {};

TEST_P(PaperPreset, VerifiesOnEightNodesAndBeatsOneNode) {
  const Workload& w = find_workload(GetParam());
  const Params params = w.resolve("paper", {});
  for (const auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    dsm::SystemConfig config = dsm::default_config(kind);
    config.machine.nodes = 8;
    const RunOutcome eight = run_workload(config, w, params, 1);
    ASSERT_TRUE(eight.ok()) << eight.diagnosis << eight.verification;
    config.machine.nodes = 1;
    const RunOutcome one = run_workload(config, w, params, 1);
    ASSERT_TRUE(one.ok()) << one.diagnosis << one.verification;
    EXPECT_LT(eight.timed_end, one.timed_end) << emu::to_string(kind);
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, PaperPreset,
                         ::testing::Values("sor", "jacobi", "matmul", "gauss", "lu", "fft3d"));
INSTANTIATE_TEST_SUITE_P(Tasks, PaperPreset, ::testing::Values("tsp", "quicksort", "water", "is", "barnes"));

}  // namespace
}  // namespace ncp2::workloads
