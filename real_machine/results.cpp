#include "real_machine/results.hpp"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/file_publish.hpp"
#include "carnival/run_scopes.hpp"
#include "carnival/scope_sites.hpp"
#include "carnival/sqlite.hpp"
#include "carnival/store.hpp"
#include "carnival/store_counts.hpp"
#include "carnival/store_error.hpp"
#include "carnival/store_schema.hpp"
#include "tmk/host/node_process.hpp"

namespace ncp2::real {

using carnival::Category;

namespace {

std::int64_t ps(double ns) { return std::llround(ns * 1000.0); }

// site_for keeps the kind's pointer for the process's life.
const char* lasting_kind(const std::string& kind) {
  for (const char* k : {"line", "function", "block", "loop", "phase", "verify"})
    if (kind == k) return k;
  return "block";
}

// A node's scope ids renumbered into this process's site registry.
std::map<std::uint32_t, std::uint32_t> renumber(const NodeRecord& rec) {
  std::map<std::uint32_t, std::uint32_t> ids{{0, 0}};
  for (const auto& [id, s] : rec.sites)
    ids[id] = carnival::site_for(s.name, lasting_kind(s.kind), s.file, s.line, s.end_line).id;
  return ids;
}

carnival::WaitRow wait_row(const MeasuredWait& w, int node, std::uint32_t scope, double start_ns) {
  carnival::WaitRow row;
  row.node = node;
  row.scope = scope;
  row.operation = w.operation;
  row.start_ps = ps(start_ns);
  row.duration_ps = ps(w.duration_ns);
  std::int64_t others = 0;
  for (std::size_t i = 0; i < w.parts.size(); ++i) {
    row.parts[i] = ps(w.parts[i]);
    if (i != static_cast<std::size_t>(carnival::WaitPart::CPLComp)) others += row.parts[i];
  }
  // Rounding must not break "the parts sum to the duration".
  auto& own = row.parts[static_cast<std::size_t>(carnival::WaitPart::CPLComp)];
  own = std::max<std::int64_t>(0, row.duration_ps - others);
  row.duration_ps = others + own;
  row.cause_node = w.cause_node;
  row.object = w.object;
  row.remote_node = w.remote_node;
  return row;
}

std::string verdict(const std::vector<NodeRecord>& records, bool& verified) {
  std::string failed;
  for (const NodeRecord& r : records) {
    if (r.exit_status >= 0 && WIFEXITED(r.exit_status) && WEXITSTATUS(r.exit_status) == 0) continue;
    failed += fmt::format("{}node {} {}", failed.empty() ? "" : "; ", r.node,
                          r.exit_status >= 0 ? tmk::describe_wait_status(r.exit_status) : "did not report");
  }
  verified = failed.empty();
  return verified ? "every node exited with status 0 (the program checks its own results)" : failed;
}

}  // namespace

carnival::RunData assemble_run(const std::vector<NodeRecord>& records, const std::vector<ClockMap>& clocks,
                               const RunMeta& meta) {
  carnival::RunData d;
  double t0 = std::numeric_limits<double>::max();
  for (const NodeRecord& r : records)
    t0 = std::min(t0, clocks.at(static_cast<std::size_t>(r.node)).to_master_ns(r.start_ns));
  std::set<std::uint32_t> used{0};
  std::string failure;
  bool deadlock = false;
  bool limit = false;
  for (const NodeRecord& r : records) {
    const ClockMap& clock = clocks.at(static_cast<std::size_t>(r.node));
    const auto ids = renumber(r);
    const auto scope = [&ids](std::uint32_t id) {
      const auto it = ids.find(id);
      return it == ids.end() ? 0U : it->second;
    };
    const double finish = r.finish_ns > 0 ? r.finish_ns : r.start_ns;
    double cp_busy = 0;
    for (const auto& [key, cell] : r.profile) {
      const auto& [id, category, operation] = key;
      if (category == Category::CPComp) cp_busy += cell.first;
      d.profile.push_back({r.node, scope(id), category, operation, ps(cell.first), cell.second});
      used.insert(scope(id));
    }
    d.profile.push_back({r.node, 0, Category::CPIdle, std::string(lrc::to_string(lrc::Operation::None)),
                         std::max<std::int64_t>(0, ps(finish - r.start_ns - cp_busy)), 1});
    carnival::append_protocol_counts(d.protocol_counts, r.node, r.counters);
    for (const MeasuredWait& w : r.waits) {
      d.waits.push_back(wait_row(w, r.node, scope(w.scope), clock.to_master_ns(w.start_ns) - t0));
      used.insert(scope(w.scope));
    }
    for (const SegmentRecord& s : r.segments) {
      d.timeline.push_back({r.node, s.cp, s.category, s.operation, scope(s.scope),
                            ps(clock.to_master_ns(s.start_ns) - t0), ps(clock.to_master_ns(s.end_ns) - t0)});
      used.insert(scope(s.scope));
    }
    d.timeline_dropped += r.segments_dropped;
    d.nodes.push_back({r.node, ps(clock.to_master_ns(finish) - t0)});
    if (failure.empty()) failure = r.failure;
    deadlock = deadlock || r.deadlock;
    limit = limit || r.limit;
  }
  std::uint64_t id = 0;
  std::sort(d.waits.begin(), d.waits.end(),
            [](const auto& a, const auto& b) { return a.start_ps < b.start_ps; });
  for (auto& w : d.waits) w.id = ++id;
  carnival::RunScopes scopes = carnival::collect_run_scopes(used, meta.program);
  d.scopes = std::move(scopes.scopes);
  d.sources = std::move(scopes.sources);
  carnival::RunInfo& run = d.run;
  run.workload = meta.program;
  run.machine = "real";
  run.nodes = static_cast<int>(records.size());
  for (const auto& n : d.nodes) run.virtual_time_ps = std::max(run.virtual_time_ps, n.finish_ps);
  run.config = meta.config;
  run.parameters = nlohmann::json{{"args", meta.args}}.dump();
  run.started_at = meta.started_at;
  run.wall_seconds = meta.wall_seconds;
  bool verified = false;
  run.message = verdict(records, verified);
  run.verified = verified && failure.empty();
  run.status = failure.empty() ? "complete" : deadlock ? "deadlock" : limit ? "incomplete" : "failed";
  if (!failure.empty()) run.message = failure;
  return d;
}

namespace {
void add_clocks(const std::string& path, const std::vector<ClockMap>& clocks, const std::string& source) {
  carnival::sql::Db db(path, SQLITE_OPEN_READWRITE);
  db.exec("BEGIN;");
  // The table is the store's (carnival/store_schema.hpp), created by write_run; run id 1.
  carnival::sql::Stmt insert(db, fmt::format("INSERT INTO clocks (run_id, {}) VALUES (1, ?1, ?2, ?3, ?4, ?5, "
                                             "?6, ?7, ?8)",
                                             carnival::kClockColumns));
  for (const ClockMap& c : clocks) {
    insert.bind(1, c.node);
    insert.bind(2, c.offset_ns);
    insert.bind(3, c.drift_ppm);
    insert.bind(4, c.bound_ns);
    insert.bind(5, c.drift_bound_ppm);
    insert.bind(6, c.rtt_min_ns);
    insert.bind(7, c.synchronized);
    insert.bind(8, source);
    insert.run();
  }
  db.exec("COMMIT;");
}
}  // namespace

void write_real_run(const std::string& path, bool replace, const carnival::RunData& data,
                    const std::vector<ClockMap>& clocks, const std::string& clock_source,
                    std::size_t max_wait_rows, std::size_t max_timeline_rows) {
  const std::string temp = fmt::format("{}.tmp-real-{}", path, getpid());
  try {
    carnival::write_run(temp, data,
                        {.force = true,
                         .max_wait_rows = max_wait_rows,
                         .max_timeline_rows = max_timeline_rows,
                         .clocks_table = true});
    add_clocks(temp, clocks, clock_source);
    carnival::sync_file(temp);
    carnival::rename_into_place(temp, path, replace);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw;
  }
}

}  // namespace ncp2::real
