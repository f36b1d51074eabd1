// The sweep's folder (sweep/sweep_folder.hpp).
#include "sweep/sweep_folder.hpp"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "carnival/output_paths.hpp"
#include "carnival/store_error.hpp"
#include "sweep/point_command.hpp"

namespace ncp2::sweep {

namespace fs = std::filesystem;

namespace {

// A point's three files from its database's name (points/<name>.db).
std::vector<std::string> files_of(const std::string& db_file) {
  const std::string base = db_file.ends_with(".db") ? db_file.substr(0, db_file.size() - 3) : db_file;
  return {base + ".db", base + ".json", base + ".log"};
}

std::size_t remove_files(const std::string& out_dir, const std::vector<std::string>& relative) {
  std::size_t removed = 0;
  for (const std::string& file : relative) {
    // Only inside the points' folder: a damaged sweep.db must not name a file elsewhere.
    if (!file.starts_with(std::string(kPointsFolder) + "/") || file.find("..") != std::string::npos) continue;
    std::error_code ec;
    if (fs::is_regular_file(fmt::format("{}/{}", out_dir, file), ec) &&
        fs::remove(fmt::format("{}/{}", out_dir, file), ec))
      ++removed;
  }
  return removed;
}

std::vector<std::string> existing_point_files(const std::string& out_dir, const std::vector<Point>& points) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const Point& p : points)
    for (const std::string& f : files_of(point_files(p).db))
      if (fs::exists(fmt::format("{}/{}", out_dir, f), ec)) found.push_back(f);
  return found;
}

void make_writable_folder(const std::string& out_dir) {
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    throw FolderError(
        fmt::format("--out {}: is not a folder (give a folder for the sweep's files)", out_dir));
  fs::create_directories(fmt::format("{}/{}", out_dir, kPointsFolder), ec);
  if (ec) throw FolderError(fmt::format("--out {}: cannot create the folder: {}", out_dir, ec.message()));
  try {
    carnival::check_output_file(fmt::format("{}/{}", out_dir, kSweepDbName), "--out");
    carnival::check_output_file(fmt::format("{}/{}/point.db", out_dir, kPointsFolder), "--out");
  } catch (const carnival::OutputError& e) {
    throw FolderError(e.what());
  }
}

}  // namespace

FolderState prepare_folder(const std::string& out_dir, const SweepHeader& header,
                           const std::vector<Point>& points, bool force) {
  make_writable_folder(out_dir);
  const std::string db_path = fmt::format("{}/{}", out_dir, kSweepDbName);
  std::optional<Sweep> stored;
  std::error_code ec;
  if (fs::exists(db_path, ec)) {
    try {
      stored = read_sweep(db_path);
    } catch (const carnival::StoreError& e) {
      // Not a sweep's, or damaged: --force does not replace it either (only the sweep's files go).
      throw FolderError(fmt::format("{}; give another --out folder, or remove the file yourself", e.what()));
    }
  }
  FolderState state;
  state.created = header.created;
  if (stored && stored->header.grid_hash == header.grid_hash) {
    state.resumed = true;
    state.created = stored->header.created;
    return state;
  }
  const std::vector<std::string> leftovers = existing_point_files(out_dir, points);
  if (!force) {
    if (stored)
      throw FolderError(fmt::format(
          "--out {} holds another sweep (its command: {}); use --force to start this one there afresh "
          "(it removes that sweep's files), or give another folder",
          out_dir, stored->header.command));
    if (!leftovers.empty())
      throw FolderError(fmt::format(
          "--out {} has point files ({}) but no {}: they are not known to be this sweep's; use --force to "
          "replace them, or give another folder",
          out_dir, leftovers.front(), kSweepDbName));
    return state;
  }
  std::size_t removed = 0;
  if (stored)
    for (const SweepPoint& p : stored->points) removed += remove_files(out_dir, files_of(p.db_file));
  removed += remove_files(out_dir, leftovers);
  if (removed > 0 || stored)
    state.notes.push_back(
        fmt::format("--force: removed {} file(s) of the earlier sweep in {}", removed, out_dir));
  return state;
}

void remove_point_files(const std::string& out_dir, const Point& point) {
  remove_files(out_dir, files_of(point_files(point).db));
}

}  // namespace ncp2::sweep
