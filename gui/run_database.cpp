#include "gui/run_database.hpp"

#include <charconv>

#include <fmt/format.h>

#include "carnival/report.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_open.hpp"

namespace ncp2::gui {

using carnival::StoreError;
namespace sql = carnival::sql;

namespace {

template <class F>
auto guarded(const std::string& path, F&& body) {
  try {
    return body();
  } catch (const sql::SqlError& e) {
    carnival::rethrow_as_store_error(path, e);
  }
}

// A vector time: a JSON array of node clocks, "[3,0,2]" as the writer stores it (spaces are
// allowed, as in JSON). Anything else is a damaged file.
std::vector<std::uint32_t> parse_vector_time(const std::string& text, const std::string& path) {
  auto bad = [&] { return StoreError(fmt::format("{} is corrupt: vector time '{}' in races", path, text)); };
  const char* p = text.data();
  const char* const end = p + text.size();
  const auto skip_spaces = [&] {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  };
  const auto take = [&](char c) {
    skip_spaces();
    if (p == end || *p != c) return false;
    ++p;
    return true;
  };
  if (!take('[')) throw bad();
  std::vector<std::uint32_t> vt;
  if (!take(']')) {
    do {
      skip_spaces();
      std::uint32_t v = 0;
      const auto [next, ec] = std::from_chars(p, end, v);
      if (ec != std::errc()) throw bad();
      vt.push_back(v);
      p = next;
    } while (take(','));
    if (!take(']')) throw bad();
  }
  skip_spaces();
  if (p != end) throw bad();
  return vt;
}

// One side's seven columns (node, access, file, line, scope_id, interval, vector_time) from `at`.
carnival::RaceAccess read_race_side(const sql::Stmt& s, int at, const std::string& path) {
  carnival::RaceAccess a;
  a.node = s.i32(at);
  a.writes = s.str(at + 1) == "write";
  a.file = s.str(at + 2);
  a.line = s.i32(at + 3);
  a.scope = static_cast<std::uint32_t>(s.i64(at + 4));
  a.interval = static_cast<std::uint32_t>(s.i64(at + 5));
  a.vector_time = parse_vector_time(s.str(at + 6), path);
  return a;
}

// The races table (schema 4). Older stores have no table: no detection, no error.
void read_races(const sql::Db& db, std::int64_t run_id, RunSummary& d) {
  if (db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'races'") == 0) return;
  d.races_checked = db.integer("SELECT count(*) FROM meta WHERE key = 'race_detection' AND value = 'on'") > 0;
  sql::Stmt s(db,
              "SELECT id, region, offset, address, occurrences, first_node, first_access, first_file, "
              "first_line, first_scope_id, first_interval, first_vector_time, second_node, second_access, "
              "second_file, second_line, second_scope_id, second_interval, second_vector_time "
              "FROM races WHERE run_id = ?1 ORDER BY id");
  s.bind(1, run_id);
  while (s.step()) {
    carnival::RaceRow r;
    r.id = static_cast<std::uint32_t>(s.i64(0));
    r.region = s.str(1);
    r.offset = s.u64(2);
    if (!s.is_null(3)) r.address = s.u64(3);
    r.occurrences = s.u64(4);
    r.first = read_race_side(s, 5, d.path);
    r.second = read_race_side(s, 12, d.path);
    d.races.push_back(std::move(r));
  }
  // Rows without the meta key still say that detection ran.
  if (!d.races.empty()) d.races_checked = true;
}

}  // namespace

std::vector<std::string> RunSummary::warnings() const {
  std::vector<std::string> out;
  if (run.status == "incomplete")
    out.push_back(fmt::format("This run is INCOMPLETE ({}): the times cover only the part that ran.",
                              run.message.empty() ? "interrupted" : run.message));
  else if (run.status == "failed")
    out.push_back(fmt::format("This run FAILED ({}): the times cover only the part that ran.", run.message));
  else if (run.status == "deadlock")
    out.push_back(fmt::format(
        "This run DEADLOCKED ({}): the times cover the run until every node was blocked.", run.message));
  if (!races.empty()) {
    const auto n = races.size();
    const char* noun = n == 1 ? "data race" : "data races";
    if (run.status == "complete")
      out.push_back(fmt::format("This run completed with {} {}: see the Races tab.", n, noun));
    else
      out.push_back(fmt::format("{} {} {} found before the run stopped: see the Races tab.", n, noun,
                                n == 1 ? "was" : "were"));
  }
  if (is_empty()) out.emplace_back("This run recorded no time: there is no profile and no wait to show.");
  if (waits_dropped > 0)
    out.push_back(
        fmt::format("{} wait instances were not stored (capped): the causes panel shows the stored ones.",
                    waits_dropped));
  return out;
}

RunSummary load_run_summary(const std::string& path) {
  return guarded(path, [&] {
    sql::Db db = carnival::open_store(path);
    RunSummary d;
    d.path = path;
    auto run_and_id = carnival::read_run_info(db, path);
    const auto run_id = run_and_id.first;  // named, not a structured binding: the lambda below
    d.run = std::move(run_and_id.second);  // captures it (clang-tidy 14 rejects that capture)
    auto query = [&](const char* text) {
      auto s = std::make_unique<sql::Stmt>(db, text);
      s->bind(1, run_id);
      return s;
    };
    for (auto s = query("SELECT node, finish_ps FROM nodes WHERE run_id = ?1 ORDER BY node"); s->step();)
      d.nodes.push_back({s->i32(0), s->i64(1)});
    // The file's own colours and words; the catalogue fills any category the file lacks.
    {
      std::vector<CategoryStyle> stored;
      for (sql::Stmt s(db, "SELECT name, resource, color, description FROM categories ORDER BY position");
           s.step();)
        stored.push_back({s.str(0), s.str(1), s.str(2), s.str(3)});
      for (const auto& c : carnival::category_catalogue()) {
        CategoryStyle style{c.name, c.resource, c.color, c.description};
        for (const auto& st : stored)
          if (st.name == c.name) style = st;
        d.categories.push_back(std::move(style));
      }
    }
    for (auto s = query("SELECT file, text FROM sources WHERE run_id = ?1 ORDER BY file"); s->step();)
      d.sources.push_back({s->str(0), s->str(1)});
    for (auto s = query("SELECT id, parent_id, name, kind, file, begin_line, end_line FROM scopes "
                        "WHERE run_id = ?1 ORDER BY id");
         s->step();)
      d.scopes.push_back({static_cast<std::uint32_t>(s->i64(0)), s->optional(1), s->str(2), s->str(3),
                          s->str(4), s->i32(5), s->i32(6)});
    for (auto s =
             query("SELECT node, scope_id, category, sum(time_ps), sum(count) FROM profile WHERE run_id = ?1 "
                   "GROUP BY node, scope_id, category");
         s->step();) {
      const auto category = carnival::category_from_string(s->str(2));
      if (!category) throw StoreError(fmt::format("{} is corrupt: unknown category '{}'", path, s->str(2)));
      d.profile.push_back(
          {s->i32(0), static_cast<std::uint32_t>(s->i64(1)), *category, "", s->i64(3), s->u64(4)});
    }
    d.wait_summary = carnival::read_wait_summary(db, run_id);
    for (sql::Stmt s(db, "SELECT key, value FROM meta WHERE key IN ('tool_version', 'waits_dropped')");
         s.step();) {
      if (s.str(0) == "tool_version") {
        d.tool_version = s.str(1);
      } else {
        try {
          d.waits_dropped = std::stoull(s.str(1));
        } catch (const std::exception&) {
          throw StoreError(
              fmt::format("{} is corrupt: meta 'waits_dropped' is '{}', not a number", path, s.str(1)));
        }
      }
    }
    read_races(db, run_id, d);
    return d;
  });
}

void check_integrity(const std::string& path) {
  guarded(path, [&] {
    sql::Db db = carnival::open_store(path);
    carnival::check_store_integrity(db, path);
    return 0;
  });
}

Causes query_causes(const std::string& path, std::uint32_t scope, const std::string& kind,
                    const std::string& operation, int node_filter) {
  return guarded(path, [&] {
    sql::Db db = carnival::open_store(path);
    // The index waits_by_scope(run_id, scope_id, operation) narrows this to the row's instances.
    sql::Stmt s(db, fmt::format("SELECT cause_node, cause_scope_id, sum({0}), count(*), count(DISTINCT node) "
                                "FROM waits WHERE run_id = (SELECT min(id) FROM runs) AND scope_id = ?1 "
                                "AND operation = ?2 AND kind = ?3 AND {0} > 0 AND (?4 < 0 OR node = ?4) "
                                "GROUP BY cause_node, cause_scope_id ORDER BY sum({0}) DESC, cause_node, "
                                "cause_scope_id",
                                carnival::info(carnival::WaitPart::SyncDelay).column));
    s.bind(1, scope);
    s.bind(2, operation);
    s.bind(3, kind);
    s.bind(4, node_filter);
    Causes out;
    while (s.step()) {
      CauseRow r;
      r.node = static_cast<int>(s.optional(0));
      r.scope = s.optional(1);
      r.delay_ps = s.i64(2);
      r.waits = s.u64(3);
      r.waiting_nodes = s.u64(4);
      out.total_delay_ps += r.delay_ps;
      out.rows.push_back(r);
    }
    return out;
  });
}

}  // namespace ncp2::gui
