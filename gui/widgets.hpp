#pragma once
// Small shared widgets: the stacked-bar delegate every table uses, the always-visible category
// legend, the gray-shading legend of the source view, the "N more rows" bar under long tables.
#include <functional>

#include <QLabel>
#include <QStyledItemDelegate>
#include <QWidget>

#include "gui/analysis.hpp"

class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace ncp2::gui {

class LimitedTableModel;

// Draws roles::BarValues in roles::BarColors over roles::BarScale of the cell's width; other
// cells as usual, indented by roles::Depth. Segment widths come from partition(), so they are exact to the
// pixel.
class BarDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  // The bar's rectangle inside a cell (the scale applied), for painting and tests.
  static QRect bar_rect(const QRect& cell, double scale);
  // Nested rows (roles::Depth) are indented, with an arrow where they have children (roles::Fold).
  static constexpr int kIndentPerLevel = 14;
  static constexpr int kArrowWidth = 14;
  [[nodiscard]] static int indent_of(const QModelIndex& index);  // px before the text

 private:
  void paint_nested(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const;
};

// Paints a stacked bar of `values` split among `colors` into `rect` (left to right).
void paint_stacked_bar(QPainter& p, const QRect& rect, std::span<const std::int64_t> values,
                       const std::vector<QColor>& colors);

// Colour swatches with names (tooltips: the descriptions) of the 7 profile categories and the 9
// wait parts, from the open file's `categories` table. Painted, and wrapped to the width, so that
// it never widens the window.
class CategoryLegend : public QWidget {
  Q_OBJECT
 public:
  explicit CategoryLegend(QWidget* parent = nullptr);
  void set_analysis(const Analysis* a);  // null: the built-in catalogue

  [[nodiscard]] const std::vector<CategoryStyle>& items() const { return items_; }
  // Where an item (or a group heading, index -1 - group) is drawn at the current width.
  [[nodiscard]] QRect item_rect(std::size_t i) const;
  [[nodiscard]] QString tooltip_at(QPoint p) const;

  [[nodiscard]] bool hasHeightForWidth() const override { return true; }
  [[nodiscard]] int heightForWidth(int width) const override;
  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  // Item rectangles (swatch and name) flowed into `width`; the heading of each group first.
  [[nodiscard]] std::vector<QRect> flow(int width, int* height) const;
  std::vector<CategoryStyle> items_;
};

// The gray ramp of the line-number cells: 0 to the hottest line's share, in the current mapping.
class ShadingLegend : public QWidget {
  Q_OBJECT
 public:
  explicit ShadingLegend(QWidget* parent = nullptr);
  void set_scale(double max_percent, Shading mapping);
  [[nodiscard]] QSize sizeHint() const override;
  // Room for "0", a short ramp and the widest right-hand text: narrower would cut the scale.
  [[nodiscard]] QSize minimumSizeHint() const override;
  [[nodiscard]] QString scale_text() const;  // "3.76 %/line (sqrt)"

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  double max_percent_ = 0;
  Shading mapping_ = Shading::Sqrt;
};

// "N more rows not shown  [Show all]" under a table whose model shows its top N.
class MoreRowsBar : public QWidget {
  Q_OBJECT
 public:
  MoreRowsBar(LimitedTableModel* model, QString what, QWidget* parent = nullptr);
  void refresh();
  [[nodiscard]] QPushButton* button() const { return button_; }
  [[nodiscard]] QString text() const { return label_->text(); }

 private:
  LimitedTableModel* model_;
  QString what_;
  QLabel* label_;
  QPushButton* button_;
};

// A sortable table over `model` through a proxy sorting by roles::Sort, bars by BarDelegate, with
// the export context menu (gui/export.hpp).
QTableView* make_table(QAbstractItemModel* model, QSortFilterProxyModel* proxy, QWidget* parent);
// The same for locations ("name (file:lines)"): elided in the middle, the line numbers stay.
QTableView* location_table(QAbstractItemModel* model, QSortFilterProxyModel* proxy, QWidget* parent);
// Selects (and shows) the proxy row of a source row without emitting clicks.
void select_source_row(QTableView* table, QSortFilterProxyModel* proxy, int source_row);
// A view's title: rich text, wrapped.
QLabel* make_title(QWidget* parent);
// For a custom-drawn widget's QEvent::ToolTip: shows the text `text_at` gives for the point in
// `widget` (hides the tooltip when it is empty) and returns true; false for any other event.
bool show_tooltip(QEvent* event, QWidget* widget, const std::function<QString(QPoint)>& text_at);

}  // namespace ncp2::gui
