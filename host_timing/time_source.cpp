#include "host_timing/time_source.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include <fmt/format.h>

#include "host_timing/raw_clocks.hpp"

#if NCP2_TIMING_X86
#include <cpuid.h>
#endif

namespace ncp2::timing {

std::string_view to_string(SourceKind kind) {
  switch (kind) {
    case SourceKind::Rdtsc:
      return "rdtsc";
    case SourceKind::Rdtscp:
      return "rdtscp";
    case SourceKind::Hpet:
      return "hpet";
    case SourceKind::ClockMonotonic:
      return "clock_gettime(MONOTONIC)";
    case SourceKind::ClockMonotonicRaw:
      return "clock_gettime(MONOTONIC_RAW)";
    case SourceKind::ClockRealtime:
      return "clock_gettime(REALTIME)";
    case SourceKind::Gettimeofday:
      return "gettimeofday";
  }
  return "?";
}

void parse_cpuinfo(std::string_view text, TscInfo& info) {
  std::istringstream in{std::string(text)};
  std::string line;
  bool flags_seen = false, model_seen = false;
  while (std::getline(in, line) && !(flags_seen && model_seen)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (key == "model name" && !model_seen) {
      info.cpu_model = value;
      model_seen = true;
    } else if (key == "flags" && !flags_seen) {
      flags_seen = true;
      std::istringstream words(value);
      std::string w;
      while (words >> w) {
        if (w == "constant_tsc")
          info.constant_tsc = true;
        else if (w == "nonstop_tsc")
          info.nonstop_tsc = true;
        else if (w == "tsc_known_freq")
          info.tsc_known_freq = true;
        else if (w == "hypervisor")
          info.hypervisor = true;
        else if (w == "tsc")
          info.rdtsc = info.rdtsc || info.x86;
        else if (w == "rdtscp")
          info.rdtscp = info.rdtscp || info.x86;
      }
    }
  }
}

TscInfo detect_tsc() {
  TscInfo info;
#if NCP2_TIMING_X86
  info.x86 = true;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) info.rdtsc = (edx >> 4) & 1U;
  const unsigned max_ext = __get_cpuid_max(0x80000000U, nullptr);
  if (max_ext >= 0x80000001U && __get_cpuid(0x80000001U, &eax, &ebx, &ecx, &edx))
    info.rdtscp = (edx >> 27) & 1U;
  if (max_ext >= 0x80000007U && __get_cpuid(0x80000007U, &eax, &ebx, &ecx, &edx))
    info.cpuid_invariant = (edx >> 8) & 1U;
#endif
  std::ifstream in("/proc/cpuinfo");
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    parse_cpuinfo(text.str(), info);
  }
  return info;
}

ClocksourceInfo detect_clocksource(const std::filesystem::path& dir) {
  ClocksourceInfo info;
  std::ifstream current(dir / "current_clocksource");
  if (!current || !(current >> info.current)) {
    info.current.clear();
    info.reason = fmt::format("cannot read {}", (dir / "current_clocksource").string());
  }
  std::ifstream available(dir / "available_clocksource");
  std::string name;
  while (available >> name) info.available.push_back(name);
  return info;
}

std::string rdtsc_unavailable_reason(const TscInfo& tsc) {
  if (!tsc.x86) return "not an x86 CPU: there is no RDTSC instruction";
  if (!tsc.rdtsc) return "the CPU does not report RDTSC (CPUID.1:EDX[4])";
  return {};
}

std::string rdtscp_unavailable_reason(const TscInfo& tsc) {
  if (std::string r = rdtsc_unavailable_reason(tsc); !r.empty()) return r;
  if (!tsc.rdtscp) return "the CPU does not report RDTSCP (CPUID.80000001h:EDX[27])";
  return {};
}

namespace {

std::string tsc_note(const TscInfo& tsc) {
  if (tsc.invariant()) return {};
  return "TSC not invariant (no constant_tsc + nonstop_tsc, no CPUID invariant bit): its rate may change "
         "with "
         "power management and the cores' counters may disagree";
}

class RdtscSource final : public TimeSource {
 public:
  RdtscSource(const TscInfo& tsc, double hz) : hz_(hz > 0 ? hz : 1e9) {
    reason_ = rdtsc_unavailable_reason(tsc);
    if (reason_.empty()) note_ = tsc_note(tsc);
  }
  [[nodiscard]] SourceKind kind() const override { return SourceKind::Rdtsc; }
  [[nodiscard]] std::uint64_t read() const override { return available() ? read_tsc() : 0; }
  [[nodiscard]] double units_per_second() const override { return hz_; }

 private:
  double hz_;
};

class RdtscpSource final : public TimeSource {
 public:
  RdtscpSource(const TscInfo& tsc, double hz) : hz_(hz > 0 ? hz : 1e9) {
    reason_ = rdtscp_unavailable_reason(tsc);
    if (reason_.empty()) note_ = tsc_note(tsc);
  }
  [[nodiscard]] SourceKind kind() const override { return SourceKind::Rdtscp; }
  [[nodiscard]] std::uint64_t read() const override {
#if NCP2_TIMING_X86
    unsigned aux = 0;
    return available() ? __rdtscp(&aux) : 0;  // waits for earlier instructions: a serialized read
#else
    return 0;
#endif
  }
  [[nodiscard]] double units_per_second() const override { return hz_; }

 private:
  double hz_;
};

class ClockGettimeSource final : public TimeSource {
 public:
  ClockGettimeSource(SourceKind kind, clockid_t id) : kind_(kind), id_(id) {
    timespec ts{};
    if (clock_gettime(id_, &ts) != 0)
      reason_ = fmt::format("clock_gettime fails: {}", std::strerror(errno));
    else if (clock_getres(id_, &ts) == 0)
      resolution_ns_ = static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
  }
  [[nodiscard]] SourceKind kind() const override { return kind_; }
  [[nodiscard]] std::uint64_t read() const override {
    timespec ts{};
    clock_gettime(id_, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
  }
  [[nodiscard]] double units_per_second() const override { return 1e9; }
  [[nodiscard]] double declared_resolution_ns() const override { return resolution_ns_; }

 private:
  SourceKind kind_;
  clockid_t id_;
  double resolution_ns_ = 0;
};

class GettimeofdaySource final : public TimeSource {
 public:
  [[nodiscard]] SourceKind kind() const override { return SourceKind::Gettimeofday; }
  [[nodiscard]] std::uint64_t read() const override {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000ULL + static_cast<std::uint64_t>(tv.tv_usec);
  }
  [[nodiscard]] double units_per_second() const override { return 1e6; }
  [[nodiscard]] double declared_resolution_ns() const override { return 1000; }
};

// The HPET register block (seed 000, §2.2): 1024 bytes, general capabilities at 0x00 (bits 63:32:
// the main counter's period in femtoseconds; bit 13: 64-bit counter), main counter at 0xF0.
constexpr std::size_t kHpetBlockBytes = 1024;
constexpr std::size_t kHpetCapabilities = 0x00;
constexpr std::size_t kHpetMainCounter = 0xF0;
constexpr std::uint64_t kHpetMaxPeriodFs = 100'000'000;  // the specification's limit: 100 ns

class HpetSource final : public TimeSource {
 public:
  explicit HpetSource(const std::filesystem::path& device) {
    std::error_code ec;
    if (!std::filesystem::exists(device, ec)) {
      reason_ = fmt::format("no {} (most virtual machines expose no HPET; the kernel's clocksource is {})",
                            device.string(), current_clocksource());
      return;
    }
    fd_ = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      reason_ = fmt::format("cannot open {}: {}", device.string(), std::strerror(errno));
      return;
    }
    void* p = ::mmap(nullptr, kHpetBlockBytes, PROT_READ, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) {
      reason_ = fmt::format(
          "cannot map {}'s registers: {} (the kernel maps them only when built with "
          "CONFIG_HPET_MMAP)",
          device.string(), std::strerror(errno));
      return;
    }
    base_ = static_cast<const volatile std::uint8_t*>(p);
    const std::uint64_t caps = reg(kHpetCapabilities);
    period_fs_ = caps >> 32;
    counter_64_ = (caps >> 13) & 1U;
    if (period_fs_ == 0 || period_fs_ > kHpetMaxPeriodFs)
      reason_ = fmt::format("{}: invalid counter period {} fs in the capabilities register", device.string(),
                            period_fs_);
  }
  ~HpetSource() override {
    if (base_) ::munmap(const_cast<std::uint8_t*>(base_), kHpetBlockBytes);  // NOLINT: mmap'd block
    if (fd_ >= 0) ::close(fd_);
  }
  HpetSource(const HpetSource&) = delete;
  HpetSource& operator=(const HpetSource&) = delete;

  [[nodiscard]] SourceKind kind() const override { return SourceKind::Hpet; }
  [[nodiscard]] std::uint64_t read() const override {
    if (!available()) return 0;
    const std::uint64_t v = reg(kHpetMainCounter);
    return counter_64_ ? v : (v & 0xFFFF'FFFFULL);
  }
  [[nodiscard]] double units_per_second() const override {
    return period_fs_ ? 1e15 / static_cast<double>(period_fs_) : 1;
  }
  [[nodiscard]] double declared_resolution_ns() const override {
    return static_cast<double>(period_fs_) / 1e6;
  }

 private:
  [[nodiscard]] std::uint64_t reg(std::size_t offset) const {
    return *reinterpret_cast<const volatile std::uint64_t*>(base_ + offset);  // NOLINT: MMIO register
  }
  static std::string current_clocksource() {
    const ClocksourceInfo cs = detect_clocksource();
    return cs.current.empty() ? std::string("unknown") : cs.current;
  }

  int fd_ = -1;
  const volatile std::uint8_t* base_ = nullptr;
  std::uint64_t period_fs_ = 0;
  bool counter_64_ = false;
};

}  // namespace

std::unique_ptr<TimeSource> open_hpet(const std::filesystem::path& device) {
  return std::make_unique<HpetSource>(device);
}

std::vector<std::unique_ptr<TimeSource>> make_sources(const TscInfo& tsc, double tsc_hz,
                                                      const std::filesystem::path& hpet_device) {
  std::vector<std::unique_ptr<TimeSource>> sources;
  sources.push_back(std::make_unique<GettimeofdaySource>());
  sources.push_back(std::make_unique<ClockGettimeSource>(SourceKind::ClockRealtime, CLOCK_REALTIME));
  sources.push_back(std::make_unique<ClockGettimeSource>(SourceKind::ClockMonotonic, CLOCK_MONOTONIC));
  sources.push_back(std::make_unique<ClockGettimeSource>(SourceKind::ClockMonotonicRaw, CLOCK_MONOTONIC_RAW));
  sources.push_back(open_hpet(hpet_device));
  sources.push_back(std::make_unique<RdtscSource>(tsc, tsc_hz));
  sources.push_back(std::make_unique<RdtscpSource>(tsc, tsc_hz));
  return sources;
}

}  // namespace ncp2::timing
