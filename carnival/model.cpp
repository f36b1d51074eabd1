#include "carnival/model.hpp"
#include <algorithm>

#include <map>
#include <tuple>

namespace ncp2::carnival {

std::optional<Category> category_from_string(std::string_view name) {
  for (const auto& c : kCategoryTable)
    if (c.name == name) return c.category;
  return std::nullopt;
}

const std::vector<CategoryInfo>& category_catalogue() {
  static const std::vector<CategoryInfo> catalogue = [] {
    std::vector<CategoryInfo> out;
    out.reserve(kCategoryTable.size() + kWaitPartTable.size());
    for (const auto& c : kCategoryTable)
      out.push_back(
          {std::string(c.name), std::string(c.resource), std::string(c.color), std::string(c.description)});
    for (const auto& p : kWaitPartTable)
      out.push_back({std::string(p.name), "WAIT", std::string(p.color), std::string(p.description)});
    return out;
  }();
  return catalogue;
}

std::vector<WaitSummary> summarize(const std::vector<WaitRow>& waits) {
  std::map<std::tuple<int, std::uint32_t, std::string, std::string>, WaitSummary> by_key;
  for (const auto& w : waits) {
    auto& s = by_key[{w.node, w.scope, w.operation, w.kind}];
    s.node = w.node;
    s.scope = w.scope;
    s.operation = w.operation;
    s.kind = w.kind;
    ++s.count;
    s.total_ps += w.duration_ps;
    for (std::size_t i = 0; i < kWaitParts; ++i) s.parts[i] += w.parts[i];
  }
  std::vector<WaitSummary> out;
  out.reserve(by_key.size());
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

std::vector<CPWaitMapRow> cpwait_map(std::span<const WaitSummary> summary, int node) {
  std::map<std::tuple<std::uint32_t, std::string, std::string>, CPWaitMapRow> by_key;
  for (const auto& w : summary) {
    if (node >= 0 && w.node != node) continue;
    auto& r = by_key[{w.scope, w.kind, w.operation}];
    r.scope = w.scope;
    r.kind = w.kind;
    r.operation = w.operation;
    r.count += w.count;
    r.total_ps += w.total_ps;
    for (std::size_t i = 0; i < kWaitParts; ++i) r.parts[i] += w.parts[i];
  }
  std::vector<CPWaitMapRow> rows;
  rows.reserve(by_key.size());
  for (auto& [key, r] : by_key) rows.push_back(std::move(r));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CPWaitMapRow& a, const CPWaitMapRow& b) { return a.total_ps > b.total_ps; });
  return rows;
}

}  // namespace ncp2::carnival
