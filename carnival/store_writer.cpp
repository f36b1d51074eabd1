// Writing a run store: RunWriter (streaming, capped, atomic) and write_run.
#include "carnival/store.hpp"

#include <unistd.h>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_counts.hpp"
#include "carnival/store_races.hpp"
#include "carnival/store_schema.hpp"

#ifndef NCP2_VERSION
#define NCP2_VERSION "unknown"
#endif

namespace ncp2::carnival {

namespace fs = std::filesystem;

namespace {

// Rows per transaction while streaming: commits keep the temporary file's progress bounded in
// memory (journal_mode=MEMORY) without costing a sync (synchronous=OFF).
constexpr std::size_t kRowsPerTransaction = 50'000;

void result_text(sqlite3_context* out, const std::string& text) {
  sqlite3_result_text(out, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

void result_optional(sqlite3_context* out, std::int64_t v) {
  if (v < 0)
    sqlite3_result_null(out);  // the model's "none"
  else
    sqlite3_result_int64(out, v);
}

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

bool valid_status(std::string_view s) {
  return s == "complete" || s == "incomplete" || s == "failed" || s == "deadlock";
}

// INSERT INTO wait_summary VALUES (?1, ..., ?n): run_id, the summary columns.
std::string summary_insert() {
  std::string sql = "INSERT INTO wait_summary VALUES (?1";
  for (std::size_t i = 2; i <= 7 + kWaitParts; ++i) sql += fmt::format(", ?{}", i);
  return sql + ")";
}

}  // namespace

// sql::RowSource::ColumnFn for WaitRow, in the order of wait_row_columns() (store_schema.hpp).
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

struct RunWriter::Statements {
  explicit Statements(const sql::Db& db)
      : wait_rows(db, "ncp2_wait_rows", wait_row_columns(), wait_row_column),
        waits(db, "INSERT INTO waits SELECT ?1, * FROM ncp2_wait_rows"),
        profile(db, "INSERT INTO profile VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        timeline(db, "INSERT INTO timeline VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
        scope(db, "INSERT INTO scopes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
        source(db, "INSERT INTO sources VALUES (?1, ?2, ?3)"),
        node(db, "INSERT INTO nodes VALUES (?1, ?2, ?3)"),
        summary(db, summary_insert()),
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
  summary_cache_.fill(nullptr);
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
    db_->exec(schema_sql());
    if (options.clocks_table) db_->exec(std::string(clocks_schema_sql()));
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

WaitSummary& RunWriter::summary_of(const WaitRow& w) {
  const std::string_view op = w.operation;
  const std::size_t hash = static_cast<std::size_t>(w.node) * 0x9E3779B1U +
                           static_cast<std::size_t>(w.scope) * 0x85EBCA77U + op.size() * 31U +
                           (op.empty() ? 0U : static_cast<unsigned char>(op.back())) + w.kind.size() * 131U;
  static_assert(sizeof(std::size_t) == 8 && std::tuple_size_v<decltype(summary_cache_)> == 256);
  WaitSummary*& slot = summary_cache_[(hash * 0x9E3779B97F4A7C15ULL) >> 56];  // Fibonacci hashing, 8 bits
  if (slot && slot->node == w.node && slot->scope == w.scope && slot->operation == w.operation &&
      slot->kind == w.kind)
    return *slot;
  WaitSummary& row = summary_[SummaryKey{w.node, w.scope, w.operation, w.kind}];
  if (row.count == 0) {
    row.node = w.node;
    row.scope = w.scope;
    row.operation = w.operation;
    row.kind = w.kind;
  }
  slot = &row;
  return row;
}

void RunWriter::accumulate(std::span<const WaitRow> waits) {
  for (const auto& w : waits) {
    WaitSummary& s = summary_of(w);
    ++s.count;
    s.total_ps += w.duration_ps;
    for (std::size_t i = 0; i < kWaitParts; ++i) s.parts[i] += w.parts[i];
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
    write_races(*db_, run_id_, rest.races_checked, rest.races);
    write_protocol_counts(*db_, run_id_, rest.protocol_counts);
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
    const std::string text = std::to_string(value);  // bound without a copy: alive until run()
    meta.bind(1, key);
    meta.bind(2, text);
    meta.run();
  }
  db_->exec(std::string(index_sql()));
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

}  // namespace ncp2::carnival
