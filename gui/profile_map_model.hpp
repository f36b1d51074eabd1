#pragma once
// The Profile Map's models: the scopes in their nesting (each under its parent, indented by
// depth, foldable), a proxy that sorts them within each level, and the scopes x nodes matrix.
// The nesting is the vertical bars of the source view condensed, the bars the horizontal ones.
#include <cstdint>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include <QSortFilterProxyModel>

#include "gui/models.hpp"

namespace ncp2::gui {

// One row of a nested list: a scope, its depth, and its ancestors (root first, itself last).
struct NestedRow {
  std::uint32_t scope = 0;
  int depth = 0;
  std::vector<std::uint32_t> path;
  bool has_children = false;  // among the rows shown
};

// Depth first from the roots, children by inclusive time (the analysis's order), keeping the
// first `limit` scopes of scopes_by_time() (<= 0: all) and their ancestors: a parent's time is at
// least its child's, so the kept set is nearly always closed, and ancestors make it so.
std::vector<NestedRow> nested_rows(const Analysis& a, int limit);

// The Profile Map: every scope with time, under its parent. The % of the children of a scope
// add up to at most the scope's own.
class ProfileMapModel : public LimitedTableModel {
  Q_OBJECT
 public:
  enum Column { Scope, Profile, Time, Percent, Dominant, Location, ColumnCount };
  using LimitedTableModel::LimitedTableModel;
  void set_analysis(std::shared_ptr<const Analysis> a);
  [[nodiscard]] int row_of_scope(std::int64_t id) const;  // -1 when not shown
  [[nodiscard]] const std::vector<NestedRow>& rows() const { return rows_; }
  // The value a column sorts by, for a scope (roles::Sort of its row).
  [[nodiscard]] QVariant sort_key(std::uint32_t scope, int column) const;

  // Folding hides a scope's descendants (the proxy filters them out).
  [[nodiscard]] bool is_folded(std::uint32_t scope) const { return folded_.contains(scope); }
  void toggle_fold(std::uint32_t scope);
  [[nodiscard]] bool hidden_by_fold(int row) const;  // an ancestor of the row is folded

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 signals:
  void folding_changed();

 protected:
  [[nodiscard]] int total() const override;
  void limit_applied() override { rebuild(); }

 private:
  void rebuild();
  std::shared_ptr<const Analysis> a_;
  std::vector<NestedRow> rows_;
  std::unordered_map<std::uint32_t, int> row_of_;
  std::set<std::uint32_t> folded_;
};

// Sorts a nested list within each level: a scope stays under its parent, siblings are ordered by
// the column (ties: the smaller id first), whichever the order; folded subtrees are filtered out.
class NestingSortProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit NestingSortProxy(ProfileMapModel* model, QObject* parent = nullptr);

 protected:
  [[nodiscard]] bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
  [[nodiscard]] bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  ProfileMapModel* model_;
};

// Scopes x processors: one row per scope (nested as in the map), one column per node. A cell is
// the scope's inclusive PP time on the node split into the PP categories, its length against the
// scope's busiest node (so a row shows the imbalance); the tooltip has the times.
class ScopeNodeMatrixModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void set_analysis(std::shared_ptr<const Analysis> a);
  [[nodiscard]] int row_of_scope(std::int64_t id) const;  // -1 when not shown
  [[nodiscard]] int column_of_node(int node) const;       // -1 when none
  [[nodiscard]] int node_of_column(int column) const;     // -1 for the scope column
  // The scope's inclusive time on a node, by category (all nodes, whatever the filter).
  [[nodiscard]] const CategoryTimes& times(int row, int column) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  [[nodiscard]] QVariant node_cell(int row, int column, int role) const;
  std::shared_ptr<const Analysis> a_;
  std::vector<NestedRow> rows_;
  std::vector<int> nodes_;
  std::vector<std::vector<CategoryTimes>> times_;  // [row][node column - 1]
  std::vector<std::int64_t> row_max_pp_;           // the busiest node's PP time, per row
};

}  // namespace ncp2::gui
