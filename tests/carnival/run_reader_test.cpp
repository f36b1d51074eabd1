// The run reader (carnival/run_reader.hpp), the one read side of report, compare and the GUI:
// each table read alone, the orders and filters its callers ask for, the causes of a CPWait Map
// row, meta counters, and the `clocks` table a real run's file has and an emulated one's has not.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "carnival/run_reader.hpp"
#include "carnival/store.hpp"
#include "carnival/store_schema.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace ncp2::carnival {
namespace {

using testing::make_fixture;
using testing::us;

// Runs SQL on a file with the plain C API; returns the first column of the first row, if any.
std::string sql_text(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  std::string out;
  auto first = [](void* to, int n, char** values, char**) {
    if (n > 0 && values[0] && static_cast<std::string*>(to)->empty())
      *static_cast<std::string*>(to) = values[0];
    return 0;
  };
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), first, &out, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return out;
}

class RunReaderTest : public testing::TempDirTest {
 protected:
  std::string write(const std::string& name, const RunData& d, const WriteOptions& options = {}) {
    std::string file = path(name);
    write_run(file, d, options);
    return file;
  }
};

TEST_F(RunReaderTest, ReadsTheFirstRunAndEachTableAlone) {
  const RunData d = make_fixture();
  const RunReader r(write("run.db", d));
  EXPECT_EQ(r.run_id(), 1);
  EXPECT_EQ(r.run().workload, "phases");
  EXPECT_EQ(r.nodes().size(), d.nodes.size());
  EXPECT_EQ(r.scopes().size(), d.scopes.size());
  EXPECT_EQ(r.profile().size(), d.profile.size());
  EXPECT_EQ(r.waits().size(), d.waits.size());
  EXPECT_EQ(r.wait_summary().size(), d.wait_summary.size());
  EXPECT_EQ(r.timeline().size(), d.timeline.size());
  EXPECT_EQ(r.meta("tool_version").value_or("").rfind("ncp2 ", 0), 0U);
  EXPECT_FALSE(r.meta("no such key").has_value());
  EXPECT_EQ(r.meta_count("waits_dropped"), 0U);
  EXPECT_EQ(r.meta_count("no such key"), 0U);
}

TEST_F(RunReaderTest, ProfileByScopeSumsTheOperations) {
  const RunReader r(write("run.db", make_fixture()));
  const auto cells = r.profile_by_scope();
  // Node 0, scope 2: Comp 600 (none), Extra 100, Wait 300, Prste 50, CPComp 200: one cell each.
  std::int64_t cp_comp = 0;
  for (const auto& c : cells) {
    EXPECT_TRUE(c.operation.empty());
    if (c.node == 1 && c.scope == 2 && c.category == Category::CPComp) cp_comp += c.time_ps;
  }
  EXPECT_EQ(cp_comp, us(400));
  std::int64_t total = 0;
  for (const auto& c : cells) total += c.time_ps;
  std::int64_t expected = 0;
  for (const auto& c : make_fixture().profile) expected += c.time_ps;
  EXPECT_EQ(total, expected);
}

TEST_F(RunReaderTest, SegmentsComeInFileOrderOrByNodeAndStart) {
  const RunReader r(write("run.db", make_fixture()));
  std::vector<Segment> by_node;
  r.each_segment(SegmentOrder::ByNodeAndStart, [&](const Segment& s) { by_node.push_back(s); });
  ASSERT_EQ(by_node.size(), make_fixture().timeline.size());
  EXPECT_TRUE(std::is_sorted(by_node.begin(), by_node.end(), [](const Segment& a, const Segment& b) {
    return a.node != b.node ? a.node < b.node : a.start_ps < b.start_ps;
  }));
  const auto file_order = r.timeline();
  EXPECT_EQ(file_order.front().start_ps, 0);
  EXPECT_TRUE(file_order[5].node == 0 && file_order[5].cp);  // written after node 0's PP stretches
}

TEST_F(RunReaderTest, CausedWaitsAreThoseWithACauseAndSynchronizationDelay) {
  const RunReader r(write("run.db", make_fixture()));
  std::vector<std::uint64_t> ids;
  r.each_wait(WaitFilter::Caused, [&](const WaitRow& w) { ids.push_back(w.id); });
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 2, 6}));
}

TEST_F(RunReaderTest, CausesGroupARowsInstancesByCauseAndWaitingNode) {
  const RunReader r(write("run.db", make_fixture()));
  auto cells = r.causes(1, "Wait", "barrier", -1);
  std::sort(cells.begin(), cells.end(),
            [](const CauseCell& a, const CauseCell& b) { return a.node < b.node; });
  ASSERT_EQ(cells.size(), 2U);
  EXPECT_EQ(cells[0].node, 0);
  EXPECT_EQ(cells[0].cause_node, 1);
  EXPECT_EQ(cells[0].cause_scope, 2);
  EXPECT_EQ(cells[0].delay_ps, us(130));
  EXPECT_EQ(cells[0].waits, 1U);
  EXPECT_EQ(cells[1].delay_ps, us(500));
  EXPECT_EQ(r.causes(1, "Wait", "barrier", 1).size(), 1U);
  EXPECT_TRUE(r.causes(2, "Wait", "page fault", -1).empty());  // no synchronization delay there
}

TEST_F(RunReaderTest, CategoriesAreTheFilesOverTheCatalogue) {
  const std::string file = write("run.db", make_fixture());
  sql_text(file,
           "UPDATE categories SET color = '#123456' WHERE name = 'Comp'; DELETE FROM categories WHERE "
           "name = 'Extra';");
  const auto categories = RunReader(file).categories();
  ASSERT_EQ(categories.size(), category_catalogue().size());
  EXPECT_EQ(categories[0].color, "#123456");
  EXPECT_EQ(categories[1].color, category_catalogue()[1].color);  // missing from the file
}

TEST_F(RunReaderTest, AMetaCounterThatIsNotANumberIsDamage) {
  const std::string file = write("run.db", make_fixture());
  sql_text(file, "UPDATE meta SET value = 'many' WHERE key = 'timeline_dropped';");
  const RunReader r(file);
  try {
    (void)r.meta_count("timeline_dropped");
    FAIL() << "no error";
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()), file + " is corrupt: meta 'timeline_dropped' is 'many', not a number");
  }
}

TEST_F(RunReaderTest, AnUnknownCategoryInTheTimelineIsDamage) {
  const std::string file = write("run.db", make_fixture());
  sql_text(file,
           "PRAGMA ignore_check_constraints = 1; UPDATE timeline SET category = 'Nap' WHERE rowid = 1;");
  try {
    (void)read_run(file);
    FAIL() << "no error";
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()), file + " is corrupt: unknown category 'Nap' in the timeline");
  }
}

TEST_F(RunReaderTest, OnlyARealRunsFileHasTheClocksTable) {
  const std::string emulated = write("emulated.db", make_fixture());
  EXPECT_EQ(sql_text(emulated, "SELECT count(*) FROM sqlite_master WHERE name = 'clocks'"), "0");
  const std::string real = write("real.db", make_fixture(), {.clocks_table = true});
  EXPECT_EQ(sql_text(real, "SELECT count(*) FROM sqlite_master WHERE name = 'clocks'"), "1");
  EXPECT_EQ(sql_text(real, "SELECT count(*) FROM clocks"), "0");  // the real run inserts the rows
  sql_text(real, "INSERT INTO clocks (run_id, " + std::string(kClockColumns) +
                     ") VALUES (1, 0, 0, 0, 0, 0, 0, 0, 'TSC');");
  EXPECT_EQ(RunReader(real).run().workload, "phases");  // readers ignore it
  EXPECT_EQ(read_run(real).nodes.size(), 2U);
}

TEST_F(RunReaderTest, AFileWithoutARunIsRefused) {
  const std::string file = write("run.db", make_fixture());
  sql_text(file, "DELETE FROM runs;");
  try {
    const RunReader r(file);
    FAIL() << "no error";
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()), file + " contains no run");
  }
  EXPECT_NO_THROW(check_run_file(file));  // the file itself is sound
}

}  // namespace
}  // namespace ncp2::carnival
