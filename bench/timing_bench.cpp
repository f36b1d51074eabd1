// Host timing (docs/timing.md): the project's time-stamp read against a bare RDTSC (goal <= 1.2x),
// and one probe of the measured time model (an empty stretch: resume + end of stretch).
#include <cstdint>

#include <benchmark/benchmark.h>

#include "host_timing/calibration.hpp"
#include "host_timing/measured_time.hpp"
#include "host_timing/tick_clock.hpp"
#include "host_timing/time_source.hpp"

namespace {

using namespace ncp2;

timing::TickClock project_clock() {
  const timing::TscInfo tsc = timing::detect_tsc();
  if (!timing::choose_clock(tsc).use_tsc) return timing::TickClock::monotonic_raw();
  return timing::TickClock::tsc(timing::calibrate_host_tsc(0.02).frequency_hz);
}

void BM_BareRdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(timing::read_tsc());
}
BENCHMARK(BM_BareRdtsc);

void BM_ProjectTimestamp(benchmark::State& state) {
  const timing::TickClock clock = project_clock();
  for (auto _ : state) benchmark::DoNotOptimize(clock.now());
  state.SetLabel(clock.describe());
}
BENCHMARK(BM_ProjectTimestamp);

void BM_ClockGettimeMonotonicRaw(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(timing::monotonic_raw_ns());
}
BENCHMARK(BM_ClockGettimeMonotonicRaw);

void BM_MeasuredModelProbe(benchmark::State& state) {
  timing::MeasuredTimeModel model(project_clock(), 1, 1.0, 0);
  const dsm::NodeId node = emu::node_id(0);
  model.begin(node);
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.end_stretch(node));
    model.resume(node);
  }
}
BENCHMARK(BM_MeasuredModelProbe);

}  // namespace

BENCHMARK_MAIN();
