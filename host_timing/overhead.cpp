#include "host_timing/overhead.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <unistd.h>

namespace ncp2::timing {

namespace {

// Writing over a buffer twice the L2 evicts the private caches' data (the vDSO's included).
class CacheEvictor {
 public:
  CacheEvictor() {
    long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 <= 0) l2 = 1 << 20;
    buffer_.resize(static_cast<std::size_t>(std::min<long>(2 * l2, 16L << 20)));
  }
  void evict() {
    for (std::size_t i = 0; i < buffer_.size(); i += 64)
      buffer_[i] = static_cast<unsigned char>(buffer_[i] + 1);
    sink_ = sink_ + buffer_[buffer_.size() / 2];
  }

 private:
  std::vector<unsigned char> buffer_;
  volatile unsigned char sink_ = 0;
};

double empty_bracket_ticks(const TickClock& ref, int samples) {
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  for (int i = 0; i < samples; ++i) {
    const std::uint64_t a = ref.now();
    const std::uint64_t b = ref.now();
    best = std::min(best, b - a);
  }
  return static_cast<double>(best);
}

double bracketed_ns(const TimeSource& source, const TickClock& ref, double empty_ticks) {
  const std::uint64_t a = ref.now();
  const std::uint64_t v = source.read();
  const std::uint64_t b = ref.now();
  asm volatile("" : : "r"(v) : "memory");  // keep the read
  return ref.to_ns(std::max(0.0, static_cast<double>(b - a) - empty_ticks));
}

double observed_resolution_ns(const TimeSource& source, int samples) {
  double best = 0;
  for (int i = 0; i < samples; ++i) {
    const std::uint64_t first = source.read();
    std::uint64_t next = first;
    for (int spins = 0; next == first && spins < 10'000'000; ++spins) next = source.read();
    if (next <= first) continue;
    const double step = static_cast<double>(next - first) * 1e9 / source.units_per_second();
    if (best == 0 || step < best) best = step;
  }
  return best;
}

}  // namespace

std::vector<SourceMeasurement> measure_sources(const std::vector<std::unique_ptr<TimeSource>>& sources,
                                               const TickClock& reference, const MeasureOptions& options) {
  std::vector<SourceMeasurement> out;
  const double empty = empty_bracket_ticks(reference, std::max(options.samples, 100));
  CacheEvictor evictor;
  for (const auto& source : sources) {
    SourceMeasurement m;
    m.name = std::string(source->name());
    m.available = source->available();
    m.reason = source->reason();
    m.note = source->note();
    m.declared_resolution_ns = source->declared_resolution_ns();
    if (m.available) {
      for (int i = 0; i < 100; ++i) (void)bracketed_ns(*source, reference, empty);  // warm up
      std::vector<double> warm(static_cast<std::size_t>(std::max(options.samples, 1)));
      for (double& v : warm) v = bracketed_ns(*source, reference, empty);
      m.overhead_ns = summarize(warm);
      if (options.tsc_hz > 0) {
        std::vector<double> cycles(warm.size());
        std::transform(warm.begin(), warm.end(), cycles.begin(),
                       [&](double ns) { return ns * options.tsc_hz / 1e9; });
        m.overhead_cycles = summarize(cycles);
      }
      std::vector<double> cold(static_cast<std::size_t>(std::max(options.cold_samples, 0)));
      for (double& v : cold) {
        evictor.evict();
        v = bracketed_ns(*source, reference, empty);
      }
      m.cold_overhead_ns = summarize(cold);
      m.resolution_ns = observed_resolution_ns(*source, std::max(options.resolution_samples, 1));
    }
    out.push_back(std::move(m));
  }
  return out;
}

TimestampCost measure_timestamp_cost(const TickClock& clock, int reads_per_loop, int loops) {
  // Each loop is timed with CLOCK_MONOTONIC_RAW; the best loop is the least disturbed one.
  auto best_loop_ns = [&](auto&& read) {
    double best = std::numeric_limits<double>::max();
    for (int l = 0; l < loops; ++l) {
      std::uint64_t sink = 0;
      const std::uint64_t t0 = monotonic_raw_ns();
      for (int i = 0; i < reads_per_loop; ++i) sink += read();
      const std::uint64_t t1 = monotonic_raw_ns();
      asm volatile("" : : "r"(sink) : "memory");
      best = std::min(best, static_cast<double>(t1 - t0) / reads_per_loop);
    }
    return best;
  };
  TimestampCost c;
  c.bare_rdtsc_ns = best_loop_ns([] { return read_tsc(); });
  c.project_ns = best_loop_ns([&clock] { return clock.now(); });
  return c;
}

}  // namespace ncp2::timing
