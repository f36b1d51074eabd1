#pragma once
// The project's time-stamp read: the TSC when it is invariant, clock_gettime(MONOTONIC_RAW)
// otherwise (with the reason said once, by whoever chooses). now() is inline and costs one
// predictable branch over a bare RDTSC (bench: ncp2_bench_timing, docs/performance.md).
#include <cstdint>
#include <string>

#include "host_timing/raw_clocks.hpp"
#include "host_timing/time_source.hpp"

namespace ncp2::timing {

class TickClock {
 public:
  enum class Kind { Tsc, MonotonicRaw, Function };
  using TickFunction = std::uint64_t (*)(void* context);

  // The TSC at a calibrated `hz`.
  static TickClock tsc(double hz) { return {Kind::Tsc, hz, nullptr, nullptr}; }
  // clock_gettime(CLOCK_MONOTONIC_RAW): ticks are nanoseconds.
  static TickClock monotonic_raw() { return {Kind::MonotonicRaw, 1e9, nullptr, nullptr}; }
  // Any counter (tests: a fake with a known rate).
  static TickClock function(TickFunction fn, void* context, double hz) {
    return {Kind::Function, hz, fn, context};
  }

  [[nodiscard]] std::uint64_t now() const noexcept {
    if (kind_ == Kind::Tsc) [[likely]]
      return read_tsc();
    return now_slow();
  }
  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] double ticks_per_second() const { return hz_; }
  [[nodiscard]] double to_ns(double ticks) const { return ticks * 1e9 / hz_; }
  [[nodiscard]] std::string describe() const;  // "TSC at 2596.13 MHz", ...

 private:
  TickClock(Kind kind, double hz, TickFunction fn, void* context)
      : kind_(kind), hz_(hz), fn_(fn), context_(context) {}
  [[nodiscard]] std::uint64_t now_slow() const noexcept;

  Kind kind_;
  double hz_;
  TickFunction fn_;
  void* context_;
};

// Which clock the project uses on this host, and why.
struct ClockChoice {
  bool use_tsc = false;
  std::string reason;  // why not the TSC (empty when it is used)
};
[[nodiscard]] ClockChoice choose_clock(const TscInfo& tsc);

}  // namespace ncp2::timing
