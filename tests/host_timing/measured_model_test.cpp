// The measured time model: the meter's arithmetic on a fake clock (probe cost subtracted, scale
// applied, observer hook called), the DSM charging each stretch at the next entry with the
// workload's own compute annotations ignored, the default model unchanged with this code
// compiled in, and a real run on the host's clock that completes and verifies.
#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "dsm/process.hpp"
#include "host_timing/measured_time.hpp"
#include "host_timing/tick_clock.hpp"
#include "run/runner.hpp"
#include "workloads/registry.hpp"

namespace ncp2::timing {
namespace {

using namespace emu::literals;

// A counter that advances `step` ticks at every read.
struct SteppingCounter {
  std::uint64_t value = 0;
  std::uint64_t step = 1000;
  static std::uint64_t read(void* self) {
    auto* c = static_cast<SteppingCounter*>(self);
    return c->value += c->step;
  }
  [[nodiscard]] TickClock clock(double hz) { return TickClock::function(&SteppingCounter::read, this, hz); }
};

struct RecordingObserver final : StretchObserver {
  void stretch_begin(dsm::NodeId node) override { begins.push_back(emu::index(node)); }
  void stretch_end(dsm::NodeId node, std::uint64_t ticks, emu::Duration charged) override {
    ends.push_back(emu::index(node));
    raw_ticks.push_back(ticks);
    charges.push_back(charged);
  }
  std::vector<int> begins, ends;
  std::vector<std::uint64_t> raw_ticks;
  std::vector<emu::Duration> charges;
};

TEST(MeasuredModel, ChargesScaledTicksMinusTheProbeCost) {
  SteppingCounter counter;
  // 1 GHz counter (1 tick = 1 ns), scale 2, probe cost 100 ticks: a stretch of 1000 ticks
  // (one read to start, one to end) is charged (1000 - 100) x 2 = 1800 ns.
  MeasuredTimeModel model(counter.clock(1e9), 2, 2.0, 100);
  RecordingObserver observer;
  model.set_stretch_observer(&observer);
  const auto n0 = emu::node_id(0), n1 = emu::node_id(1);
  EXPECT_EQ(model.end_stretch(n0), emu::Duration{0});  // not begun: nothing to charge
  model.begin(n0);
  EXPECT_EQ(model.end_stretch(n0), 1800_ns);
  model.begin(n1);
  EXPECT_EQ(model.end_stretch(n1), 1800_ns);
  counter.step = 50;  // a stretch shorter than the probe cost charges nothing
  model.resume(n0);
  EXPECT_EQ(model.end_stretch(n0), emu::Duration{0});
  model.finish(n0);
  model.resume(n0);  // after finish: ignored
  EXPECT_EQ(model.end_stretch(n0), emu::Duration{0});
  EXPECT_EQ(model.stats(n0).stretches, 2u);
  EXPECT_EQ(model.stats(n0).host_ticks, 1050u);
  EXPECT_EQ(model.stats(n0).subtracted_ticks, 150u);
  EXPECT_EQ(model.totals().stretches, 3u);
  EXPECT_EQ(model.totals().charged, 3600_ns);
  EXPECT_EQ(observer.begins, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(observer.ends, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(observer.raw_ticks, (std::vector<std::uint64_t>{1000, 1000, 50}));
  EXPECT_EQ(observer.charges.back(), emu::Duration{0});
}

TEST(MeasuredModel, ScaleForATargetClockAndProbeMeasurement) {
  EXPECT_DOUBLE_EQ(MeasuredTimeModel::scale_for_target(2.6e9, 100), 26.0);
  SteppingCounter counter{.value = 0, .step = 7};
  EXPECT_EQ(MeasuredTimeModel::measure_probe_ticks(counter.clock(1e9), 10), 7u);
  EXPECT_THROW(MeasuredTimeModel(counter.clock(1e9), 1, 0.0, 0), std::invalid_argument);
  EXPECT_THROW(MeasuredTimeModel(counter.clock(0), 1, 1.0, 0), std::invalid_argument);
}

// ---- in the emulator

dsm::SystemConfig machine(emu::MachineKind kind, int nodes) {
  dsm::SystemConfig c = dsm::default_config(kind);
  c.machine.nodes = nodes;
  return c;
}

void expect_identical(const run::RunOutcome& a, const run::RunOutcome& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.timed_end, b.timed_end);
  EXPECT_EQ(a.end_time, b.end_time);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.exit_times, b.exit_times);
  EXPECT_EQ(a.interrupts, b.interrupts);
  EXPECT_EQ(a.network_messages, b.network_messages);
  EXPECT_EQ(a.network_bytes, b.network_bytes);
  ASSERT_EQ(a.node_stats.size(), b.node_stats.size());
  for (std::size_t i = 0; i < a.node_stats.size(); ++i) {
    EXPECT_EQ(a.node_stats[i].messages, b.node_stats[i].messages);
    EXPECT_EQ(a.node_stats[i].bytes, b.node_stats[i].bytes);
    EXPECT_EQ(a.node_stats[i].page_faults, b.node_stats[i].page_faults);
    EXPECT_EQ(a.node_stats[i].lock_acquires, b.node_stats[i].lock_acquires);
    EXPECT_EQ(a.node_stats[i].messages_by_purpose, b.node_stats[i].messages_by_purpose);
  }
  EXPECT_EQ(a.verification, b.verification);
}

TEST(MeasuredModel, DefaultModelIsUnchangedByAMeasuredRunBesideIt) {
  for (const auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    const auto& w = workloads::find_workload("phases");
    const auto params = w.resolve("small", {});
    const auto config = machine(kind, 4);
    const auto before = run::run_workload(config, w, params, 3);
    SteppingCounter counter;
    MeasuredTimeModel model(counter.clock(1e9), 4, 1.0, 0);
    run::RunOptions measured;
    measured.compute_meter = &model;
    const auto with_meter = run::run_workload(config, w, params, 3, measured);
    const auto after = run::run_workload(config, w, params, 3);
    ASSERT_TRUE(before.ok()) << before.diagnosis << before.verification;
    expect_identical(before, after);
    // The measured run computes the same result on different virtual times.
    EXPECT_TRUE(with_meter.ok()) << with_meter.diagnosis << with_meter.verification;
    EXPECT_NE(with_meter.timed_end, before.timed_end);
  }
}

TEST(MeasuredModel, AnnotationsIgnoredAndEveryStretchChargedAtTheNextEntry) {
  // Each node: a 1-second annotation (ignored), a lock-protected increment, a barrier.
  class Body final : public workloads::Instance {
   public:
    void run(dsm::Process& p) override {
      if (p.id() == 0)
        array_ = p.alloc<std::int64_t>("x", 1);
      else
        (void)p.alloc<std::int64_t>("x", 1);
      p.compute(emu::milliseconds(1000));
      p.compute_cycles(1'000'000'000);
      {
        auto guard = p.lock(0);
        auto v = p.view(array_);
        v.set(0, v.get(0) + 1);
      }
      p.barrier(0);
    }
    void verify(dsm::Process& p) override {
      if (p.id() != 0) return;
      const auto v = p.view(array_).get(0);
      v == p.nprocs() ? pass("sum ok") : fail("wrong sum");
    }
    dsm::SharedArray<std::int64_t> array_;
  };
  workloads::Workload w;
  w.name = "measured-probe";
  w.description = "test";
  w.make = [](const workloads::Params&, int, std::uint64_t) { return std::make_unique<Body>(); };

  for (const auto kind : {emu::MachineKind::Ncp2, emu::MachineKind::TreadMarks}) {
    SteppingCounter counter;  // every stretch: 1000 ticks at 1 GHz = 1 us, scale 1, no probe cost
    MeasuredTimeModel model(counter.clock(1e9), 3, 1.0, 0);
    run::RunOptions options;
    options.compute_meter = &model;
    const auto out = run::run_workload(machine(kind, 3), w, w.defaults(), 1, options);
    ASSERT_TRUE(out.ok()) << out.diagnosis << out.verification;
    // Nowhere near the annotated 2 s: only the measured microseconds were charged.
    EXPECT_LT(out.timed_end, emu::kTimeZero + emu::milliseconds(10));
    for (int i = 0; i < 3; ++i) {
      const auto& s = model.stats(emu::node_id(i));
      // compute, compute_cycles, lock acquire, (faults), lock release, barrier, exit: >= 6 entries.
      EXPECT_GE(s.stretches, 6u) << i;
      EXPECT_EQ(s.charged, emu::nanoseconds(1000) * static_cast<std::int64_t>(s.stretches));
      EXPECT_EQ(s.host_ticks, 1000 * s.stretches);
    }
  }
}

TEST(MeasuredModel, RealClockRunCompletesWithPlausibleTimes) {
  const TscInfo tsc = detect_tsc();
  const ClockChoice choice = choose_clock(tsc);
  // The TSC's rate is only needed to convert ticks; 1 GHz stands in when it is unused.
  const TickClock clock = choice.use_tsc ? TickClock::tsc(2e9) : TickClock::monotonic_raw();
  const std::uint64_t probe = MeasuredTimeModel::measure_probe_ticks(clock);
  MeasuredTimeModel model(clock, 4, 10.0, probe);
  run::RunOptions options;
  options.compute_meter = &model;
  const auto& w = workloads::find_workload("counter");
  const auto out = run::run_workload(machine(emu::MachineKind::Ncp2, 4), w, w.defaults(), 1, options);
  ASSERT_TRUE(out.ok()) << out.diagnosis << out.verification;
  const MeasuredNodeStats t = model.totals();
  EXPECT_GT(t.stretches, 4u);
  EXPECT_GT(t.charged, emu::Duration{0});
  EXPECT_LE(t.subtracted_ticks, t.host_ticks);
  // Charged = (raw - probe) ticks, scaled: never more than the raw stretches scaled.
  const double max_ps = clock.to_ns(static_cast<double>(t.host_ticks)) * 1e3 * 10.0;
  EXPECT_LE(static_cast<double>(emu::to_ps(t.charged)), max_ps + 1);
  // Each node's charged computation happened inside its timed region.
  for (int i = 0; i < 4; ++i)
    EXPECT_LE(model.stats(emu::node_id(i)).charged,
              out.exit_times[static_cast<std::size_t>(i)].time_since_epoch());
}

}  // namespace
}  // namespace ncp2::timing
