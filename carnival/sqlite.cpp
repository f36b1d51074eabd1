#include "carnival/sqlite.hpp"

#include <fmt/format.h>

namespace ncp2::carnival::sql {

Db::Db(const std::string& path, int flags) : path_(path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  db_.reset(raw);  // closed even when the open failed
  if (rc != SQLITE_OK) {
    const std::string detail = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    throw SqlError(fmt::format("{}: cannot open: {}", path, detail), rc, detail);
  }
  sqlite3_extended_result_codes(raw, 0);
}

void Db::fail(std::string_view what) const {
  if (!db_) throw SqlError(fmt::format("{}: {}: not open", path_, what), SQLITE_MISUSE, "not open");
  const std::string detail = sqlite3_errmsg(db_.get());
  throw SqlError(fmt::format("{}: {}: {}", path_, what, detail), sqlite3_errcode(db_.get()) & 0xff, detail);
}

void Db::exec(const std::string& sql) const {
  char* error = nullptr;
  if (const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &error); rc != SQLITE_OK) {
    const std::string message = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw SqlError(fmt::format("{}: {}: {}", path_, message, sql.substr(0, sql.find('\n'))), rc & 0xff,
                   message);
  }
}

std::int64_t Db::integer(const std::string& sql) const {
  Stmt s(*this, sql);
  return s.step() ? s.i64(0) : 0;
}

std::string Db::text(const std::string& sql) const {
  Stmt s(*this, sql);
  return s.step() ? s.str(0) : std::string();
}

Stmt::Stmt(const Db& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt_, nullptr) != SQLITE_OK)
    db.fail(fmt::format("cannot prepare '{}'", sql.substr(0, 60)));
}

bool Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
  sqlite3_reset(stmt_);  // so that the error message is the statement's
  db_->fail(fmt::format("'{}'", sql.substr(0, 60)));
}

std::string Stmt::str(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}

void Stmt::check_bind(int rc) const {
  if (rc != SQLITE_OK) db_->fail("cannot bind a value");
}

// ---------------------------------------------------------------------------------------------
// RowSource: the virtual-table module. SQLite owns the vtab and cursor objects (allocated with
// sqlite3_malloc, freed in xDisconnect/xClose); the module's client data is the RowSource.

namespace {

struct RowTable {
  sqlite3_vtab base;  // first: SQLite sees a sqlite3_vtab*
  const RowSource* source;
};

struct RowCursor {
  sqlite3_vtab_cursor base;  // first: SQLite sees a sqlite3_vtab_cursor*
  const RowSource* source;
  std::size_t index;
};

int row_connect(sqlite3* db, void* aux, int /*argc*/, const char* const* /*argv*/, sqlite3_vtab** out,
                char** /*error*/) {
  const auto* source = static_cast<const RowSource*>(aux);
  if (const int rc = sqlite3_declare_vtab(db, source->declaration().c_str()); rc != SQLITE_OK) return rc;
  auto* table = static_cast<RowTable*>(sqlite3_malloc(sizeof(RowTable)));
  if (!table) return SQLITE_NOMEM;
  *table = RowTable{{}, source};
  *out = &table->base;
  return SQLITE_OK;
}

int row_disconnect(sqlite3_vtab* table) {
  sqlite3_free(table);
  return SQLITE_OK;
}

int row_best_index(sqlite3_vtab* /*table*/, sqlite3_index_info* info) {
  info->estimatedCost = 1e6;  // one full scan in order, whatever the query
  return SQLITE_OK;
}

int row_open(sqlite3_vtab* table, sqlite3_vtab_cursor** out) {
  auto* cursor = static_cast<RowCursor*>(sqlite3_malloc(sizeof(RowCursor)));
  if (!cursor) return SQLITE_NOMEM;
  *cursor = RowCursor{{}, reinterpret_cast<RowTable*>(table)->source, 0};
  *out = &cursor->base;
  return SQLITE_OK;
}

int row_close(sqlite3_vtab_cursor* cursor) {
  sqlite3_free(cursor);
  return SQLITE_OK;
}

RowCursor& as_cursor(sqlite3_vtab_cursor* c) { return *reinterpret_cast<RowCursor*>(c); }

int row_filter(sqlite3_vtab_cursor* c, int /*index*/, const char* /*index_name*/, int /*argc*/,
               sqlite3_value** /*argv*/) {
  as_cursor(c).index = 0;
  return SQLITE_OK;
}

int row_next(sqlite3_vtab_cursor* c) {
  ++as_cursor(c).index;
  return SQLITE_OK;
}

int row_eof(sqlite3_vtab_cursor* c) { return as_cursor(c).index >= as_cursor(c).source->size() ? 1 : 0; }

int row_column(sqlite3_vtab_cursor* c, sqlite3_context* out, int column) {
  const RowCursor& cursor = as_cursor(c);
  cursor.source->column_fn()(cursor.source->rows(), cursor.index, column, out);
  return SQLITE_OK;
}

int row_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(as_cursor(c).index);
  return SQLITE_OK;
}

// Eponymous-only (no xCreate): the table exists as soon as the module is registered, read-only.
constexpr sqlite3_module kRowModule = {
    .iVersion = 0,
    .xCreate = nullptr,
    .xConnect = row_connect,
    .xBestIndex = row_best_index,
    .xDisconnect = row_disconnect,
    .xDestroy = nullptr,
    .xOpen = row_open,
    .xClose = row_close,
    .xFilter = row_filter,
    .xNext = row_next,
    .xEof = row_eof,
    .xColumn = row_column,
    .xRowid = row_rowid,
    .xUpdate = nullptr,
    .xBegin = nullptr,
    .xSync = nullptr,
    .xCommit = nullptr,
    .xRollback = nullptr,
    .xFindFunction = nullptr,
    .xRename = nullptr,
    .xSavepoint = nullptr,
    .xRelease = nullptr,
    .xRollbackTo = nullptr,
    .xShadowName = nullptr,
};

}  // namespace

RowSource::RowSource(const Db& db, std::string name, std::string columns, ColumnFn fn)
    : name_(std::move(name)), declaration_(fmt::format("CREATE TABLE x({})", columns)), column_(fn) {
  if (sqlite3_create_module_v2(db.get(), name_.c_str(), &kRowModule, this, nullptr) != SQLITE_OK)
    db.fail(fmt::format("cannot register the virtual table {}", name_));
}

}  // namespace ncp2::carnival::sql
