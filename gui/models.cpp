#include "gui/models.hpp"

#include <algorithm>
#include <array>

#include "carnival/report.hpp"

namespace ncp2::gui {

// A bare "0" in a column of times reads as a count: the GUI says "0 s".
QString time_text(std::int64_t ps) {
  return ps == 0 ? QStringLiteral("0 s") : QString::fromStdString(carnival::format_ps(ps));
}

QString percent_text(double p) { return QStringLiteral("%1 %").arg(p, 0, 'f', 1); }

QColor category_color(const Analysis& a, std::size_t index) {
  QColor c(QString::fromStdString(a.style(index).color));
  return c.isValid() ? c : QColor(Qt::black);
}

namespace cells {

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

double fraction(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? std::clamp(static_cast<double>(part) / static_cast<double>(whole), 0.0, 1.0) : 0.0;
}

QVariantList values_of(std::span<const std::int64_t> v) {
  QVariantList out;
  for (auto x : v) out.push_back(QVariant::fromValue<qlonglong>(x));
  return out;
}

QVariantList colors_of(const Analysis& a, std::size_t first, std::size_t count) {
  QVariantList out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(category_color(a, first + i));
  return out;
}

// "Comp 1.23 ms (45.6 %)" lines for a tooltip.
QString breakdown(const Analysis& a, std::size_t first, std::span<const std::int64_t> values,
                  std::int64_t whole) {
  QString text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] == 0) continue;
    text += QStringLiteral("<br>%1: %2 (%3)")
                .arg(QString::fromStdString(a.style(first + i).name), time_text(values[i]),
                     percent_text(share(values[i], whole)));
  }
  return text;
}

}  // namespace cells

using namespace cells;  // NOLINT(google-build-using-namespace): the helpers of every model here

namespace {

// "update (phases.cpp:99-109)": the file's name without its directories (the tooltip has it all).
QString location_label(const Analysis& a, std::int64_t scope) {
  std::string loc = a.scope_location(scope);
  if (const auto slash = loc.rfind('/'); slash != std::string::npos) loc = loc.substr(slash + 1);
  return QString::fromStdString(a.scope_name(scope) + (loc.empty() ? "" : " (" + loc + ")"));
}

constexpr std::size_t kFirstPart = kCategories;  // Analysis::style index of the first wait part

// The row's drill-down by node, for its tooltip: "by node: 3: 2.10 ms (10 waits), …".
QString by_node_text(const Analysis& a, const CPWaitRow& row) {
  const auto nodes = a.cpwait_by_node(row);
  if (nodes.size() < 2) return {};
  QStringList parts;
  for (const auto& n : nodes)
    parts << QStringLiteral("%1: %2 (%3 waits)").arg(n.node).arg(time_text(n.total_ps)).arg(n.count);
  return QStringLiteral("<br><b>by node</b>: ") + parts.join(QStringLiteral(", "));
}

}  // namespace

// --- LimitedTableModel -----------------------------------------------------------------------

int LimitedTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  const int n = total();
  return limit_ > 0 ? std::min(n, limit_) : n;
}

void LimitedTableModel::set_limit(int limit) {
  beginResetModel();
  limit_ = limit;
  limit_applied();
  endResetModel();
  emit limit_changed();
}

// --- CPWaitMapModel --------------------------------------------------------------------------

void CPWaitMapModel::set_analysis(std::shared_ptr<const Analysis> a) {
  beginResetModel();
  a_ = std::move(a);
  endResetModel();
}

int CPWaitMapModel::total() const { return a_ ? static_cast<int>(a_->cpwait_rows().size()) : 0; }

const CPWaitRow* CPWaitMapModel::row_at(int row) const {
  if (!a_ || row < 0 || row >= rowCount()) return nullptr;
  return &a_->cpwait_rows()[static_cast<std::size_t>(row)];
}

int CPWaitMapModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CPWaitMapModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static constexpr std::array names = {"Location", "Category", "Operation", "Count",
                                       "Profile",  "Time",     "%",         "Cum. %"};
  return section >= 0 && section < ColumnCount ? QString(names[static_cast<std::size_t>(section)])
                                               : QVariant();
}

QVariant CPWaitMapModel::data(const QModelIndex& index, int role) const {
  const CPWaitRow* r = index.isValid() ? row_at(index.row()) : nullptr;
  if (!r) return {};
  const auto col = index.column();
  switch (role) {
    case Qt::DisplayRole:
      switch (col) {
        case Location:
          return location_label(*a_, r->scope);
        case Kind:
          return QString::fromStdString(r->kind);
        case Operation:
          return QString::fromStdString(r->operation);
        case Count:
          return QVariant::fromValue<qulonglong>(r->count);
        case Time:
          return time_text(r->total_ps);
        case Percent:
          return percent_text(r->percent);
        case Cumulative:
          return percent_text(r->cumulative_percent);
        default:
          return {};
      }
    case roles::Sort:
      switch (col) {
        case Location:
          return QString::fromStdString(a_->scope_name(r->scope));
        case Kind:
          return QString::fromStdString(r->kind);
        case Operation:
          return QString::fromStdString(r->operation);
        case Count:
          return QVariant::fromValue<qulonglong>(r->count);
        case Profile:
        case Time:
        case Percent:
          return QVariant::fromValue<qlonglong>(r->total_ps);
        case Cumulative:
          return r->cumulative_percent;
        default:
          return {};
      }
    case Qt::TextAlignmentRole:
      return col >= Count && col != Profile ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      return QStringLiteral("<b>%1</b> · %2 · %3<br>%4 waits, %5 (%6 of all waiting time)%7%8")
          .arg(QString::fromStdString(a_->scope_name(r->scope) + " " + a_->scope_location(r->scope)),
               QString::fromStdString(r->kind), QString::fromStdString(r->operation))
          .arg(r->count)
          .arg(time_text(r->total_ps), percent_text(r->percent),
               breakdown(*a_, kFirstPart, r->parts, r->total_ps), by_node_text(*a_, *r));
    case roles::ScopeId:
      return QVariant::fromValue<qint64>(r->scope);
    case roles::BarValues:
      return col == Profile ? values_of(r->parts) : QVariant();
    case roles::BarColors:
      return col == Profile ? colors_of(*a_, kFirstPart, kWaitParts) : QVariant();
    case roles::BarScale: {
      const auto first = a_->cpwait_rows().front().total_ps;  // the largest
      return col == Profile ? fraction(r->total_ps, first) : QVariant();
    }
    default:
      return {};
  }
}

// --- ScopeProfileModel -----------------------------------------------------------------------

void ScopeProfileModel::set_scope(std::shared_ptr<const Analysis> a, std::int64_t scope) {
  beginResetModel();
  a_ = std::move(a);
  scope_ = a_ && a_->scope(scope) ? scope : -1;
  rows_ = scope_ >= 0 ? a_->node_profile(static_cast<std::uint32_t>(scope_)) : std::vector<NodeProfile>{};
  max_pp_ = 0;
  for (const auto& r : rows_) max_pp_ = std::max(max_pp_, pp_total(r.times));
  endResetModel();
}

int ScopeProfileModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScopeProfileModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount) return {};
  if (section == NodeColumn) return QStringLiteral("Node");
  if (section == Profile) return QStringLiteral("PP profile");
  if (section == PPTime) return QStringLiteral("PP time");
  return QString::fromStdString(carnival::to_string(static_cast<Category>(section - FirstCategory)).data());
}

QVariant ScopeProfileModel::data(const QModelIndex& index, int role) const {
  if (!a_ || !index.isValid() || index.row() >= rowCount()) return {};
  const NodeProfile& r = rows_[static_cast<std::size_t>(index.row())];
  const auto col = index.column();
  const auto pp = pp_total(r.times);
  const std::span<const std::int64_t> pp_parts(r.times.data(), 4);
  switch (role) {
    case Qt::DisplayRole:
      if (col == NodeColumn) return r.node;
      if (col == PPTime) return time_text(pp);
      if (col >= FirstCategory) return time_text(r.times[static_cast<std::size_t>(col - FirstCategory)]);
      return {};
    case roles::Sort:
      if (col == NodeColumn) return r.node;
      if (col >= FirstCategory)
        return QVariant::fromValue<qlonglong>(r.times[static_cast<std::size_t>(col - FirstCategory)]);
      return QVariant::fromValue<qlonglong>(pp);
    case Qt::TextAlignmentRole:
      return col != Profile ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      return QStringLiteral("<b>node %1</b> in %2: PP %3, finish %4%5")
          .arg(r.node)
          .arg(QString::fromStdString(a_->scope_name(scope_)), time_text(pp), time_text(r.finish_ps),
               breakdown(*a_, 0, r.times, pp));
    case roles::Node:
      return r.node;
    case roles::ScopeId:
      return QVariant::fromValue<qint64>(scope_);
    case roles::BarValues:
      return col == Profile ? values_of(pp_parts) : QVariant();
    case roles::BarColors:
      return col == Profile ? colors_of(*a_, 0, 4) : QVariant();
    case roles::BarScale:
      return col == Profile ? fraction(pp, max_pp_) : QVariant();
    default:
      return {};
  }
}

// --- CategoryHistogramModel ------------------------------------------------------------------

void CategoryHistogramModel::set_scope(std::shared_ptr<const Analysis> a, std::int64_t scope) {
  beginResetModel();
  a_ = std::move(a);
  const auto* st = a_ ? a_->scope(scope) : nullptr;
  scope_ = st ? scope : -1;
  times_ = st ? st->inclusive : CategoryTimes{};
  endResetModel();
}

int CategoryHistogramModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CategoryHistogramModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static constexpr std::array names = {"Category", "Histogram", "Time", "% of PP / CP", "Meaning"};
  return section >= 0 && section < ColumnCount ? QString(names[static_cast<std::size_t>(section)])
                                               : QVariant();
}

QVariant CategoryHistogramModel::data(const QModelIndex& index, int role) const {
  if (!a_ || !index.isValid() || index.row() >= rowCount()) return {};
  const auto k = static_cast<std::size_t>(index.row());
  const bool pp = carnival::is_pp_category(static_cast<Category>(k));
  const auto whole = pp ? pp_total(times_) : cp_total(times_);
  const auto t = times_[k];
  const auto max = *std::max_element(times_.begin(), times_.end());
  const auto col = index.column();
  switch (role) {
    case Qt::DisplayRole:
      switch (col) {
        case CategoryColumn:
          return QString::fromStdString(a_->style(k).name);
        case Time:
          return time_text(t);
        case Percent:
          return percent_text(share(t, whole));
        case Description:
          return QString::fromStdString(a_->style(k).description);
        default:
          return {};
      }
    case roles::Sort:
      return col == CategoryColumn || col == Description ? QVariant(static_cast<int>(k))
                                                         : QVariant::fromValue<qlonglong>(t);
    case Qt::DecorationRole:
      return col == CategoryColumn ? QVariant(category_color(*a_, k)) : QVariant();
    case Qt::TextAlignmentRole:
      return col == Time || col == Percent ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      return QStringLiteral("<b>%1</b> in %2: %3 ps exactly (%4 of the scope's %5 time)<br>%6")
          .arg(QString::fromStdString(a_->style(k).name), QString::fromStdString(a_->scope_name(scope_)))
          .arg(t)
          .arg(percent_text(share(t, whole)), pp ? QStringLiteral("PP") : QStringLiteral("CP"),
               QString::fromStdString(a_->style(k).description));
    case roles::ScopeId:
      return QVariant::fromValue<qint64>(scope_);
    case roles::BarValues:
      return col == Bar ? QVariantList{QVariant::fromValue<qlonglong>(t)} : QVariant();
    case roles::BarColors:
      return col == Bar ? QVariantList{category_color(*a_, k)} : QVariant();
    case roles::BarScale:
      return col == Bar ? fraction(t, max) : QVariant();
    default:
      return {};
  }
}

// --- CausesModel -----------------------------------------------------------------------------

namespace {

// "node 2: 1.20 ms, node 0: 310 µs": who waited for this cause and how long, longest first.
QString waited_text(const CauseRow& r) {
  QStringList parts;
  for (const auto& [node, delay] : r.waited)
    parts << QStringLiteral("%1: %2").arg(node).arg(time_text(delay));
  return parts.join(QStringLiteral(", "));
}

}  // namespace

void CausesModel::set_causes(std::shared_ptr<const Analysis> a, Causes causes) {
  beginResetModel();
  a_ = std::move(a);
  causes_ = std::move(causes);
  endResetModel();
}

void CausesModel::clear() { set_causes(a_, {}); }

int CausesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CausesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static constexpr std::array names = {"Cause node", "Late work", "Sync delay",
                                       "%",          "Waits",     "Waited (node: delay)"};
  return section >= 0 && section < ColumnCount ? QString(names[static_cast<std::size_t>(section)])
                                               : QVariant();
}

QVariant CausesModel::data(const QModelIndex& index, int role) const {
  if (!a_ || !index.isValid() || index.row() >= rowCount()) return {};
  const CauseRow& r = causes_.rows[static_cast<std::size_t>(index.row())];
  const auto col = index.column();
  switch (role) {
    case Qt::DisplayRole:
      switch (col) {
        case NodeColumn:
          return r.node >= 0 ? QString::number(r.node) : QStringLiteral("?");
        case ScopeColumn:
          return QString::fromStdString(a_->scope_name(r.scope));
        case Delay:
          return time_text(r.delay_ps);
        case Percent:
          return percent_text(share(r.delay_ps, causes_.total_delay_ps));
        case Waits:
          return QVariant::fromValue<qulonglong>(r.waits);
        case WaitingNodes:
          return waited_text(r);
        default:
          return {};
      }
    case roles::Sort:
      switch (col) {
        case NodeColumn:
          return r.node;
        case ScopeColumn:
          return QString::fromStdString(a_->scope_name(r.scope));
        case Waits:
          return QVariant::fromValue<qulonglong>(r.waits);
        case WaitingNodes:
          return QVariant::fromValue<qulonglong>(r.waiting_nodes);
        default:
          return QVariant::fromValue<qlonglong>(r.delay_ps);
      }
    case Qt::TextAlignmentRole:
      return col != ScopeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
      return QStringLiteral(
                 "node %1, last running %2 (%3), made %4 waits on %5 nodes last %6 longer "
                 "(waited: %7); click to see its code")
          .arg(r.node)
          .arg(QString::fromStdString(a_->scope_name(r.scope)),
               QString::fromStdString(a_->scope_location(r.scope)))
          .arg(r.waits)
          .arg(r.waiting_nodes)
          .arg(time_text(r.delay_ps), waited_text(r));
    case roles::ScopeId:
      return QVariant::fromValue<qint64>(r.scope);
    case roles::Node:
      return r.node;
    default:
      return {};
  }
}

}  // namespace ncp2::gui
