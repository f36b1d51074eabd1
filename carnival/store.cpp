#include "carnival/store.hpp"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <fcntl.h>
#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_open.hpp"

#ifndef NCP2_VERSION
#define NCP2_VERSION "unknown"
#endif

namespace ncp2::carnival {

namespace fs = std::filesystem;

namespace {

// Rows per transaction while streaming: commits keep the temporary file's progress bounded in
// memory (journal_mode=MEMORY) without costing a sync (synchronous=OFF).
constexpr std::size_t kRowsPerTransaction = 50'000;
// The columns of `waits` after run_id, as the virtual table ncp2_wait_rows gives them (the
// order of the CREATE TABLE below).
constexpr const char* kWaitRowColumns =
    "id, node, scope_id, operation, kind, start_ps, duration_ps, cplwait_ps, cplcomp_ps, cpcomm_ps, "
    "cprwait_ps, cprcomp_ps, pprwait_ps, pprcomp_ps, pplwait_ps, sync_delay_ps, cause_node, cause_scope_id, "
    "object, remote_node";

void result_text(sqlite3_context* out, const std::string& text) {
  sqlite3_result_text(out, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

void result_optional(sqlite3_context* out, std::int64_t v) {
  if (v < 0)
    sqlite3_result_null(out);  // the model's "none"
  else
    sqlite3_result_int64(out, v);
}

// sql::RowSource::ColumnFn for WaitRow, in the order of kWaitRowColumns.
void wait_row_column(const void* rows, std::size_t index, int column, sqlite3_context* out) {
  const WaitRow& w = static_cast<const WaitRow*>(rows)[index];
  constexpr int kFirstPart = 7;
  switch (column) {
    case 0:
      sqlite3_result_int64(out, static_cast<std::int64_t>(w.id));
      return;
    case 1:
      sqlite3_result_int64(out, w.node);
      return;
    case 2:
      sqlite3_result_int64(out, w.scope);
      return;
    case 3:
      result_text(out, w.operation);
      return;
    case 4:
      result_text(out, w.kind);
      return;
    case 5:
      sqlite3_result_int64(out, w.start_ps);
      return;
    case 6:
      sqlite3_result_int64(out, w.duration_ps);
      return;
    case kFirstPart + static_cast<int>(kWaitParts):
      result_optional(out, w.cause_node);
      return;
    case kFirstPart + static_cast<int>(kWaitParts) + 1:
      result_optional(out, w.cause_scope);
      return;
    case kFirstPart + static_cast<int>(kWaitParts) + 2:
      sqlite3_result_int64(out, static_cast<std::int64_t>(w.object));
      return;
    case kFirstPart + static_cast<int>(kWaitParts) + 3:
      result_optional(out, w.remote_node);
      return;
    default:
      if (column >= kFirstPart && column < kFirstPart + static_cast<int>(kWaitParts)) {
        sqlite3_result_int64(out, w.parts[static_cast<std::size_t>(column - kFirstPart)]);
        return;
      }
      sqlite3_result_error(out, "ncp2_wait_rows: no such column", -1);
  }
}

// The tables every store has (read_run checks them to recognise foreign files).
constexpr const char* kTables[] = {"meta",   "runs",    "nodes", "categories",   "sources",
                                   "scopes", "profile", "waits", "wait_summary", "timeline"};

// docs/schema.md describes every column. Times are integer picoseconds.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE runs(
  id              INTEGER PRIMARY KEY,
  workload        TEXT NOT NULL,
  machine         TEXT NOT NULL,
  nodes           INTEGER NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('complete', 'incomplete', 'failed')),
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
  category  TEXT NOT NULL CHECK (category IN ('Comp', 'Extra', 'Wait', 'Prste', 'CPComp', 'CPWait', 'CPIdle')),
  operation TEXT NOT NULL,
  time_ps   INTEGER NOT NULL,
  count     INTEGER NOT NULL);
CREATE TABLE waits(
  run_id         INTEGER NOT NULL REFERENCES runs(id),
  id             INTEGER NOT NULL,
  node           INTEGER NOT NULL,
  scope_id       INTEGER NOT NULL,
  operation      TEXT NOT NULL,
  kind           TEXT NOT NULL CHECK (kind IN ('Wait', 'CPWait')),
  start_ps       INTEGER NOT NULL,
  duration_ps    INTEGER NOT NULL,
  cplwait_ps     INTEGER NOT NULL,
  cplcomp_ps     INTEGER NOT NULL,
  cpcomm_ps      INTEGER NOT NULL,
  cprwait_ps     INTEGER NOT NULL,
  cprcomp_ps     INTEGER NOT NULL,
  pprwait_ps     INTEGER NOT NULL,
  pprcomp_ps     INTEGER NOT NULL,
  pplwait_ps     INTEGER NOT NULL,
  sync_delay_ps  INTEGER NOT NULL,
  cause_node     INTEGER,
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
  cplwait_ps    INTEGER NOT NULL,
  cplcomp_ps    INTEGER NOT NULL,
  cpcomm_ps     INTEGER NOT NULL,
  cprwait_ps    INTEGER NOT NULL,
  cprcomp_ps    INTEGER NOT NULL,
  pprwait_ps    INTEGER NOT NULL,
  pprcomp_ps    INTEGER NOT NULL,
  pplwait_ps    INTEGER NOT NULL,
  sync_delay_ps INTEGER NOT NULL);
CREATE TABLE timeline(
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  node      INTEGER NOT NULL,
  resource  TEXT NOT NULL CHECK (resource IN ('PP', 'CP')),
  category  TEXT NOT NULL CHECK (category IN ('Comp', 'Extra', 'Wait', 'Prste', 'CPComp', 'CPWait', 'CPIdle')),
  operation TEXT NOT NULL,
  scope_id  INTEGER NOT NULL,
  start_ps  INTEGER NOT NULL,
  end_ps    INTEGER NOT NULL);
)sql";

// Built when the rows are in (faster than maintaining them row by row). Each index on `waits` costs
// about as much as inserting the rows: only the one the GUI needs (instances of a CPWait Map row).
constexpr const char* kIndexes = R"sql(
CREATE INDEX IF NOT EXISTS waits_by_scope ON waits(run_id, scope_id, operation);
CREATE INDEX IF NOT EXISTS profile_by_scope ON profile(run_id, scope_id);
CREATE INDEX IF NOT EXISTS wait_summary_by_scope ON wait_summary(run_id, scope_id, operation);
CREATE INDEX IF NOT EXISTS timeline_by_node ON timeline(run_id, node, start_ps);
)sql";

constexpr const char* kRunColumns =
    "workload, machine, nodes, status, virtual_time_ps, config, parameters, seed, started_at, wall_seconds, "
    "verified, message";

void bind_run(sql::Stmt& s, const RunInfo& r, std::string_view status, std::string_view message) {
  s.bind(1, r.workload);
  s.bind(2, r.machine);
  s.bind(3, r.nodes);
  s.bind(4, status);
  s.bind(5, r.virtual_time_ps);
  s.bind(6, r.config);
  s.bind(7, r.parameters);
  s.bind(8, r.seed);
  s.bind(9, r.started_at);
  s.bind(10, r.wall_seconds);
  s.bind(11, r.verified);
  s.bind(12, message);
}

bool valid_status(std::string_view s) { return s == "complete" || s == "incomplete" || s == "failed"; }

std::string describe_errno(int e) { return std::strerror(e); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Publishing a written file (carnival/file_publish.hpp)

void rename_into_place(const std::string& from, const std::string& to, bool replace) {
  if (!replace) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
    const int e = errno;
    if (e == EEXIST) throw StoreError(fmt::format("{}: already exists; use --force to overwrite it", to));
    if (e != EINVAL && e != ENOSYS)
      throw StoreError(fmt::format("{}: cannot rename {} over it: {}", to, from, describe_errno(e)));
    std::error_code ec;
    if (fs::exists(to, ec))
      throw StoreError(fmt::format("{}: already exists; use --force to overwrite it", to));
  }
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw StoreError(fmt::format("{}: cannot rename {} over it: {}", to, from, describe_errno(errno)));
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw StoreError(fmt::format("{}: cannot open to sync: {}", path, describe_errno(errno)));
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  if (rc != 0) throw StoreError(fmt::format("{}: cannot sync: {}", path, describe_errno(e)));
}

// ---------------------------------------------------------------------------------------------
// Writing

struct RunWriter::Statements {
  explicit Statements(const sql::Db& db)
      : wait_rows(db, "ncp2_wait_rows", kWaitRowColumns, wait_row_column),
        waits(db, "INSERT INTO waits SELECT ?1, * FROM ncp2_wait_rows"),
        profile(db, "INSERT INTO profile VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        timeline(db, "INSERT INTO timeline VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
        scope(db, "INSERT INTO scopes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
        source(db, "INSERT INTO sources VALUES (?1, ?2, ?3)"),
        node(db, "INSERT INTO nodes VALUES (?1, ?2, ?3)"),
        summary(db,
                "INSERT INTO wait_summary VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                "?14, ?15, "
                "?16)"),
        meta(db, "INSERT OR REPLACE INTO meta VALUES (?1, ?2)") {}
  sql::RowSource wait_rows;  // registered before the statement that reads it is prepared
  sql::Stmt waits, profile, timeline, scope, source, node, summary, meta;
};

RunWriter::RunWriter() = default;

RunWriter::~RunWriter() { discard(); }

bool RunWriter::is_open() const { return db_ && db_->is_open(); }

void RunWriter::check_open(std::string_view what) const {
  if (!is_open()) throw StoreError(fmt::format("RunWriter::{}: the writer is not open", what));
}

void RunWriter::open(const std::string& path, const RunInfo& info, const WriteOptions& options) {
  if (is_open()) throw StoreError(fmt::format("{}: RunWriter::open: already writing {}", path, path_));
  std::error_code ec;
  if (!options.force && fs::exists(path, ec))
    throw StoreError(fmt::format("{}: already exists; use --force to overwrite it", path));
  if (fs::is_directory(path, ec)) throw StoreError(fmt::format("{}: is a directory", path));
  path_ = path;
  temp_path_ = fmt::format("{}.tmp-{}", path, ::getpid());
  options_ = options;
  info_ = info;
  rows_in_transaction_ = 0;
  waits_written_ = waits_dropped_ = timeline_written_ = timeline_dropped_ = 0;
  summary_.clear();
  fs::remove(temp_path_, ec);  // a leftover of this very process

  try {
    db_ = std::make_unique<sql::Db>(temp_path_,
                                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
    // The file only becomes visible under its name once complete (or deliberately aborted), so
    // durability during the writing is not needed: no sync, the journal in memory.
    db_->exec(fmt::format(
        "PRAGMA page_size = 8192; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; "
        "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536; "
        "PRAGMA application_id = {}; PRAGMA user_version = {};",
        kApplicationId, kSchemaVersion));
    db_->exec("BEGIN");
    db_->exec(kSchema);
    {
      sql::Stmt cat(*db_, "INSERT INTO categories VALUES (?1, ?2, ?3, ?4, ?5)");
      int position = 0;
      for (const auto& c : category_catalogue()) {
        cat.bind(1, c.name);
        cat.bind(2, position++);
        cat.bind(3, c.resource);
        cat.bind(4, c.color);
        cat.bind(5, c.description);
        cat.run();
      }
    }
    st_ = std::make_unique<Statements>(*db_);
    for (const auto& [key, value] :
         {std::pair<const char*, std::string>{"schema_version", std::to_string(kSchemaVersion)},
          {"tool_version", "ncp2 " NCP2_VERSION},
          {"waits_dropped", "0"},
          {"timeline_dropped", "0"},
          {"max_wait_rows",
           options.max_wait_rows == kUnlimited ? "unlimited" : std::to_string(options.max_wait_rows)},
          {"max_timeline_rows", options.max_timeline_rows == kUnlimited
                                    ? "unlimited"
                                    : std::to_string(options.max_timeline_rows)}}) {
      st_->meta.bind(1, key);
      st_->meta.bind(2, value);
      st_->meta.run();
    }
    // The run row comes first and says 'incomplete' until finish() sets the final status last.
    sql::Stmt run(*db_,
                  fmt::format("INSERT INTO runs (id, {}) VALUES ({}, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                              "?10, ?11, ?12)",
                              kRunColumns, run_id_));
    bind_run(run, info, "incomplete", info.message);
    run.run();
    db_->exec("COMMIT; BEGIN");
  } catch (...) {
    discard();
    throw;
  }
}

void RunWriter::maybe_commit() {
  if (++rows_in_transaction_ < kRowsPerTransaction) return;
  db_->exec("COMMIT; BEGIN");
  rows_in_transaction_ = 0;
}

void RunWriter::append_sources(std::span<const SourceFile> sources) {
  check_open("append_sources");
  for (const auto& f : sources) {
    auto& s = st_->source;
    s.bind(1, run_id_);
    s.bind(2, f.file);
    s.bind(3, f.text);
    s.run();
    maybe_commit();
  }
}

void RunWriter::append_scopes(std::span<const Scope> scopes) {
  check_open("append_scopes");
  for (const auto& sc : scopes) {
    auto& s = st_->scope;
    s.bind(1, sc.id);
    s.bind(2, run_id_);
    s.bind_optional(3, sc.parent);
    s.bind(4, sc.name);
    s.bind(5, sc.kind);
    s.bind(6, sc.file);
    s.bind(7, sc.begin_line);
    s.bind(8, sc.end_line);
    s.run();
    maybe_commit();
  }
}

void RunWriter::accumulate(std::span<const WaitRow> waits) {
  // Keyed by the previous row's key to skip the map look-up for runs of alike waits.
  WaitSummary* last = nullptr;
  for (const auto& w : waits) {
    if (!last || last->node != w.node || last->scope != w.scope || last->operation != w.operation ||
        last->kind != w.kind) {
      last = &summary_[SummaryKey{w.node, w.scope, w.operation, w.kind}];
      if (last->count == 0) {
        last->node = w.node;
        last->scope = w.scope;
        last->operation = w.operation;
        last->kind = w.kind;
      }
    }
    ++last->count;
    last->total_ps += w.duration_ps;
    for (std::size_t i = 0; i < kWaitParts; ++i) last->parts[i] += w.parts[i];
  }
}

void RunWriter::append_waits(std::span<const WaitRow> waits) {
  check_open("append_waits");
  accumulate(waits);
  insert_waits(waits);
}

void RunWriter::insert_waits(std::span<const WaitRow> waits) {
  const std::uint64_t room =
      options_.max_wait_rows == kUnlimited
          ? waits.size()
          : options_.max_wait_rows - std::min<std::uint64_t>(options_.max_wait_rows, waits_written_);
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(room, waits.size()));
  waits_dropped_ += waits.size() - n;
  // One statement step per transaction's worth of rows: SQLite reads them from the span itself.
  for (std::size_t i = 0; i < n;) {
    const std::size_t batch =
        std::min(n - i, kRowsPerTransaction - std::min(kRowsPerTransaction, rows_in_transaction_));
    if (batch == 0) {
      db_->exec("COMMIT; BEGIN");
      rows_in_transaction_ = 0;
      continue;
    }
    st_->wait_rows.set(waits.subspan(i, batch));
    st_->waits.bind(1, run_id_);
    st_->waits.run();
    st_->wait_rows.clear();
    i += batch;
    rows_in_transaction_ += batch;
    waits_written_ += batch;
  }
}

void RunWriter::append_profile(std::span<const ProfileCell> cells) {
  check_open("append_profile");
  auto& s = st_->profile;
  for (const auto& c : cells) {
    s.bind(1, run_id_);
    s.bind(2, c.node);
    s.bind(3, c.scope);
    s.bind(4, to_string(c.category));
    s.bind(5, c.operation);
    s.bind(6, c.time_ps);
    s.bind(7, c.count);
    s.run();
    maybe_commit();
  }
}

void RunWriter::append_timeline(std::span<const Segment> segments) {
  check_open("append_timeline");
  auto& s = st_->timeline;
  for (const auto& g : segments) {
    if (timeline_written_ >= options_.max_timeline_rows) {
      ++timeline_dropped_;
      continue;
    }
    if (g.cp == is_pp_category(g.category))
      throw StoreError(fmt::format("{}: timeline segment of node {} on the {} has the category {}", path_,
                                   g.node, g.cp ? "CP" : "PP", to_string(g.category)));
    s.bind(1, run_id_);
    s.bind(2, g.node);
    s.bind(3, g.cp ? "CP" : "PP");
    s.bind(4, to_string(g.category));
    s.bind(5, g.operation);
    s.bind(6, g.scope);
    s.bind(7, g.start_ps);
    s.bind(8, g.end_ps);
    s.run();
    ++timeline_written_;
    maybe_commit();
  }
}

void RunWriter::write_summary(std::span<const WaitSummary> rows) {
  auto& s = st_->summary;
  for (const auto& w : rows) {
    s.bind(1, run_id_);
    s.bind(2, w.node);
    s.bind(3, w.scope);
    s.bind(4, w.operation);
    s.bind(5, w.kind);
    s.bind(6, w.count);
    s.bind(7, w.total_ps);
    for (std::size_t i = 0; i < kWaitParts; ++i) s.bind(8 + static_cast<int>(i), w.parts[i]);
    s.run();
    maybe_commit();
  }
}

void RunWriter::finish(const RunData& rest) {
  check_open("finish");
  try {
    if (!valid_status(rest.run.status))
      throw StoreError(fmt::format("{}: run status '{}' is not one of complete, incomplete, failed", path_,
                                   rest.run.status));
    for (const auto& n : rest.nodes) {
      st_->node.bind(1, run_id_);
      st_->node.bind(2, n.node);
      st_->node.bind(3, n.finish_ps);
      st_->node.run();
    }
    append_sources(rest.sources);
    append_scopes(rest.scopes);
    append_profile(rest.profile);
    // With a summary given, the writer's own is not needed for these rows.
    if (rest.wait_summary.empty())
      append_waits(rest.waits);
    else
      insert_waits(rest.waits);
    append_timeline(rest.timeline);
    waits_dropped_ += rest.waits_dropped;
    timeline_dropped_ += rest.timeline_dropped;
    if (!rest.wait_summary.empty()) {
      write_summary(rest.wait_summary);
    } else {
      std::vector<WaitSummary> rows;
      rows.reserve(summary_.size());
      for (const auto& [key, row] : summary_) rows.push_back(row);
      write_summary(rows);
    }
    close_and_rename(rest.run.status, rest.run.message, &rest.run);
  } catch (...) {
    discard();
    throw;
  }
}

void RunWriter::abort(std::string_view message) {
  check_open("abort");
  try {
    std::vector<WaitSummary> rows;
    rows.reserve(summary_.size());
    for (const auto& [key, row] : summary_) rows.push_back(row);
    write_summary(rows);
    close_and_rename("incomplete", message, nullptr);
  } catch (...) {
    discard();
    throw;
  }
}

void RunWriter::close_and_rename(std::string_view status, std::string_view message, const RunInfo* info) {
  auto& meta = st_->meta;
  for (const auto& [key, value] : {std::pair<const char*, std::uint64_t>{"waits_dropped", waits_dropped_},
                                   {"timeline_dropped", timeline_dropped_}}) {
    meta.bind(1, key);
    meta.bind(2, std::to_string(value));
    meta.run();
  }
  db_->exec(kIndexes);
  // Last: the final status (and the run's final description).
  {
    const std::string message_text(message);
    sql::Stmt run(*db_,
                  fmt::format("UPDATE runs SET ({}) = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                              "WHERE id = {}",
                              kRunColumns, run_id_));
    bind_run(run, info ? *info : info_, status, message_text);
    run.run();
  }
  db_->exec("COMMIT");
  st_.reset();
  db_.reset();
  sync_file(temp_path_);
  rename_into_place(temp_path_, path_, options_.force);
  temp_path_.clear();
}

void RunWriter::discard() noexcept {
  st_.reset();
  db_.reset();
  if (!temp_path_.empty()) {
    std::error_code ec;
    fs::remove(temp_path_, ec);
    temp_path_.clear();
  }
}

void write_run(const std::string& path, const RunData& data, const WriteOptions& options) {
  if (!valid_status(data.run.status))
    throw StoreError(
        fmt::format("{}: run status '{}' is not one of complete, incomplete, failed", path, data.run.status));
  if (data.wait_summary.empty() && data.waits_dropped > 0)
    throw StoreError(
        fmt::format("{}: {} waits were dropped but no wait summary is given", path, data.waits_dropped));
  RunWriter writer;
  writer.open(path, data.run, options);
  writer.finish(data);
}

// ---------------------------------------------------------------------------------------------
// Reading

namespace {

// Turns SQLite's complaints about the file itself into the documented messages.

RunData read_tables(const sql::Db& db, const std::string& path) {
  RunData d;
  auto [run_id, info] = read_run_info(db, path);
  d.run = std::move(info);
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
  for (auto s =
           query("SELECT id, parent_id, name, kind, file, begin_line, end_line FROM scopes WHERE run_id = ?1 "
                 "ORDER BY rowid");
       s->step();)
    d.scopes.push_back({static_cast<std::uint32_t>(s->i64(0)), s->optional(1), s->str(2), s->str(3),
                        s->str(4), s->i32(5), s->i32(6)});
  for (auto s =
           query("SELECT node, scope_id, category, operation, time_ps, count FROM profile WHERE run_id = ?1 "
                 "ORDER BY rowid");
       s->step();)
    d.profile.push_back({s->i32(0), static_cast<std::uint32_t>(s->i64(1)), category(s->str(2)), s->str(3),
                         s->i64(4), s->u64(5)});
  for (auto s = query(
           "SELECT id, node, scope_id, operation, kind, start_ps, duration_ps, cplwait_ps, cplcomp_ps, "
           "cpcomm_ps, cprwait_ps, cprcomp_ps, pprwait_ps, pprcomp_ps, pplwait_ps, sync_delay_ps, "
           "cause_node, cause_scope_id, object, remote_node FROM waits WHERE run_id = ?1 ORDER BY rowid");
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
    w.cause_node = static_cast<int>(s->optional(16));
    w.cause_scope = s->optional(17);
    w.object = s->u64(18);
    w.remote_node = static_cast<int>(s->optional(19));
    d.waits.push_back(std::move(w));
  }
  for (auto s = query(
           "SELECT node, scope_id, operation, kind, count, total_ps, cplwait_ps, cplcomp_ps, cpcomm_ps, "
           "cprwait_ps, cprcomp_ps, pprwait_ps, pprcomp_ps, pplwait_ps, sync_delay_ps FROM wait_summary "
           "WHERE run_id = ?1 ORDER BY rowid");
       s->step();) {
    WaitSummary w;
    w.node = s->i32(0);
    w.scope = static_cast<std::uint32_t>(s->i64(1));
    w.operation = s->str(2);
    w.kind = s->str(3);
    w.count = s->u64(4);
    w.total_ps = s->i64(5);
    for (std::size_t i = 0; i < kWaitParts; ++i) w.parts[i] = s->i64(6 + static_cast<int>(i));
    d.wait_summary.push_back(std::move(w));
  }
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
  d.waits_dropped = counter("waits_dropped");
  d.timeline_dropped = counter("timeline_dropped");
  return d;
}

}  // namespace

[[noreturn]] void rethrow_as_store_error(const std::string& path, const sql::SqlError& e) {
  switch (e.code()) {
    case SQLITE_NOTADB:
      throw StoreError(fmt::format("{} is not an SQLite database", path));
    case SQLITE_CORRUPT:
    case SQLITE_IOERR:
    case SQLITE_FORMAT:
      throw StoreError(fmt::format("{} is corrupt (truncated or damaged): {}", path, e.detail()));
    default:
      throw StoreError(e.what());
  }
}

sql::Db open_ncp2_file(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw StoreError(fmt::format("{}: no such file", path));
  if (fs::is_directory(status))
    throw StoreError(fmt::format("{}: is a directory, not a database file", path));
  {
    // The 16-byte header of every SQLite 3 file: "SQLite format 3\0".
    std::ifstream in(path, std::ios::binary);
    if (!in) throw StoreError(fmt::format("{}: cannot read: {}", path, describe_errno(errno)));
    char header[16] = {};
    in.read(header, sizeof header);
    if (in.gcount() != sizeof header || std::memcmp(header, "SQLite format 3", 16) != 0)
      throw StoreError(fmt::format("{} is not an SQLite database", path));
  }
  try {
    // Read-only: readers never change a file (and cannot leave a journal next to it).
    sql::Db db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
    const auto application_id = static_cast<std::int32_t>(db.integer("PRAGMA application_id"));
    if (application_id != kApplicationId)
      throw StoreError(fmt::format(
          "{} is not an NCP2-Carnival database (application_id {:#x}, expected {:#x})", path,
          static_cast<std::uint32_t>(application_id), static_cast<std::uint32_t>(kApplicationId)));
    const auto version = db.integer("PRAGMA user_version");
    if (version > kSchemaVersion)
      throw StoreError(fmt::format("{} was written by a newer version (schema {}, this tool reads up to {})",
                                   path, version, kSchemaVersion));
    return db;
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(path, e);
  }
}

std::set<std::string> table_names(const sql::Db& db) {
  std::set<std::string> tables;
  for (sql::Stmt s(db, "SELECT name FROM sqlite_master WHERE type = 'table'"); s.step();)
    tables.insert(s.str(0));
  return tables;
}

sql::Db open_store(const std::string& path) {
  sql::Db db = open_ncp2_file(path);
  try {
    const auto version = db.integer("PRAGMA user_version");
    if (version < 1)
      throw StoreError(fmt::format("{} is not an NCP2-Carnival database (schema version {})", path, version));
    const std::set<std::string> tables = table_names(db);
    if (!tables.contains("runs") && tables.contains("counter_runs"))
      throw StoreError(
          fmt::format("{} holds samples of `ncp2 counters`, not an emulator run (tables counter_runs, "
                      "counter_events, counter_samples; see docs/schema.md, or query it with sqlite3)",
                      path));
    for (const char* t : kTables)
      if (!tables.contains(t))
        throw StoreError(fmt::format("{} is not an NCP2-Carnival database (no table '{}')", path, t));
    return db;
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(path, e);
  }
}

std::pair<std::int64_t, RunInfo> read_run_info(const sql::Db& db, const std::string& path) {
  sql::Stmt s(db, fmt::format("SELECT id, {} FROM runs ORDER BY id LIMIT 1", kRunColumns));
  if (!s.step()) throw StoreError(fmt::format("{} contains no run", path));
  RunInfo r;
  r.workload = s.str(1);
  r.machine = s.str(2);
  r.nodes = s.i32(3);
  r.status = s.str(4);
  r.virtual_time_ps = s.i64(5);
  r.config = s.str(6);
  r.parameters = s.str(7);
  r.seed = s.u64(8);
  r.started_at = s.str(9);
  r.wall_seconds = s.f64(10);
  r.verified = s.i64(11) != 0;
  r.message = s.str(12);
  return {s.i64(0), std::move(r)};
}

RunData read_run(const std::string& path) {
  try {
    sql::Db db = open_store(path);
    {
      sql::Stmt check(db, "PRAGMA quick_check(5)");
      std::vector<std::string> findings;
      while (check.step()) findings.push_back(check.str(0));
      if (findings.empty() || findings.front() != "ok") {
        std::string list;
        for (const auto& f : findings) list += (list.empty() ? "" : "; ") + f;
        throw StoreError(
            fmt::format("{} is corrupt (truncated or damaged): PRAGMA quick_check: {}", path, list));
      }
    }
    return read_tables(db, path);
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(path, e);
  }
}

}  // namespace ncp2::carnival
