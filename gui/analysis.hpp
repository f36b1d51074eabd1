#pragma once
// What the views show, computed from a RunSummary without Qt: the scope tree with exclusive and
// inclusive time per category (for the selected nodes), each source line's share of the time,
// the CPWait Map rows, the Profile Map order, a scope's profile per node; and the small
// numeric helpers the painting relies on (gray shading maps, bars split into whole pixels).
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "carnival/scope_tree.hpp"
#include "gui/run_database.hpp"

namespace ncp2::gui {

using carnival::Category;
using carnival::CategoryTimes;
using carnival::cp_total;  // CPComp + CPWait + CPIdle
using carnival::kCategories;
using carnival::kWaitParts;
using carnival::pp_total;  // Comp + Extra + Wait + Prste
using PartTimes = std::array<std::int64_t, kWaitParts>;

// --- shading ---------------------------------------------------------------------------------

// How a share of time becomes a gray: linear shows the few hot spots, sqrt and log lift the
// small values so that lukewarm code stays visible.
enum class Shading { Linear, Sqrt, Log };
const char* to_string(Shading s);
std::optional<Shading> shading_from_string(const std::string& name);

// 0 (no time) .. 1 (value == max), monotonic in value; 0 when max <= 0.
double shade_intensity(double value, double max, Shading mapping);
// The gray level of an intensity: 255 (white, no time) down to kDarkestGray (the maximum).
inline constexpr int kDarkestGray = 48;
int gray_level(double intensity);

// Splits `pixels` among `values` in proportion (largest remainders): the widths sum to `pixels`
// exactly when any value is positive, and each differs from its exact share by less than 1.
std::vector<int> partition(std::span<const std::int64_t> values, int pixels);

// --- the analysis ----------------------------------------------------------------------------

// A scope with its children (by inclusive time, largest first), depth, and exclusive and
// inclusive times over the selected nodes: carnival's one scope tree (carnival/scope_tree.hpp).
using ScopeStats = carnival::ScopeNode;

struct CPWaitRow {
  std::uint32_t scope = 0;
  std::string kind;  // "Wait" | "CPWait"
  std::string operation;
  std::uint64_t count = 0;
  std::int64_t total_ps = 0;
  PartTimes parts{};
  double percent = 0;             // of all waiting time (selected nodes)
  double cumulative_percent = 0;  // over the rows by time, largest first
};

struct NodeProfile {
  int node = 0;
  CategoryTimes times{};  // the scope's inclusive time on this node
  std::int64_t finish_ps = 0;
};

class Analysis {
 public:
  // The most lines a file is shown with (scopes claiming lines beyond are cut there).
  static constexpr std::size_t kMaxLines = 1'000'000;

  // node_filter < 0: all nodes; else only that node's times.
  explicit Analysis(std::shared_ptr<const RunSummary> summary, int node_filter = -1);

  [[nodiscard]] const RunSummary& summary() const { return *summary_; }
  [[nodiscard]] std::shared_ptr<const RunSummary> summary_ptr() const { return summary_; }
  [[nodiscard]] int node_filter() const { return node_filter_; }
  [[nodiscard]] std::vector<int> node_ids() const;

  // Total PP time of the selected nodes (100 % for every share below).
  [[nodiscard]] std::int64_t total_pp_ps() const { return tree_.total_pp_ps(); }
  [[nodiscard]] std::int64_t total_wait_ps() const { return total_wait_; }

  [[nodiscard]] const std::vector<ScopeStats>& scopes() const { return tree_.nodes(); }  // ids ascending
  [[nodiscard]] const ScopeStats* scope(std::int64_t id) const { return tree_.find(id); }
  [[nodiscard]] const ScopeStats* scope_by_name(const std::string& name) const;
  [[nodiscard]] const std::vector<std::uint32_t>& roots() const { return tree_.roots(); }
  // "scope N" when unknown, "?" for -1
  [[nodiscard]] std::string scope_name(std::int64_t id) const { return tree_.name(id); }
  // "file:begin-end" or ""
  [[nodiscard]] std::string scope_location(std::int64_t id) const { return tree_.location(id); }
  // The PP category with the most inclusive time.
  [[nodiscard]] Category dominant_category(std::uint32_t id) const;
  // Scopes by inclusive PP time, largest first (the Profile Map).
  // Scopes without time on the selected nodes are left out (a 1-node run would list zeros).
  [[nodiscard]] const std::vector<std::uint32_t>& scopes_by_time() const { return by_time_; }
  // Whether the machine has protocol controllers: false on TreadMarks (or when no CP time at
  // all was recorded), and then the views leave the CP categories out.
  [[nodiscard]] bool has_cp() const { return has_cp_; }
  // The scope's inclusive time on each node (all nodes, whatever the filter), and its imbalance:
  // the largest node PP time over the mean (1.0 = balanced).
  [[nodiscard]] std::vector<NodeProfile> node_profile(std::uint32_t id) const;
  [[nodiscard]] double imbalance(std::uint32_t id) const;

  // Files with source text or scopes, sources first.
  [[nodiscard]] std::vector<std::string> files() const;
  [[nodiscard]] const std::string* source_text(const std::string& file) const;
  // PP time on each line of `file` (index 0 is line 1), over max(text lines, scope ends) lines.
  // A run with line attribution (scopes of kind `line`) gives each line its own time and the
  // rest of a scope's (not scope 0's) to the scope's first line. Older runs: a scope's exclusive
  // time is spread evenly over its own lines (its extent minus those of the scopes nested in it
  // in the same file); a scope with no own line puts it on its first line.
  [[nodiscard]] std::vector<std::int64_t> line_times(const std::string& file) const;
  // A scope of one source line (kind `line`): shades its line, has no bar of its own.
  [[nodiscard]] static bool is_line(const carnival::Scope& s) { return s.kind == "line"; }
  // The line scope of `line` in `file`, or null (no time was attributed to that line).
  [[nodiscard]] const ScopeStats* line_scope(const std::string& file, int line) const;
  // The innermost scope of code (not a line scope) whose extent holds the line, or -1.
  [[nodiscard]] std::int64_t innermost_scope_at(const std::string& file, int line) const;

  [[nodiscard]] const std::vector<CPWaitRow>& cpwait_rows() const { return cpwait_; }  // by time
  // A CPWait Map row per node (the selected ones): its waits and their time, longest first.
  struct NodeWaits {
    int node = 0;
    std::uint64_t count = 0;
    std::int64_t total_ps = 0;
  };
  [[nodiscard]] std::vector<NodeWaits> cpwait_by_node(const CPWaitRow& row) const;

  // Colours and words of the categories: index = Category for the 7 profile categories,
  // 7 + WaitPart for the 9 parts.
  [[nodiscard]] const CategoryStyle& style(std::size_t index) const;

 private:
  void build_cpwait();
  [[nodiscard]] std::vector<std::int64_t> owners(const std::string& file, std::size_t lines) const;
  [[nodiscard]] std::size_t line_count(const std::string& file) const;

  std::shared_ptr<const RunSummary> summary_;
  int node_filter_ = -1;
  carnival::ScopeTree tree_;
  std::int64_t total_wait_ = 0;
  std::vector<CPWaitRow> cpwait_;
  std::vector<std::uint32_t> by_time_;
  bool has_cp_ = true;
  std::vector<CategoryStyle> styles_;  // the run's, renamed for a machine without CP
  void rename_parts_without_cp();
};

}  // namespace ncp2::gui
