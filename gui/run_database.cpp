#include "gui/run_database.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "carnival/run_reader.hpp"

namespace ncp2::gui {

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
  const carnival::RunReader reader(path);
  RunSummary d;
  d.path = path;
  d.run = reader.run();
  d.nodes = reader.nodes();
  std::sort(d.nodes.begin(), d.nodes.end(),
            [](const carnival::NodeRow& a, const carnival::NodeRow& b) { return a.node < b.node; });
  d.categories = reader.categories();  // the file's own colours and words over the catalogue
  d.sources = reader.sources();
  std::sort(d.sources.begin(), d.sources.end(),
            [](const carnival::SourceFile& a, const carnival::SourceFile& b) { return a.file < b.file; });
  d.scopes = reader.scopes();
  d.profile = reader.profile_by_scope();
  d.wait_summary = reader.wait_summary();
  d.tool_version = reader.meta("tool_version").value_or("");
  d.waits_dropped = reader.meta_count("waits_dropped");
  // Stores before schema 4 have no table races: read as a run without race detection.
  auto races = reader.races();
  d.races_checked = races.checked;
  d.races = std::move(races.races);
  return d;
}

void check_integrity(const std::string& path) { carnival::check_run_file(path); }

Causes query_causes(const std::string& path, std::uint32_t scope, const std::string& kind,
                    const std::string& operation, int node_filter) {
  std::map<std::pair<std::int64_t, std::int64_t>, CauseRow> by_cause;
  Causes out;
  for (const carnival::CauseCell& c : carnival::RunReader(path).causes(scope, kind, operation, node_filter)) {
    CauseRow& r = by_cause[{c.cause_node, c.cause_scope}];
    r.node = c.cause_node;
    r.scope = c.cause_scope;
    r.delay_ps += c.delay_ps;
    r.waits += c.waits;
    r.waited.emplace_back(c.node, c.delay_ps);
    out.total_delay_ps += c.delay_ps;
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
}

}  // namespace ncp2::gui
