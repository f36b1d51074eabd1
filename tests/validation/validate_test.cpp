// `ncp2 validate`'s comparison (validation/validate.hpp) on stored databases: the real runs are
// stubbed by the synthetic run of tests/carnival/fixture.hpp written as machine "real", the
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
    RunData predicted = scaled(carnival::testing::make_fixture(), 1.1);
    predicted.run.machine = "treadmarks";
    predicted.protocol_counts = {{0, "page_misses", 6}, {1, "page_misses", 6}, {0, "diffs_created", 3}};
    return compare_runs(measured, stored(predicted, "emulated.db"));
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

TEST_F(ValidateTest, JsonHasTheDocumentedFields) {
  Validation v = compare();
  v.preset = "calibrated.toml";
  const nlohmann::json j = validation_json(v);
  for (const char* key : {"program", "nodes", "repeat", "measured_s", "measured_spread_pct", "predicted_s",
                          "error_pct", "categories", "preset"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["program"], "phases");
  EXPECT_EQ(j["preset"], "calibrated.toml");
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
}

TEST_F(ValidateTest, IncompleteRunsAndDifferentMachinesAreNoted) {
  RunData failed = measured_run(us(2000), 1.0, 5);
  failed.run.status = "failed";
  failed.run.message = "node 1 died";
  RunData predicted = scaled(carnival::testing::make_fixture(), 1.1);
  predicted.run.nodes = 4;
  const Validation v = compare_runs({stored(failed, "real.db")}, stored(predicted, "emulated.db"));
  ASSERT_EQ(v.notes.size(), 2U);
  EXPECT_NE(v.notes[0].find("different node counts"), std::string::npos) << v.notes[0];
  EXPECT_NE(v.notes[1].find("node 1 died"), std::string::npos) << v.notes[1];
  EXPECT_THROW((void)compare_runs({}, predicted), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::validation
