#include "host_timing/tick_clock.hpp"

#include <fmt/format.h>

namespace ncp2::timing {

std::uint64_t TickClock::now_slow() const noexcept {
  if (kind_ == Kind::Function) return fn_(context_);
  return monotonic_raw_ns();
}

std::string TickClock::describe() const {
  switch (kind_) {
    case Kind::Tsc:
      return fmt::format("TSC at {:.3f} MHz", hz_ / 1e6);
    case Kind::MonotonicRaw:
      return "clock_gettime(CLOCK_MONOTONIC_RAW), nanoseconds";
    case Kind::Function:
      return fmt::format("a supplied counter at {:.3f} MHz", hz_ / 1e6);
  }
  return "?";
}

ClockChoice choose_clock(const TscInfo& tsc) {
  ClockChoice c;
  if (std::string r = rdtsc_unavailable_reason(tsc); !r.empty()) {
    c.reason = r + "; using clock_gettime(CLOCK_MONOTONIC_RAW)";
    return c;
  }
  if (!tsc.invariant()) {
    c.reason =
        "the TSC is not invariant (its rate may change, cores may disagree); using "
        "clock_gettime(CLOCK_MONOTONIC_RAW)";
    return c;
  }
  c.use_tsc = true;
  return c;
}

}  // namespace ncp2::timing
