#include "carnival/scope_tree.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ncp2::carnival {

std::int64_t pp_total(const CategoryTimes& t) { return t[0] + t[1] + t[2] + t[3]; }
std::int64_t cp_total(const CategoryTimes& t) { return t[4] + t[5] + t[6]; }

ScopeTree::ScopeTree(std::span<const Scope> scopes, std::span<const std::int64_t> mentioned) {
  constexpr std::int64_t kUnresolved = -2;
  std::map<std::uint32_t, Scope> described;
  for (const auto& s : scopes) described.emplace(s.id, s);
  for (const std::int64_t id : mentioned) {
    if (id < 0 || described.contains(static_cast<std::uint32_t>(id))) continue;
    Scope s;
    s.id = static_cast<std::uint32_t>(id);
    s.name = fmt::format("scope {}", id);
    s.kind = "unknown";
    s.parent = kUnresolved;
    described.emplace(s.id, s);
  }
  const bool has_root = described.contains(0);
  for (auto& [id, s] : described) {
    if (s.parent == kUnresolved) s.parent = (has_root && id != 0) ? 0 : -1;
    index_[id] = nodes_.size();
    nodes_.push_back({s, 0, {}, {}, {}});
  }
  for (const auto& n : nodes_) {
    const auto parent = n.scope.parent;
    if (parent >= 0 && parent != n.scope.id && index_.contains(static_cast<std::uint32_t>(parent)))
      nodes_[index_.at(static_cast<std::uint32_t>(parent))].children.push_back(n.scope.id);
    else
      roots_.push_back(n.scope.id);
  }
  // Depths from the roots; scopes on a parent cycle are reachable from none: they become roots.
  // Iterative: a damaged file may chain millions of scopes, deeper than any stack.
  std::vector<bool> seen(nodes_.size(), false);
  auto visit = [&](std::uint32_t root) {
    std::vector<std::pair<std::uint32_t, int>> stack{{root, 0}};
    while (!stack.empty()) {
      const auto [id, depth] = stack.back();
      stack.pop_back();
      const auto i = index_.at(id);
      if (seen[i]) continue;
      seen[i] = true;
      nodes_[i].depth = depth;
      for (auto c : nodes_[i].children) stack.emplace_back(c, depth + 1);
    }
  };
  for (auto r : roots_) visit(r);
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (!seen[i]) {
      roots_.push_back(nodes_[i].scope.id);
      visit(nodes_[i].scope.id);
    }
}

void ScopeTree::accumulate(std::span<const ProfileCell> profile, int node_filter) {
  for (const auto& c : profile) {
    if (node_filter >= 0 && c.node != node_filter) continue;
    const auto it = index_.find(c.scope);
    if (it != index_.end()) nodes_[it->second].exclusive[static_cast<std::size_t>(c.category)] += c.time_ps;
  }
  // Inclusive = exclusive + the children's inclusive, along the edges the walk from the roots
  // took (so that a scope of a broken parent cycle is counted once), children before parents.
  // Iterative: a damaged file may chain millions of scopes, deeper than any stack.
  constexpr auto kNone = static_cast<std::size_t>(-1);
  std::vector<std::pair<std::size_t, std::size_t>> preorder;  // (node, parent on the walk)
  std::vector<bool> seen(nodes_.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> stack;
  for (auto r : roots_) stack.emplace_back(index_.at(r), kNone);
  while (!stack.empty()) {
    const auto [i, parent] = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    preorder.emplace_back(i, parent);
    for (auto c : nodes_[i].children) stack.emplace_back(index_.at(c), i);
  }
  for (auto& n : nodes_) n.inclusive = n.exclusive;
  std::for_each(preorder.crbegin(), preorder.crend(), [&](const auto& edge) {
    const auto [node, parent] = edge;
    if (parent != kNone)
      for (std::size_t k = 0; k < kCategories; ++k) nodes_[parent].inclusive[k] += nodes_[node].inclusive[k];
  });
  total_pp_ = 0;
  for (auto r : roots_) total_pp_ += pp_total(find(r)->inclusive);
  auto hotter = [&](std::uint32_t a, std::uint32_t b) {
    const auto ta = pp_total(find(a)->inclusive), tb = pp_total(find(b)->inclusive);
    return ta != tb ? ta > tb : a < b;
  };
  for (auto& n : nodes_) std::sort(n.children.begin(), n.children.end(), hotter);
  std::sort(roots_.begin(), roots_.end(), hotter);
  by_time_.clear();
  for (const auto& n : nodes_) by_time_.push_back(n.scope.id);
  std::sort(by_time_.begin(), by_time_.end(), hotter);
}

const ScopeNode* ScopeTree::find(std::int64_t id) const {
  if (id < 0) return nullptr;
  const auto it = index_.find(static_cast<std::uint32_t>(id));
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

const std::vector<std::uint32_t>& ScopeTree::children(std::uint32_t id) const {
  static const std::vector<std::uint32_t> none;
  const ScopeNode* n = find(id);
  return n ? n->children : none;
}

std::string ScopeTree::name(std::int64_t id) const {
  if (const ScopeNode* n = find(id)) {
    // A line alone ("line 206") does not say where it is: name the scope of code it is in.
    const ScopeNode* parent = n->scope.kind == "line" ? find(n->scope.parent) : nullptr;
    return parent && parent->scope.parent >= 0 ? fmt::format("{}: {}", parent->scope.name, n->scope.name)
                                               : n->scope.name;
  }
  return id < 0 ? std::string("?") : fmt::format("scope {}", id);
}

std::string ScopeTree::location(std::int64_t id) const {
  const ScopeNode* n = find(id);
  if (!n || n->scope.file.empty()) return "";
  const Scope& s = n->scope;
  if (s.begin_line <= 0) return s.file;
  if (s.end_line <= s.begin_line) return fmt::format("{}:{}", s.file, s.begin_line);
  return fmt::format("{}:{}-{}", s.file, s.begin_line, s.end_line);
}

std::string ScopeTree::label(std::int64_t id) const {
  const std::string loc = location(id);
  return loc.empty() ? name(id) : fmt::format("{} ({})", name(id), loc);
}

std::vector<std::int64_t> mentioned_scopes(const RunData& d) {
  std::vector<std::int64_t> ids;
  for (const auto& c : d.profile) ids.push_back(c.scope);
  for (const auto& w : d.waits) {
    ids.push_back(w.scope);
    ids.push_back(w.cause_scope);
  }
  for (const auto& w : d.wait_summary) ids.push_back(w.scope);
  for (const auto& g : d.timeline) ids.push_back(g.scope);
  for (const auto& r : d.races) {
    ids.push_back(r.first.scope);
    ids.push_back(r.second.scope);
  }
  return ids;
}

}  // namespace ncp2::carnival
