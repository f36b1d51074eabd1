// lock-burst (issue 43): lock requests one after another to a node whose program computes, the
// rhythm of a lock-heavy program. The calibration parses it, the emulated machine makes it (a plain
// remote acquire with no server wait, longer by the wait with one), and it is compared, never
// fitted: its measured value moves nothing the fit sets.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/basic_costs.hpp"
#include "validation/calibrate.hpp"
#include "validation/programs.hpp"

namespace ncp2::validation {
namespace {

std::map<std::string, double> emulated(const dsm::SystemConfig& config, int nodes) {
  std::map<std::string, double> out;
  for (const auto& c : run::measure_raw_basic_costs(config, nodes)) out[c.operation] = c.microseconds;
  return out;
}

dsm::SystemConfig two_nodes() {
  dsm::SystemConfig c = dsm::default_config(emu::MachineKind::TreadMarks);
  c.machine.nodes = 2;
  return c;
}

TEST(LockBurst, TheProgramsLineIsParsed) {
  const std::vector<MeasuredCost> m = parse_basic_costs(
      "[node 0] basic-cost busy-request-16ms 186.800 162.600 196.700 196.700 9\n"
      "[node 1] basic_costs: lock-burst: 1 of 9 rounds outlasted node 0's computation\n"
      "[node 0] basic-cost lock-burst 700.000 30.500 3800.000 3800.000 9\n");
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[1].operation, "lock-burst");
  EXPECT_DOUBLE_EQ(m[1].median_us, 700);
  EXPECT_DOUBLE_EQ(m[1].min_us, 30.5);
  EXPECT_DOUBLE_EQ(m[1].p90_us, 3800);
  EXPECT_EQ(m[1].rounds, 9);
}

// Every cost the emulated machine makes is one the real program prints, under the same name.
TEST(LockBurst, TheProgramTimesEveryEmulatedCost) {
  const std::string program = kBasicCostsProgram;
  dsm::SystemConfig four = dsm::default_config(emu::MachineKind::TreadMarks);
  four.machine.nodes = 4;
  const auto costs = emulated(four, 4);
  ASSERT_TRUE(costs.contains("lock-burst"));
  for (const auto& [op, us] : costs) EXPECT_NE(program.find('"' + op + '"'), std::string::npos) << op;
}

// With no server wait (every preset but a calibrated one), each request of the burst is a plain
// remote acquire from the lock's manager, which holds it: lock-from-manager's two messages. With
// one, every request meets node 0's computing program and waits for its core.
TEST(LockBurst, TheEmulatedBurstIsAPlainAcquireUnlessTheServerWaits) {
  const auto plain = emulated(two_nodes(), 2);
  ASSERT_GT(plain.at("lock-burst"), 0);
  EXPECT_NEAR(plain.at("lock-burst") / plain.at("lock-from-manager"), 1, 0.02);
  dsm::SystemConfig waiting = two_nodes();
  dsm::apply_override(waiting, "pp.busy_handler_delay=1ms");
  const auto busy = emulated(waiting, 2);
  EXPECT_NEAR(busy.at("lock-burst") - plain.at("lock-burst"), 1000, 50);
  // The quiet wait after 1 ms without serving: only the first request (2 ms after the barrier) is
  // quiet, the others come 0.1 ms after the last: the mean moves by 1/16 of the difference.
  dsm::apply_override(waiting, "pp.busy_handler_delay_quiet=200us");
  dsm::apply_override(waiting, "pp.busy_handler_quiet_after=1ms");
  EXPECT_NEAR(emulated(waiting, 2).at("lock-burst") - busy.at("lock-burst"), -800.0 / 16, 5);
}

// A server that waits longer than the window makes room for (16 acquires at up to 2 ms): node 1
// stops asking while node 0 still computes, so no request meets a waiting node (which would serve
// it at once and pull the mean down): every acquire timed waited the whole delay.
TEST(LockBurst, NoRequestOutlastsTheComputation) {
  const double plain = emulated(two_nodes(), 2).at("lock-burst");
  dsm::SystemConfig slow = two_nodes();
  dsm::apply_override(slow, "pp.busy_handler_delay=5ms");
  EXPECT_NEAR(emulated(slow, 2).at("lock-burst") - plain, 5000, 50);
}

// A synthetic real node's measured costs, lock-burst among them: the fit, its targets and what it
// reproduces do not change when only lock-burst's measurement does; the preset reproduces lock-burst
// all the same (ncp2 calibrate prints it beside the measured value), in the JSON too.
TEST(LockBurst, ItIsComparedNeverFitted) {
  dsm::SystemConfig truth = two_nodes();
  dsm::apply_override(truth, "pp.send_overhead=9us");
  dsm::apply_override(truth, "pp.receive_overhead=9us");
  dsm::apply_override(truth, "pp.busy_handler_delay=2ms");
  std::vector<MeasuredCost> measured;
  for (const auto& [op, us] : emulated(truth, 2)) measured.push_back({op, us, us, us, us, 1, {}});
  EXPECT_TRUE(is_check_only("lock-burst"));
  const Calibration fitted = fit_calibration(measured, 2, "test host", "2026-11-29T00:00:00Z");
  for (MeasuredCost& m : measured)
    if (m.operation == "lock-burst") m.median_us = m.min_us = m.max_us = m.p90_us = 10 * m.median_us;
  const Calibration moved = fit_calibration(measured, 2, "test host", "2026-11-29T00:00:00Z");
  EXPECT_EQ(fitted.fit.values, moved.fit.values);
  EXPECT_EQ(fitted.low, moved.low);
  EXPECT_EQ(fitted.high, moved.high);
  EXPECT_EQ(fitted.fit.worst_error, moved.fit.worst_error);
  EXPECT_FALSE(fitted.targets.contains("lock-burst"));
  ASSERT_TRUE(moved.fit.reproduced.contains("lock-burst"));
  EXPECT_EQ(fitted.fit.reproduced.at("lock-burst"), moved.fit.reproduced.at("lock-burst"));
  const nlohmann::json j = nlohmann::json::parse(calibration_json(moved, "ncp2 calibrate"));
  bool listed = false;
  for (const auto& row : j["costs"])
    if (row["operation"] == "lock-burst") {
      listed = true;
      EXPECT_DOUBLE_EQ(row["preset_us"].get<double>(), moved.fit.reproduced.at("lock-burst"));
      EXPECT_NEAR(row["error"].get<double>(),
                  row["preset_us"].get<double>() / row["median_us"].get<double>() - 1, 1e-12);
    }
  EXPECT_TRUE(listed);
  EXPECT_NE(calibration_toml(moved, "ncp2 calibrate").find("#   lock-burst"), std::string::npos);
}

}  // namespace
}  // namespace ncp2::validation
