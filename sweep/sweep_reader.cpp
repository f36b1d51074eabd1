#include "sweep/sweep_reader.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "carnival/run_reader.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_open.hpp"

namespace ncp2::sweep {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 5> kSweepTables = {"sweep", "points", "point_settings",
                                                          "point_categories", "point_waits"};

// Opens read-only with the checks every reader of our files makes, then those of a sweep.
carnival::sql::Db open_sweep_db(const std::string& path) {
  carnival::sql::Db db = carnival::open_ncp2_file(path);
  const std::set<std::string> tables = carnival::table_names(db);
  if (!tables.contains("points") && tables.contains("runs"))
    throw carnival::StoreError(fmt::format(
        "{} is the database of one run (`ncp2 run --db`), not of a sweep: open it with `carnival {}` or "
        "`ncp2 report {}`",
        path, path, path));
  for (const std::string_view t : kSweepTables)
    if (!tables.contains(std::string(t)))
      throw carnival::StoreError(fmt::format(
          "{} is not a sweep database (no table '{}'; `ncp2 sweep --out DIR` writes DIR/sweep.db)", path, t));
  return db;
}

std::optional<PointStatus> status_from(const std::string& text) {
  for (const auto s : {PointStatus::Done, PointStatus::Failed, PointStatus::NotRun})
    if (text == to_string(s)) return s;
  return std::nullopt;
}

SweepHeader read_header(const carnival::sql::Db& db) {
  carnival::sql::Stmt s(
      db, "SELECT format, command, target, program_args, grid_hash, created FROM sweep LIMIT 1");
  if (!s.step())
    throw carnival::StoreError(fmt::format("{} is not a sweep database (no row in 'sweep')", db.path()));
  SweepHeader h{s.i32(0), s.str(1), s.str(2), s.str(3), s.str(4), s.str(5)};
  if (h.format > kSweepFormatRead)
    throw carnival::StoreError(
        fmt::format("{} was written by a newer version (sweep format {}, this tool reads up to {})",
                    db.path(), h.format, kSweepFormatRead));
  return h;
}

std::vector<SweepPoint> read_points(const carnival::sql::Db& db) {
  std::vector<SweepPoint> points;
  carnival::sql::Stmt s(db,
                        "SELECT point_id, name, machine, nodes, settings, status, message, db_file, "
                        "virtual_time_ps, speedup, verified, wall_s FROM points ORDER BY point_id");
  while (s.step()) {
    SweepPoint p;
    p.id = s.i64(0);
    p.name = s.str(1);
    p.machine = s.str(2);
    p.nodes = s.i32(3);
    p.settings = s.str(4);
    const std::string status = s.str(5);
    const auto parsed = status_from(status);
    if (!parsed)
      throw carnival::StoreError(fmt::format(
          "{} is corrupt: point {} has the status '{}' (done, failed or not run)", db.path(), p.id, status));
    p.status = *parsed;
    p.message = s.str(6);
    p.db_file = s.str(7);
    if (!s.is_null(8)) p.virtual_time_ps = s.i64(8);
    if (!s.is_null(9)) p.speedup = s.f64(9);
    p.verified = !s.is_null(10) && s.i64(10) != 0;
    if (!s.is_null(11)) p.wall_s = s.f64(11);
    points.push_back(std::move(p));
  }
  return points;
}

// The per-point tables, each row added to its point (rows of unknown points are ignored).
void read_details(const carnival::sql::Db& db, std::vector<SweepPoint>& points) {
  std::map<std::int64_t, SweepPoint*> by_id;
  for (auto& p : points) by_id[p.id] = &p;
  const auto point = [&](std::int64_t id) {
    const auto it = by_id.find(id);
    return it == by_id.end() ? nullptr : it->second;
  };
  for (carnival::sql::Stmt s(db, "SELECT point_id, key, value FROM point_settings ORDER BY rowid"); s.step();)
    if (auto* p = point(s.i64(0))) p->setting_values.push_back({s.str(1), s.str(2)});
  for (carnival::sql::Stmt s(db, "SELECT point_id, category, time_ps FROM point_categories ORDER BY rowid");
       s.step();)
    if (auto* p = point(s.i64(0))) p->categories.push_back({s.str(1), s.i64(2)});
  for (carnival::sql::Stmt s(db, "SELECT point_id, kind, count, time_ps FROM point_waits ORDER BY rowid");
       s.step();)
    if (auto* p = point(s.i64(0))) p->waits.push_back({s.str(1), s.i64(2), s.i64(3)});
}

}  // namespace

std::string_view to_string(PointStatus status) {
  switch (status) {
    case PointStatus::Done:
      return "done";
    case PointStatus::Failed:
      return "failed";
    case PointStatus::NotRun:
      return "not run";
  }
  return "?";
}

std::string SweepPoint::series() const {
  std::string out = machine;
  if (!setting_values.empty()) {
    for (const auto& s : setting_values) out += fmt::format(", {}={}", s.key, s.value);
  } else if (!settings.empty()) {
    std::string text = settings;
    std::replace(text.begin(), text.end(), ';', ' ');
    out += ", " + text;
  }
  return out;
}

std::string Sweep::point_db_path(const SweepPoint& point) const {
  return point.db_file.empty() ? "" : (fs::path(folder) / point.db_file).string();
}

std::size_t Sweep::count(PointStatus status) const {
  return static_cast<std::size_t>(std::count_if(
      points.begin(), points.end(), [status](const SweepPoint& p) { return p.status == status; }));
}

const SweepPoint* Sweep::find(std::int64_t id) const {
  for (const auto& p : points)
    if (p.id == id) return &p;
  return nullptr;
}

std::string sweep_database_path(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) ? (fs::path(path) / "sweep.db").string() : path;
}

Sweep read_sweep(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec) && !fs::exists(fs::path(path) / "sweep.db", ec))
    throw carnival::StoreError(
        fmt::format("{}: a folder without sweep.db (not the --out folder of ncp2 sweep)", path));
  Sweep sweep;
  sweep.db_path = sweep_database_path(path);
  const fs::path parent = fs::path(sweep.db_path).parent_path();
  sweep.folder = parent.empty() ? "." : parent.string();
  try {
    const carnival::sql::Db db = open_sweep_db(sweep.db_path);
    sweep.header = read_header(db);
    sweep.points = read_points(db);
    read_details(db, sweep.points);
  } catch (const carnival::sql::SqlError& e) {
    carnival::rethrow_as_store_error(sweep.db_path, e);
  }
  return sweep;
}

bool is_sweep(const std::string& path) {
  try {
    std::error_code ec;
    const std::string db = sweep_database_path(path);
    if (!fs::is_regular_file(db, ec)) return false;
    open_sweep_db(db);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<carnival::CategoryInfo> category_styles(const Sweep& sweep) {
  for (const auto& p : sweep.points) {
    if (p.status != PointStatus::Done || p.db_file.empty()) continue;
    try {
      return carnival::RunReader(sweep.point_db_path(p)).categories();
    } catch (const carnival::StoreError&) {
      // A point's database gone or damaged: the next one, or the catalogue.
    }
  }
  return carnival::category_catalogue();
}

}  // namespace ncp2::sweep
