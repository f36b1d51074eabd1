// Reading a run's database: every SELECT over the run tables (carnival/run_reader.hpp).
#include "carnival/run_reader.hpp"

#include <utility>

#include <fmt/format.h>

#include "carnival/sqlite.hpp"
#include "carnival/store_counts.hpp"
#include "carnival/store_open.hpp"
#include "carnival/store_schema.hpp"

namespace ncp2::carnival {

namespace {

// Runs `body`, turning SQLite's complaints about the file into the documented messages.
template <class F>
auto guarded(const std::string& path, F&& body) {
  try {
    return body();
  } catch (const sql::SqlError& e) {
    rethrow_as_store_error(path, e);
  }
}

// A statement over the run's rows: ?1 is the run's id.
sql::Stmt run_query(const sql::Db& db, std::int64_t run_id, std::string_view text) {
  sql::Stmt s(db, text);
  s.bind(1, run_id);
  return s;
}

Category category_of(const std::string& name, const std::string& path, std::string_view where) {
  if (auto c = category_from_string(name)) return *c;
  throw StoreError(fmt::format("{} is corrupt: unknown category '{}'{}", path, name, where));
}

std::array<std::int64_t, kWaitParts> parts_from(const sql::Stmt& s, int first) {
  std::array<std::int64_t, kWaitParts> parts{};
  for (std::size_t i = 0; i < kWaitParts; ++i) parts[i] = s.i64(first + static_cast<int>(i));
  return parts;
}

// A row of SELECT {wait_row_columns()}.
WaitRow wait_row(const sql::Stmt& s) {
  WaitRow w;
  w.id = s.u64(0);
  w.node = s.i32(1);
  w.scope = static_cast<std::uint32_t>(s.i64(2));
  w.operation = s.str(3);
  w.kind = s.str(4);
  w.start_ps = s.i64(5);
  w.duration_ps = s.i64(6);
  w.parts = parts_from(s, 7);
  constexpr int kAfterParts = 7 + static_cast<int>(kWaitParts);
  w.cause_node = static_cast<int>(s.optional(kAfterParts));
  w.cause_scope = s.optional(kAfterParts + 1);
  w.object = s.u64(kAfterParts + 2);
  w.remote_node = static_cast<int>(s.optional(kAfterParts + 3));
  return w;
}

// A row of SELECT node, scope_id, category, <operation>, <time>, <count>.
ProfileCell profile_cell(const sql::Stmt& s, const std::string& path) {
  return {s.i32(0), static_cast<std::uint32_t>(s.i64(1)), category_of(s.str(2), path, ""), s.str(3), s.i64(4),
          s.u64(5)};
}

}  // namespace

RunReader::RunReader(std::string path, Integrity integrity) : path_(std::move(path)) {
  guarded(path_, [&] {
    db_ = std::make_unique<sql::Db>(open_store(path_));
    if (integrity == Integrity::CheckedFirst) check_store_integrity(*db_, path_);
    auto run_and_id = read_run_info(*db_, path_);
    run_id_ = run_and_id.first;
    run_ = std::move(run_and_id.second);
    return 0;
  });
}

RunReader::~RunReader() = default;
RunReader::RunReader(RunReader&&) noexcept = default;
RunReader& RunReader::operator=(RunReader&&) noexcept = default;

std::vector<NodeRow> RunReader::nodes() const {
  return guarded(path_, [&] {
    std::vector<NodeRow> out;
    for (auto s =
             run_query(*db_, run_id_, "SELECT node, finish_ps FROM nodes WHERE run_id = ?1 ORDER BY rowid");
         s.step();)
      out.push_back({s.i32(0), s.i64(1)});
    return out;
  });
}

std::vector<SourceFile> RunReader::sources() const {
  return guarded(path_, [&] {
    std::vector<SourceFile> out;
    for (auto s = run_query(*db_, run_id_, "SELECT file, text FROM sources WHERE run_id = ?1 ORDER BY rowid");
         s.step();)
      out.push_back({s.str(0), s.str(1)});
    return out;
  });
}

std::vector<Scope> RunReader::scopes() const {
  return guarded(path_, [&] {
    std::vector<Scope> out;
    for (auto s = run_query(*db_, run_id_,
                            "SELECT id, parent_id, name, kind, file, begin_line, end_line FROM scopes "
                            "WHERE run_id = ?1 ORDER BY id");
         s.step();)
      out.push_back({static_cast<std::uint32_t>(s.i64(0)), s.optional(1), s.str(2), s.str(3), s.str(4),
                     s.i32(5), s.i32(6)});
    return out;
  });
}

std::vector<CategoryInfo> RunReader::categories() const {
  return guarded(path_, [&] {
    std::vector<CategoryInfo> stored;
    for (sql::Stmt s(*db_, "SELECT name, resource, color, description FROM categories ORDER BY position");
         s.step();)
      stored.push_back({s.str(0), s.str(1), s.str(2), s.str(3)});
    std::vector<CategoryInfo> out;
    for (const auto& c : category_catalogue()) {
      CategoryInfo info = c;
      for (const auto& st : stored)
        if (st.name == c.name) info = st;
      out.push_back(std::move(info));
    }
    return out;
  });
}

std::vector<ProfileCell> RunReader::profile() const {
  return guarded(path_, [&] {
    std::vector<ProfileCell> out;
    for (auto s = run_query(*db_, run_id_,
                            "SELECT node, scope_id, category, operation, time_ps, count FROM profile "
                            "WHERE run_id = ?1 ORDER BY rowid");
         s.step();)
      out.push_back(profile_cell(s, path_));
    return out;
  });
}

std::vector<ProfileCell> RunReader::profile_by_scope() const {
  return guarded(path_, [&] {
    std::vector<ProfileCell> out;
    for (auto s = run_query(*db_, run_id_,
                            "SELECT node, scope_id, category, '', sum(time_ps), sum(count) FROM profile "
                            "WHERE run_id = ?1 GROUP BY node, scope_id, category");
         s.step();)
      out.push_back(profile_cell(s, path_));
    return out;
  });
}

std::vector<WaitSummary> RunReader::wait_summary() const {
  return guarded(path_, [&] {
    std::vector<WaitSummary> out;
    for (auto s = run_query(*db_, run_id_,
                            fmt::format("SELECT {} FROM wait_summary WHERE run_id = ?1 ORDER BY rowid",
                                        wait_summary_columns()));
         s.step();) {
      WaitSummary w;
      w.node = s.i32(0);
      w.scope = static_cast<std::uint32_t>(s.i64(1));
      w.operation = s.str(2);
      w.kind = s.str(3);
      w.count = s.u64(4);
      w.total_ps = s.i64(5);
      w.parts = parts_from(s, 6);
      out.push_back(std::move(w));
    }
    return out;
  });
}

void RunReader::each_wait(WaitFilter filter, const std::function<void(const WaitRow&)>& visit) const {
  guarded(path_, [&] {
    // No ORDER BY for the flows: the caller sorts them, and SQLite need not sort a big table.
    const std::string where =
        filter == WaitFilter::All
            ? std::string(" ORDER BY rowid")
            : fmt::format(" AND cause_node IS NOT NULL AND {} > 0", info(WaitPart::SyncDelay).column);
    for (auto s =
             run_query(*db_, run_id_,
                       fmt::format("SELECT {} FROM waits WHERE run_id = ?1{}", wait_row_columns(), where));
         s.step();)
      visit(wait_row(s));
    return 0;
  });
}

std::vector<WaitRow> RunReader::waits() const {
  std::vector<WaitRow> out;
  each_wait(WaitFilter::All, [&](const WaitRow& w) { out.push_back(w); });
  return out;
}

std::vector<CauseCell> RunReader::causes(std::uint32_t scope, const std::string& kind,
                                         const std::string& operation, int node_filter) const {
  return guarded(path_, [&] {
    // The index waits_by_scope(run_id, scope_id, operation) narrows this to the row's instances.
    auto s = run_query(*db_, run_id_,
                       fmt::format("SELECT cause_node, cause_scope_id, node, sum({0}), count(*) FROM waits "
                                   "WHERE run_id = ?1 AND scope_id = ?2 AND operation = ?3 AND kind = ?4 "
                                   "AND {0} > 0 AND (?5 < 0 OR node = ?5) "
                                   "GROUP BY cause_node, cause_scope_id, node",
                                   info(WaitPart::SyncDelay).column));
    s.bind(2, scope);
    s.bind(3, operation);
    s.bind(4, kind);
    s.bind(5, node_filter);
    std::vector<CauseCell> out;
    while (s.step())
      out.push_back({static_cast<int>(s.optional(0)), s.optional(1), s.i32(2), s.i64(3), s.u64(4)});
    return out;
  });
}

void RunReader::each_segment(SegmentOrder order, const std::function<void(const Segment&)>& visit) const {
  guarded(path_, [&] {
    Segment seg;
    for (auto s =
             run_query(*db_, run_id_,
                       fmt::format("SELECT node, resource, category, operation, scope_id, start_ps, end_ps "
                                   "FROM timeline WHERE run_id = ?1 ORDER BY {}",
                                   order == SegmentOrder::File ? "rowid" : "node, start_ps"));
         s.step();) {
      seg.node = s.i32(0);
      seg.cp = s.str(1) == "CP";
      seg.category = category_of(s.str(2), path_, " in the timeline");
      seg.operation = s.str(3);
      seg.scope = static_cast<std::uint32_t>(s.i64(4));
      seg.start_ps = s.i64(5);
      seg.end_ps = s.i64(6);
      visit(seg);
    }
    return 0;
  });
}

std::vector<Segment> RunReader::timeline() const {
  std::vector<Segment> out;
  each_segment(SegmentOrder::File, [&](const Segment& s) { out.push_back(s); });
  return out;
}

StoredRaces RunReader::races() const {
  return guarded(path_, [&] { return read_races(*db_, run_id_, path_); });
}

std::vector<ProtocolCount> RunReader::protocol_counts() const {
  return guarded(path_, [&] { return read_protocol_counts(*db_, run_id_); });
}

std::optional<std::string> RunReader::meta(std::string_view key) const {
  return guarded(path_, [&]() -> std::optional<std::string> {
    sql::Stmt s(*db_, "SELECT value FROM meta WHERE key = ?1");
    s.bind(1, key);
    if (!s.step()) return std::nullopt;
    return s.str(0);
  });
}

std::uint64_t RunReader::meta_count(std::string_view key) const {
  const auto value = meta(key);
  if (!value) return 0;
  try {
    return std::stoull(*value);
  } catch (const std::exception&) {
    throw StoreError(fmt::format("{} is corrupt: meta '{}' is '{}', not a number", path_, key, *value));
  }
}

RunData read_run(const std::string& path) {
  const RunReader r(path, Integrity::CheckedFirst);
  RunData d;
  d.run = r.run();
  d.nodes = r.nodes();
  d.sources = r.sources();
  d.scopes = r.scopes();
  d.profile = r.profile();
  d.waits = r.waits();
  d.wait_summary = r.wait_summary();
  d.timeline = r.timeline();
  StoredRaces races = r.races();
  d.races_checked = races.checked;
  d.races = std::move(races.races);
  d.protocol_counts = r.protocol_counts();
  d.waits_dropped = r.meta_count("waits_dropped");
  d.timeline_dropped = r.meta_count("timeline_dropped");
  return d;
}

void check_run_file(const std::string& path) {
  guarded(path, [&] {
    const sql::Db db = open_store(path);
    check_store_integrity(db, path);
    return 0;
  });
}

}  // namespace ncp2::carnival
