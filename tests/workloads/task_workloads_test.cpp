// The task-queue and lock-based workloads (tsp, quicksort, water, is, barnes): parameter errors,
// deterministic runs, the lock traffic their sharing pattern implies, and what pins each algorithm
// (TSP's optimum against brute force, ...). Every workload's small preset is also verified at
// 1, 2, 3, 4 and 8 nodes on both machines by verify_test.cpp.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "run/runner.hpp"
#include "workloads/registry.hpp"
#include "workloads/tsp.hpp"

namespace ncp2::workloads {
namespace {

using namespace ncp2::run;  // the workloads run through the run pipeline (run/)

using Strings = std::vector<std::string>;
constexpr std::array kBoth = {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks};

dsm::SystemConfig machine(emu::MachineKind kind, int nodes) {
  dsm::SystemConfig c = dsm::default_config(kind);
  c.machine.nodes = nodes;
  return c;
}

RunOutcome run(const std::string& name, emu::MachineKind kind, int nodes, const Strings& assignments = {},
               std::uint64_t seed = 1, const std::string& preset = "small") {
  const Workload& w = find_workload(name);
  return run_workload(machine(kind, nodes), w, w.resolve(preset, assignments), seed);
}

// The message of the WorkloadError that checking `assignments` for `nodes` throws ("" if none).
std::string check_error(const std::string& name, const Strings& assignments, int nodes) {
  const Workload& w = find_workload(name);
  try {
    w.check(w.resolve("small", assignments), nodes);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

// Same seed, same machine: the same virtual time, events, traffic and verdict.
void expect_deterministic(const std::string& name, int nodes, const Strings& assignments = {}) {
  for (auto kind : kBoth) {
    const RunOutcome a = run(name, kind, nodes, assignments, 5);
    const RunOutcome b = run(name, kind, nodes, assignments, 5);
    ASSERT_TRUE(a.ok()) << name << ": " << a.diagnosis << a.verification;
    ASSERT_TRUE(b.ok()) << name << ": " << b.diagnosis << b.verification;
    EXPECT_EQ(a.timed_end, b.timed_end) << name;
    EXPECT_EQ(a.events, b.events) << name;
    EXPECT_EQ(a.totals().bytes, b.totals().bytes) << name;
    EXPECT_EQ(a.totals().lock_acquires, b.totals().lock_acquires) << name;
    EXPECT_EQ(a.verification, b.verification) << name;
  }
}

// Lock acquires that needed messages: requests and forwards were sent, grants came back.
void expect_remote_locking(const RunOutcome& o) {
  const dsm::NodeStats t = o.totals();
  EXPECT_GT(t.lock_acquires, t.local_lock_acquires);
  EXPECT_GT(t.messages_by_purpose[dsm::kLockGrant], 0u);
  EXPECT_GT(t.messages_by_purpose[dsm::kLockRequest] + t.messages_by_purpose[dsm::kLockForward], 0u);
}

// ---------------------------------------------------------------------------------------------
// tsp

// Every tour from city 0, by enumerating the permutations of the other cities.
std::int64_t brute_force_tour(const tsp::Instance& instance) {
  std::vector<int> order(static_cast<std::size_t>(instance.cities - 1));
  std::iota(order.begin(), order.end(), 1);
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  do {
    std::int64_t length = instance.d(0, order.front()) + instance.d(order.back(), 0);
    for (std::size_t i = 0; i + 1 < order.size(); ++i) length += instance.d(order[i], order[i + 1]);
    best = std::min(best, length);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(Tsp, HeldKarpAgreesWithBruteForceOnTinyInstances) {
  for (int cities = 3; cities <= 8; ++cities)
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const tsp::Instance instance = tsp::make_instance(cities, seed);
      EXPECT_EQ(tsp::optimal_tour_length(instance), brute_force_tour(instance))
          << cities << " cities, seed " << seed;
    }
}

TEST(Tsp, InstanceIsSymmetricAndSeeded) {
  const tsp::Instance a = tsp::make_instance(9, 3);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(a.d(i, i), 0);
    for (int j = 0; j < 9; ++j) EXPECT_EQ(a.d(i, j), a.d(j, i));
  }
  EXPECT_EQ(a.distance, tsp::make_instance(9, 3).distance);
  EXPECT_NE(a.distance, tsp::make_instance(9, 4).distance);
}

TEST(Tsp, BranchAndBoundFindsTheBruteForceOptimum) {
  for (auto kind : kBoth)
    for (int nodes : {1, 3, 4})
      for (std::uint64_t seed : {2u, 9u}) {
        const std::int64_t optimum = brute_force_tour(tsp::make_instance(8, seed));
        const RunOutcome o = run("tsp", kind, nodes, {"cities=8", "threshold=4"}, seed);
        ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
        EXPECT_NE(o.verification.find(fmt::format("optimal tour length {} ", optimum)), std::string::npos)
            << o.verification << " (brute force: " << optimum << ")";
      }
}

TEST(Tsp, QueueAndBoundLocksTravel) {
  for (auto kind : kBoth) {
    const RunOutcome o = run("tsp", kind, 4);
    ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
    expect_remote_locking(o);
    EXPECT_EQ(o.barrier_episodes, 2u);  // after the initialization, and the exit barrier
    // Every node takes at least one tour (or finds the queue empty) under the queue lock.
    for (const auto& s : o.node_stats) EXPECT_GT(s.lock_acquires, 0u);
  }
}

TEST(Tsp, Deterministic) { expect_deterministic("tsp", 4); }

TEST(Tsp, ParameterErrors) {
  EXPECT_EQ(check_error("tsp", {"cities=21"}, 4), "parameter 'cities' must be at most 20, got 21");
  EXPECT_EQ(check_error("tsp", {"cities=0"}, 4), "parameter 'cities' must be at least 3, got 0");
  EXPECT_EQ(check_error("tsp", {"pool=0"}, 4), "parameter 'pool' must be at least 1, got 0");
  EXPECT_EQ(check_error("tsp", {"cities=9", "threshold=9"}, 4),
            "tsp: threshold=9 must be below cities=9 (otherwise the root tour is solved by one node alone)");
  EXPECT_EQ(check_error("tsp", {}, 8), "");
}

TEST(Tsp, TinyPoolSolvesTheOverflowLocally) {
  // One pool slot: almost every child overflows and is solved by the node that expanded it.
  for (auto kind : kBoth) {
    const RunOutcome o = run("tsp", kind, 3, {"pool=1"});
    ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
  }
}

// ---------------------------------------------------------------------------------------------
// quicksort

TEST(QuickSort, SortsWithManyDuplicatesAndOddSizes) {
  // Few distinct values stress the partition's handling of keys equal to the pivot.
  for (auto kind : kBoth)
    for (const Strings& a :
         {Strings{"range=3"}, Strings{"range=1"}, Strings{"n=1"}, Strings{"n=2", "threshold=2"},
          Strings{"n=1000", "threshold=2"}, Strings{"n=1500", "threshold=1500"}}) {
      const RunOutcome o = run("quicksort", kind, 3, a);
      ASSERT_TRUE(o.ok()) << a.front() << ": " << o.diagnosis << o.verification;
    }
}

TEST(QuickSort, ThresholdAboveNBubbleSortsTheWholeArrayInOneTask) {
  // One node: the only task is taken, bubble-sorted, then the empty queue with n placed ends it.
  const RunOutcome o = run("quicksort", emu::MachineKind::Ncp2, 1, {"n=500", "threshold=500"});
  ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
  EXPECT_EQ(o.totals().lock_acquires, 2u);
  // Smaller threshold: more partitions, so more tasks given and taken under the queue lock.
  const RunOutcome split = run("quicksort", emu::MachineKind::Ncp2, 1, {"n=500", "threshold=50"});
  ASSERT_TRUE(split.ok()) << split.diagnosis << split.verification;
  EXPECT_GT(split.totals().lock_acquires, 2u);
  EXPECT_LT(split.timed_end, o.timed_end);  // bubble sort is quadratic: partitioning first pays
}

TEST(QuickSort, QueueLockTravelsAndPagesAreShared) {
  for (auto kind : kBoth) {
    const RunOutcome o = run("quicksort", kind, 4);
    ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
    expect_remote_locking(o);
    EXPECT_GT(o.totals().diffs_applied, 0u);  // pieces written by one node, sorted by another
    EXPECT_EQ(o.barrier_episodes, 2u);
  }
}

TEST(QuickSort, Deterministic) { expect_deterministic("quicksort", 4); }

TEST(QuickSort, ParameterErrors) {
  EXPECT_EQ(check_error("quicksort", {"n=0"}, 4), "parameter 'n' must be at least 1, got 0");
  EXPECT_EQ(check_error("quicksort", {"threshold=1"}, 4), "parameter 'threshold' must be at least 2, got 1");
  EXPECT_EQ(check_error("quicksort", {"range=-1"}, 4), "parameter 'range' must be at least 0, got -1");
  EXPECT_EQ(check_error("quicksort", {"backoff_us=0"}, 4),
            "parameter 'backoff_us' must be at least 0.1, got 0");
  EXPECT_EQ(check_error("quicksort", {}, 8), "");
}

// ---------------------------------------------------------------------------------------------
// water

TEST(Water, TwoBarriersPerStepAndOneLockPerTouchedMolecule) {
  for (auto kind : kBoth) {
    // One node touches every molecule once per step, plus the energy lock.
    const RunOutcome one = run("water", kind, 1, {"molecules=20", "steps=3"});
    ASSERT_TRUE(one.ok()) << one.diagnosis << one.verification;
    EXPECT_EQ(one.barrier_episodes, 2u * 3 + 1);
    EXPECT_EQ(one.totals().lock_acquires, 3u * (20 + 1));
    // Four nodes of 5 molecules: each touches its 5 and the n/2 = 10 that follow, plus the energy
    // lock; but the opposite pair (offset n/2) is the lower molecule's, so the nodes of the upper
    // half reach one molecule less.
    const RunOutcome four = run("water", kind, 4, {"molecules=20", "steps=3"});
    ASSERT_TRUE(four.ok()) << four.diagnosis << four.verification;
    EXPECT_EQ(four.barrier_episodes, 2u * 3 + 1);
    for (std::size_t node = 0; node < 4; ++node)
      EXPECT_EQ(four.node_stats[node].lock_acquires, 3u * (5 + (node < 2 ? 10 : 9) + 1)) << "node " << node;
    expect_remote_locking(four);
  }
}

TEST(Water, OddAndTinySystemsVerify) {
  for (auto kind : kBoth)
    for (const Strings& a : {Strings{"molecules=1"}, Strings{"molecules=2"},
                             Strings{"molecules=7", "steps=4"}, Strings{"molecules=33", "dt_fs=1.5"}}) {
      const int nodes = a.front() == "molecules=1" ? 1 : 2;
      const RunOutcome o = run("water", kind, nodes, a);
      ASSERT_TRUE(o.ok()) << a.front() << ": " << o.diagnosis << o.verification;
    }
}

TEST(Water, Deterministic) { expect_deterministic("water", 3); }

TEST(Water, ParameterErrors) {
  EXPECT_EQ(check_error("water", {"molecules=7"}, 8),
            "water needs at least one molecule per node: molecules=7 < nodes=8");
  EXPECT_EQ(check_error("water", {"molecules=0"}, 1), "parameter 'molecules' must be at least 1, got 0");
  EXPECT_EQ(check_error("water", {"steps=0"}, 1), "parameter 'steps' must be at least 1, got 0");
  EXPECT_EQ(check_error("water", {"dt_fs=5"}, 1), "parameter 'dt_fs' must be at most 2, got 5");
  EXPECT_EQ(check_error("water", {}, 8), "");
}

// ---------------------------------------------------------------------------------------------
// is

TEST(IntegerSort, BarriersAndLocksOfEachMerge) {
  for (auto kind : kBoth) {
    // lock: every node takes every chunk's lock once per iteration; one barrier per iteration.
    const RunOutcome locked = run("is", kind, 4, {"iterations=3"});
    ASSERT_TRUE(locked.ok()) << locked.diagnosis << locked.verification;
    EXPECT_EQ(locked.barrier_episodes, 3u + 1);
    for (const auto& s : locked.node_stats) EXPECT_EQ(s.lock_acquires, 3u * 4);
    expect_remote_locking(locked);
    // phased: no lock, two barriers per iteration.
    const RunOutcome phased = run("is", kind, 4, {"iterations=3", "histogram=phased"});
    ASSERT_TRUE(phased.ok()) << phased.diagnosis << phased.verification;
    EXPECT_EQ(phased.barrier_episodes, 2u * 3 + 1);
    EXPECT_EQ(phased.totals().lock_acquires, 0u);
  }
}

TEST(IntegerSort, EdgeSizesVerify) {
  // One key per node, one bucket per node, the smallest legal key counts; both merges.
  for (auto kind : kBoth)
    for (const char* merge : {"histogram=lock", "histogram=phased"})
      for (const Strings& a :
           {Strings{"keys=8", "max_key=8", "iterations=3"}, Strings{"keys=3", "max_key=2", "iterations=1"},
            Strings{"keys=1000", "max_key=3", "iterations=2"}}) {
        Strings with = a;
        with.emplace_back(merge);
        const int nodes = a.front() == "keys=8" ? 8 : a.front() == "keys=3" ? 2 : 3;
        const RunOutcome o = run("is", kind, nodes, with);
        ASSERT_TRUE(o.ok()) << a.front() << " " << merge << ": " << o.diagnosis << o.verification;
      }
}

TEST(IntegerSort, Deterministic) {
  expect_deterministic("is", 3);
  expect_deterministic("is", 3, {"histogram=phased"});
}

TEST(IntegerSort, ParameterErrors) {
  EXPECT_EQ(check_error("is", {"keys=7"}, 8), "is needs at least one key per node: keys=7 < nodes=8");
  EXPECT_EQ(check_error("is", {"max_key=4"}, 8),
            "is needs at least one bucket per node (a histogram chunk each): max_key=4 < nodes=8");
  EXPECT_EQ(
      check_error("is", {"keys=8", "iterations=4"}, 2),
      "is changes keys 1..iterations and iterations+1..2 x iterations: keys=8 must exceed 2 x iterations=8");
  EXPECT_EQ(check_error("is", {"max_key=4", "iterations=4"}, 2),
            "is sets a key to max_key - iteration: max_key=4 must exceed iterations=4");
  EXPECT_EQ(check_error("is", {"histogram=atomic"}, 2),
            "parameter 'histogram' must be one of lock, phased, got 'atomic'");
  EXPECT_EQ(check_error("is", {"keys=0"}, 1), "parameter 'keys' must be at least 1, got 0");
  EXPECT_EQ(check_error("is", {}, 8), "");
}

// ---------------------------------------------------------------------------------------------
// barnes

TEST(Barnes, OneBarrierPerStepNoLocksAndPositionsTravel) {
  for (auto kind : kBoth) {
    const RunOutcome o = run("barnes", kind, 4, {"steps=3"});
    ASSERT_TRUE(o.ok()) << o.diagnosis << o.verification;
    EXPECT_EQ(o.barrier_episodes, 1u + 3 + 1);  // after the initialization, one per step, the exit
    EXPECT_EQ(o.totals().lock_acquires, 0u);
    // Every node reads every body's position each step: pages written by the others move to it.
    for (const auto& s : o.node_stats) EXPECT_GT(s.page_faults, 0u);
  }
}

TEST(Barnes, ExactAtAnyNodeCountAndThetaZeroIsDirectSummation) {
  // theta = 0 opens every cell: the tree walk is a direct sum (the message reports a ~0 error).
  for (auto kind : kBoth)
    for (const Strings& a :
         {Strings{"theta=0", "bodies=40"}, Strings{"bodies=2"}, Strings{"bodies=37", "theta=1"}}) {
      const RunOutcome o = run("barnes", kind, 2, a);
      ASSERT_TRUE(o.ok()) << a.front() << ": " << o.diagnosis << o.verification;
    }
  const RunOutcome direct = run("barnes", emu::MachineKind::Ncp2, 3, {"theta=0", "bodies=40"});
  ASSERT_TRUE(direct.ok()) << direct.verification;
  const auto at = direct.verification.find("accelerations within ");
  ASSERT_NE(at, std::string::npos) << direct.verification;
  EXPECT_LT(std::stod(direct.verification.substr(at + 21)), 1e-12) << direct.verification;
}

TEST(Barnes, Deterministic) {
  expect_deterministic("barnes", 3);
  expect_deterministic("barnes", 3, {"tree=shared"});
}

// tree=shared: the octree built in shared memory under cell locks gives exactly the sequential run
// (its shape does not depend on the insertion order, mass centres sum in octant order); the
// replicated tree takes no lock.
TEST(Barnes, SharedTreeExactOnAnyNodeCountAndTakesLocks) {
  for (auto kind : kBoth) {
    for (const int nodes : {1, 2, 4, 8}) {
      const RunOutcome o = run("barnes", kind, nodes, {"tree=shared"});
      ASSERT_TRUE(o.ok()) << nodes << " nodes: " << o.diagnosis << o.verification;
      EXPECT_NE(o.verification.find("identical to the sequential run"), std::string::npos) << o.verification;
      EXPECT_GT(o.totals().lock_acquires, 0u) << nodes << " nodes";
      EXPECT_EQ(o.barrier_episodes, 1u + 3 * 2 + 1) << nodes << " nodes";  // the small preset: 2 steps
      if (nodes > 1) expect_remote_locking(o);
    }
    const RunOutcome replicated = run("barnes", kind, 4, {"tree=replicated"});
    ASSERT_TRUE(replicated.ok()) << replicated.diagnosis << replicated.verification;
    EXPECT_EQ(replicated.totals().lock_acquires, 0u);
  }
  // Small trees too, and theta = 0 (every cell opened).
  for (const Strings& a :
       {Strings{"tree=shared", "bodies=2"}, Strings{"tree=shared", "bodies=37", "theta=0"}}) {
    const RunOutcome o = run("barnes", emu::MachineKind::TreadMarks, 2, a);
    ASSERT_TRUE(o.ok()) << a.back() << ": " << o.diagnosis << o.verification;
  }
}

TEST(Barnes, ParameterErrors) {
  EXPECT_EQ(check_error("barnes", {"bodies=7"}, 8),
            "barnes needs at least one body per node: bodies=7 < nodes=8");
  EXPECT_EQ(check_error("barnes", {"bodies=1"}, 1), "parameter 'bodies' must be at least 2, got 1");
  EXPECT_EQ(check_error("barnes", {"theta=1.5"}, 1), "parameter 'theta' must be at most 1, got 1.5");
  EXPECT_EQ(check_error("barnes", {"steps=0"}, 1), "parameter 'steps' must be at least 1, got 0");
  EXPECT_EQ(check_error("barnes", {"tree=private"}, 1),
            "parameter 'tree' must be one of replicated, shared, got 'private'");
  EXPECT_EQ(check_error("barnes", {}, 8), "");
}

}  // namespace
}  // namespace ncp2::workloads
