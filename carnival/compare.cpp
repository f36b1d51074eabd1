#include "carnival/compare.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "carnival/run_reader.hpp"
#include "carnival/scope_tree.hpp"

namespace ncp2::carnival {

namespace {

// A scope's identity across runs: its ids differ from run to run, its name and lines do not.
using ScopeKey = std::tuple<std::string, std::string, int, int>;  // name, file, begin, end

std::string scope_label(const ScopeKey& k) {
  const auto& [name, file, begin, end] = k;
  if (file.empty()) return name;
  return fmt::format("{} ({}:{}-{})", name, file, begin, end);
}

// Inclusive PP time per scope key, summed over the nodes (several scopes with one key add up).
std::map<ScopeKey, std::int64_t> scope_times(const ComparedRun& r) {
  std::vector<std::int64_t> mentioned;
  mentioned.reserve(r.profile.size());
  for (const auto& c : r.profile) mentioned.push_back(c.scope);
  ScopeTree tree(r.scopes, mentioned);
  tree.accumulate(r.profile);
  std::map<ScopeKey, std::int64_t> out;
  for (const auto& n : tree.nodes())
    out[{n.scope.name, n.scope.file, n.scope.begin_line, n.scope.end_line}] += pp_total(n.inclusive);
  return out;
}

CategoryTimes category_times(const ComparedRun& r) {
  CategoryTimes t{};
  for (const auto& c : r.profile) t[static_cast<std::size_t>(c.category)] += c.time_ps;
  return t;
}

std::map<std::string, std::int64_t> wait_times(const ComparedRun& r) {
  std::map<std::string, std::int64_t> out;
  for (const auto& w : r.wait_summary) out[w.kind + " " + w.operation] += w.total_ps;
  return out;
}

std::array<std::int64_t, kWaitParts> part_times(const ComparedRun& r) {
  std::array<std::int64_t, kWaitParts> t{};
  for (const auto& w : r.wait_summary)
    for (std::size_t p = 0; p < kWaitParts; ++p) t[p] += w.parts[p];
  return t;
}

// Rows of two keyed maps: every key of either, by the larger side, largest first.
template <class Key>
std::vector<CompareRow> keyed_rows(CompareSection section, const std::map<Key, std::int64_t>& a,
                                   const std::map<Key, std::int64_t>& b, std::string (*label)(const Key&)) {
  std::vector<CompareRow> rows;
  for (const auto& [key, t] : a) {
    CompareRow row{section, label(key), t, std::nullopt};
    if (auto it = b.find(key); it != b.end()) row.b_ps = it->second;
    rows.push_back(std::move(row));
  }
  for (const auto& [key, t] : b)
    if (!a.contains(key)) rows.push_back({section, label(key), std::nullopt, t});
  std::stable_sort(rows.begin(), rows.end(), [](const CompareRow& x, const CompareRow& y) {
    return std::max(x.a_ps.value_or(0), x.b_ps.value_or(0)) >
           std::max(y.a_ps.value_or(0), y.b_ps.value_or(0));
  });
  return rows;
}

std::string same_text(const std::string& s) { return s; }

std::int64_t pp_sum(const CategoryTimes& t) { return pp_total(t); }

void add_notes(Comparison& c, const ComparedRun& a, const ComparedRun& b) {
  if (!c.same_program)
    c.notes.push_back(fmt::format(
        "A runs {} and B runs {}: different programs. Only the scopes with the same name, file and lines are "
        "compared ({} matched, {} only in A, {} only in B); categories and waits are compared as totals.",
        a.run.workload, b.run.workload, c.scopes_matched, c.scopes_only_a, c.scopes_only_b));
  else if (c.scopes_only_a + c.scopes_only_b > 0)
    c.notes.push_back(
        fmt::format("{} scopes are only in A and {} only in B (shown with '-' on the other side).",
                    c.scopes_only_a, c.scopes_only_b));
  if (a.run.nodes != b.run.nodes)
    c.notes.push_back(
        fmt::format("A has {} nodes and B {}: times are summed over the nodes.", a.run.nodes, b.run.nodes));
  if (c.same_program && a.run.parameters != b.run.parameters)
    c.notes.push_back(
        fmt::format("The parameters differ: A {} and B {}.", a.run.parameters, b.run.parameters));
  for (const auto* side : {&a, &b})
    if (side->run.status != "complete")
      c.notes.push_back(fmt::format("{}'s run is {}: its times cover only the part that ran.",
                                    side == &a ? "A" : "B", side->run.status));
}

}  // namespace

std::string compare_scope_label(const Scope& s) {
  return scope_label({s.name, s.file, s.begin_line, s.end_line});
}

std::string_view to_string(CompareSection s) {
  switch (s) {
    case CompareSection::Run:
      return "run";
    case CompareSection::Scope:
      return "scope";
    case CompareSection::Category:
      return "category";
    case CompareSection::Wait:
      return "wait";
    case CompareSection::Part:
      return "part";
  }
  return "?";
}

std::optional<double> CompareRow::ratio() const {
  if (!a_ps || !b_ps || *a_ps == 0) return std::nullopt;
  return static_cast<double>(*b_ps) / static_cast<double>(*a_ps);
}

ComparedRun read_compared_run(const std::string& path) {
  const RunReader reader(path);
  ComparedRun r;
  r.path = path;
  r.run = reader.run();
  r.scopes = reader.scopes();
  r.profile = reader.profile_by_scope();
  r.wait_summary = reader.wait_summary();
  return r;
}

Comparison compare_runs(const ComparedRun& a, const ComparedRun& b) {
  Comparison c;
  c.a_path = a.path;
  c.b_path = b.path;
  c.a = a.run;
  c.b = b.run;
  c.same_program = a.run.workload == b.run.workload;

  const auto cat_a = category_times(a);
  const auto cat_b = category_times(b);
  const auto waits_a = wait_times(a);
  const auto waits_b = wait_times(b);
  auto total_wait = [](const std::map<std::string, std::int64_t>& m) {
    std::int64_t s = 0;
    for (const auto& kv : m) s += kv.second;
    return s;
  };
  c.rows.push_back({CompareSection::Run, "virtual time", a.run.virtual_time_ps, b.run.virtual_time_ps});
  c.rows.push_back({CompareSection::Run, "PP time (all nodes)", pp_sum(cat_a), pp_sum(cat_b)});
  c.rows.push_back(
      {CompareSection::Run, "waiting time (all nodes)", total_wait(waits_a), total_wait(waits_b)});

  const auto scopes_a = scope_times(a);
  const auto scopes_b = scope_times(b);
  for (const auto& row : keyed_rows<ScopeKey>(CompareSection::Scope, scopes_a, scopes_b, scope_label)) {
    if (row.a_ps && row.b_ps)
      ++c.scopes_matched;
    else if (row.a_ps)
      ++c.scopes_only_a;
    else
      ++c.scopes_only_b;
    c.rows.push_back(row);
  }
  for (std::size_t i = 0; i < kCategories; ++i)
    c.rows.push_back({CompareSection::Category, std::string(kCategoryTable[i].name), cat_a[i], cat_b[i]});
  for (auto& row : keyed_rows<std::string>(CompareSection::Wait, waits_a, waits_b, same_text))
    c.rows.push_back(std::move(row));
  const auto parts_a = part_times(a);
  const auto parts_b = part_times(b);
  for (std::size_t p = 0; p < kWaitParts; ++p)
    c.rows.push_back({CompareSection::Part, std::string(kWaitPartTable[p].name), parts_a[p], parts_b[p]});
  add_notes(c, a, b);
  return c;
}

}  // namespace ncp2::carnival
