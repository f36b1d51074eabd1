#include "carnival/store_schema.hpp"

#include <fmt/format.h>

#include "carnival/model.hpp"

namespace ncp2::carnival {

namespace {

// docs/schema.md describes every column. Times are integer picoseconds. The {placeholders} are
// filled from the categories and wait parts tables. The CHECK of waits.kind is written with `=` and
// OR: the same rule as IN (...), which SQLite 3.40 evaluates with about 280 more instructions per
// row (5 % of a wait row's insert; docs/performance.md, CARNIVAL store).
constexpr std::string_view kSchemaTemplate = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE runs(
  id              INTEGER PRIMARY KEY,
  workload        TEXT NOT NULL,
  machine         TEXT NOT NULL,
  nodes           INTEGER NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('complete', 'incomplete', 'failed', 'deadlock')),
  virtual_time_ps INTEGER NOT NULL,
  config          TEXT NOT NULL,
  parameters      TEXT NOT NULL,
  seed            INTEGER NOT NULL,
  started_at      TEXT NOT NULL,
  wall_seconds    REAL NOT NULL,
  verified        INTEGER NOT NULL CHECK (verified IN (0, 1)),
  message         TEXT NOT NULL);
CREATE TABLE nodes(
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  node      INTEGER NOT NULL,
  finish_ps INTEGER NOT NULL,
  PRIMARY KEY (run_id, node));
CREATE TABLE categories(
  name        TEXT PRIMARY KEY,
  position    INTEGER NOT NULL,
  resource    TEXT NOT NULL CHECK (resource IN ('PP', 'CP', 'WAIT')),
  color       TEXT NOT NULL,
  description TEXT NOT NULL);
CREATE TABLE sources(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  file   TEXT NOT NULL,
  text   TEXT NOT NULL,
  PRIMARY KEY (run_id, file));
CREATE TABLE scopes(
  id         INTEGER NOT NULL,
  run_id     INTEGER NOT NULL REFERENCES runs(id),
  parent_id  INTEGER,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  file       TEXT NOT NULL,
  begin_line INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  PRIMARY KEY (run_id, id));
CREATE TABLE profile(
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  node      INTEGER NOT NULL,
  scope_id  INTEGER NOT NULL,
  category  TEXT NOT NULL CHECK (category IN ({categories})),
  operation TEXT NOT NULL,
  time_ps   INTEGER NOT NULL,
  count     INTEGER NOT NULL);
CREATE TABLE waits(
  run_id         INTEGER NOT NULL REFERENCES runs(id),
  id             INTEGER NOT NULL,
  node           INTEGER NOT NULL,
  scope_id       INTEGER NOT NULL,
  operation      TEXT NOT NULL,
  kind           TEXT NOT NULL CHECK (kind = 'Wait' OR kind = 'CPWait'),
  start_ps       INTEGER NOT NULL,
  duration_ps    INTEGER NOT NULL,
{wait_part_columns}  cause_node     INTEGER,
  cause_scope_id INTEGER,
  object         INTEGER NOT NULL,
  remote_node    INTEGER);
CREATE TABLE wait_summary(
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  node          INTEGER NOT NULL,
  scope_id      INTEGER NOT NULL,
  operation     TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('Wait', 'CPWait')),
  count         INTEGER NOT NULL,
  total_ps      INTEGER NOT NULL,
{summary_part_columns});
CREATE TABLE timeline(
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  node      INTEGER NOT NULL,
  resource  TEXT NOT NULL CHECK (resource IN ('PP', 'CP')),
  category  TEXT NOT NULL CHECK (category IN ({categories})),
  operation TEXT NOT NULL,
  scope_id  INTEGER NOT NULL,
  start_ps  INTEGER NOT NULL,
  end_ps    INTEGER NOT NULL);
CREATE TABLE races(
  run_id             INTEGER NOT NULL REFERENCES runs(id),
  id                 INTEGER NOT NULL,
  region             TEXT NOT NULL,
  offset             INTEGER NOT NULL,
  address            INTEGER,
  occurrences        INTEGER NOT NULL,
  first_node         INTEGER NOT NULL,
  first_access       TEXT NOT NULL CHECK (first_access IN ('read', 'write')),
  first_file         TEXT NOT NULL,
  first_line         INTEGER NOT NULL,
  first_scope_id     INTEGER NOT NULL,
  first_interval     INTEGER NOT NULL,
  first_vector_time  TEXT NOT NULL,
  second_node        INTEGER NOT NULL,
  second_access      TEXT NOT NULL CHECK (second_access IN ('read', 'write')),
  second_file        TEXT NOT NULL,
  second_line        INTEGER NOT NULL,
  second_scope_id    INTEGER NOT NULL,
  second_interval    INTEGER NOT NULL,
  second_vector_time TEXT NOT NULL,
  PRIMARY KEY (run_id, id));
CREATE TABLE protocol_counts(
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  node    INTEGER NOT NULL,
  counter TEXT NOT NULL,
  value   INTEGER NOT NULL,
  PRIMARY KEY (run_id, node, counter));
)sql";

// A real run's nodes' clocks (real_machine/results.cpp writes the rows).
constexpr std::string_view kClocksTable = R"sql(
CREATE TABLE clocks(
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  node            INTEGER NOT NULL,
  offset_ns       REAL NOT NULL,
  drift_ppm       REAL NOT NULL,
  bound_ns        REAL NOT NULL,
  drift_bound_ppm REAL NOT NULL,
  rtt_min_ns      REAL NOT NULL,
  synchronized    INTEGER NOT NULL,
  source          TEXT NOT NULL,
  PRIMARY KEY (run_id, node));
)sql";

// Built when the rows are in (faster than maintaining them row by row). Each index on `waits` costs
// about as much as inserting the rows: only the one the GUI needs (instances of a CPWait Map row).
constexpr std::string_view kIndexes = R"sql(
CREATE INDEX IF NOT EXISTS waits_by_scope ON waits(run_id, scope_id, operation);
CREATE INDEX IF NOT EXISTS profile_by_scope ON profile(run_id, scope_id);
CREATE INDEX IF NOT EXISTS wait_summary_by_scope ON wait_summary(run_id, scope_id, operation);
CREATE INDEX IF NOT EXISTS timeline_by_node ON timeline(run_id, node, start_ps);
)sql";

std::string category_check_list() {
  std::string list;
  for (const auto& c : kCategoryTable) list += fmt::format("{}'{}'", list.empty() ? "" : ", ", c.name);
  return list;
}

// One "  <column> INTEGER NOT NULL" line per part, the column names padded to `width`.
std::string part_column_lines(std::size_t width, std::string_view separator) {
  std::string lines;
  for (std::size_t i = 0; i < kWaitParts; ++i)
    lines += fmt::format("  {:<{}} INTEGER NOT NULL{}", kWaitPartTable[i].column, width,
                         i + 1 < kWaitParts ? separator : "");
  return lines;
}

}  // namespace

const std::string& schema_sql() {
  static const std::string text =
      fmt::format(fmt::runtime(kSchemaTemplate), fmt::arg("categories", category_check_list()),
                  fmt::arg("wait_part_columns", part_column_lines(14, ",\n") + ",\n"),
                  fmt::arg("summary_part_columns", part_column_lines(13, ",\n")));
  return text;
}

std::string_view clocks_schema_sql() { return kClocksTable; }

std::string_view index_sql() { return kIndexes; }

const std::string& wait_part_columns() {
  static const std::string list = [] {
    std::string out;
    for (const auto& p : kWaitPartTable) out += fmt::format("{}{}", out.empty() ? "" : ", ", p.column);
    return out;
  }();
  return list;
}

const std::string& wait_row_columns() {
  static const std::string list = "id, node, scope_id, operation, kind, start_ps, duration_ps, " +
                                  wait_part_columns() + ", cause_node, cause_scope_id, object, remote_node";
  return list;
}

const std::string& wait_summary_columns() {
  static const std::string list = "node, scope_id, operation, kind, count, total_ps, " + wait_part_columns();
  return list;
}

}  // namespace ncp2::carnival
