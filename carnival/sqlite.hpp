#pragma once
// A thin RAII layer over the SQLite C API, private to carnival/ (store.cpp). Every failure throws
// StoreError with the file's name and SQLite's message.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <sqlite3.h>

#include "carnival/store_error.hpp"

namespace ncp2::carnival::sql {

// A failure reported by SQLite, with its (primary) result code.
class SqlError : public StoreError {
 public:
  SqlError(const std::string& message, int code, std::string detail)
      : StoreError(message), code_(code), detail_(std::move(detail)) {}
  [[nodiscard]] int code() const { return code_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }  // SQLite's own message

 private:
  int code_;
  std::string detail_;
};

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;

// An open database connection, named by its file for the error messages.
class Db {
 public:
  Db() = default;
  Db(const std::string& path, int flags);
  [[nodiscard]] sqlite3* get() const { return db_.get(); }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool is_open() const { return db_ != nullptr; }
  void close() { db_.reset(); }

  void exec(const std::string& sql) const;  // one or more statements, no results
  // The first column of the first row of a query (an integer, or a text for text()).
  [[nodiscard]] std::int64_t integer(const std::string& sql) const;
  [[nodiscard]] std::string text(const std::string& sql) const;

  // "<path>: <what>: <sqlite's message>"
  [[noreturn]] void fail(std::string_view what) const;

 private:
  DbHandle db_;
  std::string path_;
};

// A prepared statement. Bind with 1-based indexes, step, reset for the next row.
class Stmt {
 public:
  Stmt(const Db& db, std::string_view sql);
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  // Movable, so that a function can prepare and bind one for its caller to step.
  Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}
  Stmt& operator=(Stmt&&) = delete;

  void bind(int i, std::int64_t v) { check_bind(sqlite3_bind_int64(stmt_, i, v)); }
  void bind(int i, int v) { check_bind(sqlite3_bind_int(stmt_, i, v)); }
  void bind(int i, std::uint32_t v) { check_bind(sqlite3_bind_int64(stmt_, i, v)); }
  // Stored as the same 64 bits, signed (SQLite integers are signed): read back with as_u64().
  void bind(int i, std::uint64_t v) {
    check_bind(sqlite3_bind_int64(stmt_, i, static_cast<std::int64_t>(v)));
  }
  void bind(int i, double v) { check_bind(sqlite3_bind_double(stmt_, i, v)); }
  void bind(int i, bool v) { check_bind(sqlite3_bind_int(stmt_, i, v ? 1 : 0)); }
  // The text must outlive the step (it is not copied).
  void bind(int i, std::string_view v) {
    check_bind(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC));
  }
  void bind(int i, const std::string& v) { bind(i, std::string_view(v)); }
  // Not for a temporary: it would be gone before the step reads it (found by ASan).
  void bind(int i, std::string&& v) = delete;
  void bind(int i, const char* v) { bind(i, std::string_view(v)); }
  void bind_null(int i) { check_bind(sqlite3_bind_null(stmt_, i)); }
  // -1 (the model's "none") is stored as NULL.
  void bind_optional(int i, std::int64_t v) {
    if (v < 0)
      bind_null(i);
    else
      bind(i, v);
  }

  // true: a row is available; false: done.
  bool step();
  // Runs a statement that returns no row, then resets it for the next use.
  void run() {
    step();
    reset();
  }
  void reset() { sqlite3_reset(stmt_); }

  [[nodiscard]] bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  [[nodiscard]] std::int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  [[nodiscard]] std::uint64_t u64(int col) const { return static_cast<std::uint64_t>(i64(col)); }
  [[nodiscard]] int i32(int col) const { return sqlite3_column_int(stmt_, col); }
  [[nodiscard]] double f64(int col) const { return sqlite3_column_double(stmt_, col); }
  [[nodiscard]] std::string str(int col) const;
  // NULL reads back as -1.
  [[nodiscard]] std::int64_t optional(int col) const { return is_null(col) ? -1 : i64(col); }

 private:
  void check_bind(int rc) const;
  const Db* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// C++ rows that SQLite reads as a table: an eponymous virtual table over a span set before each
// statement, so that `INSERT INTO t SELECT ... FROM <name>` writes a whole batch in one step. It
// saves the bind/step/reset per row and SQLite's connection mutex per bind (about a third of the
// insert time for the 21 columns of a wait row; docs/performance.md). Nothing of it is stored in
// the file: eponymous virtual tables exist only in the connection that registers the module.
class RowSource {
 public:
  // Sets the value of `column` of row `index` with sqlite3_result_*(out, ...).
  using ColumnFn = void (*)(const void* rows, std::size_t index, int column, sqlite3_context* out);

  // `columns`: the column names, comma-separated, as in a CREATE TABLE (types are not needed).
  RowSource(const Db& db, std::string name, std::string columns, ColumnFn fn);
  RowSource(const RowSource&) = delete;
  RowSource& operator=(const RowSource&) = delete;

  // The rows the next statement reads (they must outlive its step).
  template <class Row>
  void set(std::span<const Row> rows) {
    rows_ = rows.data();
    size_ = rows.size();
  }
  void clear() { set(std::span<const std::byte>()); }

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::string& declaration() const { return declaration_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const void* rows() const { return rows_; }
  [[nodiscard]] ColumnFn column_fn() const { return column_; }

 private:
  std::string name_;
  std::string declaration_;  // "CREATE TABLE x(<columns>)"
  ColumnFn column_;
  const void* rows_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ncp2::carnival::sql
