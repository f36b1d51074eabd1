#pragma once
// The store's schema (docs/schema.md), generated where it depends on the categories and the wait
// parts (carnival/model.hpp kCategoryTable, carnival/wait_parts.hpp kWaitPartTable): their CHECK lists
// and the part columns of `waits` and `wait_summary` come from those tables, and so do the column
// lists of the writer's INSERTs and the readers' SELECTs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3_context;

namespace ncp2::carnival {

// 2: counter and per-scope counter tables; 3: run status 'deadlock'; 4: table races (and meta
// key race_detection); 5: table protocol_counts
inline constexpr int kSchemaVersion = 5;
// The first version with table races (readers of older stores see no race detection).
inline constexpr int kRacesSinceVersion = 4;
// The first version with table protocol_counts (readers of older stores see none).
inline constexpr int kProtocolCountsSinceVersion = 5;
// PRAGMA application_id of every store file: "NCP2" in ASCII.
inline constexpr std::int32_t kApplicationId = 0x4E435032;

// The tables every store has (readers check them to recognise foreign files).
inline constexpr std::array<std::string_view, 10> kTables = {
    "meta",   "runs",    "nodes", "categories",   "sources",
    "scopes", "profile", "waits", "wait_summary", "timeline"};

// The columns of `runs` after id, in the order the writer binds and read_run_info reads them.
inline constexpr std::string_view kRunColumns =
    "workload, machine, nodes, status, virtual_time_ps, config, parameters, seed, started_at, wall_seconds, "
    "verified, message";

// Every CREATE TABLE of a run store.
const std::string& schema_sql();
// The `clocks` table of a real run's file (docs/schema.md): each node's clock against node 0's.
// Not in schema_sql() nor kTables: only a real run's file has it (RunWriter creates it when
// WriteOptions::clocks_table is set; the real run inserts its rows), an emulated run's file is
// unchanged.
std::string_view clocks_schema_sql();
// The columns of `clocks` after run_id, in table order (the real run's INSERT).
inline constexpr std::string_view kClockColumns =
    "node, offset_ns, drift_ppm, bound_ns, drift_bound_ppm, rtt_min_ns, synchronized, source";
// The indexes, built once the rows are in.
std::string_view index_sql();
// "cplwait_ps, cplcomp_ps, ..., sync_delay_ps": the part columns in kWaitPartTable's order.
const std::string& wait_part_columns();
// The columns of `waits` after run_id, in table order (what the writer's row source yields).
const std::string& wait_row_columns();
// sql::RowSource's column function over WaitRow rows (carnival/store.hpp), in wait_row_columns()'s
// order: the writer's and the store benchmark's one way into SQLite. Defined in store_writer.cpp.
void wait_row_column(const void* rows, std::size_t index, int column, sqlite3_context* out);
// The columns of `wait_summary` after run_id, in table order.
const std::string& wait_summary_columns();

}  // namespace ncp2::carnival
