// How a written file becomes visible (carnival/file_publish.hpp).
#include "carnival/file_publish.hpp"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <fmt/format.h>

#include "carnival/output_paths.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_error.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

namespace fs = std::filesystem;

namespace {
std::string describe_errno(int e) { return std::strerror(e); }
}  // namespace

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

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::error_code ignored;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw StoreError(fmt::format("{}: cannot write: {}", tmp, describe_errno(errno)));
    write(out);
    out.flush();
    if (!out) {
      const int e = errno;
      fs::remove(tmp, ignored);
      throw StoreError(fmt::format("{}: cannot write: {}", tmp, describe_errno(e)));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ignored);  // a second error_code: the rename's reason must survive
    throw StoreError(fmt::format("{}: cannot rename {} over it: {}", path, tmp, ec.message()));
  }
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw StoreError(fmt::format("{}: cannot open to sync: {}", path, describe_errno(errno)));
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  if (rc != 0) throw StoreError(fmt::format("{}: cannot sync: {}", path, describe_errno(e)));
}

void write_database_atomically(const std::string& path, bool replace,
                               const std::function<void(sql::Db&)>& fill) {
  try {
    check_database_output(path, replace);  // the same rules as a run's --db
  } catch (const OutputError& e) {
    throw StoreError(e.what());
  }
  const std::string temp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::error_code ec;
  fs::remove(temp, ec);
  try {
    {
      sql::Db db(temp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
      // The temporary is published only when complete (after an fsync): no journal on disk needed.
      db.exec(
          fmt::format("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA application_id = {}; "
                      "PRAGMA user_version = {};",
                      kApplicationId, kSchemaVersion));
      db.exec("BEGIN");
      fill(db);
      db.exec("COMMIT");
    }
    sync_file(temp);
    rename_into_place(temp, path, replace);
  } catch (const sql::SqlError& e) {
    fs::remove(temp, ec);
    throw StoreError(fmt::format("{}: cannot write: {}", path, e.what()));
  } catch (...) {
    fs::remove(temp, ec);
    throw;
  }
}

}  // namespace ncp2::carnival
