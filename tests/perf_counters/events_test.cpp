// Event names and availability: libpfm4 and the generic table agree, unknown names are refused
// with the reason, and every event is either counted or says why not.
#include <linux/perf_event.h>

#include <cerrno>
#include <filesystem>

#include <gtest/gtest.h>

#include "perf_counters/events.hpp"
#include "perf_counters/perf_group.hpp"

namespace ncp2::counters {
namespace {

TEST(EventNames, GenericAndLibpfm4AgreeOnTheSoftwareEvents) {
  for (const char* name : {"task-clock", "page-faults", "context-switches", "cpu-clock", "minor-faults"}) {
    const Resolution generic = resolve_event(name, Resolver::generic_only);
    ASSERT_TRUE(generic.event) << name;
    EXPECT_EQ(generic.event->source, "generic");
    EXPECT_EQ(generic.event->type, static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE)) << name;
    const Resolution either = resolve_event(name);
    ASSERT_TRUE(either.event) << name;
    EXPECT_EQ(either.event->type, generic.event->type) << name;
    EXPECT_EQ(either.event->config, generic.event->config) << name;
  }
  EXPECT_EQ(resolve_event("task-clock").event->unit, "ns");
  EXPECT_EQ(resolve_event("page-faults").event->unit, "");
}

TEST(EventNames, HardwareCacheEventsEncodeIdOpResult) {
  const auto e = resolve_event("L1-dcache-load-misses", Resolver::generic_only).event;
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, static_cast<std::uint32_t>(PERF_TYPE_HW_CACHE));
  EXPECT_EQ(e->config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                           (static_cast<std::uint64_t>(PERF_COUNT_HW_CACHE_RESULT_MISS) << 16));
}

TEST(EventNames, RawEncodingsAsPerfWritesThem) {
  // The paper's L1D_ALL_REF on a Core 2.
  const auto e = resolve_event("r530143", Resolver::generic_only).event;
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
  EXPECT_EQ(e->config, 0x530143u);
}

TEST(EventNames, UnknownNamesSayWhy) {
  const Resolution r = resolve_event("no-such-event");
  EXPECT_FALSE(r.event);
  EXPECT_NE(r.error.find("unknown event 'no-such-event'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("libpfm4"), std::string::npos) << r.error;
}

TEST(EventNames, EventListsAreCheckedForEmptyAndDuplicateNames) {
  EXPECT_EQ(parse_event_list("task-clock, page-faults"),
            (std::vector<std::string>{"task-clock", "page-faults"}));
  EXPECT_THROW(parse_event_list("task-clock,,page-faults"), std::invalid_argument);
  EXPECT_THROW(parse_event_list(""), std::invalid_argument);
  EXPECT_THROW(parse_event_list("cycles,cycles"), std::invalid_argument);
}

TEST(OpenErrors, ReasonsNameTheCauseAndWhatToDo) {
  const std::string no_pmu = describe_open_error(ENOENT, 2, true);
  EXPECT_NE(no_pmu.find("not supported here"), std::string::npos) << no_pmu;
  EXPECT_NE(no_pmu.find("ENOENT"), std::string::npos) << no_pmu;
  const std::string denied = describe_open_error(EACCES, 3, false);
  EXPECT_NE(denied.find("perf_event_paranoid is 3"), std::string::npos) << denied;
  EXPECT_NE(denied.find("sysctl kernel.perf_event_paranoid"), std::string::npos) << denied;
  const std::string no_file = describe_open_error(EACCES, std::nullopt, false);
  EXPECT_NE(no_file.find("/proc/sys/kernel/perf_event_paranoid"), std::string::npos) << no_file;
  EXPECT_NE(describe_open_error(ENOSYS, 2, false).find("seccomp"), std::string::npos);
}

// Whether perf_event_open works at all here (a container may forbid it): then software events
// must be counted.
bool perf_events_usable() { return read_perf_event_paranoid().has_value(); }

TEST(Availability, EveryDefaultEventIsCountedOrSaysWhyNot) {
  for (const auto& name : default_event_names()) {
    const EventStatus s = probe_event(name);
    EXPECT_EQ(s.name, name);
    if (s.available) {
      EXPECT_TRUE(s.reason.empty()) << name << ": " << s.reason;
      EXPECT_FALSE(s.source.empty()) << name;
    } else {
      EXPECT_FALSE(s.reason.empty()) << name << " is unavailable without a reason";
    }
  }
}

TEST(Availability, SoftwareEventsAreCountedWherePerfEventsExist) {
  if (!perf_events_usable())
    GTEST_SKIP() << "no /proc/sys/kernel/perf_event_paranoid: kernel without perf events";
  for (const char* name : {"task-clock", "page-faults", "context-switches"}) {
    const EventStatus s = probe_event(name);
    EXPECT_TRUE(s.available) << name << ": " << s.reason;
  }
}

TEST(Availability, AHardwareEventIsCountedExactlyWhenTheKernelHasAPmu) {
  // The kernel lists a CPU PMU under /sys/bus/event_source/devices/cpu (or cpu_core on hybrids)
  // when hardware events can be opened; VMs without one must report instructions as unsupported.
  std::error_code ec;
  const bool pmu = std::filesystem::exists("/sys/bus/event_source/devices/cpu", ec) ||
                   std::filesystem::exists("/sys/bus/event_source/devices/cpu_core", ec) ||
                   std::filesystem::exists("/sys/bus/event_source/devices/armv8_pmuv3_0", ec);
  const EventStatus s = probe_event("instructions");
  if (!pmu) {
    EXPECT_FALSE(s.available);
    EXPECT_NE(s.reason.find("not supported"), std::string::npos) << s.reason;
  } else if (!s.available) {
    EXPECT_FALSE(s.reason.empty());  // a PMU, yet refused (permissions, a busy counter): said so
  }
}

TEST(Availability, UnknownEventsAreUnavailable) {
  const EventStatus s = probe_event("no-such-event");
  EXPECT_FALSE(s.available);
  EXPECT_NE(s.reason.find("unknown event"), std::string::npos);
}

}  // namespace
}  // namespace ncp2::counters
