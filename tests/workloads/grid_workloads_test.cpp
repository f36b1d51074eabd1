// The numerical workloads (sor, jacobi, matmul, gauss, lu, fft3d): parameter validation, their
// synchronization laws, determinism, SOR's zero vs non-zero interior traffic, and the presets.
// (tests/workloads/verify_test.cpp already verifies every small preset at 1, 2, 3, 4 and 8 nodes.)
#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run/runner.hpp"
#include "workloads/registry.hpp"
#include "workloads/sor.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

constexpr std::array kBoth = {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks};
constexpr std::array kMine = {"sor", "jacobi", "matmul", "gauss", "lu", "fft3d"};

dsm::SystemConfig machine(emu::MachineKind kind, int nodes) {
  dsm::SystemConfig c = dsm::default_config(kind);
  c.machine.nodes = nodes;
  return c;
}

RunOutcome run(const std::string& name, emu::MachineKind kind, int nodes,
               std::vector<std::string> assignments = {}, std::uint64_t seed = 1) {
  const Workload& w = find_workload(name);
  return run_workload(machine(kind, nodes), w, w.resolve("small", assignments), seed);
}

// The WorkloadError message of checking `assignments` over the small preset at `nodes`.
std::string rejection(const std::string& name, std::vector<std::string> assignments, int nodes) {
  const Workload& w = find_workload(name);
  try {
    w.check(w.resolve("small", assignments), nodes);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(GridWorkloads, ImpossibleParametersAreRejectedWithTheReason) {
  EXPECT_NE(rejection("sor", {"rows=9"}, 8).find("at least one interior row per node"), std::string::npos);
  EXPECT_EQ(rejection("sor", {"rows=10"}, 8), "");
  EXPECT_NE(rejection("sor", {"interior=half"}, 2).find("interior"), std::string::npos);
  EXPECT_NE(rejection("sor", {"rows=2"}, 1).find("rows"), std::string::npos);
  EXPECT_NE(rejection("sor", {"rows=65536", "cols=65536"}, 1).find("too large"), std::string::npos);
  EXPECT_NE(rejection("jacobi", {"rows=5"}, 4).find("at least one interior row per node"), std::string::npos);
  EXPECT_NE(rejection("matmul", {"n=0"}, 1).find("'n'"), std::string::npos);
  EXPECT_NE(rejection("matmul", {"n=7"}, 8).find("at least one row of C per node"), std::string::npos);
  EXPECT_NE(rejection("gauss", {"n=3"}, 4).find("at least one row per node"), std::string::npos);
  EXPECT_NE(rejection("lu", {"n=100", "block=16"}, 1).find("multiple of block"), std::string::npos);
  EXPECT_NE(rejection("lu", {"n=16", "block=8"}, 8).find("at least one block per node"), std::string::npos);
  EXPECT_EQ(rejection("lu", {"n=16", "block=8"}, 4), "");
  EXPECT_NE(rejection("fft3d", {"nx=12"}, 1).find("power-of-two"), std::string::npos);
  EXPECT_NE(rejection("fft3d", {"nz=4"}, 8).find("z-plane per node"), std::string::npos);
  EXPECT_NE(rejection("fft3d", {"ny=4"}, 8).find("y value per node"), std::string::npos);
}

TEST(GridWorkloads, ARejectedRunIsInvalidNotACrash) {
  const RunOutcome o = run("gauss", emu::MachineKind::Ncp2, 4, {"n=2"});
  EXPECT_EQ(o.status, RunStatus::Invalid);
  EXPECT_NE(o.diagnosis.find("at least one row per node"), std::string::npos);
}

// Barrier episodes, the exit barrier included, follow from each algorithm's structure.
TEST(GridWorkloads, BarrierEpisodesFollowTheAlgorithm) {
  for (const auto kind : kBoth) {
    EXPECT_EQ(run("sor", kind, 3, {"iterations=3"}).barrier_episodes, 1u + 2 * 3 + 1);
    EXPECT_EQ(run("jacobi", kind, 3, {"iterations=5"}).barrier_episodes, 1u + 2 * 5 + 1);
    EXPECT_EQ(run("matmul", kind, 3).barrier_episodes, 2u);
    EXPECT_EQ(run("gauss", kind, 3, {"n=20"}).barrier_episodes, 2u * 20 + 1);
    EXPECT_EQ(run("lu", kind, 3, {"n=48", "block=8"}).barrier_episodes, 1u + 3 * 6 + 1);
    EXPECT_EQ(run("fft3d", kind, 3, {"iterations=3"}).barrier_episodes, 1u + 2 * 3 - 1 + 1);
  }
}

TEST(GridWorkloads, SameSeedSameRunAnotherSeedStillVerifies) {
  for (const char* name : kMine) {
    const RunOutcome a = run(name, emu::MachineKind::Ncp2, 4, {}, 7);
    const RunOutcome b = run(name, emu::MachineKind::Ncp2, 4, {}, 7);
    ASSERT_TRUE(a.ok() && b.ok()) << name << ": " << a.verification << b.diagnosis;
    EXPECT_EQ(a.timed_end, b.timed_end) << name;
    EXPECT_EQ(a.events, b.events) << name;
    EXPECT_EQ(a.totals().bytes, b.totals().bytes) << name;
    const RunOutcome c = run(name, emu::MachineKind::TreadMarks, 4, {}, 8);
    EXPECT_TRUE(c.ok()) << name << ": " << c.verification << c.diagnosis;
  }
}

// SC'95: with a zero interior most points keep their value, so the diffs carry few words; with a
// non-zero interior every point of a boundary row changes every iteration.
TEST(GridWorkloads, SorZeroInteriorSendsFewerBytesThanNonZero) {
  for (const auto kind : kBoth) {
    const RunOutcome zero = run("sor", kind, 4, {"interior=zero", "iterations=6"});
    const RunOutcome nonzero = run("sor", kind, 4, {"interior=nonzero", "iterations=6"});
    ASSERT_TRUE(zero.ok() && nonzero.ok()) << zero.verification << nonzero.verification;
    EXPECT_EQ(zero.barrier_episodes, nonzero.barrier_episodes);
    EXPECT_LT(zero.totals().bytes, nonzero.totals().bytes) << emu::to_string(kind);
    EXPECT_GT(nonzero.totals().diff_requests, 0u);
  }
}

// A band of rows per node: the more nodes, the less computation each, so a compute-bound grid
// gets faster (virtual time) from 1 to 4 nodes.
TEST(GridWorkloads, SorAndJacobiSpeedUpWithNodes) {
  for (const char* name : {"sor", "jacobi"}) {
    for (const auto kind : kBoth) {
      const std::vector<std::string> big = {"rows=258", "cols=256", "iterations=12"};
      const RunOutcome one = run(name, kind, 1, big);
      const RunOutcome four = run(name, kind, 4, big);
      ASSERT_TRUE(one.ok() && four.ok());
      EXPECT_LT(four.timed_end - emu::kTimeZero, (one.timed_end - emu::kTimeZero) / 2) << name;
    }
  }
}

// The split red/black layout computes exactly the textbook red-black SOR on the natural grid.
TEST(GridWorkloads, SorMatchesATextbookRedBlackSweepOnTheNaturalGrid) {
  for (const bool zero : {false, true}) {
    const SorProblem problem{.rows = 11, .cols = 14, .iterations = 5, .zero_interior = zero, .omega = 1.25F};
    std::vector<float> g(problem.rows * problem.cols);
    for (std::size_t r = 0; r < problem.rows; ++r)
      for (std::size_t c = 0; c < problem.cols; ++c) g[r * problem.cols + c] = sor_initial(problem, 1, r, c);
    const float keep = 1.0F - problem.omega;
    const float quarter_omega = 0.25F * problem.omega;
    const std::size_t n = problem.cols;
    for (std::int64_t it = 0; it < problem.iterations; ++it)
      for (std::size_t color = 0; color < 2; ++color)
        for (std::size_t r = 1; r + 1 < problem.rows; ++r)
          for (std::size_t c = 1; c + 1 < n; ++c)
            if ((r + c) % 2 == color)
              g[r * n + c] =
                  keep * g[r * n + c] + quarter_omega * ((g[(r - 1) * n + c] + g[(r + 1) * n + c]) +
                                                         (g[r * n + c - 1] + g[r * n + c + 1]));
    EXPECT_EQ(sor_sequential(problem, 1), g) << (zero ? "zero" : "nonzero");
  }
}

TEST(GridWorkloads, SorNeedsAnEvenNumberOfColumns) {
  EXPECT_NE(rejection("sor", {"cols=129"}, 1).find("even number of columns"), std::string::npos);
}

// The zero interior stays zero far from the edges after a few iterations.
TEST(GridWorkloads, SorZeroInteriorChangesOnlyNearTheEdges) {
  const SorProblem problem{.rows = 40, .cols = 40, .iterations = 3, .zero_interior = true, .omega = 1.25F};
  const std::vector<float> grid = sor_sequential(problem, 1);
  EXPECT_EQ(grid[20 * 40 + 20], 0.0F);
  EXPECT_GT(grid[1 * 40 + 20], 0.0F);
  EXPECT_EQ(grid[0], 1.0F);
}

// Gauss's rows are cyclic over the nodes: packed rows put two writers on every page, padded rows
// one, so only the packed layout fetches diffs for the rows a node eliminates.
TEST(GridWorkloads, GaussPaddedRowsAvoidFalseSharing) {
  for (const auto kind : kBoth) {
    const RunOutcome padded = run("gauss", kind, 4, {"pad_rows=true"});
    const RunOutcome packed = run("gauss", kind, 4, {"pad_rows=false"});
    ASSERT_TRUE(padded.ok() && packed.ok()) << padded.verification << packed.verification;
    EXPECT_LT(padded.totals().diff_requests * 2, packed.totals().diff_requests) << emu::to_string(kind);
  }
}

TEST(GridWorkloads, PaperPresetsAreLargerThanSmallOnes) {
  for (const char* name : kMine) {
    const Workload& w = find_workload(name);
    const Params small = w.resolve("small", {});
    const Params paper = w.resolve("paper", {});
    double small_size = 1, paper_size = 1;
    for (const auto& spec : w.parameters) {
      if (spec.type != ParamType::Int) continue;
      small_size *= static_cast<double>(small.integer(spec.name));
      paper_size *= static_cast<double>(paper.integer(spec.name));
    }
    EXPECT_GT(paper_size, 4 * small_size) << name;
    EXPECT_NO_THROW(w.check(paper, 8)) << name;
    EXPECT_NO_THROW(w.check(paper, 16)) << name;
  }
}

}  // namespace
}  // namespace ncp2::workloads
