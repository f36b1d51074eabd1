#include "gui/profile_map_model.hpp"

#include <algorithm>
#include <array>
#include <functional>

namespace ncp2::gui {

using namespace cells;  // NOLINT(google-build-using-namespace): the models' shared cell helpers

std::vector<NestedRow> nested_rows(const Analysis& a, int limit) {
  const auto& by_time = a.scopes_by_time();
  const auto kept = limit > 0 ? std::min(by_time.size(), static_cast<std::size_t>(limit)) : by_time.size();
  std::set<std::uint32_t> shown;
  for (std::size_t i = 0; i < kept; ++i) {
    // The scope and every ancestor: a row is never shown without its parent.
    for (const ScopeStats* st = a.scope(by_time[i]); st && shown.insert(st->scope.id).second;)
      st = a.scope(st->scope.parent);
  }
  std::vector<NestedRow> rows;
  std::vector<std::uint32_t> path;
  std::function<void(std::uint32_t)> visit = [&](std::uint32_t id) {
    const ScopeStats* st = a.scope(id);
    if (!st || !shown.contains(id)) return;
    path.push_back(id);
    NestedRow row{.scope = id, .depth = static_cast<int>(path.size()) - 1, .path = path};
    row.has_children = std::any_of(st->children.begin(), st->children.end(),
                                   [&](std::uint32_t c) { return shown.contains(c); });
    rows.push_back(std::move(row));
    for (auto child : st->children) visit(child);
    path.pop_back();
  };
  for (auto root : a.roots()) visit(root);
  return rows;
}

// --- ProfileMapModel -------------------------------------------------------------------------

void ProfileMapModel::set_analysis(std::shared_ptr<const Analysis> a) {
  beginResetModel();
  // Folds stay while the same run is shown (another node filter), not for another file.
  if (!a || !a_ || a->summary_ptr() != a_->summary_ptr()) folded_.clear();
  a_ = std::move(a);
  rebuild();
  endResetModel();
}

void ProfileMapModel::rebuild() {
  rows_ = a_ ? nested_rows(*a_, limit()) : std::vector<NestedRow>{};
  row_of_.clear();
  for (std::size_t i = 0; i < rows_.size(); ++i) row_of_[rows_[i].scope] = static_cast<int>(i);
}

int ProfileMapModel::total() const { return a_ ? static_cast<int>(a_->scopes_by_time().size()) : 0; }

int ProfileMapModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ProfileMapModel::row_of_scope(std::int64_t id) const {
  if (id < 0) return -1;
  const auto it = row_of_.find(static_cast<std::uint32_t>(id));
  return it == row_of_.end() ? -1 : it->second;
}

void ProfileMapModel::toggle_fold(std::uint32_t scope) {
  const int row = row_of_scope(scope);
  if (row < 0 || !rows_[static_cast<std::size_t>(row)].has_children) return;
  if (!folded_.erase(scope)) folded_.insert(scope);
  emit dataChanged(index(row, Scope), index(row, Scope), {roles::Fold});
  emit folding_changed();
}

bool ProfileMapModel::hidden_by_fold(int row) const {
  if (row < 0 || row >= rowCount()) return false;
  const auto& path = rows_[static_cast<std::size_t>(row)].path;
  return std::any_of(path.begin(), path.end() - 1, [&](std::uint32_t id) { return folded_.contains(id); });
}

int ProfileMapModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileMapModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static constexpr std::array names = {"Scope", "Profile", "Time", "%", "Dominant", "Location"};
  return section >= 0 && section < ColumnCount ? QString(names[static_cast<std::size_t>(section)])
                                               : QVariant();
}

QVariant ProfileMapModel::sort_key(std::uint32_t scope, int column) const {
  const ScopeStats* st = a_ ? a_->scope(scope) : nullptr;
  if (!st) return {};
  switch (column) {
    case Scope:
      return QString::fromStdString(st->scope.name);
    case Location:
      return QString::fromStdString(a_->scope_location(scope));
    case Dominant:
      return static_cast<int>(a_->dominant_category(scope));
    default:
      return QVariant::fromValue<qlonglong>(pp_total(st->inclusive));
  }
}

QVariant ProfileMapModel::data(const QModelIndex& index, int role) const {
  if (!a_ || !index.isValid() || index.row() >= rowCount()) return {};
  const NestedRow& row = rows_[static_cast<std::size_t>(index.row())];
  const auto id = row.scope;
  const ScopeStats& st = *a_->scope(id);
  const auto incl = pp_total(st.inclusive);
  const auto col = index.column();
  const std::span<const std::int64_t> pp(st.inclusive.data(), 4);
  const auto dominant = static_cast<std::size_t>(a_->dominant_category(id));
  switch (role) {
    case Qt::DisplayRole:
      switch (col) {
        case Scope:
          return QString::fromStdString(st.scope.name);
        case Location:
          return QString::fromStdString(a_->scope_location(id));
        case Time:
          return time_text(incl);
        case Percent:
          return percent_text(share(incl, a_->total_pp_ps()));
        case Dominant:
          return incl > 0 ? QString::fromStdString(a_->style(dominant).name) : QString();
        default:
          return {};
      }
    case roles::Sort:
      return sort_key(id, col);
    case roles::Depth:
      return col == Scope ? QVariant(row.depth) : QVariant();
    case roles::Fold:
      return col == Scope ? QVariant(row.has_children ? static_cast<int>(is_folded(id)) : -1) : QVariant();
    case Qt::TextAlignmentRole:
      return col == Time || col == Percent ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      return QStringLiteral("<b>%1</b> (%2)<br>inclusive %3 (%4 of the PP time), exclusive %5%6")
          .arg(QString::fromStdString(st.scope.name), QString::fromStdString(st.scope.kind), time_text(incl),
               percent_text(share(incl, a_->total_pp_ps())), time_text(pp_total(st.exclusive)),
               breakdown(*a_, 0, pp, incl));
    case Qt::DecorationRole:
      return col == Dominant && incl > 0 ? QVariant(category_color(*a_, dominant)) : QVariant();
    case roles::ScopeId:
      return QVariant::fromValue<qint64>(id);
    case roles::BarValues:
      return col == Profile ? values_of(pp) : QVariant();
    case roles::BarColors:
      return col == Profile ? colors_of(*a_, 0, 4) : QVariant();
    case roles::BarScale:
      return col == Profile ? fraction(incl, a_->total_pp_ps()) : QVariant();
    default:
      return {};
  }
}

// --- NestingSortProxy ------------------------------------------------------------------------

NestingSortProxy::NestingSortProxy(ProfileMapModel* model, QObject* parent)
    : QSortFilterProxyModel(parent), model_(model) {
  setSourceModel(model);
  setSortRole(roles::Sort);
  connect(model, &ProfileMapModel::folding_changed, this, [this] { invalidateRowsFilter(); });
}

bool NestingSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const auto& a = model_->rows()[static_cast<std::size_t>(left.row())].path;
  const auto& b = model_->rows()[static_cast<std::size_t>(right.row())].path;
  if (a == b) return false;
  const auto [in_a, in_b] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  // The proxy reverses the comparison for a descending order: an ancestor comes first in both.
  const bool descending = sortOrder() == Qt::DescendingOrder;
  if (in_a == a.end()) return !descending;  // left is an ancestor of right
  if (in_b == b.end()) return descending;   // right is an ancestor of left
  const QVariant key_a = model_->sort_key(*in_a, left.column());
  const QVariant key_b = model_->sort_key(*in_b, left.column());
  const auto order = QVariant::compare(key_a, key_b);
  if (order == QPartialOrdering::Equivalent || order == QPartialOrdering::Unordered)
    return descending ? *in_a > *in_b : *in_a < *in_b;  // ties: the smaller id first
  return order == QPartialOrdering::Less;
}

bool NestingSortProxy::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  return !source_parent.isValid() && !model_->hidden_by_fold(source_row);
}

// --- ScopeNodeMatrixModel --------------------------------------------------------------------

namespace {

// Inclusive times per scope and node: each scope's own cells, then its descendants' added in.
std::unordered_map<std::uint32_t, std::vector<CategoryTimes>> inclusive_by_node(
    const Analysis& a, const std::vector<int>& nodes) {
  std::unordered_map<int, std::size_t> column;
  for (std::size_t i = 0; i < nodes.size(); ++i) column[nodes[i]] = i;
  std::unordered_map<std::uint32_t, std::vector<CategoryTimes>> times;
  for (const auto& st : a.scopes()) times[st.scope.id].assign(nodes.size(), CategoryTimes{});
  for (const auto& cell : a.summary().profile) {
    const auto scope = times.find(cell.scope);
    const auto node = column.find(cell.node);
    if (scope == times.end() || node == column.end()) continue;
    scope->second[node->second][static_cast<std::size_t>(cell.category)] += cell.time_ps;
  }
  std::function<void(std::uint32_t)> add_children = [&](std::uint32_t id) {
    const ScopeStats* st = a.scope(id);
    if (!st) return;
    for (auto child : st->children) {
      add_children(child);
      for (std::size_t n = 0; n < nodes.size(); ++n)
        for (std::size_t c = 0; c < kCategories; ++c) times[id][n][c] += times[child][n][c];
    }
  };
  for (auto root : a.roots()) add_children(root);
  return times;
}

}  // namespace

void ScopeNodeMatrixModel::set_analysis(std::shared_ptr<const Analysis> a) {
  beginResetModel();
  // Every node's times whatever the filter: the rows stay put when a cell picks a node.
  a_ = a && a->node_filter() >= 0 ? std::make_shared<const Analysis>(a->summary_ptr(), -1) : std::move(a);
  rows_ = a_ ? nested_rows(*a_, 0) : std::vector<NestedRow>{};
  nodes_ = a_ ? a_->node_ids() : std::vector<int>{};
  times_.clear();
  row_max_pp_.clear();
  if (a_) {
    auto all = inclusive_by_node(*a_, nodes_);
    for (const auto& row : rows_) {
      times_.push_back(std::move(all[row.scope]));
      std::int64_t busiest = 0;
      for (const auto& t : times_.back()) busiest = std::max(busiest, pp_total(t));
      row_max_pp_.push_back(busiest);
    }
  }
  endResetModel();
}

int ScopeNodeMatrixModel::row_of_scope(std::int64_t id) const {
  const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const NestedRow& r) { return r.scope == id; });
  return it == rows_.end() ? -1 : static_cast<int>(it - rows_.begin());
}

int ScopeNodeMatrixModel::column_of_node(int node) const {
  const auto it = std::find(nodes_.begin(), nodes_.end(), node);
  return it == nodes_.end() ? -1 : static_cast<int>(it - nodes_.begin()) + 1;
}

int ScopeNodeMatrixModel::node_of_column(int column) const {
  return column >= 1 && column <= static_cast<int>(nodes_.size())
             ? nodes_[static_cast<std::size_t>(column - 1)]
             : -1;
}

const CategoryTimes& ScopeNodeMatrixModel::times(int row, int column) const {
  return times_.at(static_cast<std::size_t>(row)).at(static_cast<std::size_t>(column - 1));
}

int ScopeNodeMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ScopeNodeMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || !a_ ? 0 : static_cast<int>(nodes_.size()) + 1;
}

QVariant ScopeNodeMatrixModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (section == 0) {
    if (role == Qt::DisplayRole) return QStringLiteral("Scope");
    return role == Qt::ToolTipRole ? QVariant(QStringLiteral("Click: the times of all nodes")) : QVariant();
  }
  const int node = node_of_column(section);
  if (node < 0) return {};
  if (role == Qt::DisplayRole) return QString::number(node);
  if (role == Qt::ToolTipRole) return QStringLiteral("node %1 (click: this node's times only)").arg(node);
  return {};
}

QVariant ScopeNodeMatrixModel::data(const QModelIndex& index, int role) const {
  if (!a_ || !index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const NestedRow& row = rows_[static_cast<std::size_t>(index.row())];
  if (role == roles::ScopeId) return QVariant::fromValue<qint64>(row.scope);
  if (index.column() > 0) return node_cell(index.row(), index.column(), role);
  switch (role) {
    case Qt::DisplayRole:
      return QString::fromStdString(a_->scope_name(row.scope));
    case Qt::ToolTipRole:
      return QString::fromStdString(a_->scope_name(row.scope) + " " + a_->scope_location(row.scope));
    case roles::Depth:
      return row.depth;
    case roles::Node:
      return -1;
    default:
      return {};
  }
}

QVariant ScopeNodeMatrixModel::node_cell(int row, int column, int role) const {
  const CategoryTimes& t = times(row, column);
  const std::span<const std::int64_t> pp(t.data(), 4);
  const auto pp_time = pp_total(t);
  const NestedRow& r = rows_[static_cast<std::size_t>(row)];
  switch (role) {
    case roles::Node:
      return node_of_column(column);
    case roles::BarValues:
      return values_of(pp);
    case roles::BarColors:
      return colors_of(*a_, 0, 4);
    case roles::BarScale:
      return fraction(pp_time, row_max_pp_[static_cast<std::size_t>(row)]);
    case Qt::ToolTipRole: {
      const auto cp = std::span<const std::int64_t>(t).subspan(4);
      QString text = QStringLiteral("<b>%1</b> on node %2: PP %3 (%4 of its busiest node)%5")
                         .arg(QString::fromStdString(a_->scope_name(r.scope)).toHtmlEscaped())
                         .arg(node_of_column(column))
                         .arg(time_text(pp_time),
                              percent_text(share(pp_time, row_max_pp_[static_cast<std::size_t>(row)])),
                              breakdown(*a_, 0, pp, pp_time));
      if (a_->has_cp() && cp_total(t) > 0)
        text += QStringLiteral("<br>CP %1%2").arg(time_text(cp_total(t)), breakdown(*a_, 4, cp, cp_total(t)));
      return text;
    }
    default:
      return {};
  }
}

}  // namespace ncp2::gui
