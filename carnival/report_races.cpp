// The races view of the report: every data race the run found (ncp2 run --detect-races).
#include <fmt/format.h>

#include "carnival/report_internal.hpp"

namespace ncp2::carnival {

std::string describe_race_access(const RaceAccess& a, std::string_view scope) {
  std::string where = a.file.empty() ? std::string("an unknown line") : fmt::format("{}:{}", a.file, a.line);
  if (!scope.empty()) where += fmt::format(" (in {})", scope);
  return fmt::format("node {} {} at {}", a.node, a.writes ? "writes" : "reads", where);
}

std::string describe_race_place(const RaceRow& r) {
  std::string place = fmt::format("'{}' byte {}", r.region, r.offset);
  if (r.address) place += fmt::format(" (address {:#x})", *r.address);
  return place;
}

namespace report_detail {

namespace {

std::string line_of(const RaceAccess& a) {
  return a.file.empty() ? std::string("?") : fmt::format("{}:{}", a.file, a.line);
}

std::string vector_time(const RaceAccess& a) { return fmt::format("[{}]", fmt::join(a.vector_time, ",")); }

void add_side_columns(std::vector<Column>& c, const std::string& label, const std::string& key) {
  c.push_back({label + " node", key + "_node", Kind::Count});
  c.push_back({label + " access", key + "_access", Kind::Text});
  c.push_back({label + " line", key + "_line", Kind::Text});
  c.push_back({label + " scope", key + "_scope", Kind::Text});
  c.push_back({label + " interval", key + "_interval", Kind::Count, Shown::DataOnly});
  c.push_back({label + " vector time", key + "_vector_time", Kind::Text, Shown::DataOnly});
}

void add_side_values(std::vector<Value>& row, const RaceAccess& a, const ScopeTree& tree) {
  row.emplace_back(static_cast<std::uint64_t>(a.node));
  row.emplace_back(std::string(a.writes ? "write" : "read"));
  row.emplace_back(line_of(a));
  row.emplace_back(tree.name(a.scope));
  row.emplace_back(static_cast<std::uint64_t>(a.interval));
  row.emplace_back(vector_time(a));
}

}  // namespace

Table races_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o) {
  Table t;
  t.view = ReportView::Races;
  t.title =
      "Data races: accesses of different nodes to the same bytes, one a write, unordered by locks and "
      "barriers";
  t.columns = {{"#", "id", Kind::Count}, {"where", "place", Kind::Text}};
  add_side_columns(t.columns, "1st", "first");
  add_side_columns(t.columns, "2nd", "second");
  const Column times{"times", "occurrences", Kind::Count};
  t.columns.push_back(times);
  if (!d.races_checked) {
    t.notes.emplace_back("race detection was off for this run (ncp2 run --detect-races)");
    return t;
  }
  if (d.races.empty()) {
    t.notes.emplace_back("no data races found");
    return t;
  }
  const std::size_t shown = o.top == 0 ? d.races.size() : std::min(o.top, d.races.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const RaceRow& r = d.races[i];
    std::vector<Value> row{static_cast<std::uint64_t>(r.id), describe_race_place(r)};
    add_side_values(row, r.first, tree);
    add_side_values(row, r.second, tree);
    row.emplace_back(r.occurrences);
    t.rows.push_back(std::move(row));
  }
  if (shown < d.races.size())
    t.notes.push_back(fmt::format("{} more races not shown (--top 0 shows all)", d.races.size() - shown));
  t.notes.emplace_back(
      "times: pairs of intervals found racing at these two lines; an interval is a node's run between two "
      "synchronizations, its vector time says which intervals of the others it follows");
  return t;
}

}  // namespace report_detail
}  // namespace ncp2::carnival
