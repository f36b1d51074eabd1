// `ncp2 timing --json` and `ncp2 clocksync --json` run as a user would, their JSON parsed: the
// fields the issue lists, HPET explained when missing, and a real synchronization of 3 processes
// whose real error stays within its bound.
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/run_command.hpp"

namespace {

using Result = ncp2::testing::CommandResult;
Result run(const std::string& args) { return ncp2::testing::run_ncp2(args); }

TEST(CliTiming, TimingJsonHasTheSourcesAndTheCalibration) {
  const Result r = run("timing --json --samples 1000 --cold 5 --calibrate 0.05");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["sources"].is_array());
  EXPECT_EQ(j["sources"].size(), 7u);
  bool saw_hpet = false, saw_gettimeofday = false;
  for (const auto& s : j["sources"]) {
    ASSERT_TRUE(s.contains("name") && s.contains("available") && s.contains("reason") &&
                s.contains("overhead_ns") && s.contains("resolution_ns"));
    if (s["available"].get<bool>()) {
      const auto& o = s["overhead_ns"];
      for (const char* k : {"min", "median", "mean", "p99", "max"}) ASSERT_TRUE(o.contains(k)) << k;
      EXPECT_LE(o["min"].get<double>(), o["median"].get<double>());
      EXPECT_LE(o["median"].get<double>(), o["p99"].get<double>());
      EXPECT_LE(o["p99"].get<double>(), o["max"].get<double>());
      EXPECT_GT(s["resolution_ns"].get<double>(), 0);
    } else {
      EXPECT_FALSE(s["reason"].get<std::string>().empty());
    }
    if (s["name"] == "hpet") {
      saw_hpet = true;
      if (!s["available"].get<bool>()) {
        EXPECT_NE(s["reason"].get<std::string>().find("hpet"), std::string::npos);
      }
    }
    if (s["name"] == "gettimeofday") {
      saw_gettimeofday = true;
      EXPECT_TRUE(s["available"].get<bool>());
      EXPECT_GE(s["resolution_ns"].get<double>(), 999);  // microseconds
    }
  }
  EXPECT_TRUE(saw_hpet && saw_gettimeofday);
  const auto& tsc = j["tsc"];
  for (const char* k : {"invariant", "frequency_hz", "calibration_interval_s", "error_bound_ppm"})
    ASSERT_TRUE(tsc.contains(k)) << k;
  if (tsc["readable"].get<bool>()) {
    EXPECT_GT(tsc["frequency_hz"].get<double>(), 1e6);
    EXPECT_GT(tsc["error_bound_ppm"].get<double>(), 0);
    EXPECT_NEAR(tsc["calibration_interval_s"].get<double>(), 0.05, 0.05);
  }
}

void check_clocksync(const std::string& transport) {
  const Result r =
      run("clocksync --procs 3 --exchanges 50 --inject-offset-us 500 --inject-drift-ppm 20 "
          "--interval-ms 100 --json --transport " +
          transport);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["master"], 0);
  EXPECT_EQ(j["transport"], transport);
  ASSERT_EQ(j["followers"].size(), 2u) << r.out;
  for (const auto& f : j["followers"]) {
    ASSERT_TRUE(f["ok"].get<bool>()) << f.dump();
    for (const char* k : {"id", "offset_ns", "drift_ppm", "error_bound_ns", "true_offset_ns", "error_ns",
                          "rtt_ns", "kept", "discarded"})
      ASSERT_TRUE(f.contains(k)) << k;
    for (const char* k : {"min", "mode", "mean", "max"}) ASSERT_TRUE(f["rtt_ns"].contains(k)) << k;
    // The real error is within the bound, and the bound is at least RTT_min / 2.
    EXPECT_LE(std::abs(f["error_ns"].get<double>()), f["error_bound_ns"].get<double>()) << f.dump();
    EXPECT_GE(f["error_bound_ns"].get<double>(), f["rtt_ns"]["min"].get<double>() / 2);
    // Follower 1 is shifted by +500 us, follower 2 by -1000 us, plus their drift (20 and -40 ppm)
    // since the start: 40 us a second, so a generous margin for a slow, loaded machine.
    const double expected = f["id"] == 1 ? 500'000.0 : -1'000'000.0;
    EXPECT_NEAR(f["true_offset_ns"].get<double>(), expected, 400'000);
    EXPECT_LE(f["rtt_ns"]["max"].get<double>(), 2 * f["rtt_ns"]["min"].get<double>());
  }
  EXPECT_EQ(r.status, 0);
}

TEST(CliTiming, ClocksyncOverSharedMemoryIsWithinItsBound) { check_clocksync("shm"); }
TEST(CliTiming, ClocksyncOverUdpIsWithinItsBound) { check_clocksync("udp"); }

}  // namespace
