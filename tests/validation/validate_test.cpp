// `ncp2 validate`'s comparison (validation/validate.hpp) on stored databases: the real runs are
// stubbed by the synthetic run of tests/carnival/fixture.hpp written as machine "real", the median
// prediction is the same run with every time 10 % longer, so every expected error is +10 %.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "carnival/run_reader.hpp"
#include "carnival/store.hpp"
#include "tests/carnival/fixture.hpp"
#include "tests/carnival/temp_dir.hpp"
#include "validation/validate.hpp"

namespace ncp2::validation {
namespace {

using carnival::RunData;
using carnival::testing::us;

// Every time in the run multiplied by `factor` (the counts stay).
RunData scaled(RunData d, double factor) {
  const auto scale = [factor](std::int64_t& ps) { ps = std::llround(static_cast<double>(ps) * factor); };
  scale(d.run.virtual_time_ps);
  for (auto& n : d.nodes) scale(n.finish_ps);
  for (auto& c : d.profile) scale(c.time_ps);
  for (auto& w : d.waits) {
    for (auto& p : w.parts) scale(p);
    scale(w.duration_ps);
    scale(w.start_ps);
  }
  d.wait_summary = carnival::summarize(d.waits);
  d.timeline.clear();
  return d;
}

RunData measured_run(std::int64_t virtual_time_ps, double breakdown_factor, std::uint64_t misses0) {
  RunData d = scaled(carnival::testing::make_fixture(), breakdown_factor);
  d.run.machine = "real";
  d.run.virtual_time_ps = virtual_time_ps;
  d.protocol_counts = {{0, "page_misses", misses0}, {1, "page_misses", 7}};
  return d;
}

class ValidateTest : public carnival::testing::TempDirTest {
 protected:
  // Through the store and back, as `ncp2 validate` reads the runs it made.
  RunData stored(const RunData& d, const std::string& name) {
    carnival::write_run(path(name), d);
    return carnival::read_run(path(name));
  }

  Validation compare() {
    // The median run (2.0 ms) has the fixture's breakdown; the others' breakdowns are far off, so
    // comparing the wrong run's breakdown would show.
    const std::vector<RunData> measured{stored(measured_run(us(2200), 3.0, 99), "real-1.db"),
                                        stored(measured_run(us(1900), 0.5, 99), "real-2.db"),
                                        stored(measured_run(us(2000), 1.0, 5), "real-3.db")};
    // The median prediction (+10 %) comes second; the other two are far off in total and breakdown.
    return compare_runs(
        measured, {stored(predicted_run(1.3), "emulated-1.db"), stored(predicted_run(1.1), "emulated-2.db"),
                   stored(predicted_run(1.0), "emulated-3.db")});
  }

  static RunData predicted_run(double factor) {
    RunData predicted = scaled(carnival::testing::make_fixture(), factor);
    predicted.run.machine = "treadmarks";
    predicted.protocol_counts = {{0, "page_misses", 6}, {1, "page_misses", 6}, {0, "diffs_created", 3}};
    return predicted;
  }

  static const Compared& row(const std::vector<Compared>& rows, const std::string& name) {
    for (const Compared& c : rows)
      if (c.name == name) return c;
    ADD_FAILURE() << "no row " << name;
    static const Compared none;
    return none;
  }
};

TEST_F(ValidateTest, TotalIsTheMedianRunWithItsSpread) {
  const Validation v = compare();
  EXPECT_EQ(v.repeat, 3);
  EXPECT_EQ(v.nodes, 2);
  EXPECT_DOUBLE_EQ(v.measured_s, 2000e-6);
  EXPECT_NEAR(v.measured_spread_pct, 100.0 * (2200 - 1900) / 2000, 1e-9);
  EXPECT_DOUBLE_EQ(v.predicted_s, 2200e-6);
  EXPECT_NEAR(v.error_pct(), 10.0, 1e-9);
  EXPECT_TRUE(v.notes.empty());
}

TEST_F(ValidateTest, PredictionIsTheMedianEmulatedRunWithItsSpread) {
  const Validation v = compare();
  EXPECT_EQ(v.predictions, 3);
  ASSERT_EQ(v.predicted_runs_s.size(), 3U);
  EXPECT_NEAR(v.predicted_runs_s[0], 2600e-6, 1e-12);  // in the order they ran
  EXPECT_NEAR(v.predicted_runs_s[2], 2000e-6, 1e-12);
  EXPECT_NEAR(v.predicted_spread_pct, 100.0 * (2600 - 2000) / 2200, 1e-9);
  // The spread of the measured runs is exactly the goal (15 %): not too short.
  EXPECT_NEAR(v.measured_spread_pct, kTotalGoalPct, 1e-9);
  EXPECT_FALSE(v.too_short);
  const nlohmann::json j = validation_json(v);
  EXPECT_EQ(j["predictions"], 3);
  EXPECT_EQ(j["predicted_runs_s"].size(), 3U);
  EXPECT_NEAR(j["predicted_spread_pct"].get<double>(), 100.0 * 600 / 2200, 1e-9);
  EXPECT_TRUE(j["too_short"].is_null());
  EXPECT_TRUE(j["calibration"].is_null());
  const std::string text = validation_text(v);
  EXPECT_NE(text.find("median of 3 emulated runs; spread 27.3 %"), std::string::npos) << text;
  EXPECT_EQ(text.find("too short"), std::string::npos) << text;
}

TEST_F(ValidateTest, ASpreadAboveTheGoalSaysTheProgramIsTooShortAndWhatWouldDo) {
  // 1.6 .. 2.4 ms around a 2.0 ms median: 40 %, 2.67x the goal, so an input 3x longer (>= 6 ms).
  const std::vector<RunData> measured{stored(measured_run(us(2400), 1.0, 5), "real-1.db"),
                                      stored(measured_run(us(1600), 1.0, 5), "real-2.db"),
                                      stored(measured_run(us(2000), 1.0, 5), "real-3.db")};
  const Validation v = compare_runs(measured, {stored(predicted_run(1.1), "emulated-1.db")});
  ASSERT_TRUE(v.too_short);
  EXPECT_NEAR(v.too_short->measured_spread_pct, 40.0, 1e-9);
  EXPECT_EQ(v.too_short->factor, 3.0);
  EXPECT_NEAR(v.too_short->measured_s_at_least, 6e-3, 1e-12);
  EXPECT_EQ(v.predicted_spread_pct, 0.0) << "one prediction has no spread";
  const std::string text = validation_text(v);
  EXPECT_NE(text.find("note      too short to compare: its real runs spread 40.0 %"), std::string::npos)
      << text;
  EXPECT_NE(text.find("about 3x longer (>= 0.006 s measured)"), std::string::npos) << text;
  const nlohmann::json j = validation_json(v);
  ASSERT_TRUE(j["too_short"].is_object()) << j.dump();
  EXPECT_EQ(j["too_short"]["factor"], 3.0);
  EXPECT_EQ(j["too_short"]["goal_pct"], kTotalGoalPct);
  EXPECT_NEAR(j["too_short"]["measured_s_at_least"].get<double>(), 6e-3, 1e-12);
}

TEST(TooShort, FactorIsTheSpreadOverTheGoalRoundedUp) {
  EXPECT_FALSE(too_short(15.0, 1.0));
  EXPECT_FALSE(too_short(3.0, 1.0));
  const auto factor = [](double spread) { return too_short(spread, 0.5)->factor; };
  EXPECT_EQ(factor(16.0), 1.5);  // 1.07: half steps up to 2
  EXPECT_EQ(factor(29.0), 2.0);  // 1.93
  EXPECT_EQ(factor(31.0), 3.0);  // 2.07: whole numbers up to 10
  EXPECT_EQ(factor(150.0), 10.0);
  EXPECT_EQ(factor(200.0), 14.0);    // 13.3: two digits
  EXPECT_EQ(factor(2000.0), 140.0);  // 133
  EXPECT_NEAR(too_short(200.0, 0.5)->measured_s_at_least, 7.0, 1e-12);
}

TEST_F(ValidateTest, WaitCategoriesComeFromTheMedianRun) {
  const Validation v = compare();
  // The fixture: Comp 2250 us, Extra 200 us, barrier waits 800 us, page-fault waits 500 us (its
  // CPWait is a CP's, not a program's), lock 100 us, no diff fetch.
  const std::vector<std::pair<std::string, double>> expected{{"computation", 2250},
                                                             {"protocol work", 200},
                                                             {"page fault", 500},
                                                             {"lock acquire", 100},
                                                             {"barrier", 800}};
  for (const auto& [name, measured_us] : expected) {
    const Compared& c = row(v.categories, name);
    EXPECT_NEAR(c.measured_s, measured_us * 1e-6, 1e-12) << name;
    EXPECT_NEAR(c.predicted_s, 1.1 * measured_us * 1e-6, 1e-12) << name;
    ASSERT_TRUE(c.error_pct()) << name;
    EXPECT_NEAR(*c.error_pct(), 10.0, 1e-6) << name;
  }
  const Compared& diffs = row(v.categories, "diff fetch");
  EXPECT_EQ(diffs.measured_s, 0);
  EXPECT_FALSE(diffs.error_pct()) << "nothing measured: no error to give";
}

TEST_F(ValidateTest, ScopesNodesAndCountsSideBySide) {
  const Validation v = compare();
  ASSERT_FALSE(v.scopes.empty());
  bool update = false;
  for (const Compared& s : v.scopes) {
    if (s.name.starts_with("update")) {
      update = true;
      EXPECT_NEAR(s.measured_s, 2050e-6, 1e-12);  // inclusive, both nodes (fixture.hpp)
    }
    ASSERT_TRUE(s.error_pct()) << s.name;
    EXPECT_NEAR(*s.error_pct(), 10.0, 1e-6) << s.name;
  }
  EXPECT_TRUE(update);
  ASSERT_EQ(v.nodes_time.size(), 2U);
  EXPECT_NEAR(v.nodes_time[1].measured_s, 2000e-6, 1e-12);
  EXPECT_NEAR(v.nodes_time[1].predicted_s, 2200e-6, 1e-12);
  ASSERT_EQ(v.counts.size(), 2U);
  const auto count = [&](const std::string& name) {
    for (const auto& c : v.counts)
      if (c.name == name) return c;
    ADD_FAILURE() << "no count " << name;
    return Validation::Count{};
  };
  EXPECT_EQ(count("page_misses").measured, 12U);  // the median run's 5 + 7, not another run's
  EXPECT_EQ(count("page_misses").predicted, 12U);
  EXPECT_EQ(count("diffs_created").measured, 0U);  // a count on one side only is shown as 0 on the other
  EXPECT_EQ(count("diffs_created").predicted, 3U);
}

TEST_F(ValidateTest, UnobservablePartsAreSaidNotCompared) {
  const Validation v = compare();
  for (const char* hidden : {"CPRWait", "PPRWait", "PPRComp"}) {
    for (const Compared& p : v.parts) EXPECT_NE(p.name, hidden);
    bool said = false;
    for (const std::string& n : v.not_compared) said = said || n.starts_with(hidden);
    EXPECT_TRUE(said) << hidden;
  }
  // SyncDelay: 130 + 500 + 60 us in the fixture.
  const Compared& sync = row(v.parts, "SyncDelay");
  EXPECT_NEAR(sync.measured_s, 690e-6, 1e-12);
  EXPECT_NEAR(*sync.error_pct(), 10.0, 1e-6);
}

TEST_F(ValidateTest, TheKeptCalibrationIsNamed) {
  Validation v = compare();
  v.preset = "/cache/vm-2n.toml";
  v.calibration = UsedCalibration{
      "/cache/vm-2n.toml", "/cache/vm-2n.json", "2024-05-01T10:00:00Z", "vm", 2, 9, 12.5, true};
  const std::string text = validation_text(v);
  EXPECT_NE(text.find("calibration /cache/vm-2n.toml, made 2024-05-01T10:00:00Z on vm (9 rounds on 2 "
                      "processes, took 12.5 s; kept from an earlier validation)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("preset    "), std::string::npos) << text;
  const nlohmann::json j = validation_json(v)["calibration"];
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["path"], "/cache/vm-2n.toml");
  EXPECT_EQ(j["date"], "2024-05-01T10:00:00Z");
  EXPECT_EQ(j["host"], "vm");
  EXPECT_EQ(j["rounds"], 9);
  EXPECT_EQ(j["reused"], true);
  v.calibration->reused = false;
  EXPECT_NE(validation_text(v).find("made now"), std::string::npos);
}

TEST_F(ValidateTest, JsonHasTheDocumentedFields) {
  Validation v = compare();
  v.preset = "calibrated.toml";
  const nlohmann::json j = validation_json(v);
  for (const char* key : {"program", "nodes", "repeat", "measured_s", "measured_spread_pct", "predicted_s",
                          "error_pct", "categories", "preset"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["program"], "phases");
  EXPECT_EQ(j["preset"], "calibrated.toml");
  for (const char* key : {"predictions", "predicted_runs_s", "predicted_spread_pct", "too_short",
                          "calibration", "waits_by_operation", "protocol_work_by_operation"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_NEAR(j["error_pct"].get<double>(), 10.0, 1e-9);
  for (const auto& c : j["categories"]) {
    for (const char* key : {"name", "measured_s", "predicted_s", "error_pct"})
      EXPECT_TRUE(c.contains(key)) << key;
    if (c["name"] == "diff fetch") {
      EXPECT_TRUE(c["error_pct"].is_null());
    }
  }
  const std::string text = validation_text(v);
  EXPECT_NE(text.find("error     +10.0 %"), std::string::npos) << text;
  EXPECT_NE(text.find("not compared"), std::string::npos) << text;
  // The median runs' waits, per kind of wait: the fixture's barrier and page-fault waits.
  ASSERT_EQ(j["waits_by_operation"].size(), 4u);
  for (const auto& w : j["waits_by_operation"])
    if (w["operation"] == "barrier") {
      EXPECT_GT(w["measured"]["count"].get<int>(), 0);
      EXPECT_EQ(w["measured"]["count"], w["predicted"]["count"]);
      EXPECT_NEAR(w["predicted"]["total_s"].get<double>(), 1.1 * w["measured"]["total_s"].get<double>(),
                  1e-9);
    }
  EXPECT_NE(text.find("waits by operation (all nodes)"), std::string::npos) << text;
  EXPECT_NE(text.find("protocol work by operation"), std::string::npos) << text;
  ASSERT_FALSE(j["protocol_work_by_operation"].empty());  // the fixture's Extra
  for (const auto& row : j["protocol_work_by_operation"])
    for (const char* key : {"name", "measured_s", "predicted_s", "error_pct"})
      EXPECT_TRUE(row.contains(key)) << key;
}

TEST_F(ValidateTest, IncompleteRunsAndDifferentMachinesAreNoted) {
  RunData failed = measured_run(us(2000), 1.0, 5);
  failed.run.status = "failed";
  failed.run.message = "node 1 died";
  RunData predicted = scaled(carnival::testing::make_fixture(), 1.1);
  predicted.run.nodes = 4;
  const Validation v = compare_runs({stored(failed, "real.db")}, {stored(predicted, "emulated.db")});
  ASSERT_EQ(v.notes.size(), 2U);
  EXPECT_NE(v.notes[0].find("different node counts"), std::string::npos) << v.notes[0];
  EXPECT_NE(v.notes[1].find("node 1 died"), std::string::npos) << v.notes[1];
  EXPECT_THROW((void)compare_runs({}, {predicted}), std::invalid_argument);
  EXPECT_THROW((void)compare_runs({failed}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::validation
