// The sampler on real child processes: a busy loop and a sleep show their shapes in task-clock,
// exit statuses pass through, a missing program is an error. Each run is short; the assertions are
// relations (busy >> sleeping), not values, since the machine may be shared.
#include <gtest/gtest.h>

#include "perf_counters/perf_group.hpp"
#include "perf_counters/sampler.hpp"
#include "perf_counters/series.hpp"

namespace ncp2::counters {
namespace {

using std::chrono::milliseconds;

const std::vector<std::string> kSoftware = {"task-clock", "page-faults", "context-switches"};

CounterRun run(std::vector<std::string> command, milliseconds period = milliseconds(10),
               std::vector<std::string> events = kSoftware) {
  SamplerOptions o;
  o.events = std::move(events);
  o.period = period;
  return run_with_counters(command, o);
}

const EventStatus& event(const CounterRun& r, const std::string& name) {
  for (const auto& e : r.events)
    if (e.name == name) return e;
  throw std::runtime_error("no event " + name);
}

// task-clock (ns of CPU) per ns of wall time over the whole run: CPUs used.
double cpus_used(const CounterRun& r) {
  const auto& e = event(r, "task-clock");
  const auto& last = r.samples.back();
  return static_cast<double>(last.values.at(static_cast<std::size_t>(e.group_index))) /
         static_cast<double>(last.wall.count());
}

class SamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!probe_event("task-clock").available) GTEST_SKIP() << "task-clock cannot be counted here";
  }
};

TEST_F(SamplerTest, BusyChildUsesACpuWhereASleepingChildUsesNone) {
  const CounterRun busy = run({"sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"});
  const CounterRun sleeping = run({"sleep", "0.3"});
  ASSERT_EQ(busy.exit_code, 0);
  ASSERT_EQ(sleeping.exit_code, 0);
  ASSERT_TRUE(event(busy, "task-clock").available);
  const double busy_cpus = cpus_used(busy);
  const double sleeping_cpus = cpus_used(sleeping);
  EXPECT_GT(busy_cpus, 10 * sleeping_cpus) << "busy " << busy_cpus << " CPUs, sleeping " << sleeping_cpus;
  EXPECT_LT(sleeping_cpus, 0.05);
  EXPECT_LE(busy_cpus, 1.05);  // one shell, one CPU at most
  // The sleeper is off the CPU at almost every read: its samples repeat and are dropped. (How
  // many of the busy loop's reads repeat depends on the machine's load: not asserted.)
  EXPECT_GT(sleeping.samples_dropped, sleeping.samples.size()) << sleeping.samples.size() << " kept";
  // CPU time is the program's, whatever the load: the loop needs well over 20 ms, sleep under it.
  const auto cpu_ns = [](const CounterRun& r) { return *event_totals(r)[0]; };
  EXPECT_GT(cpu_ns(busy), 20e6);
  EXPECT_LT(cpu_ns(sleeping), 20e6);
  // The wall time covers the sleep, and the last sample is at exit.
  EXPECT_GE(sleeping.samples.back().wall, milliseconds(300));
  EXPECT_GE(sleeping.wall_seconds, 0.3);
  // Counted events have totals; page faults happen in any exec.
  const auto totals = event_totals(busy);
  for (std::size_t i = 0; i < busy.events.size(); ++i)
    EXPECT_TRUE(totals[i].has_value()) << busy.events[i].name;
  EXPECT_GT(*event_totals(sleeping)[1], 0.0);
}

TEST_F(SamplerTest, PeriodDeltasAddUpToTheTotal) {
  const CounterRun r = run({"sh", "-c", "i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done"}, milliseconds(5));
  const auto rows = sample_rows(r);
  double sum = 0;
  for (const auto& row : rows) sum += row.points[0].delta.value();
  EXPECT_DOUBLE_EQ(sum, rows.back().points[0].total.value());
  for (std::size_t k = 1; k < rows.size(); ++k) EXPECT_GT(rows[k].t_s, rows[k - 1].t_s);
}

TEST_F(SamplerTest, TheCommandsExitStatusPassesThrough) {
  EXPECT_EQ(run({"sh", "-c", "exit 3"}).exit_code, 3);
  const CounterRun killed = run({"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(killed.exit_code, 128 + 15);
  EXPECT_NE(killed.exit_description.find("SIGTERM"), std::string::npos) << killed.exit_description;
}

TEST_F(SamplerTest, AMissingCommandIsAClearError) {
  try {
    run({"/no/such/program-ncp2", "x"});
    FAIL() << "no error";
  } catch (const CommandError& e) {
    EXPECT_EQ(e.exit_code(), 127);
    EXPECT_NE(std::string(e.what()).find("cannot execute '/no/such/program-ncp2'"), std::string::npos)
        << e.what();
  }
  try {
    run({"/dev/null"});
    FAIL() << "no error";
  } catch (const CommandError& e) {
    EXPECT_EQ(e.exit_code(), 126);  // exists, not executable
  }
}

TEST_F(SamplerTest, UnavailableEventsAreReportedAndTheOthersCounted) {
  const CounterRun r = run({"true"}, milliseconds(10), {"no-such-event", "task-clock"});
  EXPECT_FALSE(r.events[0].available);
  EXPECT_FALSE(r.events[0].reason.empty());
  EXPECT_TRUE(r.events[1].available);
  EXPECT_FALSE(event_totals(r)[0].has_value());
}

TEST_F(SamplerTest, NoCountableEventMeansTheCommandIsNotRun) {
  EXPECT_THROW(run({"true"}, milliseconds(10), {"no-such-event"}), NoCountersError);
}

TEST(SamplerPeriod, PeriodsParseWithUnitsAndBounds) {
  EXPECT_EQ(parse_period("1ms"), milliseconds(1));
  EXPECT_EQ(parse_period("100 ms"), milliseconds(100));
  EXPECT_EQ(parse_period("5s"), std::chrono::seconds(5));
  EXPECT_EQ(parse_period("250us"), std::chrono::microseconds(250));
  EXPECT_THROW(parse_period("5"), std::invalid_argument);
  EXPECT_THROW(parse_period("10us"), std::invalid_argument);
  EXPECT_THROW(parse_period("2min"), std::invalid_argument);
  EXPECT_THROW(parse_period("fast"), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::counters
