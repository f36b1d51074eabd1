// The busy requests' two modes (issue 43, pp.busy_handler_prompt_share): a request to a computing
// real node is served either promptly or after a time slice. The calibration reads each round's
// time off the program's output, splits the rounds in two, fits the wait to the slow mode and sets
// the prompt share; a synthetic real node with a known share is recovered.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "run/basic_costs.hpp"
#include "validation/calibrate.hpp"

namespace ncp2::validation {
namespace {

double ps_to_us(emu::Duration d) { return static_cast<double>(emu::to_ps(d)) * 1e-6; }

// A busy-request cost whose rounds are `prompt` rounds of `fast_us` and the rest of `slow_us`, each
// spread by a few percent so that no two are equal.
MeasuredCost busy(int ms, int rounds, int prompt, double fast_us, double slow_us) {
  MeasuredCost m{fmt::format("busy-request-{}ms", ms), 0, 0, 0, 0, rounds, {}};
  for (int r = 0; r < rounds; ++r) m.rounds_us.push_back((r < prompt ? fast_us : slow_us) * (1 + 0.002 * r));
  std::vector<double> sorted = m.rounds_us;
  std::sort(sorted.begin(), sorted.end());
  m.median_us = sorted[sorted.size() / 2];
  m.min_us = sorted.front();
  m.max_us = sorted.back();
  m.p90_us = sorted[(9 * sorted.size() + 9) / 10 - 1];
  return m;
}

TEST(BusyModes, TheProgramsRoundsAreParsed) {
  const std::string output =
      "[node 0] basic-cost busy-request-1ms 2000.000 100.000 3000.000 3000.000 3\n"
      "[node 0] basic-cost-rounds busy-request-1ms 100.000 2000.000 3000.000\n"
      "[node 0] basic-cost page-miss 50.000 40.000 60.000 60.000 2\n"
      "[node 0] basic-cost-rounds page-miss 40.000 99999.000\n";  // outside its range: not kept
  const std::vector<MeasuredCost> m = parse_basic_costs(output);
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[0].rounds_us, (std::vector<double>{100, 2000, 3000}));
  EXPECT_TRUE(m[1].rounds_us.empty());
}

TEST(BusyModes, TwoModesAreSplitAndOneIsNot) {
  const std::vector<MeasuredCost> two{busy(1, 20, 6, 120, 2500), busy(2, 20, 8, 110, 2600),
                                      busy(16, 20, 20, 200, 200)};
  // The quiet stretch after 8 ms: the 16 ms rounds are not pooled.
  const BusyModes modes = busy_modes(two, 8000);
  ASSERT_TRUE(modes.found());
  EXPECT_EQ(modes.rounds, 40);
  EXPECT_DOUBLE_EQ(modes.prompt_share, 14.0 / 40);
  EXPECT_NEAR(modes.slow_median_us, 2550, 100);
  EXPECT_NEAR(modes.prompt_median_us, 115, 10);
  // Rounds within 4x of each other are one mode, however they spread.
  const BusyModes one = busy_modes({busy(1, 20, 10, 800, 2500)}, 0);
  EXPECT_FALSE(one.found());
  EXPECT_EQ(one.prompt_share, 0);
  // A single slow round is not a mode.
  EXPECT_FALSE(busy_modes({busy(1, 20, 19, 100, 3000)}, 0).found());
  EXPECT_FALSE(is_busy_not_quiet("busy-request-16ms", 8000));
  EXPECT_TRUE(is_busy_not_quiet("busy-request-16ms", 0));
  EXPECT_FALSE(is_busy_not_quiet("page-miss", 0));
}

// A synthetic real node whose server waits 3 ms, or (a third of the time, and after 3 ms of quiet)
// 0.3 ms: its costs made by the emulator with each mode alone, its rounds mixed as a real host's
// are. The fit recovers the wait from the slow mode and the share from the rounds.
TEST(BusyModes, ASyntheticRealNodesShareAndWaitAreRecovered) {
  dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
  truth.machine.nodes = 2;
  dsm::apply_override(truth, "pp.busy_handler_delay=3ms");
  dsm::apply_override(truth, "pp.busy_handler_delay_quiet=300us");
  dsm::apply_override(truth, "pp.busy_handler_quiet_after=3ms");
  std::map<std::string, double> slow, fast;
  for (const auto& c : run::measure_raw_basic_costs(truth, 2)) slow[c.operation] = c.microseconds;
  dsm::SystemConfig prompt = truth;
  dsm::apply_override(prompt, "pp.busy_handler_delay=300us");
  for (const auto& c : run::measure_raw_basic_costs(prompt, 2)) fast[c.operation] = c.microseconds;
  std::vector<MeasuredCost> measured;
  for (const auto& [op, us] : slow) {
    int ms = 0;
    if (std::sscanf(op.c_str(), "busy-request-%dms", &ms) == 1 && ms < 3)
      measured.push_back(busy(ms, 30, 10, fast.at(op), us));
    else
      measured.push_back({op, us, us, us, us, 1, {}});
  }
  const Calibration cal = fit_calibration(measured, 2, "test host", "2026-11-28T00:00:00Z");
  ASSERT_TRUE(cal.busy_modes.found());
  EXPECT_DOUBLE_EQ(cal.fit.config.pp.busy_handler_prompt_share, 1.0 / 3);
  EXPECT_NEAR(ps_to_us(cal.fit.config.pp.busy_handler_delay), 3000, 150);
  EXPECT_NEAR(ps_to_us(cal.fit.config.pp.busy_handler_delay_quiet), 300, 30);
  const MeasuredCost& one_ms = *std::find_if(measured.begin(), measured.end(), [](const MeasuredCost& m) {
    return m.operation == "busy-request-1ms";
  });
  EXPECT_TRUE(fitted_to_slow_mode(cal, one_ms));
  // The slow rounds spread by up to 6 % (busy()): their pooled median is within it.
  EXPECT_NEAR(fitted_target(cal, one_ms) / slow.at("busy-request-1ms"), 1.03, 0.03);
}

// pp.busy_handler_tick: a request not served promptly waits for the next tick of its node's core,
// so the slow rounds spread evenly from the smallest up to a tick. Rounds made that way (a 4 ms
// tick, the prompt third at 0.1 ms) give back the tick; the preset carries it and says so.
TEST(BusyModes, TheSchedulersTickIsReadOffTheSlowMode) {
  MeasuredCost m{"busy-request-1ms", 0, 0, 0, 0, 30, {}};
  for (int r = 0; r < 10; ++r) m.rounds_us.push_back(100 + r);
  for (int r = 0; r < 20; ++r) m.rounds_us.push_back(400 + 3600.0 * (r + 0.5) / 20);
  ASSERT_TRUE(busy_modes({m}, 0).found());
  EXPECT_NEAR(busy_tick_us({m}, 0), 4000, 200);
  EXPECT_EQ(busy_tick_us({}, 0), 0) << "no busy requests: no tick";
  // Without a prompt mode every round is the slow one.
  MeasuredCost slow_only{"busy-request-2ms", 0, 0, 0, 0, 20, {}};
  for (int r = 0; r < 20; ++r) slow_only.rounds_us.push_back(400 + 3600.0 * (r + 0.5) / 20);
  ASSERT_FALSE(busy_modes({slow_only}, 0).found());
  EXPECT_NEAR(busy_tick_us({slow_only}, 0), 4000, 200);

  dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
  truth.machine.nodes = 2;
  std::vector<MeasuredCost> measured;
  for (const auto& c : run::measure_raw_basic_costs(truth, 2))
    if (c.operation != "busy-request-1ms")
      measured.push_back(
          {c.operation, c.microseconds, c.microseconds, c.microseconds, c.microseconds, 1, {}});
  measured.push_back(m);
  const Calibration cal = fit_calibration(measured, 2, "test host", "2026-11-29T00:00:00Z");
  EXPECT_NEAR(cal.busy_tick_us, busy_tick_us({m}, 0), 1e-9);
  EXPECT_NEAR(ps_to_us(cal.fit.config.pp.busy_handler_tick), cal.busy_tick_us, 1e-3);
  EXPECT_NE(calibration_toml(cal, "ncp2 calibrate").find("spread evenly up to a tick"), std::string::npos);
  EXPECT_NE(calibration_json(cal, "ncp2 calibrate").find("\"busy_tick_us\""), std::string::npos);
  // The costs compared, not fitted, are what the final preset (its tick included) reproduces.
  dsm::SystemConfig preset = cal.fit.config;
  for (const auto& c : run::measure_raw_basic_costs(preset, 2)) {
    if (!is_check_only(c.operation)) continue;
    EXPECT_DOUBLE_EQ(cal.fit.reproduced.at(c.operation), c.microseconds) << c.operation;
  }
}

// pp.busy_handler_prompt_after (issue 43's fifth session): the shorter spacings had no prompt round
// (measured: 0 of 41 at 0.125-1 ms), so prompt service starts between the longest of them and the
// next, and the share is that of the spacings from there on.
TEST(BusyModes, PromptServiceStartsAfterTheSpacingsWithoutAPromptRound) {
  const std::vector<MeasuredCost> late{busy(1, 20, 0, 120, 2500), busy(2, 20, 4, 110, 2600),
                                       busy(4, 20, 8, 130, 2400)};
  const BusyModes modes = busy_modes(late, 0);
  ASSERT_TRUE(modes.found());
  EXPECT_NEAR(modes.prompt_share, 12.0 / 60, 1e-12);
  const PromptOnset onset = prompt_onset(late, 0, modes);
  EXPECT_NEAR(onset.after_us, 1e3 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(onset.share, 12.0 / 40, 1e-12);
  // Prompt rounds at the shortest spacing: from the start, the pooled share.
  const std::vector<MeasuredCost> early{busy(1, 20, 2, 120, 2500), busy(2, 20, 4, 110, 2600)};
  const PromptOnset at_once = prompt_onset(early, 0, busy_modes(early, 0));
  EXPECT_EQ(at_once.after_us, 0);
  EXPECT_NEAR(at_once.share, 6.0 / 40, 1e-12);
  // A spacing from the quiet stretch on does not count (its requests are served as a quiet server's).
  EXPECT_NEAR(prompt_onset(late, 3000, busy_modes(late, 3000)).share, 4.0 / 20, 1e-12);
  EXPECT_EQ(prompt_onset({busy(1, 20, 0, 120, 2500)}, 0, busy_modes({busy(1, 20, 0, 120, 2500)}, 0)).after_us,
            0)
      << "one mode: nothing to start";

  // The calibration sets both keys, and the preset says so.
  dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
  truth.machine.nodes = 2;
  std::vector<MeasuredCost> measured;
  for (const auto& c : run::measure_raw_basic_costs(truth, 2))
    if (!c.operation.starts_with("busy-request-"))
      measured.push_back(
          {c.operation, c.microseconds, c.microseconds, c.microseconds, c.microseconds, 1, {}});
  measured.insert(measured.end(), late.begin(), late.end());
  const Calibration cal = fit_calibration(measured, 2, "test host", "2026-11-29T00:00:00Z");
  EXPECT_NEAR(ps_to_us(cal.fit.config.pp.busy_handler_prompt_after), 1e3 * std::sqrt(2.0), 0.01);  // 6 digits
  EXPECT_NEAR(cal.fit.config.pp.busy_handler_prompt_share, 0.3, 1e-9);
  EXPECT_NE(calibration_toml(cal, "ncp2 calibrate").find("had no prompt round"), std::string::npos);
  EXPECT_NE(calibration_json(cal, "ncp2 calibrate").find("\"busy_prompt_after_us\""), std::string::npos);
}

}  // namespace
}  // namespace ncp2::validation
