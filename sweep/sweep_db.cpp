// The sweep database (sweep/sweep_db.hpp; docs/schema.md, "The sweep database").
#include "sweep/sweep_db.hpp"

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/sqlite.hpp"
#include "sweep/point_command.hpp"

namespace ncp2::sweep {

namespace {

// docs/schema.md describes every column; change both together (and kSweepFormat).
constexpr const char* kSchema = R"(
CREATE TABLE sweep(format INTEGER NOT NULL, command TEXT NOT NULL, target TEXT NOT NULL,
                   program_args TEXT NOT NULL, grid_hash TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE points(point_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, machine TEXT NOT NULL,
                    nodes INTEGER NOT NULL, settings TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('done', 'failed', 'not run')),
                    message TEXT NOT NULL, db_file TEXT NOT NULL, virtual_time_ps INTEGER, speedup REAL,
                    verified INTEGER, wall_s REAL);
CREATE TABLE point_settings(point_id INTEGER NOT NULL REFERENCES points(point_id), key TEXT NOT NULL,
                            value TEXT NOT NULL, PRIMARY KEY (point_id, key));
CREATE TABLE point_categories(point_id INTEGER NOT NULL REFERENCES points(point_id), category TEXT NOT NULL,
                              time_ps INTEGER NOT NULL, PRIMARY KEY (point_id, category));
CREATE TABLE point_waits(point_id INTEGER NOT NULL REFERENCES points(point_id), kind TEXT NOT NULL,
                         count INTEGER NOT NULL, time_ps INTEGER NOT NULL, PRIMARY KEY (point_id, kind));
)";

template <class T>
void bind_or_null(carnival::sql::Stmt& s, int column, const std::optional<T>& value) {
  if (value)
    s.bind(column, *value);
  else
    s.bind_null(column);
}

void insert_point(const carnival::sql::Db& db, std::int64_t id, const Point& p, const PointRecord& r) {
  carnival::sql::Stmt row(
      db,
      "INSERT INTO points(point_id, name, machine, nodes, settings, status, message, db_file, "
      "virtual_time_ps, speedup, verified, wall_s) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  const std::string settings = settings_text(p);
  const std::string db_file = point_files(p).db;
  row.bind(1, id);
  row.bind(2, p.name);
  row.bind(3, p.machine);
  row.bind(4, p.nodes);
  row.bind(5, settings);
  row.bind(6, to_string(r.status));
  row.bind(7, r.message);
  row.bind(8, db_file);
  bind_or_null(row, 9, r.virtual_time_ps);
  bind_or_null(row, 10, r.speedup);
  bind_or_null(row, 11, r.verified);
  bind_or_null(row, 12, r.wall_s);
  row.run();
  carnival::sql::Stmt setting(db, "INSERT INTO point_settings VALUES (?,?,?)");
  for (const Setting& s : p.settings) {
    setting.bind(1, id);
    setting.bind(2, s.key);
    setting.bind(3, s.value);
    setting.run();
  }
  carnival::sql::Stmt category(db, "INSERT INTO point_categories VALUES (?,?,?)");
  for (const CategoryTime& c : r.categories) {
    category.bind(1, id);
    category.bind(2, c.category);
    category.bind(3, c.time_ps);
    category.run();
  }
  carnival::sql::Stmt wait(db, "INSERT INTO point_waits VALUES (?,?,?,?)");
  for (const WaitTime& w : r.waits) {
    wait.bind(1, id);
    wait.bind(2, w.kind);
    wait.bind(3, w.count);
    wait.bind(4, w.time_ps);
    wait.run();
  }
}

}  // namespace

void write_sweep_db(const std::string& path, const SweepHeader& header, const std::vector<Point>& points,
                    const std::vector<PointRecord>& records) {
  carnival::write_database_atomically(path, true, [&](carnival::sql::Db& db) {
    db.exec(kSchema);
    carnival::sql::Stmt sweep(db, "INSERT INTO sweep VALUES (?,?,?,?,?,?)");
    sweep.bind(1, header.format);
    sweep.bind(2, header.command);
    sweep.bind(3, header.target);
    sweep.bind(4, header.program_args);
    sweep.bind(5, header.grid_hash);
    sweep.bind(6, header.created);
    sweep.run();
    for (std::size_t i = 0; i < points.size(); ++i)
      insert_point(db, static_cast<std::int64_t>(i) + 1, points[i], records[i]);
  });
}

}  // namespace ncp2::sweep
