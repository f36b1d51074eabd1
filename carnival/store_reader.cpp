// Reading a run store back: read_run (every table) and read_wait_summary (also the GUI's).
#include "carnival/store.hpp"

#include <fmt/format.h>

#include "carnival/sqlite.hpp"
#include "carnival/store_open.hpp"
#include "carnival/store_races.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

namespace {

// Turns SQLite's complaints about the file itself into the documented messages.

RunData read_tables(const sql::Db& db, const std::string& path) {
  RunData d;
  auto run_and_id = read_run_info(db, path);
  const auto run_id = run_and_id.first;  // a named variable: lambdas capture it (C++20 allows a
  d.run = std::move(run_and_id.second);  // structured binding, clang-tidy 14 does not)
  auto query = [&](const std::string& sql) {
    auto s = std::make_unique<sql::Stmt>(db, sql);
    s->bind(1, run_id);
    return s;
  };
  auto category = [&](const std::string& name) {
    if (auto c = category_from_string(name)) return *c;
    throw StoreError(fmt::format("{} is corrupt: unknown category '{}'", path, name));
  };
  for (auto s = query("SELECT node, finish_ps FROM nodes WHERE run_id = ?1 ORDER BY rowid"); s->step();)
    d.nodes.push_back({s->i32(0), s->i64(1)});
  for (auto s = query("SELECT file, text FROM sources WHERE run_id = ?1 ORDER BY rowid"); s->step();)
    d.sources.push_back({s->str(0), s->str(1)});
  d.scopes = read_scopes(db, run_id);
  for (auto s =
           query("SELECT node, scope_id, category, operation, time_ps, count FROM profile WHERE run_id = ?1 "
                 "ORDER BY rowid");
       s->step();)
    d.profile.push_back({s->i32(0), static_cast<std::uint32_t>(s->i64(1)), category(s->str(2)), s->str(3),
                         s->i64(4), s->u64(5)});
  for (auto s =
           query(fmt::format("SELECT {} FROM waits WHERE run_id = ?1 ORDER BY rowid", wait_row_columns()));
       s->step();) {
    WaitRow w;
    w.id = s->u64(0);
    w.node = s->i32(1);
    w.scope = static_cast<std::uint32_t>(s->i64(2));
    w.operation = s->str(3);
    w.kind = s->str(4);
    w.start_ps = s->i64(5);
    w.duration_ps = s->i64(6);
    for (std::size_t i = 0; i < kWaitParts; ++i) w.parts[i] = s->i64(7 + static_cast<int>(i));
    constexpr int kAfterParts = 7 + static_cast<int>(kWaitParts);
    w.cause_node = static_cast<int>(s->optional(kAfterParts));
    w.cause_scope = s->optional(kAfterParts + 1);
    w.object = s->u64(kAfterParts + 2);
    w.remote_node = static_cast<int>(s->optional(kAfterParts + 3));
    d.waits.push_back(std::move(w));
  }
  d.wait_summary = read_wait_summary(db, run_id);
  for (auto s = query("SELECT node, resource, category, operation, scope_id, start_ps, end_ps FROM timeline "
                      "WHERE run_id = ?1 ORDER BY rowid");
       s->step();)
    d.timeline.push_back({s->i32(0), s->str(1) == "CP", category(s->str(2)), s->str(3),
                          static_cast<std::uint32_t>(s->i64(4)), s->i64(5), s->i64(6)});
  auto counter = [&](const char* key) -> std::uint64_t {
    sql::Stmt s(db, "SELECT value FROM meta WHERE key = ?1");
    s.bind(1, key);
    if (!s.step()) return 0;
    try {
      return std::stoull(s.str(0));
    } catch (const std::exception&) {
      throw StoreError(fmt::format("{} is corrupt: meta '{}' is '{}', not a number", path, key, s.str(0)));
    }
  };
  StoredRaces races = read_races(db, run_id, path);
  d.races_checked = races.checked;
  d.races = std::move(races.races);
  d.waits_dropped = counter("waits_dropped");
  d.timeline_dropped = counter("timeline_dropped");
  return d;
}

}  // namespace

std::vector<Scope> read_scopes(const sql::Db& db, std::int64_t run_id) {
  sql::Stmt s(db,
              "SELECT id, parent_id, name, kind, file, begin_line, end_line FROM scopes WHERE run_id = ?1 "
              "ORDER BY id");
  s.bind(1, run_id);
  std::vector<Scope> out;
  while (s.step())
    out.push_back({static_cast<std::uint32_t>(s.i64(0)), s.optional(1), s.str(2), s.str(3), s.str(4),
                   s.i32(5), s.i32(6)});
  return out;
}

std::vector<WaitSummary> read_wait_summary(const sql::Db& db, std::int64_t run_id) {
  std::vector<WaitSummary> rows;
  sql::Stmt s(db, fmt::format("SELECT {} FROM wait_summary WHERE run_id = ?1 ORDER BY rowid",
                              wait_summary_columns()));
  s.bind(1, run_id);
  while (s.step()) {
    WaitSummary w;
    w.node = s.i32(0);
    w.scope = static_cast<std::uint32_t>(s.i64(1));
    w.operation = s.str(2);
    w.kind = s.str(3);
    w.count = s.u64(4);
    w.total_ps = s.i64(5);
    for (std::size_t i = 0; i < kWaitParts; ++i) w.parts[i] = s.i64(6 + static_cast<int>(i));
    rows.push_back(std::move(w));
  }
  return rows;
}

RunData read_run(const std::string& path) {
  try {
    sql::Db db = open_store(path);
    check_store_integrity(db, path);
    return read_tables(db, path);
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(path, e);
  }
}

}  // namespace ncp2::carnival
