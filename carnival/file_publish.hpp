#pragma once
// How a written file becomes visible, shared by the run store and `ncp2 counters --db`: the data is
// flushed, then the temporary file is renamed to its final name, never over an existing file
// unless asked. A reader thus sees a complete file or none. Both throw StoreError.
#include <functional>
#include <ostream>
#include <string>

namespace ncp2::carnival {

namespace sql {
class Db;
}  // namespace sql

// fsync: synchronous=OFF leaves the data in the page cache, and a crash after the rename must not
// leave a half-written file under the final name.
void sync_file(const std::string& path);

// Renames `from` over `to`; without `replace`, fails if `to` exists (atomically where the file
// system supports RENAME_NOREPLACE).
void rename_into_place(const std::string& from, const std::string& to, bool replace);

// Writes a text file through `write` into "<path>.tmp-PID", then renames it over `path`: a reader
// never sees half a file. On failure the temporary is removed. Throws StoreError.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Writes an NCP2 database (our application_id and schema version, one transaction) through
// `fill` into "<path>.tmp-PID", then publishes it as above: what `ncp2 counters --db` and
// `ncp2 schedule --db` store. `path` is checked first with the rules of a run's --db
// (check_database_output; `replace` is --force). On failure the temporary is removed. Throws
// StoreError ("PATH: cannot write: ..." for SQLite's errors).
void write_database_atomically(const std::string& path, bool replace,
                               const std::function<void(sql::Db&)>& fill);

}  // namespace ncp2::carnival
