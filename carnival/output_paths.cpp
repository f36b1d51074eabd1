#include "carnival/output_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "carnival/store_error.hpp"
#include "carnival/store_open.hpp"

namespace ncp2::carnival {

namespace fs = std::filesystem;

namespace {

fs::path directory_of(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// Creating a file is the only reliable test: permissions, read-only mounts, quotas and root's
// bypass of permission bits all show up here and nowhere else.
void check_directory_takes_files(const std::string& path, std::string_view option) {
  const fs::path dir = directory_of(path);
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw OutputError(
        fmt::format("{} {}: no such directory {} (create it first)", option, path, dir.string()));
  if (!fs::is_directory(dir, ec))
    throw OutputError(fmt::format("{} {}: {} is not a directory", option, path, dir.string()));
  const fs::path probe = dir / fmt::format(".ncp2-write-test-{}", ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    if (e != EEXIST)
      throw OutputError(
          fmt::format("{} {}: cannot create files in {}: {}", option, path, dir.string(), std::strerror(e)));
    return;  // our own probe from before: the directory takes files
  }
  ::close(fd);
  fs::remove(probe, ec);
}

bool process_alive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

}  // namespace

void check_output_file(const std::string& path, std::string_view option) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw OutputError(fmt::format("{} {}: is a directory; give a file name", option, path));
  check_directory_takes_files(path, option);
}

void check_database_output(const std::string& path, bool force) {
  check_output_file(path, "--db");
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  if (!force) throw OutputError(fmt::format("{} already exists; use --force to replace it", path));
  if (!fs::is_regular_file(path, ec))
    throw OutputError(
        fmt::format("--db {}: is not a regular file; --force replaces only our databases", path));
  try {
    open_ncp2_file(path);
  } catch (const StoreError& e) {
    throw OutputError(
        fmt::format("--force will not replace {}: {}; it replaces only databases written by ncp2 "
                    "(remove the file yourself if it is no longer needed)",
                    path, e.what()));
  }
}

std::optional<std::string> stored_run_status(const std::string& path) {
  try {
    const sql::Db db = open_store(path);
    return read_run_info(db, path).second.status;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string incomplete_run_path(const std::string& path) {
  std::error_code ec;
  std::string candidate = path + ".incomplete";
  for (int n = 2; fs::exists(candidate, ec); ++n) candidate = fmt::format("{}.incomplete-{}", path, n);
  return candidate;
}

std::vector<std::string> remove_stale_temporaries(const std::string& path) {
  std::vector<std::string> removed;
  const std::string prefix = fs::path(path).filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory_of(path), ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    long pid = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [ptr, err] = std::from_chars(first, last, pid);
    if (err != std::errc{} || ptr != last || process_alive(pid)) continue;
    std::error_code remove_error;
    if (fs::remove(entry.path(), remove_error)) removed.push_back(entry.path().string());
  }
  return removed;
}

}  // namespace ncp2::carnival
