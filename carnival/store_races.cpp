#include "carnival/store_races.hpp"

#include <charconv>

#include <fmt/format.h>

#include "carnival/sqlite.hpp"
#include "carnival/store_error.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

namespace {

constexpr std::string_view kColumns =
    "id, region, offset, address, occurrences, "
    "first_node, first_access, first_file, first_line, first_scope_id, first_interval, first_vector_time, "
    "second_node, second_access, second_file, second_line, second_scope_id, second_interval, "
    "second_vector_time";
constexpr int kFirstSide = 5;  // column index of first_node
constexpr int kSideColumns = 7;

// Binds one side's seven columns from 1-based index `at`; `vt` must outlive the step.
void bind_side(sql::Stmt& s, int at, const RaceAccess& a, const std::string& vt) {
  s.bind(at, a.node);
  s.bind(at + 1, a.writes ? "write" : "read");
  s.bind(at + 2, a.file);
  s.bind(at + 3, a.line);
  s.bind(at + 4, a.scope);
  s.bind(at + 5, a.interval);
  s.bind(at + 6, vt);
}

RaceAccess read_side(const sql::Stmt& s, int at, const std::string& path) {
  RaceAccess a;
  a.node = s.i32(at);
  a.writes = s.str(at + 1) == "write";
  a.file = s.str(at + 2);
  a.line = s.i32(at + 3);
  a.scope = static_cast<std::uint32_t>(s.i64(at + 4));
  a.interval = static_cast<std::uint32_t>(s.i64(at + 5));
  a.vector_time = parse_vector_time(s.str(at + 6), path);
  return a;
}

}  // namespace

std::string vector_time_text(std::span<const std::uint32_t> vt) {
  return fmt::format("[{}]", fmt::join(vt, ","));
}

std::vector<std::uint32_t> parse_vector_time(const std::string& stored, const std::string& path) {
  auto bad = [&] {
    return StoreError(fmt::format("{} is corrupt: vector time '{}' in races", path, stored));
  };
  std::string text;  // a JSON array: spaces allowed (another writer's, or a hand-edited file)
  for (const char c : stored)
    if (c != ' ' && c != '\t' && c != '\n') text += c;
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') throw bad();
  std::vector<std::uint32_t> vt;
  const char* p = text.data() + 1;
  const char* end = text.data() + text.size() - 1;
  while (p < end) {
    std::uint32_t v = 0;
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || (next != end && *next != ',')) throw bad();
    vt.push_back(v);
    p = next == end ? end : next + 1;
  }
  return vt;
}

void write_races(sql::Db& db, std::int64_t run_id, bool checked, std::span<const RaceRow> races) {
  sql::Stmt meta(db, "INSERT OR REPLACE INTO meta VALUES ('race_detection', ?1)");
  meta.bind(1, checked ? "on" : "off");
  meta.run();
  sql::Stmt s(db,
              fmt::format("INSERT INTO races (run_id, {}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                          "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
                          kColumns));
  for (const RaceRow& r : races) {
    const std::string first_vt = vector_time_text(r.first.vector_time);
    const std::string second_vt = vector_time_text(r.second.vector_time);
    s.bind(1, run_id);
    s.bind(2, r.id);
    s.bind(3, r.region);
    s.bind(4, r.offset);
    if (r.address)
      s.bind(5, *r.address);
    else
      s.bind_null(5);
    s.bind(6, r.occurrences);
    bind_side(s, 2 + kFirstSide, r.first, first_vt);
    bind_side(s, 2 + kFirstSide + kSideColumns, r.second, second_vt);
    s.run();
  }
}

StoredRaces read_races(const sql::Db& db, std::int64_t run_id, const std::string& path) {
  StoredRaces out;
  if (db.integer("PRAGMA user_version") < kRacesSinceVersion) return out;
  {
    sql::Stmt meta(db, "SELECT value FROM meta WHERE key = 'race_detection'");
    out.checked = meta.step() && meta.str(0) == "on";
  }
  sql::Stmt s(db, fmt::format("SELECT {} FROM races WHERE run_id = ?1 ORDER BY id", kColumns));
  s.bind(1, run_id);
  while (s.step()) {
    RaceRow r;
    r.id = static_cast<std::uint32_t>(s.i64(0));
    r.region = s.str(1);
    r.offset = s.u64(2);
    if (!s.is_null(3)) r.address = s.u64(3);
    r.occurrences = s.u64(4);
    r.first = read_side(s, kFirstSide, path);
    r.second = read_side(s, kFirstSide + kSideColumns, path);
    out.races.push_back(std::move(r));
  }
  return out;
}

}  // namespace ncp2::carnival
