#include "gui/column_fit.hpp"

#include <algorithm>
#include <vector>

#include <QEvent>
#include <QHeaderView>
#include <QTableView>

namespace ncp2::gui {

namespace {

// The width a column asks for: its widest shown cell or its header (with the sort indicator).
int wanted_width(const QTableView* table, int column) {
  const QAbstractItemView* view = table;  // QTableView hides it, QAbstractItemView has it public
  return std::max(view->sizeHintForColumn(column), table->horizontalHeader()->sectionSizeHint(column));
}

// Refits its table when the viewport's width changes (a resize, a scroll bar shown or hidden).
class Refitter : public QObject {
 public:
  Refitter(QTableView* table, const ColumnFit& fit)
      : QObject(table), table_(table), viewport_(table->viewport()), fit_(fit) {
    viewport_->installEventFilter(this);
  }
  // The viewport is compared with the one kept: while the table is being destroyed its viewport
  // still gets events, and the table is no QAbstractScrollArea any more (UBSan: a call through it
  // is undefined).
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == viewport_ && event->type() == QEvent::Resize) fit_columns(table_, fit_);
    return false;
  }

 private:
  QTableView* table_;
  QObject* viewport_;
  ColumnFit fit_;
};

}  // namespace

void fit_columns(QTableView* table, const ColumnFit& fit) {
  auto* header = table->horizontalHeader();
  const int columns = header->count();
  if (columns == 0) return;
  std::vector<int> width(static_cast<std::size_t>(columns), 0);
  int fixed = 0;
  for (int c = 0; c < columns; ++c) {
    if (header->isSectionHidden(c)) continue;
    const int header_width = header->sectionSizeHint(c);
    auto& w = width[static_cast<std::size_t>(c)];
    w = c == fit.bar ? std::max(fit.bar_min, header_width) : wanted_width(table, c);
    if (c != fit.bar && c != fit.flexible) w = std::max(header_width, std::min(w, fit.text_max));
    if (c != fit.bar && c != fit.flexible) fixed += w;
  }
  const int available = table->viewport()->width();
  int rest = available - fixed;
  if (fit.flexible >= 0) {
    // The bar shrinks first (to its minimum), then the flexible column (to its header).
    auto& flex = width[static_cast<std::size_t>(fit.flexible)];
    const int flex_min = std::max(header->sectionSizeHint(fit.flexible), fit.flexible_min);
    const int bar_now = fit.bar >= 0 ? width[static_cast<std::size_t>(fit.bar)] : 0;
    flex = std::max(flex_min, std::min(flex, rest - bar_now));
    rest -= flex;
  }
  if (fit.bar >= 0) {
    auto& bar = width[static_cast<std::size_t>(fit.bar)];
    bar = std::clamp(rest, bar, std::max(bar, fit.bar_max));
  }
  for (int c = 0; c < columns; ++c)
    if (!header->isSectionHidden(c)) table->setColumnWidth(c, width[static_cast<std::size_t>(c)]);
  if (table->wordWrap()) table->resizeRowsToContents();
}

void keep_columns_fitted(QTableView* table, const ColumnFit& fit) {
  new Refitter(table, fit);
  fit_columns(table, fit);
}

}  // namespace ncp2::gui
