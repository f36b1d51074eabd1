#pragma once
// Strong types of the bus-scheduling experiments (issue 22): bus bandwidth in transactions per
// microsecond (the survey's unit), job ids, and the time of the emulated node (emu::Duration).
#include <compare>
#include <cstdint>

#include "emulator/time.hpp"

namespace ncp2::sched {

using emu::Duration;
using emu::TimePoint;

// Bus transactions per microsecond. A value type: a demand, a capacity or a served rate.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  constexpr explicit Bandwidth(double transactions_per_us) : value_(transactions_per_us) {}
  [[nodiscard]] constexpr double per_us() const { return value_; }

  constexpr Bandwidth& operator+=(Bandwidth o) {
    value_ += o.value_;
    return *this;
  }
  constexpr Bandwidth& operator-=(Bandwidth o) {
    value_ -= o.value_;
    return *this;
  }
  friend constexpr Bandwidth operator+(Bandwidth a, Bandwidth b) { return Bandwidth(a.value_ + b.value_); }
  friend constexpr Bandwidth operator-(Bandwidth a, Bandwidth b) { return Bandwidth(a.value_ - b.value_); }
  friend constexpr Bandwidth operator*(Bandwidth a, double k) { return Bandwidth(a.value_ * k); }
  friend constexpr Bandwidth operator/(Bandwidth a, double k) { return Bandwidth(a.value_ / k); }
  friend constexpr double operator/(Bandwidth a, Bandwidth b) { return a.value_ / b.value_; }
  friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;

 private:
  double value_ = 0;
};

// Index of a job in its workload (the order in which the workload lists them).
enum class JobId : std::uint32_t {};
constexpr std::size_t index_of(JobId id) { return static_cast<std::size_t>(id); }

// Seconds as a double, for reports (turnaround times, plot axes).
constexpr double to_seconds(Duration d) { return static_cast<double>(d.count()) * 1e-12; }
constexpr double to_seconds(TimePoint t) { return to_seconds(t.time_since_epoch()); }
// Microseconds as a double: transactions = bandwidth x microseconds.
constexpr double to_microseconds(Duration d) { return static_cast<double>(d.count()) * 1e-6; }

}  // namespace ncp2::sched
