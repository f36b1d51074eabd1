#pragma once
// Item models over an Analysis (and over the causes of one CPWait Map row). Each exposes its
// costs through custom roles — raw numbers to sort by, the values and colours of a stacked bar
// and the bar's length — so that views sort numerically and one delegate draws every bar.
// Long tables show their top N rows; hidden_rows() says how many more there are.
#include <algorithm>
#include <cstdint>
#include <memory>

#include <QAbstractTableModel>
#include <QColor>
#include <QString>
#include <QVariantList>

#include "gui/analysis.hpp"

namespace ncp2::gui {

namespace roles {
enum : int {
  Sort = Qt::UserRole + 1,  // a number (or text) to sort by
  ScopeId,                  // qint64: the scope a row is about (-1 none)
  BarValues,                // QVariantList of qlonglong: the segments of a stacked bar
  BarColors,                // QVariantList of QColor, one per segment
  BarScale,                 // double 0..1: the bar's length as a fraction of the cell
  Node,                     // int: the node a row is about (-1 none)
  Depth,                    // int: a nested row's depth (0: a root); the delegate indents by it
  Fold,                     // int: -1 no children, 0 unfolded, 1 folded (the delegate's arrow)
};
}

QString time_text(std::int64_t ps);                           // "12.5 us" (carnival::format_ps)
QString percent_text(double p);                               // "12.3 %"
QColor category_color(const Analysis& a, std::size_t index);  // index as Analysis::style

// Cell helpers the models share (a namespace of their own: other files have their own share()).
namespace cells {
double share(std::int64_t part, std::int64_t whole);     // percent, 0 when whole <= 0
double fraction(std::int64_t part, std::int64_t whole);  // 0..1
QVariantList values_of(std::span<const std::int64_t> v);
QVariantList colors_of(const Analysis& a, std::size_t first, std::size_t count);
// "<br>Comp: 1.23 ms (45.6 %)" lines for a tooltip, zeros left out.
QString breakdown(const Analysis& a, std::size_t first, std::span<const std::int64_t> values,
                  std::int64_t whole);
}  // namespace cells

// Base: a table of `total()` rows of which the first `limit` are shown.
class LimitedTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  static constexpr int kDefaultLimit = 200;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int hidden_rows() const { return std::max(0, total() - rowCount()); }
  [[nodiscard]] int limit() const { return limit_; }
  void set_limit(int limit);  // <= 0: all
  void show_all() { set_limit(0); }

 signals:
  void limit_changed();

 protected:
  [[nodiscard]] virtual int total() const = 0;
  // Called inside the reset of set_limit(): models that derive their rows from the limit redo them.
  virtual void limit_applied() {}

 private:
  int limit_ = kDefaultLimit;
};

// The CPWait Map: one row per scope x kind x operation.
class CPWaitMapModel : public LimitedTableModel {
  Q_OBJECT
 public:
  enum Column { Location, Kind, Operation, Count, Profile, Time, Percent, Cumulative, ColumnCount };
  using LimitedTableModel::LimitedTableModel;
  void set_analysis(std::shared_ptr<const Analysis> a);
  [[nodiscard]] const CPWaitRow* row_at(int row) const;

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 protected:
  [[nodiscard]] int total() const override;

 private:
  std::shared_ptr<const Analysis> a_;
};

// One scope's inclusive time on each node, by category.
class ScopeProfileModel : public LimitedTableModel {
  Q_OBJECT
 public:
  enum Column { NodeColumn, Profile, PPTime, FirstCategory, ColumnCount = FirstCategory + 7 };
  using LimitedTableModel::LimitedTableModel;
  void set_scope(std::shared_ptr<const Analysis> a, std::int64_t scope);
  [[nodiscard]] std::int64_t scope() const { return scope_; }
  [[nodiscard]] const std::vector<NodeProfile>& rows() const { return rows_; }

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 protected:
  [[nodiscard]] int total() const override { return static_cast<int>(rows_.size()); }

 private:
  std::shared_ptr<const Analysis> a_;
  std::int64_t scope_ = -1;
  std::vector<NodeProfile> rows_;
  std::int64_t max_pp_ = 0;
};

// One scope's inclusive time by category (the 7 categories), as a histogram.
class CategoryHistogramModel : public LimitedTableModel {
  Q_OBJECT
 public:
  enum Column { CategoryColumn, Bar, Time, Percent, Description, ColumnCount };
  using LimitedTableModel::LimitedTableModel;
  void set_scope(std::shared_ptr<const Analysis> a, std::int64_t scope);
  [[nodiscard]] std::int64_t scope() const { return scope_; }

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 protected:
  // The CP categories come last: without protocol controllers they are left out.
  [[nodiscard]] int total() const override {
    return a_ && scope_ >= 0 ? (a_->has_cp() ? static_cast<int>(kCategories) : 4) : 0;
  }

 private:
  std::shared_ptr<const Analysis> a_;
  std::int64_t scope_ = -1;
  CategoryTimes times_{};
};

// The causes of one CPWait Map row's synchronization delay.
class CausesModel : public LimitedTableModel {
  Q_OBJECT
 public:
  enum Column { NodeColumn, ScopeColumn, Delay, Percent, Waits, WaitingNodes, ColumnCount };
  using LimitedTableModel::LimitedTableModel;
  void set_causes(std::shared_ptr<const Analysis> a, Causes causes);
  void clear();
  [[nodiscard]] const Causes& causes() const { return causes_; }

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o, int role) const override;

 protected:
  [[nodiscard]] int total() const override { return static_cast<int>(causes_.rows.size()); }

 private:
  std::shared_ptr<const Analysis> a_;
  Causes causes_;
};

}  // namespace ncp2::gui
