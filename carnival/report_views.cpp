// The report's views: each computes a Table from the run (carnival/report_internal.hpp).
#include "carnival/report_internal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>

namespace ncp2::carnival::report_detail {

namespace {

double percent(std::int64_t part, std::int64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::size_t bar_length(std::int64_t value, std::int64_t full, std::size_t width) {
  if (full <= 0 || value <= 0) return 0;
  const auto n = static_cast<std::size_t>(std::llround(static_cast<long double>(width) * value / full));
  return std::min(n, width);
}

std::vector<std::string_view> pp_glyphs() {
  return {category_glyph(Category::Comp), category_glyph(Category::Extra), category_glyph(Category::Wait),
          category_glyph(Category::Prste)};
}

std::vector<std::string_view> part_glyphs() {
  std::vector<std::string_view> g;
  for (std::size_t i = 0; i < kWaitParts; ++i) g.push_back(part_glyph(static_cast<WaitPart>(i)));
  return g;
}

std::string pp_legend() {
  std::string s = "bar:";
  for (std::size_t i = 0; i < 4; ++i) {
    const auto c = static_cast<Category>(i);
    s += fmt::format("  {} {}", category_glyph(c), to_string(c));
  }
  return s;
}

std::string parts_legend() {
  std::string s = "profile:";
  for (std::size_t i = 0; i < kWaitParts; ++i) {
    const auto p = static_cast<WaitPart>(i);
    s += fmt::format("  {} {}", part_glyph(p), to_string(p));
  }
  return s;
}

std::vector<std::int64_t> pp_values(const CategoryTimes& t) { return {t[0], t[1], t[2], t[3]}; }

std::vector<Column> category_columns() {
  std::vector<Column> cols;
  for (std::size_t i = 0; i < kCategories; ++i) {
    const std::string name(to_string(static_cast<Category>(i)));
    std::string key;
    for (char ch : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    cols.push_back({name, key + "_ps", Kind::Time});
  }
  return cols;
}

}  // namespace

// --- scopes -------------------------------------------------------------------------------------

// The parent under which the tree shows `id` (-1 for a root).
std::int64_t parent_in(const ScopeTree& tree, std::uint32_t id) {
  const ScopeNode* n = tree.find(id);
  if (!n) return -1;
  for (auto r : tree.roots())
    if (r == id) return -1;
  return n->scope.parent;
}

Table scopes_view(const RunData& d, const ScopeTree& shape, const ReportOptions& o) {
  Table t;
  t.view = ReportView::Scopes;
  t.title = "Scopes: PP time summed over the nodes (inclusive, exclusive), split by category";
  t.columns = {
      {"Scope", "", Kind::Text, Shown::TextOnly},      {"", "scope_id", Kind::Count, Shown::DataOnly},
      {"", "parent_id", Kind::Count, Shown::DataOnly}, {"", "depth", Kind::Count, Shown::DataOnly},
      {"", "scope", Kind::Text, Shown::DataOnly},      {"Location", "location", Kind::Text},
      {"Inclusive", "inclusive_ps", Kind::Time},       {"%", "inclusive_percent", Kind::Percent},
      {"Exclusive", "exclusive_ps", Kind::Time},       {"%", "exclusive_percent", Kind::Percent}};
  for (auto& c : category_columns()) t.columns.push_back(std::move(c));
  t.columns.push_back({"Profile", "", Kind::Bar, Shown::TextOnly});

  ScopeTree tree = shape;  // the shape is shared by the views; the times are this view's
  tree.accumulate(d.profile);
  const std::int64_t total_pp = tree.total_pp_ps();
  // --top: the N hottest scopes (with their ancestors, so that the tree stays a tree).
  std::set<std::uint32_t> shown;
  const std::vector<std::uint32_t>& all = tree.by_time();
  const std::size_t limit = o.top == 0 ? all.size() : std::min(o.top, all.size());
  for (std::size_t k = 0; k < all.size() && shown.size() < limit; ++k)
    for (std::int64_t id = all[k]; id >= 0 && shown.insert(static_cast<std::uint32_t>(id)).second;)
      id = parent_in(tree, static_cast<std::uint32_t>(id));

  std::function<void(std::uint32_t, std::int64_t, int)> emit = [&](std::uint32_t id, std::int64_t parent,
                                                                   int depth) {
    if (!shown.contains(id)) return;
    const auto& inc = tree.find(id)->inclusive;
    const auto& exc = tree.find(id)->exclusive;
    std::vector<Value> row = {std::string(static_cast<std::size_t>(depth) * 2, ' ') + tree.name(id),
                              std::int64_t{id},
                              parent,
                              std::int64_t{depth},
                              tree.name(id),
                              tree.location(id),
                              pp_total(inc),
                              percent(pp_total(inc), total_pp),
                              pp_total(exc),
                              percent(pp_total(exc), total_pp)};
    for (std::size_t i = 0; i < kCategories; ++i) row.emplace_back(inc[i]);
    row.emplace_back(draw_bar(pp_values(inc), pp_glyphs(), bar_length(pp_total(inc), total_pp, o.bar_width)));
    t.rows.push_back(std::move(row));
    for (auto c : tree.children(id)) emit(c, id, depth + 1);
  };
  for (auto r : tree.roots()) emit(r, -1, 0);

  t.legend.push_back(pp_legend() + "  (length: share of the total PP time)");
  t.notes.push_back(
      fmt::format("total PP time {} over {} node(s); children sorted by inclusive time; "
                  "category columns are inclusive",
                  format_ps(total_pp), d.run.nodes));
  if (shown.size() < all.size())
    t.notes.push_back(fmt::format("{} more scope(s) not shown; see --top", all.size() - shown.size()));
  t.extra["total_pp_ps"] = total_pp;
  t.extra["not_shown"] = all.size() - shown.size();
  return t;
}

// --- nodes --------------------------------------------------------------------------------------

Table nodes_view(const RunData& d, const ReportOptions& o) {
  Table t;
  t.view = ReportView::Nodes;
  t.title = "Nodes: finish time and time per category";
  t.columns = {{"Node", "node", Kind::Count},
               {"Finish", "finish_ps", Kind::Time},
               {"vs mean", "vs_mean_percent", Kind::Delta}};
  for (auto& c : category_columns()) t.columns.push_back(std::move(c));
  t.columns.push_back({"PP profile", "", Kind::Bar, Shown::TextOnly});

  std::map<int, CategoryTimes> times;
  std::map<int, std::int64_t> finish;
  for (const auto& n : d.nodes) {
    finish[n.node] = n.finish_ps;
    times[n.node];
  }
  for (const auto& c : d.profile) times[c.node][static_cast<std::size_t>(c.category)] += c.time_ps;
  std::int64_t max_pp = 0;
  for (const auto& [node, ct] : times) max_pp = std::max(max_pp, pp_total(ct));
  long double finish_sum = 0;
  for (const auto& [node, f] : finish) finish_sum += f;
  const double mean =
      finish.empty() ? 0.0 : static_cast<double>(finish_sum / static_cast<long double>(finish.size()));

  for (const auto& [node, ct] : times) {
    const auto f = finish.contains(node) ? finish[node] : 0;
    std::vector<Value> row = {std::int64_t{node}, f,
                              mean > 0 ? 100.0 * (static_cast<double>(f) / mean - 1.0) : 0.0};
    for (std::size_t i = 0; i < kCategories; ++i) row.emplace_back(ct[i]);
    row.emplace_back(draw_bar(pp_values(ct), pp_glyphs(), bar_length(pp_total(ct), max_pp, o.bar_width)));
    t.rows.push_back(std::move(row));
  }
  t.legend.push_back(pp_legend() + "  (length: node's PP time against the busiest node's)");
  if (!finish.empty()) {
    const auto [lo, hi] = std::minmax_element(
        finish.begin(), finish.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const double imbalance = mean > 0 ? 100.0 * (static_cast<double>(hi->second) / mean - 1.0) : 0.0;
    t.notes.push_back(
        fmt::format("imbalance {:.1f}% (slowest node's finish over the mean): slowest node {} at {}, "
                    "mean {}, fastest node {} at {}",
                    imbalance, hi->first, format_ps(hi->second), format_ps(std::llround(mean)), lo->first,
                    format_ps(lo->second)));
    t.extra["imbalance"] = {{"percent", imbalance},
                            {"slowest_node", hi->first},
                            {"slowest_finish_ps", hi->second},
                            {"fastest_node", lo->first},
                            {"fastest_finish_ps", lo->second},
                            {"mean_finish_ps", std::llround(mean)}};
  }
  return t;
}

// --- cpwait -------------------------------------------------------------------------------------

Table cpwait_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o) {
  Table t;
  t.view = ReportView::CPWait;
  t.title = "CPWait Map: sources of waiting time, summed over the nodes";
  t.columns = {{"Location", "location", Kind::Text},
               {"", "scope_id", Kind::Count, Shown::DataOnly},
               {"", "scope", Kind::Text, Shown::DataOnly},
               {"Category", "category", Kind::Text},
               {"Operation", "operation", Kind::Text},
               {"Count", "count", Kind::Count},
               {"Profile", "", Kind::Bar, Shown::TextOnly},
               {"Time", "time_ps", Kind::Time},
               {"%", "percent", Kind::Percent},
               {"Cum. %", "cumulative_percent", Kind::Percent}};
  for (std::size_t i = 0; i < kWaitParts; ++i) {
    std::string key;
    for (char ch : to_string(static_cast<WaitPart>(i)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    t.columns.push_back({"", key + "_ps", Kind::Time, Shown::DataOnly});
  }

  const std::vector<CPWaitMapRow> sorted = cpwait_map(d.wait_summary);
  std::int64_t grand = 0;
  for (const auto& r : sorted) grand += r.total_ps;
  const std::int64_t largest = sorted.empty() ? 0 : sorted.front().total_ps;
  std::int64_t cumulative = 0;
  const std::size_t shown = o.top == 0 ? sorted.size() : std::min(o.top, sorted.size());
  for (std::size_t k = 0; k < shown; ++k) {
    const auto& r = sorted[k];
    cumulative += r.total_ps;
    std::vector<std::int64_t> parts(r.parts.begin(), r.parts.end());
    std::vector<Value> row = {tree.label(r.scope),
                              std::int64_t{r.scope},
                              tree.name(r.scope),
                              r.kind,
                              r.operation,
                              r.count,
                              draw_bar(parts, part_glyphs(), bar_length(r.total_ps, largest, o.bar_width)),
                              r.total_ps,
                              percent(r.total_ps, grand),
                              percent(cumulative, grand)};
    for (auto p : r.parts) row.emplace_back(p);
    t.rows.push_back(std::move(row));
  }
  t.legend.push_back(parts_legend() + "  (length: time against the first row's)");
  t.notes.push_back(fmt::format("total waiting time {} in {} source(s)", format_ps(grand), sorted.size()));
  if (shown < sorted.size())
    t.notes.push_back(fmt::format("{} more source(s) not shown ({:.1f}% of the waiting time); see --top",
                                  sorted.size() - shown, percent(grand - cumulative, grand)));
  t.extra["total_ps"] = grand;
  t.extra["sources"] = sorted.size();
  t.extra["not_shown"] = sorted.size() - shown;
  return t;
}

// --- causes -------------------------------------------------------------------------------------

namespace {

// "2: 1.20 ms, 0: 310 us": who waited and how long, longest first.
std::string waited_list(const std::map<int, std::int64_t>& waiters) {
  std::vector<std::pair<int, std::int64_t>> sorted(waiters.begin(), waiters.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [node, delay] : sorted)
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", node, format_ps(delay));
  return out;
}

}  // namespace

Table causes_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o) {
  Table t;
  t.view = ReportView::Causes;
  t.title = "Causes of synchronization delay: who made the others wait, and where";
  t.columns = {{"Cause node", "", Kind::Text, Shown::TextOnly},
               {"", "cause_node", Kind::Count, Shown::DataOnly},
               {"Cause scope", "cause_scope", Kind::Text},
               {"", "cause_scope_id", Kind::Count, Shown::DataOnly},
               {"Sync delay", "sync_delay_ps", Kind::Time},
               {"%", "percent", Kind::Percent},
               {"Waits", "waits", Kind::Count},
               {"Waiting nodes", "waiting_nodes", Kind::Count},
               {"Waited (node: delay)", "waited", Kind::Text},
               {"Operations", "operations", Kind::Text}};
  constexpr auto kSync = static_cast<std::size_t>(WaitPart::SyncDelay);
  struct Row {
    int node = -1;
    std::int64_t scope = -1;
    std::int64_t delay = 0;
    std::uint64_t waits = 0;
    std::map<int, std::int64_t> waiters;  // waiting node -> the delay it suffered
    std::map<std::string, std::int64_t> operations;
  };
  std::map<std::pair<int, std::int64_t>, Row> rows;
  std::int64_t stored = 0;
  for (const auto& w : d.waits) {
    const auto delay = w.parts[kSync];
    if (delay <= 0) continue;
    auto& r = rows[{w.cause_node, w.cause_scope}];
    r.node = w.cause_node;
    r.scope = w.cause_scope;
    r.delay += delay;
    ++r.waits;
    r.waiters[w.node] += delay;
    r.operations[w.operation] += delay;
    stored += delay;
  }
  std::int64_t summary_total = 0;
  for (const auto& s : d.wait_summary) summary_total += s.parts[kSync];

  std::vector<Row> sorted;
  sorted.reserve(rows.size());
  for (auto& [k, r] : rows) sorted.push_back(std::move(r));
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Row& a, const Row& b) { return a.delay > b.delay; });
  const std::size_t shown = o.top == 0 ? sorted.size() : std::min(o.top, sorted.size());
  for (std::size_t k = 0; k < shown; ++k) {
    const auto& r = sorted[k];
    std::vector<std::pair<std::string, std::int64_t>> ops(r.operations.begin(), r.operations.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string op_list;
    for (const auto& [name, delay] : ops) op_list += (op_list.empty() ? "" : ", ") + name;
    t.rows.push_back({r.node >= 0 ? fmt::format("{}", r.node) : std::string("unknown"), std::int64_t{r.node},
                      r.scope >= 0 ? tree.label(r.scope) : std::string("unknown"), r.scope, r.delay,
                      percent(r.delay, stored), static_cast<std::int64_t>(r.waits),
                      static_cast<std::int64_t>(r.waiters.size()), waited_list(r.waiters), op_list});
  }
  t.notes.push_back(
      fmt::format("total synchronization delay {} in the stored wait instances", format_ps(stored)));
  if (d.waits_dropped > 0)
    t.notes.push_back(
        fmt::format("wait instances were capped: {} stored, {} not stored; the causes come from the stored "
                    "instances, which "
                    "hold {} of the {} synchronization delay in the (complete) summary ({:.1f}%)",
                    d.waits.size(), d.waits_dropped, format_ps(stored), format_ps(summary_total),
                    percent(stored, summary_total)));
  if (shown < sorted.size())
    t.notes.push_back(fmt::format("{} more cause(s) not shown; see --top", sorted.size() - shown));
  t.extra["sync_delay_stored_ps"] = stored;
  t.extra["sync_delay_summary_ps"] = summary_total;
  t.extra["waits_dropped"] = d.waits_dropped;
  t.extra["not_shown"] = sorted.size() - shown;
  return t;
}

// --- waits --------------------------------------------------------------------------------------

Table waits_view(const RunData& d, const ScopeTree& tree, const ReportOptions& o) {
  Table t;
  t.view = ReportView::Waits;
  t.title = "Largest wait instances";
  t.columns = {{"Id", "id", Kind::Count},
               {"Node", "node", Kind::Count},
               {"Location", "location", Kind::Text},
               {"", "scope_id", Kind::Count, Shown::DataOnly},
               {"Operation", "operation", Kind::Text},
               {"Kind", "kind", Kind::Text},
               {"Start", "start_ps", Kind::Time},
               {"Duration", "duration_ps", Kind::Time},
               {"Profile", "", Kind::Bar, Shown::TextOnly},
               {"Sync delay", "sync_delay_ps", Kind::Time, Shown::TextOnly},
               {"Cause", "", Kind::Text, Shown::TextOnly},
               {"", "cause_node", Kind::Count, Shown::DataOnly},
               {"", "cause_scope_id", Kind::Count, Shown::DataOnly},
               {"Remote", "remote_node", Kind::Count},
               {"Object", "object", Kind::Count}};
  for (std::size_t i = 0; i < kWaitParts; ++i) {
    std::string key;
    for (char ch : to_string(static_cast<WaitPart>(i)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    t.columns.push_back({"", key + "_ps", Kind::Time, Shown::DataOnly});
  }
  std::vector<const WaitRow*> sorted;
  sorted.reserve(d.waits.size());
  for (const auto& w : d.waits) sorted.push_back(&w);
  const std::size_t shown = o.top == 0 ? sorted.size() : std::min(o.top, sorted.size());
  auto larger = [](const WaitRow* a, const WaitRow* b) {
    return a->duration_ps != b->duration_ps ? a->duration_ps > b->duration_ps : a->id < b->id;
  };
  std::partial_sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(shown), sorted.end(),
                    larger);
  const std::int64_t largest = sorted.empty() ? 0 : sorted.front()->duration_ps;
  constexpr auto kSync = static_cast<std::size_t>(WaitPart::SyncDelay);
  for (std::size_t k = 0; k < shown; ++k) {
    const WaitRow& w = *sorted[k];
    std::vector<std::int64_t> parts(w.parts.begin(), w.parts.end());
    std::string cause;
    if (w.cause_node >= 0)
      cause = w.cause_scope >= 0 ? fmt::format("node {} in {}", w.cause_node, tree.name(w.cause_scope))
                                 : fmt::format("node {}", w.cause_node);
    std::vector<Value> row = {w.id,
                              std::int64_t{w.node},
                              tree.label(w.scope),
                              std::int64_t{w.scope},
                              w.operation,
                              w.kind,
                              w.start_ps,
                              w.duration_ps,
                              draw_bar(parts, part_glyphs(), bar_length(w.duration_ps, largest, o.bar_width)),
                              w.parts[kSync],
                              cause,
                              std::int64_t{w.cause_node},
                              w.cause_scope,
                              std::int64_t{w.remote_node},
                              w.object};
    for (auto p : w.parts) row.emplace_back(p);
    t.rows.push_back(std::move(row));
  }
  t.legend.push_back(parts_legend() + "  (length: duration against the largest wait's)");
  if (d.waits_dropped > 0)
    t.notes.push_back(
        fmt::format("wait instances were capped: {} stored, {} not stored (the largest may be among "
                    "those not stored)",
                    d.waits.size(), d.waits_dropped));
  if (shown < sorted.size())
    t.notes.push_back(fmt::format("{} more wait(s) not shown; see --top", sorted.size() - shown));
  t.extra["stored"] = d.waits.size();
  t.extra["waits_dropped"] = d.waits_dropped;
  return t;
}

}  // namespace ncp2::carnival::report_detail
