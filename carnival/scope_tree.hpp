#pragma once
// The scope tree of a run, built and folded once for every reader (`ncp2 report`, the GUI): the
// scopes with their children, depths, and exclusive and inclusive time per category (all nodes
// or one), children and roots ordered by inclusive PP time. Scopes that the data mentions but
// does not describe become "scope N" under the root; scopes on a parent cycle become roots.
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "carnival/model.hpp"

namespace ncp2::carnival {

using CategoryTimes = std::array<std::int64_t, kCategories>;
std::int64_t pp_total(const CategoryTimes& t);  // Comp + Extra + Wait + Prste
std::int64_t cp_total(const CategoryTimes& t);  // CPComp + CPWait + CPIdle

struct ScopeNode {
  Scope scope;
  int depth = 0;                        // 0 for roots
  std::vector<std::uint32_t> children;  // by id until accumulate(), then by inclusive time
  CategoryTimes exclusive{};            // over the selected nodes
  CategoryTimes inclusive{};
};

class ScopeTree {
 public:
  // `mentioned`: every scope id the data refers to (negative ids, "none", are ignored).
  ScopeTree(std::span<const Scope> scopes, std::span<const std::int64_t> mentioned);

  // Adds the profile's times (node_filter < 0: every node, else only that node), sums them up
  // the tree, and orders children, roots and by_time() by inclusive PP time, largest first
  // (ties: the smaller id first). Call once.
  void accumulate(std::span<const ProfileCell> profile, int node_filter = -1);

  [[nodiscard]] const std::vector<ScopeNode>& nodes() const { return nodes_; }  // ids ascending
  [[nodiscard]] const ScopeNode* find(std::int64_t id) const;
  [[nodiscard]] const std::vector<std::uint32_t>& roots() const { return roots_; }
  [[nodiscard]] const std::vector<std::uint32_t>& children(std::uint32_t id) const;
  [[nodiscard]] const std::vector<std::uint32_t>& by_time() const { return by_time_; }  // after accumulate
  [[nodiscard]] std::int64_t total_pp_ps() const { return total_pp_; }                  // after accumulate

  [[nodiscard]] std::string name(
      std::int64_t id) const;  // "scope N" when unknown, "?" for -1; a line: "relax: line 206"
  [[nodiscard]] std::string location(std::int64_t id) const;  // "file:begin-end" or ""
  [[nodiscard]] std::string label(std::int64_t id) const;     // "name (file:begin-end)"

 private:
  std::vector<ScopeNode> nodes_;
  std::map<std::uint32_t, std::size_t> index_;
  std::vector<std::uint32_t> roots_;
  std::vector<std::uint32_t> by_time_;
  std::int64_t total_pp_ = 0;
};

// Every scope id a run's data refers to (profile, waits and their causes, summary, timeline).
std::vector<std::int64_t> mentioned_scopes(const RunData& d);

}  // namespace ncp2::carnival
