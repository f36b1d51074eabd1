#include "gui/widgets.hpp"

#include <array>
#include <utility>

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QPainter>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include "gui/export.hpp"
#include "gui/models.hpp"

namespace ncp2::gui {

// --- bars ------------------------------------------------------------------------------------

void paint_stacked_bar(QPainter& p, const QRect& rect, std::span<const std::int64_t> values,
                       const std::vector<QColor>& colors) {
  if (rect.width() <= 0 || rect.height() <= 0) return;
  const auto widths = partition(values, rect.width());
  int x = rect.left();
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] <= 0) continue;
    p.fillRect(QRect(x, rect.top(), widths[i], rect.height()),
               i < colors.size() ? colors[i] : QColor(Qt::black));
    x += widths[i];
  }
}

QRect BarDelegate::bar_rect(const QRect& cell, double scale) {
  const QRect inner = cell.adjusted(3, 3, -3, -3);
  const double s = std::clamp(scale, 0.0, 1.0);
  int w = static_cast<int>(std::lround(inner.width() * s));
  if (s > 0 && w == 0) w = 1;  // a nonzero time never disappears
  return {inner.left(), inner.top(), w, inner.height()};
}

int BarDelegate::indent_of(const QModelIndex& index) {
  const QVariant depth = index.data(roles::Depth);
  return depth.isValid() ? depth.toInt() * kIndentPerLevel + kArrowWidth : 0;
}

void BarDelegate::paint_nested(QPainter* painter, const QStyleOptionViewItem& option,
                               const QModelIndex& index) const {
  // The whole cell's background (and selection), then the arrow and the text moved right.
  QStyleOptionViewItem background = option;
  initStyleOption(&background, index);
  background.text.clear();
  background.features &= ~(QStyleOptionViewItem::HasDisplay | QStyleOptionViewItem::HasDecoration);
  const QWidget* widget = option.widget;
  (widget ? widget->style() : QApplication::style())
      ->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);
  const int indent = indent_of(index);
  if (const int fold = index.data(roles::Fold).toInt(); fold >= 0 && index.data(roles::Fold).isValid()) {
    const QRect box(option.rect.left() + indent - kArrowWidth, option.rect.top(), kArrowWidth,
                    option.rect.height());
    const QPointF c = QRectF(box).center();
    constexpr double r = 3.5;
    const std::array<QPointF, 3> open = {
        {{c.x() - r, c.y() - r / 2}, {c.x() + r, c.y() - r / 2}, {c.x(), c.y() + r}}};
    const std::array<QPointF, 3> folded = {
        {{c.x() - r / 2, c.y() - r}, {c.x() - r / 2, c.y() + r}, {c.x() + r, c.y()}}};
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(option.palette.color(option.state & QStyle::State_Selected ? QPalette::HighlightedText
                                                                                 : QPalette::Text));
    painter->drawPolygon((fold == 1 ? folded : open).data(), 3);
    painter->restore();
  }
  QStyleOptionViewItem text = option;
  text.rect.setLeft(option.rect.left() + indent);
  QStyledItemDelegate::paint(painter, text, index);
}

void BarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const {
  const QVariant values = index.data(roles::BarValues);
  if (!values.isValid()) {
    if (index.data(roles::Depth).isValid())
      paint_nested(painter, option, index);
    else
      QStyledItemDelegate::paint(painter, option, index);
    return;
  }
  // Background and selection only: the style option may carry text, and a bar cell has none.
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  opt.text.clear();
  opt.features &= ~QStyleOptionViewItem::HasDisplay;
  const QWidget* widget = option.widget;
  (widget ? widget->style() : QApplication::style())
      ->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
  std::vector<std::int64_t> v;
  for (const auto& x : values.toList()) v.push_back(x.toLongLong());
  std::vector<QColor> colors;
  for (const auto& c : index.data(roles::BarColors).toList()) colors.push_back(c.value<QColor>());
  painter->save();
  paint_stacked_bar(*painter, bar_rect(option.rect, index.data(roles::BarScale).toDouble()), v, colors);
  painter->restore();
}

QSize BarDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  if (index.data(roles::BarValues).isValid()) return {160, option.fontMetrics.height() + 6};
  return QStyledItemDelegate::sizeHint(option, index) + QSize(indent_of(index), 0);
}

QLabel* make_title(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setTextFormat(Qt::RichText);
  label->setWordWrap(true);
  return label;
}

QTableView* location_table(QAbstractItemModel* model, QSortFilterProxyModel* proxy, QWidget* parent) {
  QTableView* table = make_table(model, proxy, parent);
  table->setTextElideMode(Qt::ElideMiddle);
  return table;
}

void select_source_row(QTableView* table, QSortFilterProxyModel* proxy, int source_row) {
  const QModelIndex index = proxy->mapFromSource(proxy->sourceModel()->index(source_row, 0));
  if (!index.isValid()) return;
  table->setCurrentIndex(index);
  table->selectRow(index.row());
  table->scrollTo(index);
}

QTableView* make_table(QAbstractItemModel* model, QSortFilterProxyModel* proxy, QWidget* parent) {
  proxy->setSourceModel(model);
  proxy->setSortRole(roles::Sort);
  proxy->setFilterKeyColumn(-1);
  proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  auto* table = new QTableView(parent);
  table->setModel(proxy);
  table->setItemDelegate(new BarDelegate(table));
  table->setSortingEnabled(true);
  table->sortByColumn(-1, Qt::AscendingOrder);  // the model's own order (by time) until a click
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setAlternatingRowColors(true);
  table->verticalHeader()->setVisible(false);
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setWordWrap(false);
  add_table_menu(table);
  return table;
}

// --- legends ---------------------------------------------------------------------------------

CategoryLegend::CategoryLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  set_analysis(nullptr);
}

void CategoryLegend::set_analysis(const Analysis* a) {
  items_.clear();
  if (a) {
    // Without protocol controllers (TreadMarks) the CP categories, and the wait parts that
    // only a CP can cause (no time in the whole run), would only be noise.
    PartTimes used{};
    for (const auto& w : a->summary().wait_summary)
      for (std::size_t k = 0; k < kWaitParts; ++k) used[k] += w.parts[k];
    for (std::size_t i = 0; i < a->summary().categories.size(); ++i) {
      const CategoryStyle& style = a->style(i);  // named for this machine
      const bool unused_part = i >= kCategories && i - kCategories < kWaitParts && used[i - kCategories] == 0;
      if (a->has_cp() || (style.resource != "CP" && !unused_part)) items_.push_back(style);
    }
  } else {
    for (const auto& c : carnival::category_catalogue())
      items_.push_back({c.name, c.resource, c.color, c.description});
  }
  updateGeometry();
  update();
}

namespace {

constexpr int kSwatch = 14;
constexpr int kGap = 12;

QString group_title(const std::string& resource) {
  return resource == "WAIT" ? QStringLiteral("Wait parts:") : QStringLiteral("PP / CP:");
}

}  // namespace

std::vector<QRect> CategoryLegend::flow(int width, int* height) const {
  const QFontMetrics fm(font());
  const int row_h = std::max(fm.height(), kSwatch) + 4;
  std::vector<QRect> rects;
  int x = 4, y = 2;
  std::string group;
  for (const auto& item : items_) {
    const std::string g = item.resource == "WAIT" ? "WAIT" : "PPCP";
    if (g != group) {
      // Each group starts a new row with its heading.
      if (!group.empty()) {
        x = 4;
        y += row_h;
      }
      group = g;
      x += fm.horizontalAdvance(group_title(item.resource)) + kGap;
    }
    const int w = kSwatch + 4 + fm.horizontalAdvance(QString::fromStdString(item.name));
    if (x + w > width && x > 100) {
      x = 4 + fm.horizontalAdvance(QStringLiteral("Wait parts:")) + kGap;
      y += row_h;
    }
    rects.emplace_back(x, y, w, row_h);
    x += w + kGap;
  }
  *height = y + row_h + 2;
  return rects;
}

QRect CategoryLegend::item_rect(std::size_t i) const {
  int h = 0;
  const auto rects = flow(width(), &h);
  return i < rects.size() ? rects[i] : QRect();
}

int CategoryLegend::heightForWidth(int width) const {
  int h = 0;
  (void)flow(width, &h);
  return h;
}

QSize CategoryLegend::sizeHint() const {
  int h = 0;
  (void)flow(900, &h);
  return {900, h};
}

// Narrow enough for a small window; the layout asks heightForWidth() for the real height.
QSize CategoryLegend::minimumSizeHint() const { return {400, heightForWidth(400)}; }

void CategoryLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  int h = 0;
  const auto rects = flow(width(), &h);
  const QFontMetrics fm(font());
  std::string group;
  QFont bold = font();
  bold.setBold(true);
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const auto& item = items_[i];
    const QRect r = rects[i];
    const std::string g = item.resource == "WAIT" ? "WAIT" : "PPCP";
    if (g != group) {
      group = g;
      p.setFont(bold);
      p.setPen(palette().color(QPalette::WindowText));
      p.drawText(QRect(4, r.top(), r.left() - 4, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
                 group_title(item.resource));
      p.setFont(font());
    }
    const QRect swatch(r.left(), r.top() + (r.height() - kSwatch) / 2, kSwatch, kSwatch);
    p.fillRect(swatch, QColor(QString::fromStdString(item.color)));
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(swatch.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(r.left() + kSwatch + 4, r.top(), r.width() - kSwatch - 4, r.height()),
               Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(item.name));
  }
}

QString CategoryLegend::tooltip_at(QPoint point) const {
  int h = 0;
  const auto rects = flow(width(), &h);
  for (std::size_t i = 0; i < rects.size(); ++i)
    if (rects[i].contains(point))
      return QStringLiteral("<b>%1</b> (%2): %3")
          .arg(QString::fromStdString(items_[i].name), QString::fromStdString(items_[i].resource),
               QString::fromStdString(items_[i].description).toHtmlEscaped());
  return {};
}

bool CategoryLegend::event(QEvent* e) {
  return show_tooltip(e, this, [this](QPoint p) { return tooltip_at(p); }) || QWidget::event(e);
}

bool show_tooltip(QEvent* event, QWidget* widget, const std::function<QString(QPoint)>& text_at) {
  if (event->type() != QEvent::ToolTip) return false;
  auto* help = static_cast<QHelpEvent*>(event);
  const QString text = text_at(help->pos());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(help->globalPos(), text, widget);
  return true;
}

ShadingLegend::ShadingLegend(QWidget* parent) : QWidget(parent) {
  setToolTip(
      QStringLiteral("Line-number cells: each line's share of the total PP time (all selected nodes); "
                     "darkest = the hottest line."));
}

void ShadingLegend::set_scale(double max_percent, Shading mapping) {
  max_percent_ = max_percent;
  mapping_ = mapping;
  update();
}

QSize ShadingLegend::sizeHint() const { return {260, fontMetrics().height() + 6}; }

QSize ShadingLegend::minimumSizeHint() const {
  const QFontMetrics fm = fontMetrics();
  const int right = fm.horizontalAdvance(QStringLiteral("100.00 %/line (linear)"));
  return {fm.horizontalAdvance(QStringLiteral("0")) + 6 + 40 + 6 + right, fm.height() + 6};
}

QString ShadingLegend::scale_text() const {
  return QStringLiteral("%1 %/line (%2)").arg(max_percent_, 0, 'f', 2).arg(to_string(mapping_));
}

void ShadingLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QString left = QStringLiteral("0");
  const QString right = scale_text();
  const int text_w = fontMetrics().horizontalAdvance(right);
  const QRect ramp(fontMetrics().horizontalAdvance(left) + 6, 3, std::max(20, width() - text_w - 30),
                   height() - 6);
  p.drawText(QRect(0, 0, ramp.left(), height()), Qt::AlignVCenter | Qt::AlignLeft, left);
  for (int x = 0; x < ramp.width(); ++x) {
    const double v = static_cast<double>(x + 1) / ramp.width();
    const int g = gray_level(shade_intensity(v, 1.0, mapping_));
    p.fillRect(QRect(ramp.left() + x, ramp.top(), 1, ramp.height()), QColor(g, g, g));
  }
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(ramp.adjusted(0, 0, -1, -1));
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRect(ramp.right() + 6, 0, width() - ramp.right() - 6, height()),
             Qt::AlignVCenter | Qt::AlignLeft, right);
}

// --- N more rows -----------------------------------------------------------------------------

MoreRowsBar::MoreRowsBar(LimitedTableModel* model, QString what, QWidget* parent)
    : QWidget(parent),
      model_(model),
      what_(std::move(what)),
      label_(new QLabel(this)),
      button_(new QPushButton(tr("Show all"), this)) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(label_, 1);
  row->addWidget(button_);
  connect(button_, &QPushButton::clicked, model_, &LimitedTableModel::show_all);
  connect(model_, &QAbstractItemModel::modelReset, this, &MoreRowsBar::refresh);
  refresh();
}

void MoreRowsBar::refresh() {
  const int hidden = model_->hidden_rows();
  label_->setText(QStringLiteral("top %1 shown; %2 more %3").arg(model_->rowCount()).arg(hidden).arg(what_));
  setVisible(hidden > 0);
}

}  // namespace ncp2::gui
