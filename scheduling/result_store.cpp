#include "scheduling/result_store.hpp"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "carnival/file_publish.hpp"
#include "carnival/output_paths.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::sched {

namespace {

namespace sql = carnival::sql;

constexpr const char* kSchema = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE schedule_options(
  processors          INTEGER NOT NULL,
  bus_capacity        REAL NOT NULL,
  thread_peak         REAL NOT NULL,
  quantum_us          REAL NOT NULL,
  window              INTEGER NOT NULL,
  seed                INTEGER NOT NULL,
  queueing            REAL NOT NULL,
  split_progress      REAL NOT NULL,
  baseline            TEXT NOT NULL);
CREATE TABLE schedule_results(
  set_name        TEXT NOT NULL,
  application     TEXT NOT NULL,
  policy          TEXT NOT NULL,
  turnaround_s    REAL NOT NULL,
  improvement_pct REAL NOT NULL,
  target          REAL NOT NULL,
  ideal_average   REAL NOT NULL,
  PRIMARY KEY (set_name, application, policy));
CREATE TABLE schedule_bus(
  set_name    TEXT NOT NULL,
  application TEXT NOT NULL,
  policy      TEXT NOT NULL,
  quantum     INTEGER NOT NULL,
  start_s     REAL NOT NULL,
  length_s    REAL NOT NULL,
  demand      REAL NOT NULL,
  served      REAL NOT NULL,
  jobs        INTEGER NOT NULL,
  PRIMARY KEY (set_name, application, policy, quantum));
)sql";

void write_options(const sql::Db& db, const NodeOptions& o) {
  sql::Stmt s(db, "INSERT INTO schedule_options VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  s.bind(1, o.processors);
  s.bind(2, o.capacity.per_us());
  s.bind(3, o.peak_per_thread.per_us());
  s.bind(4, to_microseconds(o.quantum));
  s.bind(5, o.window);
  s.bind(6, o.seed);
  s.bind(7, o.queueing);
  s.bind(8, o.split_progress);
  const std::string baseline = policy_name(baseline_policy());
  s.bind(9, baseline);
  s.run();
}

void write_tables(const sql::Db& db, const Experiment& e) {
  db.exec(kSchema);
  db.exec(
      fmt::format("INSERT INTO meta VALUES ('schema_version', '{}'), ('tool_version', 'ncp2 0.1.0'), "
                  "('content', 'schedule')",
                  carnival::kSchemaVersion));
  write_options(db, e.options);
  sql::Stmt row(db, "INSERT INTO schedule_results VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  sql::Stmt bus(db, "INSERT INTO schedule_bus VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  for (std::size_t i = 0; i < e.rows.size(); ++i) {
    const ResultRow& r = e.rows[i];
    const BusSeries& b = e.bus.at(i);
    row.bind(1, r.set);
    row.bind(2, r.application);
    row.bind(3, r.policy);
    row.bind(4, r.turnaround_s);
    row.bind(5, r.improvement_pct);
    row.bind(6, b.target.per_us());
    row.bind(7, b.ideal_average.per_us());
    row.run();
    for (std::size_t q = 0; q < b.samples.size(); ++q) {
      const BusSample& sample = b.samples[q];
      bus.bind(1, r.set);
      bus.bind(2, r.application);
      bus.bind(3, r.policy);
      bus.bind(4, static_cast<std::int64_t>(q));
      bus.bind(5, to_seconds(sample.start));
      bus.bind(6, to_seconds(sample.length));
      bus.bind(7, sample.demand.per_us());
      bus.bind(8, sample.served.per_us());
      bus.bind(9, sample.jobs_running);
      bus.run();
    }
  }
}

}  // namespace

std::string check_experiment_output(const std::string& path, bool force) {
  try {
    carnival::check_database_output(path, force);  // the same rules as a run's --db
  } catch (const carnival::OutputError& e) {
    return e.what();
  }
  return "";
}

void write_experiment(const std::string& path, const Experiment& experiment, bool force) {
  carnival::write_database_atomically(path, force, [&](sql::Db& db) { write_tables(db, experiment); });
}

}  // namespace ncp2::sched
