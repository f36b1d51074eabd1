// Opening one of our files for reading: the checks shared by every reader (carnival/store_open.hpp).
#include "carnival/store_open.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

namespace fs = std::filesystem;

namespace {
std::string describe_errno(int e) { return std::strerror(e); }
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
    std::array<char, 16> header{};
    in.read(header.data(), header.size());
    if (in.gcount() != static_cast<std::streamsize>(header.size()) ||
        std::memcmp(header.data(), "SQLite format 3", header.size()) != 0)
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
    if (!tables.contains("runs") && tables.contains("schedule_results"))
      throw StoreError(
          fmt::format("{} holds results of `ncp2 schedule`, not an emulator run (tables "
                      "schedule_options, schedule_results, schedule_bus; see docs/schema.md, or "
                      "query it with sqlite3)",
                      path));
    for (const std::string_view t : kTables)
      if (!tables.contains(std::string(t)))
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

void check_store_integrity(const sql::Db& db, const std::string& path) {
  sql::Stmt check(db, "PRAGMA quick_check(5)");
  std::vector<std::string> findings;
  while (check.step()) findings.push_back(check.str(0));
  if (findings.empty() || findings.front() != "ok") {
    std::string list;
    for (const auto& f : findings) list += (list.empty() ? "" : "; ") + f;
    throw StoreError(fmt::format("{} is corrupt (truncated or damaged): PRAGMA quick_check: {}", path, list));
  }
}

}  // namespace ncp2::carnival
