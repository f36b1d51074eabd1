#pragma once
// Host time sources behind one interface (SPEC §4): RDTSC, RDTSCP, HPET (memory-mapped /dev/hpet),
// clock_gettime (MONOTONIC, MONOTONIC_RAW, REALTIME) and gettimeofday. Each says whether it is
// available and, when not, why; nothing here crashes on hardware that lacks a source.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ncp2::timing {

// What the CPU and the kernel say about the time-stamp counter.
struct TscInfo {
  bool x86 = false;              // compiled for and running on x86 (RDTSC exists at all)
  bool rdtsc = false;            // CPUID.1:EDX[4]
  bool rdtscp = false;           // CPUID.80000001h:EDX[27]
  bool cpuid_invariant = false;  // CPUID.80000007h:EDX[8] (often hidden by hypervisors)
  // Flags of the first processor in /proc/cpuinfo (Linux derives them from CPUID and quirks).
  bool constant_tsc = false;  // fixed rate whatever the P-state
  bool nonstop_tsc = false;   // keeps counting in deep C-states
  bool tsc_known_freq = false;
  bool hypervisor = false;
  std::string cpu_model;

  // Invariant: constant rate and never stopped, so one calibration holds and the cores agree
  // (Linux sets constant_tsc + nonstop_tsc exactly when it trusts the invariant bit).
  [[nodiscard]] bool invariant() const { return cpuid_invariant || (constant_tsc && nonstop_tsc); }
};

// Reads CPUID and /proc/cpuinfo. Never throws: what cannot be read stays false/empty.
[[nodiscard]] TscInfo detect_tsc();
// Fills the /proc/cpuinfo fields of `info` from the text of /proc/cpuinfo (first processor).
void parse_cpuinfo(std::string_view text, TscInfo& info);

// The kernel's clocksource (what clock_gettime is computed from).
struct ClocksourceInfo {
  std::string current;                 // e.g. "tsc", "kvm-clock", "hpet"; empty if unknown
  std::vector<std::string> available;  // as listed by the kernel
  std::string reason;                  // why `current` is empty
};
[[nodiscard]] ClocksourceInfo detect_clocksource(
    const std::filesystem::path& dir = "/sys/devices/system/clocksource/clocksource0");

enum class SourceKind { Rdtsc, Rdtscp, Hpet, ClockMonotonic, ClockMonotonicRaw, ClockRealtime, Gettimeofday };
[[nodiscard]] std::string_view to_string(SourceKind kind);  // "rdtsc", "clock_gettime(MONOTONIC)", ...

// One time source. read() returns raw units (TSC cycles, HPET ticks, nanoseconds, microseconds
// for gettimeofday); units_per_second() converts them. read() of an unavailable source returns 0.
class TimeSource {
 public:
  virtual ~TimeSource() = default;
  TimeSource() = default;
  TimeSource(const TimeSource&) = delete;
  TimeSource& operator=(const TimeSource&) = delete;

  [[nodiscard]] virtual SourceKind kind() const = 0;
  [[nodiscard]] std::string_view name() const { return to_string(kind()); }
  [[nodiscard]] bool available() const { return reason_.empty(); }
  [[nodiscard]] const std::string& reason() const { return reason_; }  // empty when available
  [[nodiscard]] const std::string& note() const { return note_; }      // a caveat when available
  [[nodiscard]] virtual std::uint64_t read() const = 0;
  [[nodiscard]] virtual double units_per_second() const = 0;
  // The resolution the source declares (clock_getres, HPET period, one microsecond for
  // gettimeofday); 0 when it declares none (the TSC).
  [[nodiscard]] virtual double declared_resolution_ns() const { return 0; }

 protected:
  std::string reason_;
  std::string note_;
};

// Every source, in the order of the papers' tables. `tsc_hz` converts TSC cycles (0: unknown,
// the TSC sources then report 1 unit per nanosecond's worth of nothing and should not be
// converted). `hpet_device` is where the HPET is mapped from (a test passes a file).
[[nodiscard]] std::vector<std::unique_ptr<TimeSource>> make_sources(
    const TscInfo& tsc, double tsc_hz, const std::filesystem::path& hpet_device = "/dev/hpet");

// The HPET alone: maps the 1024-byte register block read-only, reads the counter period from the
// capabilities register (0x00, bits 63:32, femtoseconds) and the main counter at 0xF0.
[[nodiscard]] std::unique_ptr<TimeSource> open_hpet(const std::filesystem::path& device = "/dev/hpet");

// Why the TSC cannot be read here (empty when RDTSC / RDTSCP can).
[[nodiscard]] std::string rdtsc_unavailable_reason(const TscInfo& tsc);
[[nodiscard]] std::string rdtscp_unavailable_reason(const TscInfo& tsc);

}  // namespace ncp2::timing
