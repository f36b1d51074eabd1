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
    throw SqlError(fmt::format("{}: {}: {}", path_, message, sql.substr(0, sql.find('\n'))), rc & 0xff, message);
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
  if (sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_,
                         nullptr) != SQLITE_OK)
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

}  // namespace ncp2::carnival::sql
