// Source availability: detection never crashes, a missing HPET is reported with a reason, a fake
// HPET register block is read correctly, cpuinfo flags decide invariance, and the project's clock
// falls back with a reason.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "host_timing/tick_clock.hpp"
#include "host_timing/time_source.hpp"

namespace ncp2::timing {
namespace {

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("ncp2-timing-" + std::to_string(::getpid()) + "-" + name);
}

TEST(TimeSources, DetectionNeverCrashesAndEverySourceExplainsItself) {
  const TscInfo tsc = detect_tsc();
  const auto sources = make_sources(tsc, 1e9);
  ASSERT_EQ(sources.size(), 7u);
  for (const auto& s : sources) {
    EXPECT_FALSE(s->name().empty());
    if (s->available()) {
      EXPECT_TRUE(s->reason().empty());
      EXPECT_GT(s->units_per_second(), 0);
    } else {
      EXPECT_FALSE(s->reason().empty()) << s->name();
      EXPECT_EQ(s->read(), 0u);
    }
  }
  // The OS clocks are always there on Linux.
  EXPECT_TRUE(sources[0]->available());  // gettimeofday
  EXPECT_TRUE(sources[3]->available());  // MONOTONIC_RAW
}

TEST(TimeSources, MissingHpetSaysSo) {
  const auto hpet = open_hpet(temp_path("no-such-hpet"));
  EXPECT_FALSE(hpet->available());
  EXPECT_NE(hpet->reason().find("no "), std::string::npos) << hpet->reason();
  EXPECT_EQ(hpet->read(), 0u);
}

TEST(TimeSources, TheRealHpetIsAvailableOrExplained) {
  const auto hpet = open_hpet();  // /dev/hpet: absent on this VM, so unavailable with a reason
  if (!std::filesystem::exists("/dev/hpet")) {
    EXPECT_FALSE(hpet->available());
  }
  if (!hpet->available()) {
    EXPECT_FALSE(hpet->reason().empty());
  }
}

// A file laid out like the HPET register block: mmap of a regular file exercises the same code.
std::filesystem::path write_fake_hpet(std::uint64_t caps, std::uint64_t counter) {
  std::vector<unsigned char> block(1024, 0);
  std::memcpy(block.data() + 0x00, &caps, 8);
  std::memcpy(block.data() + 0xF0, &counter, 8);
  auto path = temp_path("hpet-" + std::to_string(caps));
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(block.data()), 1024);
  return path;
}

TEST(TimeSources, FakeHpetRegisterBlock) {
  const std::uint64_t period_fs = 69'841'279;               // 14.318 MHz, the usual HPET
  const std::uint64_t caps = period_fs << 32 | (1U << 13);  // 64-bit counter
  const auto path = write_fake_hpet(caps, 0x1'2345'6789ULL);
  const auto hpet = open_hpet(path);
  ASSERT_TRUE(hpet->available()) << hpet->reason();
  EXPECT_EQ(hpet->read(), 0x1'2345'6789ULL);
  EXPECT_NEAR(hpet->units_per_second(), 14'318'180, 1);
  EXPECT_NEAR(hpet->declared_resolution_ns(), 69.84, 0.01);
  std::filesystem::remove(path);

  // A 32-bit counter: only the low half counts.
  const auto path32 = write_fake_hpet(period_fs << 32, 0x1'2345'6789ULL);
  EXPECT_EQ(open_hpet(path32)->read(), 0x2345'6789ULL);
  std::filesystem::remove(path32);

  // An impossible period (0, or over the specification's 100 ns) is refused with a reason.
  const auto bad = write_fake_hpet(0, 1);
  const auto h = open_hpet(bad);
  EXPECT_FALSE(h->available());
  EXPECT_NE(h->reason().find("invalid counter period"), std::string::npos);
  std::filesystem::remove(bad);
}

constexpr const char* kCpuinfo =
    "processor\t: 0\nmodel name\t: Test CPU @ 2.00GHz\n"
    "flags\t\t: fpu tsc msr rdtscp constant_tsc nonstop_tsc tsc_known_freq hypervisor\n\n"
    "processor\t: 1\nflags\t\t: fpu\n";

TEST(TimeSources, CpuinfoFlagsDecideInvariance) {
  TscInfo info;
  info.x86 = true;
  parse_cpuinfo(kCpuinfo, info);
  EXPECT_EQ(info.cpu_model, "Test CPU @ 2.00GHz");
  EXPECT_TRUE(info.constant_tsc && info.nonstop_tsc && info.tsc_known_freq && info.hypervisor);
  EXPECT_TRUE(info.rdtsc && info.rdtscp);
  EXPECT_TRUE(info.invariant());

  TscInfo partial;
  partial.x86 = true;
  parse_cpuinfo("flags\t: tsc constant_tsc\n", partial);
  EXPECT_FALSE(partial.invariant());  // constant rate but may stop in deep C-states
  partial.cpuid_invariant = true;
  EXPECT_TRUE(partial.invariant());
}

TEST(TimeSources, ProjectClockChoiceAndReasons) {
  TscInfo none;  // not x86
  EXPECT_FALSE(choose_clock(none).use_tsc);
  EXPECT_NE(choose_clock(none).reason.find("not an x86 CPU"), std::string::npos);
  EXPECT_FALSE(rdtsc_unavailable_reason(none).empty());

  TscInfo variant;
  variant.x86 = variant.rdtsc = true;
  EXPECT_TRUE(rdtsc_unavailable_reason(variant).empty());
  EXPECT_NE(rdtscp_unavailable_reason(variant).find("RDTSCP"), std::string::npos);
  const ClockChoice c = choose_clock(variant);
  EXPECT_FALSE(c.use_tsc);
  EXPECT_NE(c.reason.find("not invariant"), std::string::npos);
  EXPECT_NE(c.reason.find("MONOTONIC_RAW"), std::string::npos);

  TscInfo good = variant;
  good.constant_tsc = good.nonstop_tsc = true;
  EXPECT_TRUE(choose_clock(good).use_tsc);
  EXPECT_TRUE(choose_clock(good).reason.empty());

  // A non-invariant TSC is still a source in the table, with a caveat.
  const auto sources = make_sources(variant, 1e9, temp_path("none"));
  for (const auto& s : sources)
    if (s->kind() == SourceKind::Rdtsc && s->available()) {
      EXPECT_NE(s->note().find("not invariant"), std::string::npos);
    }
}

TEST(TimeSources, ClocksourceFromSysfsOrAReason) {
  const ClocksourceInfo missing = detect_clocksource(temp_path("no-sysfs"));
  EXPECT_TRUE(missing.current.empty());
  EXPECT_FALSE(missing.reason.empty());

  const auto dir = temp_path("clocksource0");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "current_clocksource") << "tsc\n";
  std::ofstream(dir / "available_clocksource") << "tsc kvm-clock acpi_pm \n";
  const ClocksourceInfo cs = detect_clocksource(dir);
  EXPECT_EQ(cs.current, "tsc");
  EXPECT_EQ(cs.available, (std::vector<std::string>{"tsc", "kvm-clock", "acpi_pm"}));
  std::filesystem::remove_all(dir);
}

TEST(TickClock, FallbackAndFunctionClocks) {
  const TickClock raw = TickClock::monotonic_raw();
  const std::uint64_t a = raw.now();
  const std::uint64_t b = raw.now();
  EXPECT_GE(b, a);
  EXPECT_DOUBLE_EQ(raw.to_ns(1000), 1000);

  std::uint64_t counter = 0;
  const TickClock fake =
      TickClock::function([](void* c) { return *static_cast<std::uint64_t*>(c) += 5; }, &counter, 2e9);
  EXPECT_EQ(fake.now(), 5u);
  EXPECT_EQ(fake.now(), 10u);
  EXPECT_DOUBLE_EQ(fake.to_ns(10), 5);
  EXPECT_NE(fake.describe().find("2000.000 MHz"), std::string::npos);
}

}  // namespace
}  // namespace ncp2::timing
