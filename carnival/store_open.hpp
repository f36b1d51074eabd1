#pragma once
// The read side's first steps, shared by every reader of one of our files (a run's through
// carnival/run_reader.hpp's RunReader, `ncp2 counters`' own, output_paths' look at a file it may
// replace): open read-only after the checks that need no data page, and the run's own row.
// Messages are those of docs/schema.md.
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "carnival/model.hpp"
#include "carnival/sqlite.hpp"

namespace ncp2::carnival {

// The checks every reader of one of our files makes before looking at its own tables (a run's,
// or `ncp2 counters`'s): a file, the SQLite header, our application_id, a schema version this
// tool reads. Returns the file open read-only; throws StoreError.
sql::Db open_ncp2_file(const std::string& path);

// The names of the file's tables.
std::set<std::string> table_names(const sql::Db& db);

// open_ncp2_file, then every table of a run (or a clear word that it is a counters file). Throws
// StoreError.
sql::Db open_store(const std::string& path);

// The id and description of the file's first run. Throws StoreError ("contains no run").
std::pair<std::int64_t, RunInfo> read_run_info(const sql::Db& db, const std::string& path);

// SQLite's quick_check over the whole file; throws StoreError naming what is damaged.
void check_store_integrity(const sql::Db& db, const std::string& path);

// An SQLite error met while reading `path`, as the StoreError a user reads.
[[noreturn]] void rethrow_as_store_error(const std::string& path, const sql::SqlError& e);

}  // namespace ncp2::carnival
