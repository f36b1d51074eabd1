#pragma once
// Sweep databases for the tests of the sweep's reader, plots and GUI view, written with the schema
// of docs/schema.md ("The sweep database") the way `ncp2 sweep` writes it (an NCP2 file published
// atomically), each finished point with a small run database (the synthetic run of
// tests/carnival/fixture.hpp, relabelled with the point's machine, nodes and time).
//
// The standard grid (standard_points): target "sor", machines ncp2 and treadmarks, nodes 1, 2, 4, 8,
// network.link_latency 1us and 5us: 16 points, 4 curves. Virtual time on N nodes is
// T1 / N^efficiency, T1 = 80 ms; the efficiency depends on machine and latency (0.9 ncp2 1us,
// 0.8 ncp2 5us, 0.7 treadmarks 1us, 0.6 treadmarks 5us), so every curve differs. Categories per
// point, summed over nodes: Comp 60 %, Extra 10 %, Wait 25 %, Prste 5 % of N x T; on ncp2 also
// CPComp 20 % and CPIdle 80 % of N x T.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../carnival/fixture.hpp"
#include "carnival/file_publish.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store.hpp"

namespace ncp2::sweep::testing {

struct FixturePoint {
  std::string machine = "ncp2";
  int nodes = 1;
  std::string latency = "1us";  // the one --set key: network.link_latency
  std::string status = "done";
  std::string message;
  std::optional<std::int64_t> virtual_time_ps;
  std::optional<double> speedup;
  bool write_run = true;  // a run database for a finished point

  [[nodiscard]] std::string name() const {
    return fmt::format("{}-n{}-network.link_latency={}", machine, nodes, latency);
  }
};

inline double efficiency(const std::string& machine, const std::string& latency) {
  const double base = machine == "ncp2" ? 0.9 : 0.7;
  return latency == "1us" ? base : base - 0.1;
}

inline constexpr std::int64_t kOneNodePs = 80'000'000'000;  // 80 ms

inline std::vector<FixturePoint> standard_points() {
  std::vector<FixturePoint> points;
  for (const char* machine : {"ncp2", "treadmarks"})
    for (const char* latency : {"1us", "5us"})
      for (const int nodes : {1, 2, 4, 8}) {
        FixturePoint p;
        p.machine = machine;
        p.nodes = nodes;
        p.latency = latency;
        const double speedup = std::pow(nodes, efficiency(machine, latency));
        p.virtual_time_ps = static_cast<std::int64_t>(static_cast<double>(kOneNodePs) / speedup);
        p.speedup = static_cast<double>(kOneNodePs) / static_cast<double>(*p.virtual_time_ps);
        points.push_back(p);
      }
  return points;
}

inline constexpr const char* kSweepSchema = R"sql(
CREATE TABLE sweep(format INTEGER, command TEXT, target TEXT, program_args TEXT, grid_hash TEXT, created TEXT);
CREATE TABLE points(point_id INTEGER PRIMARY KEY, name TEXT, machine TEXT, nodes INTEGER, settings TEXT,
  status TEXT, message TEXT, db_file TEXT, virtual_time_ps INTEGER, speedup REAL, verified INTEGER, wall_s REAL);
CREATE TABLE point_settings(point_id INTEGER, key TEXT, value TEXT);
CREATE TABLE point_categories(point_id INTEGER, category TEXT, time_ps INTEGER);
CREATE TABLE point_waits(point_id INTEGER, kind TEXT, count INTEGER, time_ps INTEGER);
)sql";

// The point's run database: the synthetic run, relabelled.
inline void write_point_run(const std::string& path, const FixturePoint& p) {
  auto data = carnival::testing::make_fixture();
  data.run.workload = "sor";
  data.run.machine = p.machine;
  data.run.nodes = p.nodes;
  data.run.virtual_time_ps = p.virtual_time_ps.value_or(0);
  carnival::write_run(path, data, {.force = true});
}

inline void insert_point(carnival::sql::Db& db, std::int64_t id, const FixturePoint& p,
                         const std::string& db_file) {
  carnival::sql::Stmt s(db, "INSERT INTO points VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  const std::string name = p.name();
  const std::string settings = "network.link_latency=" + p.latency;
  s.bind(1, id);
  s.bind(2, name);
  s.bind(3, p.machine);
  s.bind(4, p.nodes);
  s.bind(5, settings);
  s.bind(6, p.status);
  s.bind(7, p.message);
  s.bind(8, db_file);
  if (p.virtual_time_ps)
    s.bind(9, *p.virtual_time_ps);
  else
    s.bind_null(9);
  if (p.speedup)
    s.bind(10, *p.speedup);
  else
    s.bind_null(10);
  s.bind(11, p.status == "done");
  s.bind(12, 0.5);
  s.run();
  carnival::sql::Stmt k(db, "INSERT INTO point_settings VALUES (?1, 'network.link_latency', ?2)");
  k.bind(1, id);
  k.bind(2, p.latency);
  k.run();
  if (p.status != "done" || !p.virtual_time_ps) return;
  const double total = static_cast<double>(p.nodes) * static_cast<double>(*p.virtual_time_ps);
  std::vector<std::pair<const char*, double>> shares = {
      {"Comp", 0.6}, {"Extra", 0.1}, {"Wait", 0.25}, {"Prste", 0.05}};
  if (p.machine == "ncp2") shares.insert(shares.end(), {{"CPComp", 0.2}, {"CPIdle", 0.8}});
  carnival::sql::Stmt c(db, "INSERT INTO point_categories VALUES (?1, ?2, ?3)");
  for (const auto& [category, share] : shares) {
    c.bind(1, id);
    c.bind(2, category);
    c.bind(3, static_cast<std::int64_t>(total * share));
    c.run();
  }
  carnival::sql::Stmt w(db, "INSERT INTO point_waits VALUES (?1, 'barrier', ?2, ?3)");
  w.bind(1, id);
  w.bind(2, static_cast<std::int64_t>(p.nodes) * 10);
  w.bind(3, static_cast<std::int64_t>(total * 0.2));
  w.run();
}

// Writes DIR/sweep.db (and DIR/points/NAME.db for each finished point with write_run); returns
// the sweep.db's path.
inline std::string write_sweep(const std::filesystem::path& dir, const std::vector<FixturePoint>& points,
                               int format = 1, const std::string& target = "sor") {
  std::filesystem::create_directories(dir / "points");
  std::string path = (dir / "sweep.db").string();
  carnival::write_database_atomically(path, true, [&](carnival::sql::Db& db) {
    db.exec(kSweepSchema);
    carnival::sql::Stmt s(db, "INSERT INTO sweep VALUES (?1, ?2, ?3, '', 'f1x7', '2026-11-28T12:00:00Z')");
    const std::string command = "ncp2 sweep " + target + " --nodes 1,2,4,8 --out " + dir.string();
    s.bind(1, format);
    s.bind(2, command);
    s.bind(3, target);
    s.run();
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string db_file = "points/" + points[i].name() + ".db";
      insert_point(db, static_cast<std::int64_t>(i + 1), points[i], db_file);
      if (points[i].status == "done" && points[i].write_run)
        write_point_run((dir / db_file).string(), points[i]);
    }
  });
  return path;
}

}  // namespace ncp2::sweep::testing
