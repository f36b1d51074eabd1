// The host's load on a real node's costs (issue 43, validation/load_factor.hpp): one factor on every
// software cost, read off the basic costs timed beside nodes that load the host, then the software
// costs fitted to those costs from there. A synthetic host whose loaded costs are its own costs
// scaled by a known factor gives that factor back, an operation far off does not move it much; one
// whose load slows its costs unevenly is recovered by the fit; a calibration without loaded costs
// changes nothing.
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

// A load that slows the costs unevenly, as this host's did (issue 43, sixth session: a barrier hardly
// slowed, a write fault 4x): the hand-off 4x, the messages 1.5x. One factor cannot reproduce it;
// the loaded fit, started from the factor, does, with the values the load gave.
dsm::SystemConfig unevenly_loaded(const dsm::SystemConfig& c) {
  dsm::SystemConfig loaded = c;
  for (const FitParameter& p : real_node_parameters()) {
    if (p.name == "hand-off to the server (a Tmk call, a fault)")
      set_parameter(loaded, p, 4 * parameter_value(c, p));
    if (p.name == "message software cost (send = receive)" || p.name == "interrupt (a message's arrival)")
      set_parameter(loaded, p, 1.5 * parameter_value(c, p));
  }
  return loaded;
}

double value_named(const dsm::SystemConfig& c, const std::string& name) {
  for (const FitParameter& p : real_node_parameters())
    if (p.name == name) return parameter_value(c, p);
  ADD_FAILURE() << "no parameter " << name;
  return 0;
}

TEST(LoadedFit, RecoversALoadThatSlowsTheCostsUnevenly) {
  const dsm::SystemConfig c = synthetic_node();
  const std::map<std::string, double> loaded = raw_costs(kNodes)(unevenly_loaded(c));
  const LoadFit factor = fit_load_factor(c, real_node_parameters(), raw_costs(kNodes), loaded);
  const dsm::SystemConfig start = with_load_factor(c, real_node_parameters(), factor.factor);
  const LoadedFit fit = fit_loaded_costs(start, real_node_parameters(), raw_costs(kNodes), loaded);
  EXPECT_GT(factor.mean_log_error, 0.1);  // one factor cannot follow it
  EXPECT_LT(fit.mean_log_error, 0.02);
  EXPECT_NEAR(value_named(fit.config, "hand-off to the server (a Tmk call, a fault)"), 36, 36 * 0.1);
  EXPECT_NEAR(value_named(fit.config, "message software cost (send = receive)") +
                  value_named(fit.config, "interrupt (a message's arrival)") / 2,
              1.5 * (6 + 1.5), 1.5 * 7.5 * 0.1);
  ASSERT_EQ(fit.values.size(), real_node_parameters().size());
  EXPECT_TRUE(fit.reproduced.contains("lock-local"));
}

TEST(LoadedFit, LeavesTheServersWaitsAndNothingLoadedAlone) {
  dsm::SystemConfig c = synthetic_node();
  c.pp.busy_handler_delay = emu::Duration{3'000'000'000};  // 3 ms
  std::map<std::string, double> loaded = raw_costs(kNodes)(unevenly_loaded(c));
  for (auto& [operation, us] : loaded)
    if (!reads_the_load(operation)) us *= 100;  // the scheduler's, not the load's
  const LoadedFit fit = fit_loaded_costs(c, real_node_parameters(), raw_costs(kNodes), loaded);
  EXPECT_EQ(fit.config.pp.busy_handler_delay, c.pp.busy_handler_delay);
  EXPECT_FALSE(fit.reproduced.empty());
  EXPECT_LT(fit.mean_log_error, 0.02);
  EXPECT_NEAR(value_named(fit.config, "hand-off to the server (a Tmk call, a fault)"), 36, 36 * 0.1);
  const LoadedFit none = fit_loaded_costs(c, real_node_parameters(), raw_costs(kNodes), {});
  EXPECT_EQ(none.config.dsm.fault_handoff, c.dsm.fault_handoff);
  EXPECT_TRUE(none.reproduced.empty());
}

// The value of KEY = ... on its line of a preset, and the text after `tag` in that line's comment.
std::string line_of(const std::string& toml, const std::string& key) {
  const std::size_t at = toml.find("\n" + key + " = ");
  if (at == std::string::npos) return "";
  return toml.substr(at + 1, toml.find('\n', at + 1) - at - 1);
}
std::string after(const std::string& line, const std::string& tag) {
  const std::size_t at = line.find(tag);
  if (at == std::string::npos) return "";
  const std::size_t from = at + tag.size();
  return line.substr(from, line.find_first_of(",)", from) - from);
}

// The calibration fits the idle costs, reads the factor off the loaded ones, and fits the preset's
// software costs to them from there: the preset reproduces the loaded costs, and its comments say
// what each key would be beside idle nodes and with the factor alone.
TEST(LoadedFit, TheCalibrationFitsThePresetToTheLoadedCosts) {
  const dsm::SystemConfig truth = synthetic_node();
  const std::vector<MeasuredCost> idle = as_measured(raw_costs(kNodes)(truth));
  const Calibration without = fit_calibration(idle, kNodes, "test-host", "2026-11-29T00:00:00Z");
  EXPECT_EQ(without.load.factor, 1);
  EXPECT_EQ(calibration_toml(without, "ncp2 calibrate").find("nodes that load the host on"),
            std::string::npos);

  const Calibration with = fit_calibration(idle, kNodes, "test-host", "2026-11-29T00:00:00Z",
                                           as_measured(raw_costs(kNodes)(unevenly_loaded(truth))));
  EXPECT_GT(with.load.mean_log_error, 0.1);
  EXPECT_LT(with.loaded_fit.mean_log_error, 0.03);
  const double idle_handoff = static_cast<double>(without.fit.config.dsm.fault_handoff.count());
  EXPECT_NEAR(static_cast<double>(with.fit.config.dsm.fault_handoff.count()), 4 * idle_handoff,
              0.4 * idle_handoff);
  EXPECT_EQ(with.fit.config.pp.busy_handler_delay, without.fit.config.pp.busy_handler_delay);

  const std::string toml = calibration_toml(with, "ncp2 calibrate");
  EXPECT_NE(toml.find("# The same beside nodes that load the host"), std::string::npos);
  const std::string handoff = line_of(toml, "fault_handoff");
  EXPECT_NE(handoff.find("then fitted to the basic costs beside nodes that load the host on 4 nodes"),
            std::string::npos)
      << handoff;
  // The comment's values are the keys' as the two configurations write them.
  const std::string idle_value = after(handoff, "beside idle nodes = ");
  const std::string factor_value = after(handoff, "the factor alone = ");
  EXPECT_EQ(idle_value, after(line_of(dsm::to_toml(with.idle_config), "fault_handoff"), "fault_handoff = "));
  EXPECT_EQ(factor_value,
            after(line_of(dsm::to_toml(with.factor_config), "fault_handoff"), "fault_handoff = "));
  EXPECT_NE(idle_value, factor_value);
  const std::string json = calibration_json(with, "ncp2 calibrate");
  for (const char* field : {"\"load_factor\"", "\"loaded_costs\"", "\"loaded_fitted\"", "\"factor_alone_us\"",
                            "\"loaded_fit_mean_log_error\""})
    EXPECT_NE(json.find(field), std::string::npos) << field;
}

}  // namespace
}  // namespace ncp2::validation
