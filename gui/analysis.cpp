#include "gui/analysis.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace ncp2::gui {

// --- shading ---------------------------------------------------------------------------------

const char* to_string(Shading s) {
  switch (s) {
    case Shading::Linear:
      return "linear";
    case Shading::Sqrt:
      return "sqrt";
    case Shading::Log:
      return "log";
  }
  return "?";
}

std::optional<Shading> shading_from_string(const std::string& name) {
  for (auto s : {Shading::Linear, Shading::Sqrt, Shading::Log})
    if (name == to_string(s)) return s;
  return std::nullopt;
}

double shade_intensity(double value, double max, Shading mapping) {
  if (!(max > 0) || !(value > 0)) return 0.0;
  const double x = std::min(value / max, 1.0);
  switch (mapping) {
    case Shading::Linear:
      return x;
    case Shading::Sqrt:
      return std::sqrt(x);
    // Three decades: 0.1 % of the maximum is already a light gray.
    case Shading::Log:
      return std::log10(1.0 + 999.0 * x) / 3.0;
  }
  return x;
}

int gray_level(double intensity) {
  const double i = std::clamp(intensity, 0.0, 1.0);
  return static_cast<int>(std::lround(255.0 - i * (255.0 - kDarkestGray)));
}

std::vector<int> partition(std::span<const std::int64_t> values, int pixels) {
  std::vector<int> widths(values.size(), 0);
  long double sum = 0;
  for (auto v : values) sum += static_cast<long double>(std::max<std::int64_t>(v, 0));
  if (sum <= 0 || pixels <= 0) return widths;
  std::vector<std::pair<long double, std::size_t>> remainders;
  int used = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const long double exact = pixels * static_cast<long double>(std::max<std::int64_t>(values[i], 0)) / sum;
    widths[i] = static_cast<int>(std::floor(exact));
    used += widths[i];
    remainders.emplace_back(exact - widths[i], i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; used < pixels && k < remainders.size(); ++k, ++used) ++widths[remainders[k].second];
  return widths;
}

// --- the analysis ----------------------------------------------------------------------------

namespace {

// The scopes the summary's rows refer to (the GUI reads no wait instances or timeline up front).
std::vector<std::int64_t> mentioned_scopes(const RunSummary& s) {
  std::vector<std::int64_t> ids;
  for (const auto& c : s.profile) ids.push_back(c.scope);
  for (const auto& w : s.wait_summary) ids.push_back(w.scope);
  return ids;
}

}  // namespace

Analysis::Analysis(std::shared_ptr<const RunSummary> summary, int node_filter)
    : summary_(std::move(summary)),
      node_filter_(node_filter),
      tree_(summary_->scopes, mentioned_scopes(*summary_)) {
  tree_.accumulate(summary_->profile, node_filter_);
  build_cpwait();
  for (auto id : tree_.by_time())
    if (const auto* st = tree_.find(id); st && pp_total(st->inclusive) > 0) by_time_.push_back(id);
  // The whole profile, not the selected nodes: the machine's kind does not change with the filter.
  bool cp_time = false;
  for (const auto& c : summary_->profile)
    cp_time = cp_time || (!carnival::is_pp_category(c.category) && c.time_ps > 0);
  has_cp_ = summary_->run.machine != "treadmarks" && cp_time;
  styles_ = summary_->categories;
  if (!has_cp_) rename_parts_without_cp();
}

// Without protocol controllers the parts named after the CP hold other work (docs/schema.md):
// the GUI names them for what they are on that machine. The database keeps the paper's names.
void Analysis::rename_parts_without_cp() {
  struct Rename {
    const char* paper;
    const char* here;
    const char* description;
  };
  static constexpr std::array<Rename, 3> renames = {{
      {"CPLWait", "LWait", "intervals 1 and 11: the request waits for the local PP's protocol work (no CP)"},
      {"CPLComp", "LComp", "intervals 2 and 12: the local PP's protocol work (no CP on this machine)"},
      {"CPComm", "Comm", "intervals 3 and 10: transmission between the nodes"},
  }};
  for (auto& style : styles_)
    for (const auto& r : renames)
      if (style.name == r.paper) {
        style.name = r.here;
        style.description = r.description;
      }
}

std::vector<int> Analysis::node_ids() const {
  std::set<int> ids;
  for (const auto& n : summary_->nodes) ids.insert(n.node);
  for (const auto& c : summary_->profile) ids.insert(c.node);
  return {ids.begin(), ids.end()};
}

void Analysis::build_cpwait() {
  total_wait_ = 0;
  for (auto& m : carnival::cpwait_map(summary_->wait_summary, node_filter_)) {
    if (m.total_ps <= 0) continue;  // a source that never waited says nothing
    total_wait_ += m.total_ps;
    cpwait_.push_back(
        {m.scope, std::move(m.kind), std::move(m.operation), m.count, m.total_ps, m.parts, 0, 0});
  }
  std::int64_t cumulative = 0;
  for (auto& r : cpwait_) {
    cumulative += r.total_ps;
    r.percent =
        total_wait_ > 0 ? 100.0 * static_cast<double>(r.total_ps) / static_cast<double>(total_wait_) : 0.0;
    r.cumulative_percent =
        total_wait_ > 0 ? 100.0 * static_cast<double>(cumulative) / static_cast<double>(total_wait_) : 0.0;
  }
}

std::vector<Analysis::NodeWaits> Analysis::cpwait_by_node(const CPWaitRow& row) const {
  std::map<int, NodeWaits> by_node;
  for (const auto& w : summary_->wait_summary) {
    if (w.scope != row.scope || w.kind != row.kind || w.operation != row.operation) continue;
    if (node_filter_ >= 0 && w.node != node_filter_) continue;
    NodeWaits& n = by_node[w.node];
    n.node = w.node;
    n.count += w.count;
    n.total_ps += w.total_ps;
  }
  std::vector<NodeWaits> out;
  for (const auto& [node, n] : by_node)
    if (n.total_ps > 0) out.push_back(n);
  std::stable_sort(out.begin(), out.end(),
                   [](const NodeWaits& a, const NodeWaits& b) { return a.total_ps > b.total_ps; });
  return out;
}

const ScopeStats* Analysis::scope_by_name(const std::string& name) const {
  for (const auto& st : scopes())
    if (st.scope.name == name) return &st;
  return nullptr;
}

Category Analysis::dominant_category(std::uint32_t id) const {
  const auto* st = scope(id);
  if (!st) return Category::Comp;
  std::size_t best = 0;
  for (std::size_t k = 1; k < 4; ++k)
    if (st->inclusive[k] > st->inclusive[best]) best = k;
  return static_cast<Category>(best);
}

std::vector<NodeProfile> Analysis::node_profile(std::uint32_t id) const {
  // Inclusive per node: the scope and its descendants, over the profile cells of each node.
  std::set<std::uint32_t> subtree;
  std::function<void(std::uint32_t)> collect = [&](std::uint32_t s) {
    if (!subtree.insert(s).second) return;
    if (const auto* st = scope(s))
      for (auto c : st->children) collect(c);
  };
  collect(id);
  std::map<int, NodeProfile> by_node;
  for (int n : node_ids()) by_node[n].node = n;
  for (const auto& n : summary_->nodes) by_node[n.node].finish_ps = n.finish_ps;
  for (const auto& c : summary_->profile)
    if (subtree.contains(c.scope)) by_node[c.node].times[static_cast<std::size_t>(c.category)] += c.time_ps;
  std::vector<NodeProfile> out;
  out.reserve(by_node.size());
  for (auto& [n, p] : by_node) out.push_back(p);
  return out;
}

double Analysis::imbalance(std::uint32_t id) const {
  const auto rows = node_profile(id);
  if (rows.empty()) return 1.0;
  std::int64_t max = 0;
  long double sum = 0;
  for (const auto& r : rows) {
    max = std::max(max, pp_total(r.times));
    sum += pp_total(r.times);
  }
  const long double mean = sum / static_cast<long double>(rows.size());
  return mean > 0 ? static_cast<double>(max / mean) : 1.0;
}

std::vector<std::string> Analysis::files() const {
  std::vector<std::string> out;
  for (const auto& s : summary_->sources) out.push_back(s.file);
  for (const auto& st : scopes())
    if (!st.scope.file.empty() && std::find(out.begin(), out.end(), st.scope.file) == out.end())
      out.push_back(st.scope.file);
  return out;
}

const std::string* Analysis::source_text(const std::string& file) const {
  for (const auto& s : summary_->sources)
    if (s.file == file) return &s.text;
  return nullptr;
}

std::size_t Analysis::line_count(const std::string& file) const {
  std::size_t lines = 0;
  if (const auto* text = source_text(file)) {
    lines = static_cast<std::size_t>(std::count(text->begin(), text->end(), '\n'));
    if (!text->empty() && text->back() != '\n') ++lines;
  }
  for (const auto& st : scopes())
    if (st.scope.file == file && st.scope.end_line > 0)
      lines = std::max(lines, static_cast<std::size_t>(st.scope.end_line));
  // A damaged or hostile file may claim a scope ends on line 2 000 000 000: never allocate for it.
  return std::min(lines, kMaxLines);
}

std::vector<std::int64_t> Analysis::owners(const std::string& file, std::size_t lines) const {
  std::vector<std::int64_t> owner(lines, -1);
  std::vector<const ScopeStats*> in_file;
  for (const auto& st : scopes())
    if (st.scope.file == file && st.scope.begin_line > 0 && !is_line(st.scope) &&
        static_cast<std::size_t>(st.scope.begin_line) <= lines)
      in_file.push_back(&st);
  // Outer scopes first, so that nested ones paint over them; among equals, longer first.
  std::stable_sort(in_file.begin(), in_file.end(), [](const ScopeStats* a, const ScopeStats* b) {
    if (a->depth != b->depth) return a->depth < b->depth;
    return (a->scope.end_line - a->scope.begin_line) > (b->scope.end_line - b->scope.begin_line);
  });
  for (const auto* st : in_file) {
    const auto begin = static_cast<std::size_t>(st->scope.begin_line - 1);
    const auto end =
        std::min(lines, static_cast<std::size_t>(std::max(st->scope.end_line, st->scope.begin_line)));
    for (std::size_t l = begin; l < end; ++l) owner[l] = st->scope.id;
  }
  return owner;
}

// With line attribution (scopes of kind `line`: a program's lines, the typed API's calls), a line
// gets its own time, and a scope's time not on any of its lines goes to its first line (where the
// scope or function begins; not scope 0's: the whole program has no such line). Without it (older
// runs), each scope's exclusive time is spread evenly over its own lines.
std::vector<std::int64_t> Analysis::line_times(const std::string& file) const {
  const std::size_t lines = line_count(file);
  std::vector<std::int64_t> times(lines, 0);
  const bool by_line = std::any_of(scopes().begin(), scopes().end(), [&](const ScopeStats& st) {
    return is_line(st.scope) && st.scope.file == file;
  });
  const auto owner = owners(file, lines);
  std::map<std::int64_t, std::vector<std::size_t>> own_lines;
  for (std::size_t l = 0; l < lines; ++l)
    if (owner[l] >= 0) own_lines[owner[l]].push_back(l);
  for (const auto& st : scopes()) {
    if (st.scope.file != file || st.scope.begin_line <= 0) continue;
    const std::int64_t t = pp_total(st.exclusive);
    if (t <= 0 || (by_line && st.scope.id == 0)) continue;
    const auto it = own_lines.find(st.scope.id);
    if (by_line || it == own_lines.end()) {
      const auto l = static_cast<std::size_t>(st.scope.begin_line - 1);
      if (l < lines) times[l] += t;
      continue;
    }
    // Even shares, the remainder on the first lines: the line times sum to the scope's time.
    const auto& ls = it->second;
    const auto n = static_cast<std::int64_t>(ls.size());
    for (std::size_t k = 0; k < ls.size(); ++k)
      times[ls[k]] += t / n + (static_cast<std::int64_t>(k) < t % n ? 1 : 0);
  }
  return times;
}

const ScopeStats* Analysis::line_scope(const std::string& file, int line) const {
  for (const auto& st : scopes())
    if (is_line(st.scope) && st.scope.begin_line == line && st.scope.file == file) return &st;
  return nullptr;
}

std::int64_t Analysis::innermost_scope_at(const std::string& file, int line) const {
  if (line <= 0) return -1;
  const std::size_t lines = line_count(file);
  if (static_cast<std::size_t>(line) > lines) return -1;
  return owners(file, lines)[static_cast<std::size_t>(line - 1)];
}

const CategoryStyle& Analysis::style(std::size_t index) const {
  static const CategoryStyle unknown{"?", "", "#000000", ""};
  return index < styles_.size() ? styles_[index] : unknown;
}

}  // namespace ncp2::gui
