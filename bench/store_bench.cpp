// Writing wait rows into the SQLite store, against two floors of bare SQLite measured in the same
// run: 21 integer columns (BM_SqliteFloorRowSource/21) and exactly the store's rows in the store's
// own `waits` table (BM_SqliteFloorWaitRows/1). Issue 21's goal: BM_AppendWaitsOnly >= 90 % of the
// latter (docs/performance.md, CARNIVAL store). BM_WriteRunWaits writes a whole store file
// (schema, N wait rows, their summary, the indexes, the sync and the rename) to the temp directory.
//   ncp2_bench_store --benchmark_min_time=1 --benchmark_repetitions=3
#include <unistd.h>
#include <array>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include "carnival/run_reader.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store.hpp"
#include "carnival/store_schema.hpp"

namespace {

using namespace ncp2::carnival;

RunData synthetic_run(std::size_t waits) {
  RunData d;
  d.run.workload = "synthetic";
  d.run.machine = "ncp2";
  d.run.nodes = 16;
  d.scopes = {{0, -1, "program", "program", "bench.cpp", 1, 100},
              {1, 0, "loop", "loop", "bench.cpp", 10, 50}};
  const std::array<const char*, 4> operations = {"page fault", "diff fetch", "barrier", "lock acquire"};
  d.waits.reserve(waits);
  for (std::size_t i = 0; i < waits; ++i) {
    WaitRow w;
    w.id = i + 1;
    w.node = static_cast<int>(i % 16);
    w.scope = static_cast<std::uint32_t>(i % 2);
    w.operation = operations[(i / 16) % 4];
    w.start_ps = static_cast<std::int64_t>(i) * 1'000'000;
    for (std::size_t p = 0; p < kWaitParts; ++p)
      w.parts[p] = static_cast<std::int64_t>((i * 7 + p * 13) % 1000) * 1000;
    for (auto p : w.parts) w.duration_ps += p;
    if (w.operation[0] == 'b' || w.operation[0] == 'l') {
      w.cause_node = static_cast<int>((i + 3) % 16);
      w.cause_scope = 1;
    }
    w.object = i % 4096;
    w.remote_node = static_cast<int>((i + 1) % 16);
    d.waits.push_back(std::move(w));
  }
  d.wait_summary = summarize(d.waits);
  return d;
}

std::string bench_path() {
  return (std::filesystem::temp_directory_path() / ("ncp2-store-bench-" + std::to_string(::getpid()) + ".db"))
      .string();
}

// write_run: one call with all the rows (summary given, as the profiler gives it).
void BM_WriteRunWaits(benchmark::State& state) {
  const RunData data = synthetic_run(static_cast<std::size_t>(state.range(0)));
  const std::string path = bench_path();
  for (auto _ : state) write_run(path, data, {.force = true});
  std::filesystem::remove(path);
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_WriteRunWaits)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// RunWriter: batches of 10 000 rows as a long run would append them; the writer accumulates the
// summary itself.
void BM_StreamWaits(benchmark::State& state) {
  const RunData data = synthetic_run(static_cast<std::size_t>(state.range(0)));
  const std::string path = bench_path();
  const std::span<const WaitRow> waits(data.waits);
  for (auto _ : state) {
    RunWriter w;
    w.open(path, data.run, {.force = true});
    w.append_scopes(data.scopes);
    for (std::size_t at = 0; at < waits.size(); at += 10'000)
      w.append_waits(waits.subspan(at, std::min<std::size_t>(10'000, waits.size() - at)));
    RunData rest;
    rest.run = data.run;
    w.finish(rest);
  }
  std::filesystem::remove(path);
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamWaits)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Only the inserts: open, finish (summary, indexes, sync, rename) outside the timing.
void BM_AppendWaitsOnly(benchmark::State& state) {
  const RunData data = synthetic_run(static_cast<std::size_t>(state.range(0)));
  const std::string path = bench_path();
  const std::span<const WaitRow> waits(data.waits);
  RunData rest;
  rest.run = data.run;
  rest.wait_summary = data.wait_summary;
  for (auto _ : state) {
    state.PauseTiming();
    RunWriter w;
    w.open(path, data.run, {.force = true});
    state.ResumeTiming();
    for (std::size_t at = 0; at < waits.size(); at += 10'000)
      w.append_waits(waits.subspan(at, std::min<std::size_t>(10'000, waits.size() - at)));
    state.PauseTiming();
    w.finish(rest);
    state.ResumeTiming();
  }
  std::filesystem::remove(path);
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AppendWaitsOnly)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reading back (for the report): the whole file into a RunData.
void BM_ReadRunWaits(benchmark::State& state) {
  const RunData data = synthetic_run(static_cast<std::size_t>(state.range(0)));
  const std::string path = bench_path();
  write_run(path, data, {.force = true});
  for (auto _ : state) benchmark::DoNotOptimize(read_run(path));
  std::filesystem::remove(path);
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReadRunWaits)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floor: SQLite alone inserting rows of 21 integers (the width of a `waits` row) with one
// prepared statement in one transaction, journal off, no index, no constraint.
void BM_SqliteFloor(benchmark::State& state) {
  const int columns = static_cast<int>(state.range(0));
  const std::string path = bench_path();
  constexpr int kRows = 1'000'000;
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove(path);
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE",
                 nullptr, nullptr, nullptr);
    std::string create = "CREATE TABLE t(", insert = "INSERT INTO t VALUES (";
    for (int c = 0; c < columns; ++c) {
      create += (c ? ", c" : "c") + std::to_string(c);
      insert += c ? ", ?" : "?";
    }
    sqlite3_exec(db, (create + ")").c_str(), nullptr, nullptr, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, (insert + ")").c_str(), -1, &stmt, nullptr);
    state.ResumeTiming();
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    for (int i = 0; i < kRows; ++i) {
      for (int c = 0; c < columns; ++c)
        sqlite3_bind_int64(stmt, c + 1, static_cast<std::int64_t>(i) * 1000 + c);
      sqlite3_step(stmt);
      sqlite3_reset(stmt);
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    state.PauseTiming();
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    state.ResumeTiming();
  }
  std::filesystem::remove(path);
  state.counters["rows/s"] = benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SqliteFloor)->Arg(5)->Arg(21)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floors' insert loop: one INSERT ... SELECT per batch, each in its own transaction. Not inlined,
// so that callgrind can count its instructions alone (--toggle-collect='*insert_in_batches*').
template <class Row>
[[gnu::noinline]] void insert_in_batches(const ncp2::carnival::sql::Db& db,
                                         ncp2::carnival::sql::RowSource& source,
                                         ncp2::carnival::sql::Stmt& insert, std::span<const Row> rows,
                                         std::size_t batch) {
  for (std::size_t at = 0; at < rows.size(); at += batch) {
    db.exec("BEGIN");
    source.set(rows.subspan(at, std::min(batch, rows.size() - at)));
    insert.run();
    db.exec("COMMIT");
  }
}

// The floor with the fastest way in that SQLite offers: the same integer rows read by SQLite from
// memory through a virtual table (sql::RowSource, as the store does), one INSERT ... SELECT per
// 50 000 rows. Shows how the cost grows with the number of columns.
constexpr int kMaxFloorColumns = 21;
using FloorRow = std::array<std::int64_t, kMaxFloorColumns>;

void floor_column(const void* rows, std::size_t index, int column, sqlite3_context* out) {
  sqlite3_result_int64(out, static_cast<const FloorRow*>(rows)[index][static_cast<std::size_t>(column)]);
}

// A new database file for a floor benchmark (any old one removed), with the pragmas the floors
// write under, then `extra`.
ncp2::carnival::sql::Db fresh_floor_db(const std::string& path, const std::string& extra) {
  std::filesystem::remove(path);
  ncp2::carnival::sql::Db db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
  db.exec(
      "PRAGMA page_size = 8192; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; "
      "PRAGMA locking_mode = EXCLUSIVE" +
      extra);
  return db;
}

void BM_SqliteFloorRowSource(benchmark::State& state) {
  const int columns = static_cast<int>(state.range(0));
  const std::string path = bench_path();
  constexpr std::size_t kRows = 1'000'000;
  constexpr std::size_t kBatch = 50'000;
  std::vector<FloorRow> rows(kRows);
  for (std::size_t i = 0; i < kRows; ++i)
    for (std::size_t c = 0; c < kMaxFloorColumns; ++c) rows[i][c] = static_cast<std::int64_t>(i * 1000 + c);
  std::string names, create = "CREATE TABLE t(";
  for (int c = 0; c < columns; ++c) {
    names += (c ? ", c" : "c") + std::to_string(c);
    create += (c ? ", c" : "c") + std::to_string(c) + " INTEGER NOT NULL";
  }
  for (auto _ : state) {
    state.PauseTiming();
    {
      const ncp2::carnival::sql::Db db = fresh_floor_db(path, "");
      db.exec(create + ")");
      ncp2::carnival::sql::RowSource source(db, "floor_rows", names, floor_column);
      ncp2::carnival::sql::Stmt insert(db, "INSERT INTO t SELECT * FROM floor_rows");
      state.ResumeTiming();
      insert_in_batches(db, source, insert, std::span<const FloorRow>(rows), kBatch);
      state.PauseTiming();
    }
    state.ResumeTiming();
  }
  std::filesystem::remove(path);
  state.counters["rows/s"] = benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SqliteFloorRowSource)->Arg(5)->Arg(10)->Arg(21)->Unit(benchmark::kMillisecond)->UseRealTime();

// The store's CREATE TABLE waits (Arg 1), or the same column names and types with no constraint.
std::string floor_waits_table(bool constraints) {
  const std::string& schema = schema_sql();
  const std::size_t begin = schema.find("CREATE TABLE waits(");
  std::string table = schema.substr(begin, schema.find(");", begin) + 2 - begin);
  if (constraints) return table;
  std::string bare =
      "CREATE TABLE waits(run_id INTEGER, id INTEGER, node INTEGER, scope_id INTEGER, "
      "operation TEXT, kind TEXT, start_ps INTEGER, duration_ps INTEGER";
  for (const auto& p : kWaitPartTable) bare += ", " + std::string(p.column) + " INTEGER";
  return bare + ", cause_node INTEGER, cause_scope_id INTEGER, object INTEGER, remote_node INTEGER);";
}

// The second floor: bare SQLite writing exactly the store's wait rows — the same declared `waits`
// table (the store's own CREATE TABLE: text columns, NOT NULL and CHECK constraints; Arg 1) or
// the same columns without any constraint (Arg 0), the same values, read by SQLite through a
// virtual table (the fastest way in; the store's own column function, so the floor and the store
// hand SQLite the values alike), one INSERT ... SELECT per 50 000 rows, the store's pragmas.
// No RunWriter: no summary, no cap, no bookkeeping. Goal 4 of issue 21 compares
// BM_AppendWaitsOnly against this floor with Arg 1 (and docs/performance.md also against the
// 21-integer floor above).
void BM_SqliteFloorWaitRows(benchmark::State& state) {
  const RunData data = synthetic_run(1'000'000);
  const std::span<const WaitRow> waits(data.waits);
  const std::string path = bench_path();
  const std::string table = floor_waits_table(state.range(0) != 0);
  constexpr std::size_t kBatch = 50'000;
  for (auto _ : state) {
    state.PauseTiming();
    {
      const ncp2::carnival::sql::Db db = fresh_floor_db(path, "; PRAGMA cache_size = -65536");
      db.exec(table);
      ncp2::carnival::sql::RowSource source(db, "floor_wait_rows", wait_row_columns(), wait_row_column);
      ncp2::carnival::sql::Stmt insert(db, "INSERT INTO waits SELECT 1, * FROM floor_wait_rows");
      state.ResumeTiming();
      insert_in_batches(db, source, insert, waits, kBatch);
      state.PauseTiming();
    }
    state.ResumeTiming();
  }
  std::filesystem::remove(path);
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(waits.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_SqliteFloorWaitRows)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
