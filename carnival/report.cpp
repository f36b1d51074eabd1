#include "carnival/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "carnival/scope_tree.hpp"

namespace ncp2::carnival {

using nlohmann::json;

std::string_view to_string(ReportView v) {
  switch (v) {
    case ReportView::Scopes:
      return "scopes";
    case ReportView::Nodes:
      return "nodes";
    case ReportView::CPWait:
      return "cpwait";
    case ReportView::Causes:
      return "causes";
    case ReportView::Waits:
      return "waits";
  }
  return "?";
}

const std::vector<ReportView>& all_views() {
  static const std::vector<ReportView> views = {ReportView::Scopes, ReportView::Nodes, ReportView::CPWait,
                                                ReportView::Causes, ReportView::Waits};
  return views;
}

std::optional<ReportView> view_from_string(std::string_view name) {
  for (auto v : all_views())
    if (to_string(v) == name) return v;
  return std::nullopt;
}

std::optional<ReportFormat> format_from_string(std::string_view name) {
  if (name == "text") return ReportFormat::Text;
  if (name == "markdown") return ReportFormat::Markdown;
  if (name == "csv") return ReportFormat::Csv;
  if (name == "json") return ReportFormat::Json;
  return std::nullopt;
}

std::string format_ps(std::int64_t ps) {
  if (ps == 0) return "0";
  const double magnitude = std::abs(static_cast<double>(ps));
  if (magnitude < 999.5) return fmt::format("{} ps", ps);
  static constexpr std::array<std::pair<double, const char*>, 4> units = {
      {{1e3, "ns"}, {1e6, "us"}, {1e9, "ms"}, {1e12, "s"}}};
  // The largest unit in which the value shows at least 1 after rounding (999.7 us is "1.00 ms").
  std::size_t u = 0;
  while (u + 1 < units.size() && magnitude >= units[u + 1].first * 0.9995) ++u;
  const double v = static_cast<double>(ps) / units[u].first;
  const double a = std::abs(v);
  if (a >= 99.95) return fmt::format("{:.0f} {}", v, units[u].second);
  if (a >= 9.995) return fmt::format("{:.1f} {}", v, units[u].second);
  return fmt::format("{:.2f} {}", v, units[u].second);
}

std::string_view category_glyph(Category c) { return info(c).glyph; }

std::string_view part_glyph(WaitPart p) { return info(p).glyph; }

std::string draw_bar(const std::vector<std::int64_t>& values, const std::vector<std::string_view>& glyphs,
                     std::size_t length) {
  long double sum = 0;
  for (auto v : values) sum += static_cast<long double>(std::max<std::int64_t>(v, 0));
  std::string out;
  if (sum <= 0 || length == 0) return out;
  // Largest remainders: floor of each share, then one more cell to the largest fractions.
  std::vector<std::size_t> cells(values.size());
  std::vector<std::pair<long double, std::size_t>> remainders;
  std::size_t used = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const long double exact = static_cast<long double>(length) *
                              static_cast<long double>(std::max<std::int64_t>(values[i], 0)) / sum;
    cells[i] = static_cast<std::size_t>(std::floor(exact));
    used += cells[i];
    remainders.emplace_back(exact - static_cast<long double>(cells[i]), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; used < length && k < remainders.size(); ++k, ++used) ++cells[remainders[k].second];
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t n = 0; n < cells[i]; ++n) out += glyphs[i];
  return out;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Tables: what a view computes, independent of the format.

enum class Kind { Text, Time, Count, Percent, Delta, Bar };
enum class Shown { Both, TextOnly, DataOnly };  // text and Markdown | CSV and JSON

struct Column {
  std::string label;  // text and Markdown header
  std::string key;    // CSV header and JSON member
  Kind kind = Kind::Text;
  Shown shown = Shown::Both;
};

using Value = std::variant<std::string, std::int64_t, double, std::uint64_t>;  // uint64: ids, never "none"

struct Table {
  ReportView view = ReportView::Scopes;
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;
  std::vector<std::string> legend;  // text and Markdown
  std::vector<std::string> notes;   // text, Markdown, JSON
  json extra = json::object();      // JSON only
};

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

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
               {"Operations", "operations", Kind::Text}};
  constexpr auto kSync = static_cast<std::size_t>(WaitPart::SyncDelay);
  struct Row {
    int node = -1;
    std::int64_t scope = -1;
    std::int64_t delay = 0;
    std::uint64_t waits = 0;
    std::set<int> waiters;
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
    r.waiters.insert(w.node);
    r.operations[w.operation] += delay;
    stored += delay;
  }
  std::int64_t summary_total = 0;
  for (const auto& s : d.wait_summary) summary_total += s.parts[kSync];

  std::vector<Row> sorted;
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
                      static_cast<std::int64_t>(r.waiters.size()), op_list});
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

// ---------------------------------------------------------------------------------------------
// Rendering

bool shown_in(const Column& c, ReportFormat f) {
  const bool text = f == ReportFormat::Text || f == ReportFormat::Markdown;
  return c.shown == Shown::Both || (text ? c.shown == Shown::TextOnly : c.shown == Shown::DataOnly);
}

std::string human(const Value& v, Kind kind) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return fmt::format("{}", *u);
  if (const auto* d = std::get_if<double>(&v)) {
    if (kind == Kind::Delta) return fmt::format("{:+.1f}%", *d);
    return fmt::format("{:.1f}%", *d);
  }
  const auto i = std::get<std::int64_t>(v);
  if (kind == Kind::Time) return format_ps(i);
  if (i < 0 && kind == Kind::Count) return "-";
  return fmt::format("{}", i);
}

std::string raw(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return fmt::format("{}", *u);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{:.4f}", *d);
  return fmt::format("{}", std::get<std::int64_t>(v));
}

json to_json(const Value& v, Kind kind) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
  if (const auto* d = std::get_if<double>(&v)) return std::round(*d * 10000.0) / 10000.0;
  const auto i = std::get<std::int64_t>(v);
  if (i < 0 && kind == Kind::Count) return nullptr;  // "none": no cause, no remote node, root's parent
  return i;
}

bool right_aligned(Kind k) {
  return k == Kind::Time || k == Kind::Count || k == Kind::Percent || k == Kind::Delta;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

void render_text(const Table& t, std::string& out) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (shown_in(t.columns[c], ReportFormat::Text)) cols.push_back(c);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> width(t.columns.size(), 0);
  for (auto c : cols) width[c] = display_width(t.columns[c].label);
  for (const auto& row : t.rows) {
    std::vector<std::string> r(t.columns.size());
    for (auto c : cols) {
      r[c] = human(row[c], t.columns[c].kind);
      width[c] = std::max(width[c], display_width(r[c]));
    }
    cells.push_back(std::move(r));
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const auto c = cols[k];
      const bool last = k + 1 == cols.size();
      std::string cell = pad(r[c], last && !right_aligned(t.columns[c].kind) ? 0 : width[c],
                             right_aligned(t.columns[c].kind));
      s += (k ? "  " : "") + cell;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  out += fmt::format("\n{}\n\n", t.title);
  std::vector<std::string> header(t.columns.size());
  std::vector<std::string> rule(t.columns.size());
  for (auto c : cols) {
    header[c] = t.columns[c].label;
    for (std::size_t i = 0; i < width[c]; ++i) rule[c] += "-";
  }
  line(header);
  line(rule);
  for (const auto& r : cells) line(r);
  if (t.rows.empty()) out += "(none)\n";
  if (!t.legend.empty() || !t.notes.empty()) out += "\n";
  for (const auto& l : t.legend) out += l + "\n";
  for (const auto& n : t.notes) out += n + "\n";
}

std::string markdown_cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  // Leading spaces (the scope tree's indentation) survive as no-break spaces.
  std::size_t lead = 0;
  while (lead < out.size() && out[lead] == ' ') ++lead;
  std::string indent;
  for (std::size_t i = 0; i < lead; ++i) indent += "\u00A0";
  return indent + out.substr(lead);
}

void render_markdown(const Table& t, std::string& out) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (shown_in(t.columns[c], ReportFormat::Markdown)) cols.push_back(c);
  out += fmt::format("\n## {}\n\n", t.title);
  std::string header = "|", rule = "|";
  for (auto c : cols) {
    header += " " + markdown_cell(t.columns[c].label) + " |";
    rule += right_aligned(t.columns[c].kind) ? " ---: |" : " --- |";
  }
  out += header + "\n" + rule + "\n";
  for (const auto& row : t.rows) {
    std::string s = "|";
    for (auto c : cols) {
      const std::string cell = markdown_cell(human(row[c], t.columns[c].kind));
      s += " " + (t.columns[c].kind == Kind::Bar && !cell.empty() ? "`" + cell + "`" : cell) + " |";
    }
    out += s + "\n";
  }
  if (!t.legend.empty() || !t.notes.empty()) out += "\n";
  for (const auto& l : t.legend) out += "`" + l + "`\n\n";
  for (const auto& n : t.notes) out += "*" + n + "*\n\n";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

void render_csv(const Table& t, std::string& out) {
  std::vector<std::size_t> cols;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (shown_in(t.columns[c], ReportFormat::Csv)) cols.push_back(c);
  std::string header;
  for (auto c : cols) header += (header.empty() ? "" : ",") + csv_field(t.columns[c].key);
  out += header + "\n";
  for (const auto& row : t.rows) {
    std::string s;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const auto c = cols[k];
      const auto* i = std::get_if<std::int64_t>(&row[c]);
      const bool none = i && *i < 0 && t.columns[c].kind == Kind::Count;
      s += (k ? "," : "") + (none ? std::string() : csv_field(raw(row[c])));
    }
    out += s + "\n";
  }
}

json table_json(const Table& t) {
  json rows = json::array();
  for (const auto& row : t.rows) {
    json r = json::object();
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (shown_in(t.columns[c], ReportFormat::Json))
        r[t.columns[c].key] = to_json(row[c], t.columns[c].kind);
    rows.push_back(std::move(r));
  }
  json j = t.extra;
  j["title"] = t.title;
  j["rows"] = std::move(rows);
  j["notes"] = t.notes;
  return j;
}

std::string status_warning(const RunInfo& r) {
  if (r.status == "incomplete")
    return "WARNING: this run is INCOMPLETE (interrupted before its end): the results are partial";
  if (r.status == "failed") return "WARNING: this run FAILED: the results cover the run up to its failure";
  return "";
}

json run_json(const RunData& d) {
  const auto& r = d.run;
  json parameters = json::parse(r.parameters, nullptr, false);
  if (parameters.is_discarded()) parameters = r.parameters;
  return {{"workload", r.workload},
          {"machine", r.machine},
          {"nodes", r.nodes},
          {"status", r.status},
          {"virtual_time_ps", r.virtual_time_ps},
          {"parameters", parameters},
          {"seed", r.seed},
          {"started_at", r.started_at},
          {"wall_seconds", r.wall_seconds},
          {"verified", r.verified},
          {"message", r.message},
          {"waits_stored", d.waits.size()},
          {"waits_dropped", d.waits_dropped},
          {"timeline_dropped", d.timeline_dropped}};
}

std::vector<std::pair<std::string, std::string>> header_lines(const RunData& d) {
  const auto& r = d.run;
  std::string status = r.status;
  if (const auto w = status_warning(r); !w.empty()) status = w;
  std::string workload = r.workload;
  if (!r.parameters.empty() && r.parameters != "{}") workload += " " + r.parameters;
  workload += fmt::format(", seed {}", r.seed);
  return {{"workload", workload},
          {"machine", fmt::format("{}, {} node{}", r.machine, r.nodes, r.nodes == 1 ? "" : "s")},
          {"status", status},
          {"virtual time", format_ps(r.virtual_time_ps) + " (timed region)"},
          {"verified", (r.verified ? std::string("yes") : std::string("NO")) +
                           (r.message.empty() ? std::string() : ": " + r.message)}};
}

}  // namespace

std::string render_report(const RunData& d, const ReportOptions& o) {
  const ScopeTree tree(d.scopes, mentioned_scopes(d));
  std::vector<Table> tables;
  for (auto v : o.views) {
    switch (v) {
      case ReportView::Scopes:
        tables.push_back(scopes_view(d, tree, o));
        break;
      case ReportView::Nodes:
        tables.push_back(nodes_view(d, o));
        break;
      case ReportView::CPWait:
        tables.push_back(cpwait_view(d, tree, o));
        break;
      case ReportView::Causes:
        tables.push_back(causes_view(d, tree, o));
        break;
      case ReportView::Waits:
        tables.push_back(waits_view(d, tree, o));
        break;
    }
  }
  std::string out;
  switch (o.format) {
    case ReportFormat::Text:
      out += "CARNIVAL report\n";
      for (const auto& [key, value] : header_lines(d)) out += fmt::format("{:<13}{}\n", key, value);
      for (const auto& t : tables) render_text(t, out);
      break;
    case ReportFormat::Markdown:
      out += fmt::format("# CARNIVAL report: {}\n\n", d.run.workload);
      if (const auto w = status_warning(d.run); !w.empty()) out += "> **" + w + "**\n\n";
      for (const auto& [key, value] : header_lines(d))
        out += fmt::format("- **{}**: {}\n", key, markdown_cell(value));
      for (const auto& t : tables) render_markdown(t, out);
      break;
    case ReportFormat::Csv:
      for (std::size_t i = 0; i < tables.size(); ++i) {
        if (tables.size() > 1) out += fmt::format("{}# {}\n", i ? "\n" : "", to_string(tables[i].view));
        render_csv(tables[i], out);
      }
      break;
    case ReportFormat::Json: {
      json j = json::object();
      j["run"] = run_json(d);
      for (const auto& t : tables) j[std::string(to_string(t.view))] = table_json(t);
      out = j.dump(2) + "\n";
      break;
    }
  }
  return out;
}

}  // namespace ncp2::carnival
