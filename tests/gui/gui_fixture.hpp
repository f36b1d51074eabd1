#pragma once
// Tiny databases for the GUI tests: the synthetic run of tests/carnival/fixture.hpp with a real
// 400-line source (so that scopes have lines to show), and the bad files the GUI must refuse or
// flag. Everything is written into a QTemporaryDir owned by the caller.
#include <string>

#include <sqlite3.h>

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include "../carnival/fixture.hpp"
#include "carnival/store.hpp"

namespace ncp2::gui::testing {

using carnival::testing::us;

// Scopes of the fixture, moved onto the 400-line source:
//   0 program 1-400, 1 phase loop 10-250, 2 update 200-230 (in phase loop), 3 verify 300-320.
// Exclusive PP times summed over both nodes (us): program 200, phase loop 1500, update 2050,
// verify 150; inclusive: program 3900, phase loop 3550, update 2050, verify 150.
// Line times: update's 2050 us over its 31 lines is the hottest per line (66.1 us);
// phase loop's 1500 us over its 241 - 31 = 210 own lines (7.14 us); program's 200 us over
// 400 - 241 - 21 = 138 own lines (1.45 us); verify's 150 us over 21 lines (7.14 us).
inline carnival::RunData gui_fixture() {
  auto d = carnival::testing::make_fixture();
  std::string text;
  for (int line = 1; line <= 400; ++line) {
    switch (line) {
      case 1:
        text += "// phases: a synthetic program for the GUI tests\n";
        break;
      case 10:
        text += "  for (int phase = 0; phase < phases; ++phase) {  // phase loop\n";
        break;
      case 200:
        text += "    update(grid);  // update\n";
        break;
      case 300:
        text += "  verify(grid);  // verify\n";
        break;
      default:
        text += "  x" + std::to_string(line) + " = compute(" + std::to_string(line) + ");\n";
    }
  }
  d.sources = {{"workloads/phases.cpp", text},
               {"workloads/helper.hpp", "// a helper header\nint helper();\n"}};
  d.scopes[0].begin_line = 1;
  d.scopes[0].end_line = 400;
  d.scopes[1].begin_line = 10;
  d.scopes[1].end_line = 250;
  d.scopes[2].begin_line = 200;
  d.scopes[2].end_line = 230;
  d.scopes[3].begin_line = 300;
  d.scopes[3].end_line = 320;
  return d;
}

inline QString write_db(const QTemporaryDir& dir, const QString& name, const carnival::RunData& data) {
  QString path = dir.filePath(name);
  carnival::write_run(path.toStdString(), data, {.force = true});
  return path;
}

inline QString write_bytes(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  QString path = dir.filePath(name);
  QFile f(path);
  if (f.open(QIODevice::WriteOnly)) f.write(bytes);
  return path;
}

// Runs SQL on a file (to make foreign, newer or broken files).
inline bool exec_sql(const QString& path, const char* sql) {
  sqlite3* db = nullptr;
  bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
            sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

// The fixture's store with race detection on and three races in the schema's exact form (what
// `ncp2 run --detect-races --db` writes), rows inserted with SQL:
//   1 grid+1024, 3 occurrences: node 0 writes phases.cpp:205 (update), node 1 reads phases.cpp:305
//     (verify);
//   2 counter+0 at 0x7f0010: node 0 writes phases.cpp:12 (phase loop), node 1 writes helper.hpp:2;
//   3 flags+8: node 0 reads at an unknown site, node 1 writes phases.cpp:100 (phase loop).
inline constexpr const char* kRaceRows = R"sql(
INSERT OR REPLACE INTO meta VALUES ('race_detection', 'on');
INSERT INTO races (run_id, id, region, offset, address, occurrences,
  first_node, first_access, first_file, first_line, first_scope_id, first_interval, first_vector_time,
  second_node, second_access, second_file, second_line, second_scope_id, second_interval, second_vector_time)
VALUES
  (1, 1, 'grid', 1024, NULL, 3, 0, 'write', 'workloads/phases.cpp', 205, 2, 3, '[3,1]',
   1, 'read', 'workloads/phases.cpp', 305, 3, 2, '[1,2]'),
  (1, 2, 'counter', 0, 8323088, 1, 0, 'write', 'workloads/phases.cpp', 12, 1, 2, '[2,1]',
   1, 'write', 'workloads/helper.hpp', 2, 0, 4, '[1,4]'),
  (1, 3, 'flags', 8, NULL, 2, 0, 'read', '', 0, 0, 1, '[1,0]',
   1, 'write', 'workloads/phases.cpp', 100, 1, 1, '[0,1]');
)sql";

inline QString write_races_db(const QTemporaryDir& dir, const QString& name, const char* rows = kRaceRows,
                              const std::string& status = "complete") {
  auto d = gui_fixture();
  d.run.status = status;
  const QString path = write_db(dir, name, d);
  return exec_sql(path, rows) ? path : QString();  // empty: the rows did not fit the schema
}

// The fixture as schema version 3 wrote it: no races table, no race_detection key.
inline QString write_v3_db(const QTemporaryDir& dir, const QString& name) {
  const QString path = write_db(dir, name, gui_fixture());
  const bool ok =
      exec_sql(path,
               "DROP TABLE races; DELETE FROM meta WHERE key = 'race_detection'; "
               "UPDATE meta SET value = '3' WHERE key = 'schema_version'; PRAGMA user_version = 3;");
  return ok ? path : QString();
}

struct BadFiles {
  QString text, random, empty, foreign, newer, missing_table, truncated, incomplete, empty_run, directory;
};

inline BadFiles write_bad_files(const QTemporaryDir& dir) {
  BadFiles b;
  b.text = write_bytes(dir, "notes.db", "this is not a database\n");
  QByteArray noise(4096, '\0');
  for (int i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 7919 + 13) % 251);
  b.random = write_bytes(dir, "random.db", noise);
  b.empty = write_bytes(dir, "empty.db", QByteArray());
  b.foreign = dir.filePath("foreign.db");
  exec_sql(b.foreign, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  b.newer = write_db(dir, "newer.db", gui_fixture());
  exec_sql(b.newer,
           ("PRAGMA user_version = " + std::to_string(ncp2::carnival::kSchemaVersion + 1) + ";").c_str());
  b.missing_table = write_db(dir, "missing.db", gui_fixture());
  exec_sql(b.missing_table, "DROP TABLE wait_summary;");
  // Half of a file with many waits: its later pages are gone.
  b.truncated = write_db(dir, "truncated.db", carnival::testing::make_large(20000));
  {
    QFile f(b.truncated);
    const auto size = f.size();
    f.resize(size / 2);
  }
  auto incomplete = gui_fixture();
  incomplete.run.status = "incomplete";
  incomplete.run.message = "interrupted by SIGINT";
  b.incomplete = write_db(dir, "incomplete.db", incomplete);
  auto empty = gui_fixture();
  empty.profile.clear();
  empty.waits.clear();
  empty.wait_summary.clear();
  empty.timeline.clear();
  b.empty_run = write_db(dir, "empty-run.db", empty);
  b.directory = dir.filePath("a-directory.db");
  QDir(dir.path()).mkdir("a-directory.db");
  return b;
}

}  // namespace ncp2::gui::testing
