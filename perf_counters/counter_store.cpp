#include "perf_counters/counter_store.hpp"

#include <array>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/file_publish.hpp"
#include "carnival/output_paths.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_open.hpp"
#include "perf_counters/series.hpp"

#ifndef NCP2_VERSION
#define NCP2_VERSION "unknown"
#endif

namespace ncp2::counters {

namespace fs = std::filesystem;
namespace sql = carnival::sql;
using carnival::rethrow_as_store_error;
using carnival::StoreError;

namespace {

// docs/schema.md, "Counter runs". Values read from the kernel are unsigned 64-bit: stored as the
// same bits in SQLite's signed integers.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE counter_runs(
  id                  INTEGER PRIMARY KEY,
  command             TEXT NOT NULL,
  period_ns           INTEGER NOT NULL,
  started_at          TEXT NOT NULL,
  wall_seconds        REAL NOT NULL,
  exit_code           INTEGER NOT NULL,
  exit_description    TEXT NOT NULL,
  samples_kept        INTEGER NOT NULL,
  samples_dropped     INTEGER NOT NULL,
  samples_late        INTEGER NOT NULL,
  perf_event_paranoid INTEGER,
  inherit             INTEGER NOT NULL CHECK (inherit IN (0, 1)));
CREATE TABLE counter_events(
  run_id      INTEGER NOT NULL REFERENCES counter_runs(id),
  position    INTEGER NOT NULL,
  name        TEXT NOT NULL,
  available   INTEGER NOT NULL CHECK (available IN (0, 1)),
  reason      TEXT NOT NULL,
  note        TEXT NOT NULL,
  source      TEXT NOT NULL,
  encoding    TEXT NOT NULL,
  perf_type   INTEGER NOT NULL,
  perf_config INTEGER NOT NULL,
  unit        TEXT NOT NULL,
  group_index INTEGER,
  total       REAL,
  PRIMARY KEY (run_id, name));
CREATE TABLE counter_samples(
  run_id     INTEGER NOT NULL REFERENCES counter_runs(id),
  sample     INTEGER NOT NULL,
  event      TEXT NOT NULL,
  t_ns       INTEGER NOT NULL,
  dt_ns      INTEGER NOT NULL,
  enabled_ns INTEGER NOT NULL,
  running_ns INTEGER NOT NULL,
  late       INTEGER NOT NULL CHECK (late IN (0, 1)),
  raw        INTEGER NOT NULL,
  value      REAL,
  delta      REAL,
  PRIMARY KEY (run_id, sample, event));
)sql";

constexpr std::array<const char*, 4> kTables = {"meta", "counter_runs", "counter_events", "counter_samples"};
constexpr std::int64_t kRunId = 1;

void bind_optional(sql::Stmt& s, int i, const std::optional<double>& v) {
  if (v)
    s.bind(i, *v);
  else
    s.bind_null(i);
}

void write_tables(const sql::Db& db, const CounterRun& run) {
  db.exec(kSchema);
  {
    sql::Stmt meta(db, "INSERT INTO meta VALUES (?1, ?2)");
    for (const auto& [key, value] :
         {std::pair<const char*, std::string>{"schema_version", std::to_string(carnival::kSchemaVersion)},
          {"tool_version", "ncp2 " NCP2_VERSION},
          {"content", "counters"}}) {
      meta.bind(1, key);
      meta.bind(2, value);
      meta.run();
    }
  }
  {
    sql::Stmt s(db, "INSERT INTO counter_runs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    const std::string command = nlohmann::json(run.command).dump();
    s.bind(1, kRunId);
    s.bind(2, command);
    s.bind(3, static_cast<std::int64_t>(run.period.count()));
    s.bind(4, run.started_at);
    s.bind(5, run.wall_seconds);
    s.bind(6, run.exit_code);
    s.bind(7, run.exit_description);
    s.bind(8, static_cast<std::int64_t>(run.samples.size()));
    s.bind(9, run.samples_dropped);
    s.bind(10, run.samples_late);
    if (run.perf_event_paranoid)
      s.bind(11, *run.perf_event_paranoid);
    else
      s.bind_null(11);
    s.bind(12, run.inherit);
    s.run();
  }
  const auto totals = event_totals(run);
  {
    sql::Stmt s(db,
                "INSERT INTO counter_events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    for (std::size_t i = 0; i < run.events.size(); ++i) {
      const EventStatus& e = run.events[i];
      s.bind(1, kRunId);
      s.bind(2, static_cast<std::int64_t>(i));
      s.bind(3, e.name);
      s.bind(4, e.available);
      s.bind(5, e.reason);
      s.bind(6, e.note);
      s.bind(7, e.source);
      s.bind(8, e.encoding);
      s.bind(9, e.perf_type);
      s.bind(10, e.perf_config);
      s.bind(11, e.unit);
      s.bind_optional(12, e.group_index);
      bind_optional(s, 13, totals[i]);
      s.run();
    }
  }
  const auto rows = sample_rows(run);
  sql::Stmt s(db, "INSERT INTO counter_samples VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const RawSample& raw = run.samples[k];
    const SampleRow& row = rows[k];
    const std::int64_t dt_ns = raw.wall.count() - (k ? run.samples[k - 1].wall.count() : 0);
    for (const EventStatus& e : run.events) {
      if (e.group_index < 0) continue;
      const auto g = static_cast<std::size_t>(e.group_index);
      s.bind(1, kRunId);
      s.bind(2, static_cast<std::int64_t>(k));
      s.bind(3, e.name);
      s.bind(4, static_cast<std::int64_t>(raw.wall.count()));
      s.bind(5, dt_ns);
      s.bind(6, raw.enabled_ns);
      s.bind(7, raw.running_ns);
      s.bind(8, raw.late);
      s.bind(9, raw.values.at(g));
      bind_optional(s, 10, e.available ? row.points[g].total : std::nullopt);
      bind_optional(s, 11, e.available ? row.points[g].delta : std::nullopt);
      s.run();
    }
  }
  db.exec("CREATE INDEX counter_samples_by_event ON counter_samples(run_id, event, sample)");
}

}  // namespace

std::string check_output_path(const std::string& path, bool force) {
  try {
    carnival::check_database_output(path, force);  // the same rules as a run's --db
  } catch (const carnival::OutputError& e) {
    return e.what();
  }
  return "";
}

void write_counter_run(const std::string& path, const CounterRun& run, bool force) {
  carnival::write_database_atomically(path, force, [&](sql::Db& db) { write_tables(db, run); });
}

namespace {

// Refuses a file without the counter tables (an NCP2 file of another kind).
void check_counter_tables(const sql::Db& db, const std::string& path) {
  const std::set<std::string> tables = carnival::table_names(db);
  for (const char* t : kTables)
    if (!tables.count(t))
      throw StoreError(
          fmt::format("{} holds no counter run (no table '{}'; written by `ncp2 counters --db`?)", path, t));
}

// The run's own row (the first of counter_runs) into `run`.
void read_run_row(const sql::Db& db, const std::string& path, CounterRun& run) {
  sql::Stmt s(db,
              "SELECT command, period_ns, started_at, wall_seconds, exit_code, exit_description, "
              "samples_dropped, "
              "samples_late, perf_event_paranoid, inherit FROM counter_runs ORDER BY id LIMIT 1");
  if (!s.step()) throw StoreError(fmt::format("{} contains no counter run", path));
  try {
    run.command = nlohmann::json::parse(s.str(0)).get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception&) {
    throw StoreError(fmt::format("{} is corrupt: counter_runs.command is not a JSON list of strings", path));
  }
  run.period = Nanoseconds(s.i64(1));
  run.started_at = s.str(2);
  run.wall_seconds = s.f64(3);
  run.exit_code = s.i32(4);
  run.exit_description = s.str(5);
  run.samples_dropped = s.u64(6);
  run.samples_late = s.u64(7);
  if (!s.is_null(8)) run.perf_event_paranoid = s.i32(8);
  run.inherit = s.i64(9) != 0;
}

// The events into run.events, in order. Returns each counted event's index in the group (the
// position of its value in a sample).
std::map<std::string, std::size_t> read_events(const sql::Db& db, CounterRun& run) {
  std::map<std::string, std::size_t> group_index_of;
  sql::Stmt events(db,
                   "SELECT name, available, reason, note, source, encoding, perf_type, perf_config, unit, "
                   "group_index FROM counter_events WHERE run_id = ?1 ORDER BY position");
  events.bind(1, kRunId);
  while (events.step()) {
    const sql::Stmt& s = events;
    EventStatus e;
    e.name = s.str(0);
    e.available = s.i64(1) != 0;
    e.reason = s.str(2);
    e.note = s.str(3);
    e.source = s.str(4);
    e.encoding = s.str(5);
    e.perf_type = static_cast<std::uint32_t>(s.i64(6));
    e.perf_config = s.u64(7);
    e.unit = s.str(8);
    e.group_index = static_cast<int>(s.optional(9));
    if (e.group_index >= 0) group_index_of[e.name] = static_cast<std::size_t>(e.group_index);
    run.events.push_back(std::move(e));
  }
  return group_index_of;
}

// The samples into run.samples: one row per (sample, event), gathered into one RawSample each.
void read_samples(const sql::Db& db, const std::string& path,
                  const std::map<std::string, std::size_t>& group_index_of, CounterRun& run) {
  const std::size_t members = group_index_of.size();
  sql::Stmt s(db,
              "SELECT sample, event, t_ns, enabled_ns, running_ns, late, raw FROM counter_samples "
              "WHERE run_id = ?1 ORDER BY sample");
  s.bind(1, kRunId);
  while (s.step()) {
    const auto k = static_cast<std::size_t>(s.i64(0));
    if (k > run.samples.size())
      throw StoreError(
          fmt::format("{} is corrupt: counter_samples skips sample {}", path, run.samples.size()));
    if (k == run.samples.size()) {
      RawSample r;
      r.wall = Nanoseconds(s.i64(2));
      r.enabled_ns = s.u64(3);
      r.running_ns = s.u64(4);
      r.late = s.i64(5) != 0;
      r.values.assign(members, 0);
      run.samples.push_back(std::move(r));
    }
    const auto it = group_index_of.find(s.str(1));
    if (it == group_index_of.end() || it->second >= members)
      throw StoreError(fmt::format("{} is corrupt: a sample of unknown event '{}'", path, s.str(1)));
    run.samples[k].values[it->second] = s.u64(6);
  }
}

}  // namespace

CounterRun read_counter_run(const std::string& path) {
  sql::Db db = carnival::open_ncp2_file(path);
  try {
    check_counter_tables(db, path);
    CounterRun run;
    read_run_row(db, path, run);
    const std::map<std::string, std::size_t> group_index_of = read_events(db, run);
    read_samples(db, path, group_index_of, run);
    return run;
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(path, e);
  }
}

namespace {

constexpr const char* kScopeSchema = R"sql(
CREATE TABLE scope_counter_events(
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  position  INTEGER NOT NULL,
  event     TEXT NOT NULL,
  available INTEGER NOT NULL CHECK (available IN (0, 1)),
  reason    TEXT NOT NULL,
  encoding  TEXT NOT NULL,
  unit      TEXT NOT NULL,
  PRIMARY KEY (run_id, event));
CREATE TABLE scope_counters(
  run_id   INTEGER NOT NULL REFERENCES runs(id),
  node     INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  event    TEXT NOT NULL,
  value    REAL,
  PRIMARY KEY (run_id, node, scope_id, event));
)sql";

std::int64_t run_id_of(const sql::Db& db, const std::string& path) {
  const auto application_id = static_cast<std::int32_t>(db.integer("PRAGMA application_id"));
  if (application_id != carnival::kApplicationId)
    throw StoreError(fmt::format("{} is not an NCP2-Carnival database", path));
  if (db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'") == 0)
    throw StoreError(fmt::format("{} holds no emulated run (no table 'runs')", path));
  return carnival::read_run_info(db, path).first;  // the first run, as every reader takes it
}

}  // namespace

void append_scope_counters(const std::string& run_db, const std::vector<EventStatus>& events,
                           const std::vector<ScopeCounterRow>& rows) {
  std::error_code ec;
  if (!fs::is_regular_file(run_db, ec)) throw StoreError(fmt::format("{}: no such file", run_db));
  try {
    sql::Db db(run_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
    const std::int64_t run_id = run_id_of(db, run_db);
    if (db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'scope_counters'") !=
        0)
      throw StoreError(fmt::format("{}: already has scope counters", run_db));
    db.exec("BEGIN");
    db.exec(kScopeSchema);
    {
      sql::Stmt s(db, "INSERT INTO scope_counter_events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      for (std::size_t i = 0; i < events.size(); ++i) {
        s.bind(1, run_id);
        s.bind(2, static_cast<std::int64_t>(i));
        s.bind(3, events[i].name);
        s.bind(4, events[i].available);
        s.bind(5, events[i].reason);
        s.bind(6, events[i].encoding);
        s.bind(7, events[i].unit);
        s.run();
      }
    }
    {
      sql::Stmt s(db, "INSERT INTO scope_counters VALUES (?1, ?2, ?3, ?4, ?5)");
      for (const auto& r : rows) {
        s.bind(1, run_id);
        s.bind(2, r.node);
        s.bind(3, r.scope);
        s.bind(4, r.event);
        bind_optional(s, 5, r.value);
        s.run();
      }
    }
    db.exec("COMMIT");
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(run_db, e);
  }
}

std::vector<ScopeCounterRow> read_scope_counters(const std::string& run_db) {
  std::vector<ScopeCounterRow> out;
  try {
    sql::Db db(run_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
    if (db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'scope_counters'") ==
        0)
      return out;
    for (sql::Stmt s(
             db, "SELECT node, scope_id, event, value FROM scope_counters ORDER BY node, scope_id, rowid");
         s.step();)
      out.push_back({s.i32(0), static_cast<std::uint32_t>(s.i64(1)), s.str(2),
                     s.is_null(3) ? std::nullopt : std::optional<double>(s.f64(3))});
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(run_db, e);
  }
  return out;
}

}  // namespace ncp2::counters
