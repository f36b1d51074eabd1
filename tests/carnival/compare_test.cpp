// Two runs compared (carnival/compare.hpp): the fixture run against a changed copy of it, both
// written as real store files and read back.
#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "carnival/compare.hpp"
#include "carnival/store.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace ncp2::carnival {
namespace {

using ::testing::HasSubstr;
using testing::make_fixture;
using testing::us;

// B: the fixture on treadmarks with 200 us more Comp in `update` (node 0), a scope only B has
// (100 us, node 0), and without the lock wait (6).
RunData changed_copy() {
  RunData d = make_fixture();
  d.run.machine = "treadmarks";
  d.profile.push_back({0, 2, Category::Comp, "none", us(200), 1});
  d.scopes.push_back({4, 0, "cleanup", "block", "workloads/phases.cpp", 80, 90});
  d.profile.push_back({0, 4, Category::Comp, "none", us(100), 1});
  d.waits.erase(std::remove_if(d.waits.begin(), d.waits.end(), [](const WaitRow& w) { return w.id == 6; }),
                d.waits.end());
  d.wait_summary = summarize(d.waits);
  return d;
}

class CompareTest : public testing::TempDirTest {
 protected:
  Comparison compare(const RunData& a, const RunData& b) {
    write_run(path("a.db"), a);
    write_run(path("b.db"), b);
    return compare_runs(read_compared_run(path("a.db")), read_compared_run(path("b.db")));
  }
};

const CompareRow& find_row(const Comparison& c, CompareSection s, const std::string& key) {
  auto it = std::find_if(c.rows.begin(), c.rows.end(),
                         [&](const CompareRow& r) { return r.section == s && r.key == key; });
  if (it == c.rows.end()) throw std::runtime_error("no row " + key);
  return *it;
}

TEST_F(CompareTest, MatchesScopesByNameAndLinesAndComputesDifferencesAndRatios) {
  const auto c = compare(make_fixture(), changed_copy());
  EXPECT_TRUE(c.same_program);
  EXPECT_EQ(c.a.machine, "ncp2");
  EXPECT_EQ(c.b.machine, "treadmarks");
  const auto& update = find_row(c, CompareSection::Scope, "update (workloads/phases.cpp:20-30)");
  EXPECT_EQ(update.a_ps, us(2050));
  EXPECT_EQ(update.b_ps, us(2250));
  EXPECT_EQ(update.diff_ps(), us(200));
  ASSERT_TRUE(update.ratio());
  EXPECT_NEAR(*update.ratio(), 2250.0 / 2050.0, 1e-12);
  const auto& program = find_row(c, CompareSection::Scope, "program (workloads/phases.cpp:1-100)");
  EXPECT_EQ(program.a_ps, us(3900));
  EXPECT_EQ(program.b_ps, us(4200));
  const auto& cleanup = find_row(c, CompareSection::Scope, "cleanup (workloads/phases.cpp:80-90)");
  EXPECT_FALSE(cleanup.a_ps);
  EXPECT_EQ(cleanup.b_ps, us(100));
  EXPECT_FALSE(cleanup.ratio());
  EXPECT_EQ(c.scopes_matched, 4u);
  EXPECT_EQ(c.scopes_only_a, 0u);
  EXPECT_EQ(c.scopes_only_b, 1u);
  // The largest scope first.
  const auto first_scope = std::find_if(
      c.rows.begin(), c.rows.end(), [](const CompareRow& r) { return r.section == CompareSection::Scope; });
  EXPECT_EQ(first_scope->key, "program (workloads/phases.cpp:1-100)");
}

TEST_F(CompareTest, CategoriesWaitsAndPartsAreSummed) {
  const auto c = compare(make_fixture(), changed_copy());
  EXPECT_EQ(find_row(c, CompareSection::Category, "Comp").a_ps, us(2250));
  EXPECT_EQ(find_row(c, CompareSection::Category, "Comp").b_ps, us(2550));
  EXPECT_EQ(find_row(c, CompareSection::Wait, "Wait barrier").a_ps, us(800));
  EXPECT_EQ(find_row(c, CompareSection::Wait, "Wait page fault").b_ps, us(500));
  EXPECT_EQ(find_row(c, CompareSection::Wait, "CPWait page fault").b_ps, us(50));
  const auto& lock = find_row(c, CompareSection::Wait, "Wait lock acquire");
  EXPECT_EQ(lock.a_ps, us(100));
  EXPECT_FALSE(lock.b_ps);
  EXPECT_EQ(lock.diff_ps(), -us(100));
  EXPECT_EQ(find_row(c, CompareSection::Part, "SyncDelay").a_ps, us(690));
  EXPECT_EQ(find_row(c, CompareSection::Part, "SyncDelay").b_ps, us(630));
  EXPECT_EQ(find_row(c, CompareSection::Run, "virtual time").a_ps, us(2000));
  EXPECT_EQ(find_row(c, CompareSection::Run, "waiting time (all nodes)").a_ps, us(1450));
  EXPECT_EQ(find_row(c, CompareSection::Run, "waiting time (all nodes)").b_ps, us(1350));
}

TEST_F(CompareTest, DifferentProgramsAreSaidButWhatMatchesIsCompared) {
  RunData b = changed_copy();
  b.run.workload = "water";
  b.run.nodes = 4;
  b.run.status = "incomplete";
  const auto c = compare(make_fixture(), b);
  EXPECT_FALSE(c.same_program);
  ASSERT_GE(c.notes.size(), 3u);
  EXPECT_THAT(c.notes[0], HasSubstr("A runs phases and B runs water: different programs"));
  EXPECT_THAT(c.notes[0], HasSubstr("4 matched, 0 only in A, 1 only in B"));
  EXPECT_THAT(c.notes[1], HasSubstr("A has 2 nodes and B 4"));
  EXPECT_THAT(c.notes[2], HasSubstr("B's run is incomplete"));
  EXPECT_EQ(find_row(c, CompareSection::Scope, "update (workloads/phases.cpp:20-30)").b_ps, us(2250));
}

TEST_F(CompareTest, RendersTextCsvAndJson) {
  const auto c = compare(make_fixture(), changed_copy());
  const auto text = render_comparison(c, CompareFormat::Text);
  EXPECT_THAT(text, HasSubstr("A: phases on ncp2, 2 nodes, complete"));
  EXPECT_THAT(text, HasSubstr("B/A"));
  EXPECT_THAT(text, HasSubstr("+200 us"));
  EXPECT_THAT(text, HasSubstr("1.10x"));
  const auto csv = render_comparison(c, CompareFormat::Csv);
  EXPECT_THAT(csv, ::testing::StartsWith("section,what,a_ps,b_ps,diff_ps,ratio\n"));
  EXPECT_THAT(csv, HasSubstr("wait,Wait lock acquire,100000000,,-100000000,\n"));
  const auto j = nlohmann::json::parse(render_comparison(c, CompareFormat::Json));
  EXPECT_EQ(j["a"]["machine"], "ncp2");
  EXPECT_EQ(j["b"]["machine"], "treadmarks");
  EXPECT_EQ(j["rows"].size(), c.rows.size());
  EXPECT_TRUE(j["rows"][0].contains("ratio"));
  EXPECT_EQ(j["rows"][0]["section"], "run");
}

TEST_F(CompareTest, InvalidUtf8InANameStillGivesJson) {
  RunData b = changed_copy();
  b.scopes[2].name = "upd\xff\xfe";  // a damaged file's bytes
  const auto j = nlohmann::json::parse(render_comparison(compare(make_fixture(), b), CompareFormat::Json));
  EXPECT_GT(j["rows"].size(), 10u);
}

TEST_F(CompareTest, BadFilesGiveTheStoreMessages) {
  write_run(path("a.db"), make_fixture());
  spit(path("text.db"), "not a database\n");
  EXPECT_THROW(
      {
        try {
          (void)read_compared_run(path("missing.db"));
        } catch (const StoreError& e) {
          EXPECT_THAT(e.what(), HasSubstr("no such file"));
          throw;
        }
      },
      StoreError);
  EXPECT_THROW((void)read_compared_run(path("text.db")), StoreError);
}

}  // namespace
}  // namespace ncp2::carnival
