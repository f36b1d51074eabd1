// `ncp2 calibrate --refit` (validation/calibrate_host.hpp: refit_calibration): the measurements a
// calibration's JSON kept, fitted again, give the preset the calibration made; a file that is not
// such a JSON is refused in our words.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dsm/config.hpp"
#include "run/basic_costs.hpp"
#include "tests/carnival/temp_dir.hpp"
#include "validation/calibrate_host.hpp"

namespace ncp2::validation {
namespace {

using ::testing::HasSubstr;

class CalibrationRefitTest : public carnival::testing::TempDirTest {
 protected:
  // A synthetic real node's basic costs, as measured with 3 rounds each (the busy requests' rounds
  // spread, so that they split in two modes as measured ones do).
  static std::vector<MeasuredCost> measured() {
    dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
    truth.machine.nodes = 2;
    dsm::apply_override(truth, "pp.send_overhead=9us");
    dsm::apply_override(truth, "pp.busy_handler_delay=3ms");
    std::vector<MeasuredCost> out;
    for (const auto& cost : run::measure_raw_basic_costs(truth, 2)) {
      const double us = cost.microseconds;
      MeasuredCost m{cost.operation, us, 0.9 * us, 1.2 * us, 1.2 * us, 3, {}};
      if (cost.operation.starts_with("busy-request-")) m.rounds_us = {0.05 * us, us, 1.2 * us};
      out.push_back(m);
    }
    return out;
  }
  [[nodiscard]] std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }
  // The preset without its head (the command that made it differs).
  static std::string body(const std::string& toml) {
    std::istringstream in(toml);
    std::string line, out;
    while (std::getline(in, line))
      if (!line.starts_with("#")) out += line + "\n";
    return out;
  }
  static std::string refit_error(const std::string& file) {
    try {
      (void)refit_calibration(file);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(CalibrationRefitTest, TheKeptMeasurementsGiveTheSamePreset) {
  const Calibration made = fit_calibration(measured(), 2, "a host", "2026-11-29T00:00:00Z");
  const std::string command = "ncp2 calibrate --machine real --nodes 2 --rounds 3";
  const std::string file = write("c.json", calibration_json(made, command));
  const HostCalibration again = refit_calibration(file);
  EXPECT_EQ(again.calibration.host, "a host");
  EXPECT_EQ(again.calibration.date, "2026-11-29T00:00:00Z");
  EXPECT_EQ(again.calibration.nodes, 2);
  ASSERT_EQ(again.calibration.fit.values.size(), made.fit.values.size());
  for (std::size_t j = 0; j < made.fit.values.size(); ++j)
    EXPECT_DOUBLE_EQ(again.calibration.fit.values[j], made.fit.values[j]) << made.parameters[j].name;
  EXPECT_TRUE(made.busy_modes.found()) << "the rounds must split, or the test proves nothing about them";
  EXPECT_DOUBLE_EQ(again.calibration.busy_modes.prompt_share, made.busy_modes.prompt_share);
  EXPECT_EQ(body(again.toml), body(calibration_toml(made, command)));
  EXPECT_THAT(again.toml, HasSubstr("--refit " + file));
  EXPECT_THAT(again.toml, HasSubstr(command));
}

// A calibration on 3 nodes or more keeps the costs timed beside loading nodes too, whose busy
// requests have no rounds (the load factor does not read them): they come back all the same.
TEST_F(CalibrationRefitTest, ALoadedCalibrationComesBack) {
  dsm::SystemConfig truth = dsm::default_config(emu::MachineKind::TreadMarks);
  truth.machine.nodes = 3;
  dsm::apply_override(truth, "pp.send_overhead=9us");
  dsm::apply_override(truth, "pp.busy_handler_delay=3ms");
  std::vector<MeasuredCost> idle, loaded;
  for (const auto& cost : run::measure_raw_basic_costs(truth, 3)) {
    const double us = cost.microseconds;
    MeasuredCost m{cost.operation, us, 0.9 * us, 1.2 * us, 1.2 * us, 3, {}};
    if (cost.operation.starts_with("busy-request-")) m.rounds_us = {0.05 * us, us, 1.2 * us};
    idle.push_back(m);
    loaded.push_back({cost.operation, 2.5 * us, 2 * us, 3 * us, 3 * us, 3, {}});  // no rounds kept
  }
  const Calibration made = fit_calibration(idle, 3, "a host", "2026-11-29T00:00:00Z", loaded);
  ASSERT_GT(made.load.factor, 1) << "the load must be read, or the test proves nothing about it";
  const std::string command = "ncp2 calibrate --machine real --nodes 3 --rounds 3";
  const std::string file = write("c3.json", calibration_json(made, command));
  ASSERT_FALSE(nlohmann::json::parse(std::ifstream(file))["loaded_costs"].empty());
  const HostCalibration again = refit_calibration(file);
  EXPECT_DOUBLE_EQ(again.calibration.load.factor, made.load.factor);
  EXPECT_EQ(body(again.toml), body(calibration_toml(made, command)));
}

TEST_F(CalibrationRefitTest, AFileThatIsNoCalibrationIsRefusedInOurWords) {
  EXPECT_THAT(refit_error(path("missing.json")), HasSubstr("cannot read"));
  EXPECT_THAT(refit_error(write("broken.json", "{\"costs\": [")), HasSubstr("is not JSON"));
  EXPECT_THAT(refit_error(write("other.json", "{\"name\": \"x\"}")), HasSubstr("has no basic costs"));
  EXPECT_THAT(refit_error(write("nodes.json", R"({"costs": [], "nodes": 1})")), HasSubstr("2 or more"));
  EXPECT_THAT(refit_error(write("row.json", R"({"costs": [{"operation": "barrier"}], "nodes": 2})")),
              HasSubstr("no number 'median_us'"));
  const Calibration made = fit_calibration(measured(), 2, "a host", "2026-11-29T00:00:00Z");
  // An older JSON: no rounds kept (the busy requests' modes cannot be read again).
  nlohmann::json old = nlohmann::json::parse(calibration_json(made, "ncp2 calibrate"));
  for (nlohmann::json& cost : old["costs"]) cost.erase("rounds_us");
  EXPECT_THAT(refit_error(write("old.json", old.dump())), HasSubstr("no rounds of the busy requests"));
}

}  // namespace
}  // namespace ncp2::validation
