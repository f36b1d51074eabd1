// The emulated SMP node: exact solo runs, saturation, determinism, IABW, refusals.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "scheduling/experiment.hpp"
#include "scheduling/node.hpp"

namespace ncp2::sched {
namespace {

const Policy kNative{PolicyKind::Native, Reference::Fitted};
const Policy kLatest{PolicyKind::LatestQuantum, Reference::Fitted};

DemandTrace steady(const std::string& name, double demand, int steps, int threads = 1) {
  DemandTrace t;
  t.name = name;
  t.threads = threads;
  t.step = emu::milliseconds(10);
  t.demand.assign(steps, Bandwidth(demand));
  return t;
}

TEST(Node, AJobAloneRunsInItsSoloTime) {
  const auto run = run_node({steady("alone", 20, 50)}, kNative, NodeOptions{});
  ASSERT_EQ(run.jobs.size(), 1U);
  EXPECT_EQ(run.jobs[0].turnaround, emu::milliseconds(500));
  for (const auto& s : run.bus) EXPECT_NEAR(s.served.per_us(), 20, 1e-9);
}

TEST(Node, TwoSaturatingJobsShareTheBus) {
  // Two single-thread jobs that only transfer (thread peak 29.5: one alone draws what the queue
  // lets it) on two processors: they share the bus equally, serve less than B together, and each
  // takes much longer than alone.
  NodeOptions o;
  o.processors = 2;
  o.peak_per_thread = Bandwidth(29.5);
  const double solo = ContentionModel(o.capacity, o.peak_per_thread, o.queueing).bus_bound_solo(1).per_us();
  const auto run = run_node({steady("a", solo, 30), steady("b", solo, 30)}, kNative, o);
  EXPECT_EQ(run.jobs[0].turnaround, run.jobs[1].turnaround);
  EXPECT_GT(to_seconds(run.jobs[0].turnaround), 0.3 * 1.5);
  for (const auto& s : run.bus) {
    EXPECT_LT(s.served.per_us(), 29.5);
    EXPECT_GT(s.served.per_us(), 0.9 * 29.5);
  }
}

TEST(Node, TimeSharingOneProcessorAddsTheSoloTimes) {
  NodeOptions o;
  o.processors = 1;
  const auto run = run_node({steady("a", 1, 100), steady("b", 1, 100)}, kNative, o);
  const Duration last = std::max(run.jobs[0].turnaround, run.jobs[1].turnaround);
  EXPECT_EQ(last, emu::milliseconds(2000));
}

// native-threads: each thread is time-shared on its own, and a parallel job progresses only while
// all its threads run. A 2-thread job beside an endless 1-thread job on 2 processors: as a gang it
// runs every other quantum (about twice its solo time); thread by thread, fairly, its two threads
// run together in one quantum of three (about three times). Alone it gets both processors.
TEST(Node, NativeThreadsRunsAParallelJobOnlyWhenAllItsThreadsRun) {
  const Policy threads{PolicyKind::NativeThreads, Reference::Fitted};
  NodeOptions o;
  o.processors = 2;
  o.split_progress = 0;
  auto endless = steady("endless", 0, 10);
  endless.endless = true;
  const auto workload = std::vector<DemandTrace>{steady("parallel", 0, 100, 2), endless};
  const auto gang = run_node(workload, kNative, o);
  const auto split = run_node(workload, threads, o);
  EXPECT_NEAR(to_seconds(gang.jobs[0].turnaround), 2.0, 0.11);
  EXPECT_NEAR(to_seconds(split.jobs[0].turnaround), 3.0, 0.21);
  const auto alone = run_node({steady("parallel", 0, 100, 2)}, threads, o);
  EXPECT_EQ(alone.jobs[0].turnaround, emu::milliseconds(1000));
  // A quantum where only one of its threads runs moves it no step and uses no bus.
  const auto busy = run_node({steady("parallel", 20, 100, 2), endless}, threads, o);
  for (const auto& q : busy.bus) EXPECT_LE(q.served.per_us(), 20 + 1e-9);
}

// Between the extremes: a job given 1 of its 2 threads keeps split_progress x 1/2 of its rate.
// Two processors, the parallel job (2 threads, 1 s alone) beside an endless 1-thread job: native
// time sharing gives it both threads in 1/3 of the quanta and one thread in 2/3, so its rate is
// 1/3 + 2/3 x split_progress / 2: 3 s at 0 (above), 2 s at 0.5, 1.5 s at 1.
TEST(Node, NativeThreadsSplitProgressInterpolates) {
  const Policy threads{PolicyKind::NativeThreads, Reference::Fitted};
  auto endless = steady("endless", 0, 10);
  endless.endless = true;
  const auto workload = std::vector<DemandTrace>{steady("parallel", 0, 100, 2), endless};
  const auto turnaround = [&](double split) {
    NodeOptions o;
    o.processors = 2;
    o.split_progress = split;
    return to_seconds(run_node(workload, threads, o).jobs[0].turnaround);
  };
  EXPECT_NEAR(turnaround(0.5), 2.0, 0.15);
  EXPECT_NEAR(turnaround(1.0), 1.5, 0.15);
  // The share of its demand follows: a split job asks half its demand at 1, nothing at 0.
  NodeOptions o;
  o.processors = 2;
  o.split_progress = 1.0;
  const auto busy = run_node({steady("parallel", 20, 100, 2), endless}, threads, o);
  bool some_half = false;
  for (const auto& q : busy.bus) some_half = some_half || std::abs(q.served.per_us() - 10) < 1e-6;
  EXPECT_TRUE(some_half);
  o.split_progress = 1.5;
  EXPECT_THROW(check_node_options(o), std::invalid_argument);
}

TEST(Node, SameInputsSameResults) {
  const auto set = standard_set(Mix::C);
  const auto workload = workload_of(set.applications.at(3), Mix::C);
  for (const auto& policy : all_policies()) {
    const auto first = run_node(workload, policy, NodeOptions{});
    const auto second = run_node(workload, policy, NodeOptions{});
    ASSERT_EQ(first.jobs.size(), second.jobs.size());
    for (std::size_t i = 0; i < first.jobs.size(); ++i)
      EXPECT_EQ(first.jobs[i].turnaround, second.jobs[i].turnaround) << policy_name(policy);
    EXPECT_EQ(first.bus.size(), second.bus.size());
  }
}

TEST(Node, IdealAverageBandwidthIsAccessesOverIdealTime) {
  // 2 processors: a (10/us, 1 s) and b (2/us, 1 s): 12e6 transactions over 1 s of ideal time.
  const double iabw = ideal_average_bandwidth({steady("a", 10, 100), steady("b", 2, 100)}, 2).per_us();
  EXPECT_NEAR(iabw, 12, 1e-9);
  // An endless job counts as long as the longest job that ends.
  DemandTrace forever = steady("bbma", 13.5, 1);
  forever.endless = true;
  EXPECT_NEAR(ideal_average_bandwidth({steady("a", 10, 100), forever}, 2).per_us(), 23.5, 1e-9);
}

TEST(Node, TheBandwidthAwarePolicyKeepsHeavyJobsApart) {
  // Two heavy and two light 2-thread jobs on 4 processors: native often runs both heavy jobs
  // together and asks more than the bus (44 of 29.5); Latest Quantum, once it has measured them,
  // pairs heavy with light, and pairs the heavy two only now and then: after one measured the
  // pair's served rate (about 14 each), which looks as if it fits (docs/scheduling.md).
  NodeOptions o;
  const std::vector<DemandTrace> workload = {steady("l1", 1, 400, 2), steady("l2", 1, 400, 2),
                                             steady("h1", 22, 400, 2), steady("h2", 22, 400, 2)};
  const auto native = run_node(workload, kNative, o);
  const auto latest = run_node(workload, kLatest, o);
  const auto saturated = [](const NodeRun& r) {
    int n = 0;
    for (std::size_t q = 3; q < r.bus.size(); ++q) n += r.bus[q].demand.per_us() > 30 ? 1 : 0;
    return n;
  };
  EXPECT_GT(saturated(native), 0);
  EXPECT_LT(saturated(latest) * 5, saturated(native)) << saturated(latest) << " vs " << saturated(native);
}

// Set B's situation by hand: two 2-thread jobs asking 17 each (34 together: above B) and four
// jobs that never touch the bus. The right choice is never to run the two heavy jobs together.
// IABW (17.1 here, reference 15.2) keeps them apart; aimed at the peak, the same policy pairs them
// (their served rates, B/2 each, fit what is left) and they take longer.
TEST(Node, IabwKeepsTwoHeavyJobsApartWhereThePeakReferencePairsThem) {
  std::vector<DemandTrace> workload = {steady("heavy1", 17, 400, 2), steady("heavy2", 17, 400, 2)};
  for (int i = 0; i < 4; ++i) {
    DemandTrace idle = steady("nbbma", 0.05, 1);
    idle.endless = true;
    workload.push_back(idle);
  }
  const auto together = [](const NodeRun& r) {
    int n = 0;
    for (std::size_t q = 5; q < r.bus.size(); ++q) n += r.bus[q].jobs_running == 2 ? 1 : 0;
    return n;
  };
  const auto fitted = run_node(workload, {PolicyKind::Iabw, Reference::Fitted}, NodeOptions{});
  const auto peak = run_node(workload, {PolicyKind::Iabw, Reference::Peak}, NodeOptions{});
  // Transactions over ideal time: (2 x 17 + 4 x 0.05) /us over 4 s of each, 32 processor-seconds
  // on 4 processors.
  EXPECT_NEAR(fitted.ideal_average.per_us(), (2 * 17 + 4 * 0.05) * 4 / (32.0 / 4), 1e-9);
  EXPECT_LT(fitted.target.per_us(), 16);
  EXPECT_EQ(together(fitted), 0);
  EXPECT_GT(together(peak), 0);
  EXPECT_LT(fitted.jobs[0].turnaround, peak.jobs[0].turnaround);
}

TEST(Node, ImpossibleParametersAreRefused) {
  const std::vector<DemandTrace> one = {steady("a", 1, 10)};
  NodeOptions o;
  o.quantum = Duration{0};
  EXPECT_THROW(run_node(one, kNative, o), std::invalid_argument);
  o = {};
  o.capacity = Bandwidth(0);
  EXPECT_THROW(run_node(one, kNative, o), std::invalid_argument);
  o = {};
  o.processors = 0;
  EXPECT_THROW(run_node(one, kNative, o), std::invalid_argument);
  o = {};
  o.window = 0;
  EXPECT_THROW(run_node(one, kNative, o), std::invalid_argument);
  EXPECT_THROW(run_node({steady("wide", 1, 10, 8)}, kNative, NodeOptions{}), std::invalid_argument);
  DemandTrace forever = steady("bbma", 13.5, 1);
  forever.endless = true;
  EXPECT_THROW(run_node({forever}, kNative, NodeOptions{}), std::invalid_argument);
}

TEST(Node, QuantaParse) {
  EXPECT_EQ(parse_quantum("100ms"), emu::milliseconds(100));
  EXPECT_EQ(parse_quantum("1s"), emu::milliseconds(1000));
  EXPECT_EQ(parse_quantum("500us"), emu::microseconds(500));
  EXPECT_EQ(parse_quantum("2.5 ms"), emu::microseconds(2500));
  for (const char* bad : {"0ms", "100", "ms", "-5ms", "1h", "50us", "abc"})
    EXPECT_THROW(parse_quantum(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace ncp2::sched
