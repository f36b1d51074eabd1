// The host's load on a real node's costs (issue 43, validation/load_factor.hpp): one factor on every
// software cost, read off the basic costs timed beside nodes that load the host. A synthetic host
// whose loaded costs are its own costs scaled by a known factor gives that factor back, an
// operation far off does not move it much, and a calibration without loaded costs scales nothing.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "validation/calibrate.hpp"
#include "validation/load_factor.hpp"

namespace ncp2::validation {
namespace {

constexpr int kNodes = 4;

// A real node with costs of its own (not the defaults the calibration starts from).
dsm::SystemConfig synthetic_node() {
  dsm::SystemConfig c = dsm::default_config(emu::MachineKind::TreadMarks);
  c.machine.nodes = kNodes;
  const std::map<std::string, double> known = {{"message software cost (send = receive)", 6},
                                               {"interrupt (a message's arrival)", 3},
                                               {"network latency per link", 2},
                                               {"hand-off to the server (a Tmk call, a fault)", 9},
                                               {"access fault trap", 0.5}};
  for (const FitParameter& p : real_node_parameters())
    if (const auto it = known.find(p.name); it != known.end()) set_parameter(c, p, it->second);
  return c;
}

std::map<std::string, double> loaded_costs(const dsm::SystemConfig& c, double factor) {
  return raw_costs(kNodes)(with_load_factor(c, real_node_parameters(), factor));
}

TEST(LoadFactor, ScalesEverySoftwareCostButTheServersWaits) {
  dsm::SystemConfig c = synthetic_node();
  c.pp.busy_handler_delay = emu::Duration{3'000'000'000};  // 3 ms
  const dsm::SystemConfig scaled = with_load_factor(c, real_node_parameters(), 2.5);
  EXPECT_EQ(scaled.pp.send_overhead.count(), c.pp.send_overhead.count() * 5 / 2);
  EXPECT_EQ(scaled.dsm.fault_handoff.count(), c.dsm.fault_handoff.count() * 5 / 2);
  EXPECT_EQ(scaled.network.link_latency.count(), c.network.link_latency.count() * 5 / 2);
  EXPECT_NEAR(scaled.network.link_bandwidth, c.network.link_bandwidth / 2.5, c.network.link_bandwidth * 1e-9);
  EXPECT_EQ(scaled.pp.busy_handler_delay, c.pp.busy_handler_delay);
  for (const FitParameter& p : real_node_parameters())
    EXPECT_EQ(scaled_by_load(p), p.keys.front().rfind("pp.busy_handler", 0) != 0) << p.name;
}

TEST(LoadFactor, AKnownFactorIsReadBack) {
  const dsm::SystemConfig c = synthetic_node();
  for (const double truth : {1.0, 1.7, 2.5, 4.0}) {
    const LoadFit fit = fit_load_factor(c, real_node_parameters(), raw_costs(kNodes), loaded_costs(c, truth));
    EXPECT_NEAR(fit.factor, truth, 0.01 * truth) << truth;
    EXPECT_LT(fit.mean_log_error, 0.01) << truth;
    EXPECT_TRUE(fit.reproduced.contains("lock-from-manager"));
    EXPECT_FALSE(fit.reproduced.contains("barrier-after-8-pages"));  // not emulated
  }
}

TEST(LoadFactor, OperationsFarOffHardlyMoveIt) {
  const dsm::SystemConfig c = synthetic_node();
  std::map<std::string, double> loaded = loaded_costs(c, 2.5);
  loaded["page-miss-burst"] *= 5;  // a burst that met the scheduler at its worst
  loaded["lock-local"] /= 5;       // hand-offs to an agent kept awake (measured: 14 us loaded, 23 idle)
  const LoadFit fit = fit_load_factor(c, real_node_parameters(), raw_costs(kNodes), loaded);
  EXPECT_NEAR(fit.factor, 2.5, 0.25);
}

TEST(LoadFactor, TheBusyRequestsAreNotRead) {
  const dsm::SystemConfig c = synthetic_node();
  std::map<std::string, double> loaded = loaded_costs(c, 2);
  for (auto& [operation, us] : loaded)
    if (!reads_the_load(operation)) us *= 100;  // the scheduler's, not the load's
  EXPECT_NEAR(fit_load_factor(c, real_node_parameters(), raw_costs(kNodes), loaded).factor, 2, 0.02);
  EXPECT_FALSE(reads_the_load("busy-request-4ms"));
  EXPECT_FALSE(reads_the_load("lock-burst"));
  EXPECT_TRUE(reads_the_load("page-miss"));
}

TEST(LoadFactor, NoLoadedCostsScaleNothing) {
  const LoadFit fit = fit_load_factor(synthetic_node(), real_node_parameters(), raw_costs(kNodes), {});
  EXPECT_EQ(fit.factor, 1);
  EXPECT_TRUE(fit.reproduced.empty());
}

std::vector<MeasuredCost> as_measured(const std::map<std::string, double>& costs) {
  std::vector<MeasuredCost> out;
  out.reserve(costs.size());
  for (const auto& [operation, us] : costs) out.push_back({operation, us, us, us, us, 1, {}});
  return out;
}

// The calibration fits the idle costs, then scales the preset's software costs by the factor it
// reads off the loaded ones: the preset reproduces the loaded costs, and says so.
TEST(LoadFactor, TheCalibrationCarriesItIntoThePreset) {
  const dsm::SystemConfig truth = synthetic_node();
  const std::vector<MeasuredCost> idle = as_measured(raw_costs(kNodes)(truth));
  const Calibration without = fit_calibration(idle, kNodes, "test-host", "2026-11-29T00:00:00Z");
  EXPECT_EQ(without.load.factor, 1);
  EXPECT_EQ(calibration_toml(without, "ncp2 calibrate").find("for the host's load"), std::string::npos);

  const Calibration with =
      fit_calibration(idle, kNodes, "test-host", "2026-11-29T00:00:00Z", as_measured(loaded_costs(truth, 2)));
  EXPECT_NEAR(with.load.factor, 2, 0.1);
  EXPECT_NEAR(with.fit.config.dsm.fault_handoff.count(),
              static_cast<double>(without.fit.config.dsm.fault_handoff.count()) * with.load.factor,
              static_cast<double>(without.fit.config.dsm.fault_handoff.count()) * 1e-3);
  EXPECT_EQ(with.fit.config.pp.busy_handler_delay, without.fit.config.pp.busy_handler_delay);
  const std::string toml = calibration_toml(with, "ncp2 calibrate");
  EXPECT_NE(toml.find("for the host's load on 4 nodes"), std::string::npos);
  EXPECT_NE(toml.find("# The same beside nodes that load the host"), std::string::npos);
  const std::string json = calibration_json(with, "ncp2 calibrate");
  EXPECT_NE(json.find("\"load_factor\""), std::string::npos);
  EXPECT_NE(json.find("\"loaded_costs\""), std::string::npos);
}

}  // namespace
}  // namespace ncp2::validation
