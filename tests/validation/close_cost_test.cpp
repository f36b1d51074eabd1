// The agent's work per written page at an interval's close (issue 43, dsm.close_per_page): the
// calibration reads it off the barriers after 8 and 520 written pages; a synthetic real node with a
// known cost per page is recovered, and a calibration without those barriers sets nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "run/basic_costs.hpp"
#include "tests/dsm/harness.hpp"
#include "validation/calibrate.hpp"

namespace ncp2::validation {
namespace {

double ps_to_us(emu::Duration d) { return static_cast<double>(emu::to_ps(d)) * 1e-6; }

MeasuredCost cost(const std::string& operation, double us) { return {operation, us, us, us, us, 1, {}}; }

TEST(CloseCost, TheBarriersAfterWritesAreParsedAndReadOff) {
  const std::vector<MeasuredCost> m = parse_basic_costs(
      "[node 0] basic-cost barrier-after-8-pages 40.000 38.000 60.000 55.000 9\n"
      "[node 0] basic-cost barrier-after-520-pages 104.000 90.000 130.000 120.000 9\n");
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[1].operation, "barrier-after-520-pages");
  EXPECT_DOUBLE_EQ(m[1].median_us, 104);
  EXPECT_NEAR(close_per_page_us(m, 0.1), (104.0 - 40.0) / 512 - 0.1, 1e-12);
}

TEST(CloseCost, MissingOrNotGrowingGivesZero) {
  EXPECT_EQ(close_per_page_us({cost("barrier-after-8-pages", 40)}, 0), 0);
  EXPECT_EQ(close_per_page_us({cost("barrier", 25)}, 0), 0);
  EXPECT_EQ(close_per_page_us({cost("barrier-after-8-pages", 50), cost("barrier-after-520-pages", 45)}, 0),
            0);
}

// basic_costs.c's experiment on an emulated node: node 0 changes one word of each of `pages` pages,
// then times the barrier that closes the interval.
double emulated_barrier_after(const dsm::SystemConfig& config, std::size_t pages) {
  constexpr std::size_t kPageWords = 1024;
  dsm::testing::Harness h(config);
  double us = 0;
  h.run([&](dsm::Process& p) {
    auto data = p.view(p.alloc<std::int32_t>("data", 521 * kPageWords));
    p.barrier(0);
    if (p.id() == 0)
      for (std::size_t k = 0; k < pages; ++k) data.set(k * kPageWords, static_cast<std::int32_t>(k + 1));
    const emu::TimePoint start = h.kernel.now();
    p.barrier(1);
    if (p.id() == 0) us = ps_to_us(h.kernel.now() - start);
  });
  return us;
}

// The calibration of a machine with the treadmarks defaults, from its own raw basic costs.
Calibration calibrated_default_machine() {
  dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
  truth.machine.nodes = 2;
  std::vector<MeasuredCost> measured;
  for (const auto& c : run::measure_raw_basic_costs(truth, 2))
    measured.push_back(cost(c.operation, c.microseconds));
  return fit_calibration(measured, 2, "test host", "2026-11-29T00:00:00Z");
}

TEST(CloseCost, ASyntheticRealNodesCostPerPageIsRecovered) {
  dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
  truth.machine.nodes = 2;
  dsm::apply_override(truth, "dsm.close_per_page=1.5us");
  std::vector<MeasuredCost> measured;
  for (const auto& c : run::measure_raw_basic_costs(truth, 2))
    measured.push_back(cost(c.operation, c.microseconds));
  measured.push_back(cost("barrier-after-8-pages", emulated_barrier_after(truth, 8)));
  measured.push_back(cost("barrier-after-520-pages", emulated_barrier_after(truth, 520)));
  const Calibration cal = fit_calibration(measured, 2, "test host", "2026-11-29T00:00:00Z");
  // Within 3 %: the release also carries a write notice per page (a few bytes at the model's cost
  // per byte), which the read-off leaves in the cost per page.
  EXPECT_NEAR(cal.close_per_page_us, 1.5, 0.045);
  EXPECT_NEAR(ps_to_us(cal.fit.config.dsm.close_per_page), cal.close_per_page_us, 1e-6);
  EXPECT_NE(calibration_toml(cal, "ncp2 calibrate")
                .find("(barrier-after-520-pages - barrier-after-8-pages) / 512 pages"),
            std::string::npos);
  EXPECT_NE(calibration_json(cal, "ncp2 calibrate").find("\"close_per_page_us\""), std::string::npos);
}

TEST(CloseCost, ACalibrationWithoutTheBarriersAfterWritesChargesNothing) {
  const Calibration cal = calibrated_default_machine();
  EXPECT_EQ(cal.close_per_page_us, 0);
  EXPECT_EQ(emu::to_ps(cal.fit.config.dsm.close_per_page), 0);
}

// A real node's agent is a process beside its program: every calibrated preset profiles the
// service as the program's time (pp.separate_server), as a real run records it, and hands a fault
// to the agent at a Tmk call's cost (dsm.fault_handoff).
TEST(CloseCost, ACalibratedPresetHasASeparateServer) {
  const Calibration cal = calibrated_default_machine();
  EXPECT_EQ(cal.fit.config.pp.separate_server, 1);
  // A fault is handed to the agent as a Tmk call is: one fitted hand-off for both.
  EXPECT_GT(emu::to_ps(cal.fit.config.dsm.protocol_handler), 0);
  EXPECT_EQ(cal.fit.config.dsm.fault_handoff, cal.fit.config.dsm.protocol_handler);
  EXPECT_NE(calibration_toml(cal, "ncp2 calibrate").find("separate_server = 1  # a real node"),
            std::string::npos);
}

}  // namespace
}  // namespace ncp2::validation
