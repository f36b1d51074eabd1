// The golden runs: the same run must give the same virtual times, message counts and database
// contents, whatever the code's structure. Each case runs `ncp2 run` as a user would, reads every
// table of its database in a canonical order (all columns, sorted) and compares a digest per
// table, plus the run's statistics JSON, with tests/golden/expected.txt.
//
// Only an issue that changes the model may change the expectations (say so in the commit):
//   NCP2_GOLDEN_UPDATE=1 build/tests/golden_run_tests     # rewrites tests/golden/expected.txt
// On a mismatch the canonical dumps are kept under the build tree for diffing.
#include <sqlite3.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_command.hpp"

namespace {

namespace fs = std::filesystem;

struct GoldenCase {
  std::string name;
  std::string args;  // after `ncp2 run`
};

// Small, but each covers a different part of the protocol: diffs between neighbours at barriers
// (SOR) on both machines, lock-protected updates and garbage collection (Water, TSP).
const std::vector<GoldenCase> kCases = {
    {"sor-ncp2", "sor --preset small --nodes 4 --machine ncp2"},
    {"sor-treadmarks", "sor --preset small --nodes 4 --machine treadmarks"},
    {"water-ncp2", "water --preset small --nodes 4 --machine ncp2"},
    {"tsp-treadmarks", "tsp --preset small --nodes 3 --machine treadmarks"},
};

// Columns that record the host, not the run.
bool volatile_column(const std::string& table, const std::string& column) {
  return table == "runs" && (column == "started_at" || column == "wall_seconds");
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string value_text(sqlite3_stmt* s, int column) {
  switch (sqlite3_column_type(s, column)) {
    case SQLITE_NULL:
      return "NULL";
    case SQLITE_INTEGER:
      return std::to_string(sqlite3_column_int64(s, column));
    case SQLITE_FLOAT: {
      std::array<char, 40> buf{};
      std::snprintf(buf.data(), buf.size(), "%.17g", sqlite3_column_double(s, column));
      return buf.data();
    }
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, column));
      return std::string("'") + (text ? text : "") + "'";
    }
  }
}

class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("cannot open " + path);
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs `sql`, calling row(stmt) per row.
  template <typename Row>
  void each(const std::string& sql, Row row) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("query failed: ") + sqlite3_errmsg(db_) + ": " + sql);
    while (sqlite3_step(s) == SQLITE_ROW) row(s);
    sqlite3_finalize(s);
  }

 private:
  sqlite3* db_ = nullptr;
};

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string column_string(sqlite3_stmt* s, int column) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, column));
  return text ? text : "";
}

// The workloads' source text is an input of the run, copied into `sources`, and scope lines point
// into it. So that editing a workload elsewhere (formatting, a function split) does not count as a
// changed run, a source that is a verbatim copy of the repository's file is recorded as such, and a
// scope's first and last lines by their text.
class SourceText {
 public:
  explicit SourceText(Db& db) {
    db.each("SELECT file, text FROM sources", [&](sqlite3_stmt* s) {
      const std::string file = column_string(s, 0);
      std::istringstream in(column_string(s, 1));
      for (std::string line; std::getline(in, line);) lines_[file].push_back(line);
    });
  }
  [[nodiscard]] std::string line(const std::string& file, std::int64_t number) const {
    const auto it = lines_.find(file);
    if (it != lines_.end() && number == static_cast<std::int64_t>(it->second.size()) + 1)
      return "end of file";
    if (it == lines_.end() || number < 1 || number > static_cast<std::int64_t>(it->second.size()))
      return "line " + std::to_string(number) + " (not in the source)";
    const std::string& text = it->second[static_cast<std::size_t>(number - 1)];
    const auto first = text.find_first_not_of(" \t");
    return first == std::string::npos ? "(blank line)" : "line '" + text.substr(first) + "'";
  }

 private:
  std::map<std::string, std::vector<std::string>> lines_;
};

// One row as text; `sources` and `scopes` as explained at SourceText.
std::string row_text(const std::string& table, const std::vector<std::string>& columns, sqlite3_stmt* s,
                     const SourceText& sources) {
  std::string row;
  std::string file;
  for (int i = 0; i < static_cast<int>(columns.size()); ++i) {
    const std::string& column = columns[static_cast<std::size_t>(i)];
    std::string value = value_text(s, i);
    if (column == "file") file = column_string(s, i);
    if (table == "sources" && column == "text" &&
        column_string(s, i) == slurp(fs::path(NCP2_SOURCE_DIR) / file))
      value = "verbatim copy of " + file;
    if (table == "scopes" && (column == "begin_line" || column == "end_line"))
      value = sources.line(file, sqlite3_column_int64(s, i));
    row += (i ? "|" : "") + value;
  }
  return row + "\n";
}

// table name -> canonical dump (header line, then one line per row, rows sorted by every column).
std::map<std::string, std::string> canonical_tables(const std::string& path) {
  Db db(path);
  const SourceText sources(db);
  std::vector<std::string> tables;
  db.each("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
          [&](sqlite3_stmt* s) { tables.push_back(column_string(s, 0)); });
  std::map<std::string, std::string> out;
  for (const auto& table : tables) {
    std::vector<std::string> columns;
    db.each("SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid", [&](sqlite3_stmt* s) {
      std::string column = column_string(s, 0);
      if (!volatile_column(table, column)) columns.push_back(column);
    });
    std::string list;
    for (const auto& c : columns) list += (list.empty() ? "" : ", ") + c;
    std::string dump = list + "\n";
    std::string sql = "SELECT ";
    sql.append(list).append(" FROM ").append(table).append(" ORDER BY ").append(list);
    db.each(sql, [&](sqlite3_stmt* s) { dump += row_text(table, columns, s, sources); });
    out[table] = dump;
  }
  return out;
}

// The statistics JSON also records the host (wall time, rates per host second): drop those keys.
nlohmann::json without_host_fields(nlohmann::json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it.key().find("wall") != std::string::npos || it.key().find("per_second") != std::string::npos) {
        it = j.erase(it);
      } else {
        it.value() = without_host_fields(it.value());
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) e = without_host_fields(e);
  }
  return j;
}

const fs::path kExpected = fs::path(NCP2_SOURCE_DIR) / "tests/golden/expected.txt";
const fs::path kWork = fs::path(NCP2_BUILD_DIR) / "golden";

// "<case> <what> <lines> <digest>" per table and for the statistics JSON.
std::vector<std::string> digest_lines(const GoldenCase& c) {
  const fs::path dir = kWork / c.name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "run.db").string();
  const std::string stats = (dir / "stats.json").string();
  const auto r =
      ncp2::testing::run_ncp2("run " + c.args + " --progress never --db " + db + " --stats-json " + stats);
  if (r.status != 0)
    throw std::runtime_error("ncp2 run " + c.args + " exited with " + std::to_string(r.status));
  std::vector<std::string> lines;
  auto add = [&](const std::string& what, const std::string& text) {
    std::ofstream(dir / (what + ".txt")) << text;
    std::array<char, 17> digest{};
    std::snprintf(digest.data(), digest.size(), "%016" PRIx64, fnv1a(text));
    const auto count = std::count(text.begin(), text.end(), '\n');
    lines.push_back(c.name + " " + what + " " + std::to_string(count) + " " + digest.data());
  };
  for (const auto& [table, dump] : canonical_tables(db)) add(table, dump);
  add("stats_json", without_host_fields(nlohmann::json::parse(slurp(stats))).dump(1) + "\n");
  return lines;
}

std::string expected_text() { return slurp(kExpected); }

TEST(GoldenRun, TablesAndStatisticsMatchTheRecordedRuns) {
  std::string actual;
  for (const auto& c : kCases)
    for (const auto& line : digest_lines(c)) actual += line + "\n";
  if (std::getenv("NCP2_GOLDEN_UPDATE") != nullptr) {
    std::ofstream(kExpected) << actual;
    GTEST_SKIP() << "expectations rewritten: " << kExpected;
  }
  EXPECT_EQ(expected_text(), actual) << "a golden run changed; the canonical dumps are under " << kWork
                                     << " (compare with a build of the previous commit)";
}

}  // namespace
