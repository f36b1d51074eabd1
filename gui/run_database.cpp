#include "gui/run_database.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "carnival/report.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store_open.hpp"
#include "carnival/store_races.hpp"

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
    d.scopes = carnival::read_scopes(db, run_id);
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
    // Stores before schema 4 have no table races: read as a run without race detection.
    auto races = carnival::read_races(db, run_id, path);
    d.races_checked = races.checked;
    d.races = std::move(races.races);
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
    sql::Stmt s(db, fmt::format("SELECT cause_node, cause_scope_id, node, sum({0}), count(*) "
                                "FROM waits WHERE run_id = (SELECT min(id) FROM runs) AND scope_id = ?1 "
                                "AND operation = ?2 AND kind = ?3 AND {0} > 0 AND (?4 < 0 OR node = ?4) "
                                "GROUP BY cause_node, cause_scope_id, node",
                                carnival::info(carnival::WaitPart::SyncDelay).column));
    s.bind(1, scope);
    s.bind(2, operation);
    s.bind(3, kind);
    s.bind(4, node_filter);
    std::map<std::pair<std::int64_t, std::int64_t>, CauseRow> by_cause;
    Causes out;
    while (s.step()) {
      CauseRow& r = by_cause[{s.optional(0), s.optional(1)}];
      r.node = static_cast<int>(s.optional(0));
      r.scope = s.optional(1);
      const std::int64_t delay = s.i64(3);
      r.delay_ps += delay;
      r.waits += s.u64(4);
      r.waited.emplace_back(static_cast<int>(s.i64(2)), delay);
      out.total_delay_ps += delay;
    }
    for (auto& [key, r] : by_cause) {
      r.waiting_nodes = r.waited.size();
      std::stable_sort(r.waited.begin(), r.waited.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      out.rows.push_back(std::move(r));
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [](const CauseRow& a, const CauseRow& b) { return a.delay_ps > b.delay_ps; });
    return out;
  });
}

}  // namespace ncp2::gui
