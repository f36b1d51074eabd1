// The SQLite store: round trip of every field, caps with a complete summary, atomic writing and
// --force, the streaming writer and its abort, and the documented errors on bad files.
#include <cstring>
#include <filesystem>
#include <random>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "carnival/run_reader.hpp"
#include "carnival/store.hpp"
#include "fixture.hpp"
#include "temp_dir.hpp"

namespace ncp2::carnival {
namespace {

using ::testing::HasSubstr;
using testing::make_fixture;
using testing::make_large;

auto key(const RunInfo& r) {
  return std::tie(r.workload, r.machine, r.nodes, r.status, r.virtual_time_ps, r.config, r.parameters, r.seed,
                  r.started_at, r.wall_seconds, r.verified, r.message);
}
auto key(const NodeRow& n) { return std::tie(n.node, n.finish_ps); }
auto key(const SourceFile& s) { return std::tie(s.file, s.text); }
auto key(const Scope& s) {
  return std::tie(s.id, s.parent, s.name, s.kind, s.file, s.begin_line, s.end_line);
}
auto key(const ProfileCell& c) {
  return std::tie(c.node, c.scope, c.category, c.operation, c.time_ps, c.count);
}
auto key(const WaitRow& w) {
  return std::tie(w.id, w.node, w.scope, w.operation, w.kind, w.start_ps, w.duration_ps, w.parts,
                  w.cause_node, w.cause_scope, w.object, w.remote_node);
}
auto key(const WaitSummary& w) {
  return std::tie(w.node, w.scope, w.operation, w.kind, w.count, w.total_ps, w.parts);
}
auto key(const Segment& s) {
  return std::tie(s.node, s.cp, s.category, s.operation, s.scope, s.start_ps, s.end_ps);
}

template <typename T>
void expect_same(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(key(a[i]) == key(b[i])) << what << " row " << i;
}

void expect_same(const RunData& a, const RunData& b) {
  EXPECT_TRUE(key(a.run) == key(b.run));
  expect_same(a.nodes, b.nodes, "nodes");
  expect_same(a.sources, b.sources, "sources");
  expect_same(a.scopes, b.scopes, "scopes");
  expect_same(a.profile, b.profile, "profile");
  expect_same(a.waits, b.waits, "waits");
  expect_same(a.wait_summary, b.wait_summary, "wait_summary");
  expect_same(a.timeline, b.timeline, "timeline");
  EXPECT_EQ(a.waits_dropped, b.waits_dropped);
  EXPECT_EQ(a.timeline_dropped, b.timeline_dropped);
  EXPECT_EQ(a.races_checked, b.races_checked);
  EXPECT_EQ(a.races, b.races);
}

// Two races: one of a program (with an address), one of the typed API (without).
std::vector<RaceRow> two_races() {
  RaceRow program{1,
                  "heap",
                  4100,
                  0x5a0000001004ULL,
                  3,
                  {0, true, "examples/racy.c", 12, 2, 4, {4, 1}},
                  {1, false, "examples/racy.c", 15, 3, 2, {1, 2}}};
  RaceRow typed{2,
                "grid",
                8,
                std::nullopt,
                1,
                {1, true, "workloads/sor.cpp", 40, 1, 1, {1, 1}},
                {2, true, "workloads/sor.cpp", 40, 1, 1, {1, 0, 1}}};
  return {program, typed};
}

// The StoreError's message, or "" if `f` does not throw one.
template <typename F>
std::string store_error(F&& f) {
  try {
    f();
  } catch (const StoreError& e) {
    return e.what();
  }
  return "";
}

// Runs SQL on a file with the plain C API (a foreign application, or a later version).
void run_sql(const std::string& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

class StoreTest : public testing::TempDirTest {};

TEST_F(StoreTest, RoundTripKeepsEveryField) {
  const RunData data = make_fixture();
  write_run(path("run.db"), data);
  expect_same(read_run(path("run.db")), data);
  EXPECT_EQ(files(), std::vector<std::string>{"run.db"});
}

TEST_F(StoreTest, RacesRoundTrip) {
  RunData data = make_fixture();
  data.races_checked = true;
  data.races = two_races();
  write_run(path("run.db"), data);
  expect_same(read_run(path("run.db")), data);
  data.races.clear();  // detection on, nothing found: still known to have been on
  write_run(path("none.db"), data);
  EXPECT_TRUE(read_run(path("none.db")).races_checked);
  write_run(path("off.db"), make_fixture());
  EXPECT_FALSE(read_run(path("off.db")).races_checked);
}

// Stores of version 3 have no races table: they read as runs without race detection.
TEST_F(StoreTest, StoresBeforeTheRacesTableReadAsUnchecked) {
  RunData data = make_fixture();
  data.races_checked = true;
  data.races = two_races();
  write_run(path("v3.db"), data);
  run_sql(path("v3.db"),
          "DROP TABLE races; DELETE FROM meta WHERE key = 'race_detection'; PRAGMA user_version = 3");
  const RunData back = read_run(path("v3.db"));
  EXPECT_FALSE(back.races_checked);
  EXPECT_TRUE(back.races.empty());
  EXPECT_EQ(back.run.workload, data.run.workload);
}

TEST_F(StoreTest, ACorruptVectorTimeIsNamed) {
  RunData data = make_fixture();
  data.races_checked = true;
  data.races = two_races();
  write_run(path("run.db"), data);
  run_sql(path("run.db"), "UPDATE races SET first_vector_time = '[1,x]' WHERE id = 1");
  EXPECT_EQ(store_error([&] { read_run(path("run.db")); }),
            path("run.db") + " is corrupt: vector time '[1,x]' in races");
  run_sql(path("run.db"), "UPDATE races SET first_vector_time = '[ 4, 1 ]' WHERE id = 1");  // JSON spacing
  EXPECT_EQ(read_run(path("run.db")).races[0].first.vector_time, (std::vector<std::uint32_t>{4, 1}));
}

TEST_F(StoreTest, EmptyRunRoundTrips) {
  RunData data;
  data.run.status = "failed";
  write_run(path("empty.db"), data);
  expect_same(read_run(path("empty.db")), data);
}

TEST_F(StoreTest, CappedWaitsKeepTheFirstRowsAndACompleteSummary) {
  RunData data = make_fixture();
  data.wait_summary.clear();  // computed from all the waits before the cap
  write_run(path("capped.db"), data, {.max_wait_rows = 2});
  const RunData back = read_run(path("capped.db"));
  ASSERT_EQ(back.waits.size(), 2U);
  EXPECT_TRUE(key(back.waits[0]) == key(data.waits[0]));
  EXPECT_TRUE(key(back.waits[1]) == key(data.waits[1]));
  EXPECT_EQ(back.waits_dropped, data.waits.size() - 2);
  expect_same(back.wait_summary, summarize(data.waits), "wait_summary");
}

TEST_F(StoreTest, DroppedCountsAddToTheCap) {
  RunData data = make_fixture();  // as if the profiler had already dropped 10 waits and 7 segments
  data.waits_dropped = 10;
  data.timeline_dropped = 7;
  write_run(path("capped.db"), data, {.max_wait_rows = 4, .max_timeline_rows = 5});
  const RunData back = read_run(path("capped.db"));
  EXPECT_EQ(back.waits.size(), 4U);
  EXPECT_EQ(back.waits_dropped, 10U + 2U);
  EXPECT_EQ(back.timeline.size(), 5U);
  EXPECT_EQ(back.timeline_dropped, 7U + data.timeline.size() - 5);
  expect_same(back.wait_summary, data.wait_summary, "wait_summary");
}

TEST_F(StoreTest, DroppedWaitsWithoutSummaryAreRefused) {
  RunData data = make_fixture();
  data.wait_summary.clear();
  data.waits_dropped = 3;
  EXPECT_THAT(store_error([&] { write_run(path("x.db"), data); }), HasSubstr("no wait summary"));
  EXPECT_TRUE(files().empty());
}

TEST_F(StoreTest, DoesNotOverwriteWithoutForce) {
  RunData data = make_fixture();
  write_run(path("run.db"), data);
  const std::string before = slurp(path("run.db"));
  data.run.workload = "counter";
  const std::string message = store_error([&] { write_run(path("run.db"), data); });
  EXPECT_THAT(message, HasSubstr(path("run.db")));
  EXPECT_THAT(message, HasSubstr("already exists"));
  EXPECT_THAT(message, HasSubstr("--force"));
  EXPECT_EQ(slurp(path("run.db")), before);
  EXPECT_EQ(files(), std::vector<std::string>{"run.db"});
}

TEST_F(StoreTest, OverwritesWithForce) {
  RunData data = make_fixture();
  write_run(path("run.db"), data);
  data.run.workload = "counter";
  write_run(path("run.db"), data, {.force = true});
  EXPECT_EQ(read_run(path("run.db")).run.workload, "counter");
  EXPECT_EQ(files(), std::vector<std::string>{"run.db"});
}

TEST_F(StoreTest, FailedWriteLeavesTheOriginalIntactAndNoTemporaryFile) {
  const RunData original = make_fixture();
  write_run(path("run.db"), original);
  const std::string before = slurp(path("run.db"));
  RunData bad = make_large(2000);
  bad.waits[1500].kind = "Bogus";  // the schema's CHECK rejects it in the middle of the waits
  const std::string message = store_error([&] { write_run(path("run.db"), bad, {.force = true}); });
  EXPECT_THAT(message, HasSubstr("CHECK constraint failed"));
  EXPECT_EQ(slurp(path("run.db")), before);
  EXPECT_EQ(files(), std::vector<std::string>{"run.db"});
  expect_same(read_run(path("run.db")), original);
}

TEST_F(StoreTest, BadStatusIsRefusedBeforeWriting) {
  RunData data = make_fixture();
  data.run.status = "done";
  EXPECT_THAT(store_error([&] { write_run(path("run.db"), data); }),
              HasSubstr("'done' is not one of complete, incomplete, failed"));
  EXPECT_TRUE(files().empty());
}

TEST_F(StoreTest, UnwritableDirectoryIsAStoreError) {
  EXPECT_THAT(store_error([&] { write_run(path("no/such/dir/run.db"), make_fixture()); }),
              HasSubstr("cannot open"));
}

TEST_F(StoreTest, StreamingWriterCommitsInBatchesAndFinishes) {
  const RunData data = make_large(120'000);  // crosses the 50 000-row transactions
  RunWriter w;
  w.open(path("stream.db"), data.run);
  EXPECT_TRUE(std::filesystem::exists(w.temp_path()));
  EXPECT_FALSE(std::filesystem::exists(path("stream.db")));
  w.append_scopes(data.scopes);
  w.append_sources(data.sources);
  w.append_profile(data.profile);
  const std::span<const WaitRow> waits(data.waits);
  for (std::size_t at = 0; at < waits.size(); at += 7'000)
    w.append_waits(waits.subspan(at, std::min<std::size_t>(7'000, waits.size() - at)));
  w.append_timeline(data.timeline);
  RunData rest;  // the summary accumulated by the writer, the final run row
  rest.run = data.run;
  rest.nodes = data.nodes;
  w.finish(rest);
  EXPECT_FALSE(w.is_open());
  expect_same(read_run(path("stream.db")), data);
  EXPECT_EQ(files(), std::vector<std::string>{"stream.db"});
}

// The wait rows reach SQLite through a virtual table of the writer's connection (sql::RowSource):
// a plain SQLite connection sees the rows, with NULL for the model's "none", and no trace of it.
TEST_F(StoreTest, WaitRowsAreReadableWithoutTheWritersVirtualTable) {
  const RunData data = make_large(60'000);
  write_run(path("plain.db"), data);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path("plain.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  const auto count = [&](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db);
    std::int64_t n = -1;
    if (stmt && sqlite3_step(stmt) == SQLITE_ROW) n = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return n;
  };
  EXPECT_EQ(count("SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%ncp2_wait_rows%'"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM waits"), static_cast<std::int64_t>(data.waits.size()));
  std::int64_t no_cause = 0, duration = 0;
  for (const auto& w : data.waits) {
    no_cause += w.cause_node < 0 ? 1 : 0;
    duration += w.duration_ps;
  }
  EXPECT_EQ(count("SELECT count(*) FROM waits WHERE cause_node IS NULL"), no_cause);
  EXPECT_EQ(count("SELECT sum(duration_ps) FROM waits"), duration);
  EXPECT_EQ(count("SELECT count(*) FROM waits WHERE duration_ps <> cplwait_ps + cplcomp_ps + cpcomm_ps + "
                  "cprwait_ps + cprcomp_ps + pprwait_ps + pprcomp_ps + pplwait_ps + sync_delay_ps"),
            0);
  sqlite3_close(db);
}

TEST_F(StoreTest, AbortedWriterLeavesAReadableIncompleteFile) {
  const RunData data = make_fixture();
  {
    RunWriter w;
    w.open(path("run.db"), data.run);
    w.append_scopes(data.scopes);
    w.append_waits(std::span<const WaitRow>(data.waits).first(3));
    w.append_profile(data.profile);
    w.abort("interrupted by SIGINT");
  }
  const RunData back = read_run(path("run.db"));
  EXPECT_EQ(back.run.status, "incomplete");
  EXPECT_EQ(back.run.message, "interrupted by SIGINT");
  EXPECT_EQ(back.run.workload, data.run.workload);
  EXPECT_EQ(back.waits.size(), 3U);
  expect_same(back.scopes, data.scopes, "scopes");
  expect_same(back.profile, data.profile, "profile");
  expect_same(back.wait_summary, summarize({data.waits.begin(), data.waits.begin() + 3}), "wait_summary");
  EXPECT_EQ(files(), std::vector<std::string>{"run.db"});
}

TEST_F(StoreTest, RunRowSaysIncompleteWhileWriting) {
  const RunData data = make_fixture();
  RunWriter w;
  w.open(path("run.db"), data.run);
  w.append_waits(data.waits);
  // What a crash would leave behind: the temporary file, readable, with status 'incomplete'.
  const std::string copy = path("copy.db");
  std::filesystem::copy_file(w.temp_path(), copy);
  EXPECT_EQ(read_run(copy).run.status, "incomplete");
}

TEST_F(StoreTest, WriterDestroyedUnfinishedRemovesItsTemporaryFile) {
  {
    RunWriter w;
    w.open(path("run.db"), make_fixture().run);
    w.append_waits(make_fixture().waits);
  }
  EXPECT_TRUE(files().empty());
}

TEST_F(StoreTest, AbortDoesNotReplaceAFileCreatedMeanwhileWithoutForce) {
  RunWriter w;
  w.open(path("run.db"), make_fixture().run);
  spit(path("run.db"), "someone else's file");
  EXPECT_THAT(store_error([&] { w.abort(); }), HasSubstr("--force"));
  EXPECT_EQ(slurp(path("run.db")), "someone else's file");
  EXPECT_EQ(files(), std::vector<std::string>{"run.db"});
}

TEST_F(StoreTest, TimelineSegmentOnTheWrongResourceIsRefused) {
  RunData data = make_fixture();
  data.timeline[0].cp = true;  // Comp on a CP
  EXPECT_THAT(store_error([&] { write_run(path("run.db"), data); }),
              HasSubstr("on the CP has the category Comp"));
  EXPECT_TRUE(files().empty());
}

TEST_F(StoreTest, FileIsTaggedWithApplicationIdAndVersion) {
  write_run(path("run.db"), make_fixture());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path("run.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto integer = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(s), SQLITE_ROW);
    const auto v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
  };
  EXPECT_EQ(integer("PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(integer("PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(integer("SELECT count(*) FROM categories"), 16);
  EXPECT_EQ(integer("SELECT count(*) FROM categories WHERE resource = 'WAIT'"), 9);
  // NULL, not -1, where the model says "none".
  EXPECT_EQ(integer("SELECT count(*) FROM waits WHERE cause_node IS NULL"), 3);
  EXPECT_EQ(integer("SELECT count(*) FROM scopes WHERE parent_id IS NULL"), 1);
  EXPECT_EQ(integer("SELECT sum(time_ps) FROM profile WHERE category IN ('Comp','Extra','Wait','Prste')"),
            testing::us(3900));
  EXPECT_EQ(integer("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'waits_by_scope'"),
            1);
  sqlite3_close(db);
}

// --- reading bad files ------------------------------------------------------------------------

TEST_F(StoreTest, MissingFile) {
  EXPECT_EQ(store_error([&] { read_run(path("nothing.db")); }), path("nothing.db") + ": no such file");
}

TEST_F(StoreTest, TextFileIsNotAnSQLiteDatabase) {
  spit(path("notes.txt"), "[network]\nlink_latency = \"1 us\"\n");
  EXPECT_EQ(store_error([&] { read_run(path("notes.txt")); }),
            path("notes.txt") + " is not an SQLite database");
}

TEST_F(StoreTest, EmptyFileIsNotAnSQLiteDatabase) {
  spit(path("empty.db"), "");
  EXPECT_EQ(store_error([&] { read_run(path("empty.db")); }),
            path("empty.db") + " is not an SQLite database");
}

TEST_F(StoreTest, RandomBytesAreNotAnSQLiteDatabase) {
  std::mt19937 random(42);
  std::string bytes(10'000, '\0');
  for (auto& b : bytes) b = static_cast<char>(random());
  spit(path("random.db"), bytes);
  EXPECT_EQ(store_error([&] { read_run(path("random.db")); }),
            path("random.db") + " is not an SQLite database");
}

TEST_F(StoreTest, SQLiteFileWithARandomBodyIsCorruptOrForeign) {
  // The right header and garbage after it.
  std::mt19937 random(7);
  std::string bytes(20'000, '\0');
  for (auto& b : bytes) b = static_cast<char>(random());
  std::memcpy(bytes.data(), "SQLite format 3", 16);
  spit(path("garbage.db"), bytes);
  const std::string message = store_error([&] { read_run(path("garbage.db")); });
  EXPECT_THAT(message, HasSubstr(path("garbage.db")));
  EXPECT_TRUE(message.find("is not an SQLite database") != std::string::npos ||
              message.find("is corrupt") != std::string::npos ||
              message.find("is not an NCP2-Carnival database") != std::string::npos)
      << message;
}

TEST_F(StoreTest, ForeignSQLiteDatabase) {
  run_sql(path("other.db"), "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');");
  EXPECT_THAT(store_error([&] { read_run(path("other.db")); }),
              HasSubstr(path("other.db") + " is not an NCP2-Carnival database (application_id 0"));
}

TEST_F(StoreTest, OurApplicationIdWithoutOurTablesIsForeign) {
  run_sql(path("half.db"),
          "PRAGMA application_id = 1313034290; PRAGMA user_version = 1; CREATE TABLE runs(id);");
  EXPECT_EQ(store_error([&] { read_run(path("half.db")); }),
            path("half.db") + " is not an NCP2-Carnival database (no table 'meta')");
}

TEST_F(StoreTest, ACountersFileIsNamedAsSuch) {
  run_sql(path("counters.db"),
          "PRAGMA application_id = 1313034290; PRAGMA user_version = " + std::to_string(kSchemaVersion) +
              "; CREATE TABLE meta(k); CREATE TABLE counter_runs(id);");
  EXPECT_NE(store_error([&] { read_run(path("counters.db")); }).find("holds samples of `ncp2 counters`"),
            std::string::npos);
}

TEST_F(StoreTest, NewerSchemaVersion) {
  write_run(path("run.db"), make_fixture());
  const int newer = kSchemaVersion + 1;
  run_sql(path("run.db"), "PRAGMA user_version = " + std::to_string(newer));
  EXPECT_EQ(store_error([&] { read_run(path("run.db")); }),
            path("run.db") + " was written by a newer version (schema " + std::to_string(newer) +
                ", this tool reads up to " + std::to_string(kSchemaVersion) + ")");
}

// Version 2 only added tables (counters): files of version 1 still read.
TEST_F(StoreTest, OlderSchemaVersionStillReads) {
  write_run(path("old.db"), make_fixture());
  run_sql(path("old.db"), "PRAGMA user_version = 1");
  EXPECT_EQ(read_run(path("old.db")).run.workload, make_fixture().run.workload);
}

TEST_F(StoreTest, TruncatedFileIsCorrupt) {
  write_run(path("run.db"), make_large(20'000));
  std::filesystem::copy_file(path("run.db"), path("half.db"));
  const auto size = std::filesystem::file_size(path("half.db"));
  ASSERT_GT(size, 100'000U);
  std::filesystem::resize_file(path("half.db"), size / 2);
  const std::string message = store_error([&] { read_run(path("half.db")); });
  EXPECT_THAT(message, HasSubstr(path("half.db") + " is corrupt (truncated or damaged)"));
}

TEST_F(StoreTest, IncompleteRunIsReadable) {
  RunData data = make_fixture();
  data.run.status = "incomplete";
  write_run(path("run.db"), data);
  EXPECT_EQ(read_run(path("run.db")).run.status, "incomplete");
}

}  // namespace
}  // namespace ncp2::carnival
