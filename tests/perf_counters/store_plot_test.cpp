// The counter run as an SQLite file (round trip, atomic writing, refusals) and as a PNG plot.
#include <sqlite3.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "perf_counters/counter_store.hpp"
#include "perf_counters/plot.hpp"
#include "perf_counters/series.hpp"
#include "temp_dir.hpp"

namespace ncp2::counters {
namespace {

using carnival::StoreError;
using carnival::testing::TempDirTest;

CounterRun synthetic_run() {
  CounterRun r;
  r.command = {"sh", "-c", "echo 'hi'"};
  r.period = std::chrono::milliseconds(100);
  r.started_at = "2026-01-01T00:00:00Z";
  r.wall_seconds = 0.31;
  EventStatus instructions;
  instructions.name = "instructions";
  instructions.reason = "not supported here (ENOENT)";
  instructions.source = "libpfm4";
  instructions.encoding = "perf::PERF_COUNT_HW_INSTRUCTIONS";
  instructions.perf_config = 1;
  EventStatus task_clock;
  task_clock.name = "task-clock";
  task_clock.available = true;
  task_clock.source = "generic";
  task_clock.encoding = "PERF_TYPE_SOFTWARE/PERF_COUNT_SW_TASK_CLOCK";
  task_clock.perf_type = 1;
  task_clock.perf_config = 1;
  task_clock.unit = "ns";
  task_clock.group_index = 0;
  EventStatus page_faults = task_clock;
  page_faults.name = "page-faults";
  page_faults.encoding = "PERF_TYPE_SOFTWARE/PERF_COUNT_SW_PAGE_FAULTS";
  page_faults.perf_config = 2;
  page_faults.unit = "";
  page_faults.group_index = 1;
  r.events = {instructions, task_clock, page_faults};
  r.samples = {
      RawSample{std::chrono::milliseconds(100), 90'000'000, 90'000'000, {90'000'000, 120}, false},
      RawSample{std::chrono::milliseconds(200), 180'000'000, 90'000'000, {140'000'000, 121}, true},
      RawSample{std::chrono::milliseconds(310), 190'000'000, 100'000'000, {150'000'000, 121}, false}};
  r.samples_dropped = 4;
  r.samples_late = 1;
  r.exit_code = 3;
  r.exit_description = "exited with status 3";
  r.perf_event_paranoid = 2;
  r.inherit = true;
  return r;
}

class CounterStoreTest : public TempDirTest {};

TEST_F(CounterStoreTest, RoundTripKeepsEverySampleAndEvent) {
  const CounterRun r = synthetic_run();
  write_counter_run(path("c.db"), r);
  const CounterRun back = read_counter_run(path("c.db"));
  EXPECT_EQ(back.command, r.command);
  EXPECT_EQ(back.period, r.period);
  EXPECT_EQ(back.exit_code, 3);
  EXPECT_EQ(back.samples_dropped, 4u);
  EXPECT_EQ(back.samples_late, 1u);
  EXPECT_EQ(back.perf_event_paranoid, 2);
  ASSERT_EQ(back.events.size(), 3u);
  EXPECT_EQ(back.events[0].reason, r.events[0].reason);
  EXPECT_EQ(back.events[0].group_index, -1);
  EXPECT_EQ(back.events[1].unit, "ns");
  EXPECT_EQ(back.samples, r.samples);
  EXPECT_EQ(files(), std::vector<std::string>{"c.db"});  // no temporary file left
}

TEST_F(CounterStoreTest, TablesHoldScaledDeltasAndNullForWhatWasNotCounted) {
  write_counter_run(path("c.db"), synthetic_run());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path("c.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto number = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK) << sql;
    EXPECT_EQ(sqlite3_step(s), SQLITE_ROW) << sql;
    const double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1 : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
  };
  // Second period: 50 M raw in 90 ms enabled / 0 running -> not counted in it.
  EXPECT_EQ(number("SELECT delta FROM counter_samples WHERE event = 'task-clock' AND sample = 1"), -1);
  // Third period: 10 M raw, 10 ms enabled, 10 ms running -> 10 M.
  EXPECT_EQ(number("SELECT delta FROM counter_samples WHERE event = 'task-clock' AND sample = 2"),
            10'000'000);
  // Total scaled by 190/100.
  EXPECT_DOUBLE_EQ(number("SELECT total FROM counter_events WHERE name = 'task-clock'"), 285'000'000);
  EXPECT_EQ(number("SELECT total FROM counter_events WHERE name = 'instructions'"), -1);
  EXPECT_EQ(number("SELECT count(*) FROM counter_samples WHERE event = 'instructions'"), 0);
  EXPECT_EQ(number("PRAGMA application_id"), carnival::kApplicationId);
  sqlite3_close(db);
}

TEST_F(CounterStoreTest, AnExistingFileIsReplacedOnlyWithForceAndOnlyWhenItIsOurs) {
  spit(path("c.db"), "keep me");
  EXPECT_THROW(write_counter_run(path("c.db"), synthetic_run()), StoreError);
  EXPECT_EQ(slurp(path("c.db")), "keep me");
  EXPECT_NE(check_output_path(path("c.db"), false).find("use --force"), std::string::npos);
  // Not one of our files: even --force leaves it alone.
  EXPECT_NE(check_output_path(path("c.db"), true).find("will not replace"), std::string::npos);
  EXPECT_THROW(write_counter_run(path("c.db"), synthetic_run(), true), StoreError);
  EXPECT_EQ(slurp(path("c.db")), "keep me");
  std::filesystem::remove(path("c.db"));
  write_counter_run(path("c.db"), synthetic_run());
  auto again = synthetic_run();
  again.exit_code = 4;
  write_counter_run(path("c.db"), again, true);  // ours: replaced
  EXPECT_EQ(read_counter_run(path("c.db")).exit_code, 4);
  EXPECT_EQ(files(), std::vector<std::string>{"c.db"});
}

TEST_F(CounterStoreTest, UnusableFilesAreRefusedWithTheReason) {
  EXPECT_NE(check_output_path(path("no/dir/c.db"), false).find("no such directory"), std::string::npos);
  EXPECT_THROW(write_counter_run(path("no/dir/c.db"), synthetic_run()), StoreError);
  try {
    read_counter_run(path("none.db"));
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos);
  }
  spit(path("text.db"), "not a database at all, just some text");
  EXPECT_THROW(read_counter_run(path("text.db")), StoreError);
}

TEST_F(CounterStoreTest, ThePlotIsAPngOrAClearRefusal) {
  const CounterRun r = synthetic_run();
  if (!plot_available()) {
    try {
      plot_rates_png(r, path("p.png"));
      FAIL();
    } catch (const PlotError& e) {
      EXPECT_NE(std::string(e.what()).find("built without Qt"), std::string::npos);
    }
    return;
  }
  plot_rates_png(r, path("p.png"));
  const std::string png = slurp(path("p.png"));
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(files(), std::vector<std::string>{"p.png"});
  CounterRun nothing = r;
  for (auto& e : nothing.events) e.available = false;
  EXPECT_THROW(plot_rates_png(nothing, path("q.png")), PlotError);
}

}  // namespace
}  // namespace ncp2::counters
