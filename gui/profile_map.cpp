#include "gui/profile_map.hpp"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/column_fit.hpp"
#include "gui/export.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

constexpr ColumnFit kProfileMapFit{.bar = ProfileMapModel::Profile,
                                   .flexible = ProfileMapModel::Location,
                                   .flexible_min = kLocationMinWidth};
constexpr int kMatrixScopeMax = 220;  // px: longer scope names elide (the tooltip has them)
constexpr int kMatrixNodeMin = 28;    // px: a node's cell still shows its split

}  // namespace

ProfileMapView::ProfileMapView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new ProfileMapModel(this)),
      proxy_(new NestingSortProxy(model_, this)),
      matrix_(new ScopeNodeMatrixModel(this)) {
  auto* column = new QVBoxLayout(this);
  title_ = make_title(this);
  column->addWidget(title_);
  auto* mode_row = new QHBoxLayout;
  mode_row->addWidget(new QLabel(tr("Show:"), this));
  modes_ = new QComboBox(this);
  modes_->setObjectName(QStringLiteral("profile-map-mode"));
  modes_->addItem(tr("Scopes by nesting"));
  modes_->addItem(tr("Scopes × processors"));
  mode_row->addWidget(modes_);
  mode_row->addStretch(1);
  column->addLayout(mode_row);
  pages_ = new QStackedWidget(this);
  pages_->addWidget(build_nesting(pages_));
  pages_->addWidget(build_matrix(pages_));
  column->addWidget(pages_, 1);
  update_title();

  connect(modes_, &QComboBox::currentIndexChanged, this, [this](int i) {
    pages_->setCurrentIndex(i);
    update_title();
    if (mode() == Mode::Matrix) refit_matrix();
  });
  connect(context_, &AnalysisContext::analysis_changed, this, [this] {
    model_->set_analysis(context_->analysis());
    fit_columns(table_, kProfileMapFit);
    matrix_->set_analysis(context_->analysis());
    refit_matrix();
    follow_scope(context_->scope());
  });
  connect(context_, &AnalysisContext::scope_changed, this, &ProfileMapView::follow_scope);
}

QWidget* ProfileMapView::build_nesting(QWidget* parent) {
  auto* page = new QWidget(parent);
  auto* column = new QVBoxLayout(page);
  column->setContentsMargins(0, 0, 0, 0);
  table_ = location_table(model_, proxy_, page);
  table_->setObjectName(QStringLiteral("profile-map"));
  keep_columns_fitted(table_, kProfileMapFit);
  column->addWidget(table_, 1);
  more_ = new MoreRowsBar(model_, tr("scopes (less time)"), page);
  column->addWidget(more_);
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    context_->select_scope(index.data(roles::ScopeId).toLongLong());
  });
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    model_->toggle_fold(static_cast<std::uint32_t>(index.data(roles::ScopeId).toLongLong()));
  });
  table_->viewport()->installEventFilter(this);
  table_->installEventFilter(this);
  // Sorting or folding moves rows: keep the selected scope in sight.
  connect(proxy_, &QAbstractItemModel::layoutChanged, this, [this] { follow_scope(context_->scope()); });
  return page;
}

QWidget* ProfileMapView::build_matrix(QWidget* parent) {
  matrix_table_ = new QTableView(parent);
  matrix_table_->setObjectName(QStringLiteral("scope-node-matrix"));
  matrix_table_->setModel(matrix_);
  matrix_table_->setItemDelegate(new BarDelegate(matrix_table_));
  matrix_table_->setSelectionBehavior(QAbstractItemView::SelectItems);
  matrix_table_->setSelectionMode(QAbstractItemView::SingleSelection);
  matrix_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  matrix_table_->setWordWrap(false);
  matrix_table_->verticalHeader()->setVisible(false);
  matrix_table_->verticalHeader()->setDefaultSectionSize(matrix_table_->fontMetrics().height() + 6);
  matrix_table_->horizontalHeader()->setMinimumSectionSize(kMatrixNodeMin);
  add_table_menu(matrix_table_);
  connect(matrix_table_, &QTableView::clicked, this, &ProfileMapView::matrix_clicked);
  // A node's header shows that node's times; the scope column's, all nodes'.
  connect(matrix_table_->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
    context_->set_node_filter(matrix_->node_of_column(section));
    follow_in_matrix();
  });
  return matrix_table_;
}

// The scope column as wide as its names (up to a cap), the nodes share the rest (scrolling when
// there are too many to keep kMatrixNodeMin each).
void ProfileMapView::refit_matrix() {
  auto* header = matrix_table_->horizontalHeader();
  if (header->count() == 0) return;
  const QAbstractItemView* view = matrix_table_;
  header->setSectionResizeMode(0, QHeaderView::Interactive);
  matrix_table_->setColumnWidth(
      0, std::clamp(std::max(view->sizeHintForColumn(0), header->sectionSizeHint(0)), 60, kMatrixScopeMax));
  for (int c = 1; c < header->count(); ++c) header->setSectionResizeMode(c, QHeaderView::Stretch);
}

bool ProfileMapView::on_arrow(QPoint viewport_point) const {
  const QModelIndex index = table_->indexAt(viewport_point);
  if (!index.isValid() || index.column() != ProfileMapModel::Scope || index.data(roles::Fold).toInt() < 0)
    return false;
  const int arrow_right = table_->visualRect(index).left() + BarDelegate::indent_of(index);
  return viewport_point.x() < arrow_right && viewport_point.x() >= arrow_right - BarDelegate::kArrowWidth;
}

bool ProfileMapView::fold_current(bool fold) {
  const QModelIndex current = table_->currentIndex();
  if (!current.isValid()) return false;
  const auto scope = static_cast<std::uint32_t>(current.data(roles::ScopeId).toLongLong());
  const int row = model_->row_of_scope(scope);
  if (row < 0 || !model_->rows()[static_cast<std::size_t>(row)].has_children ||
      model_->is_folded(scope) == fold)
    return false;
  model_->toggle_fold(scope);
  return true;
}

bool ProfileMapView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == table_->viewport() && event->type() == QEvent::MouseButtonPress) {
    const auto* press = static_cast<QMouseEvent*>(event);
    if (press->button() == Qt::LeftButton && on_arrow(press->position().toPoint())) {
      model_->toggle_fold(static_cast<std::uint32_t>(
          table_->indexAt(press->position().toPoint()).data(roles::ScopeId).toLongLong()));
      return true;  // a fold, not a selection
    }
  }
  if (watched == table_ && event->type() == QEvent::KeyPress) {
    const int key = static_cast<QKeyEvent*>(event)->key();
    if ((key == Qt::Key_Left && fold_current(true)) || (key == Qt::Key_Right && fold_current(false)))
      return true;
  }
  return QWidget::eventFilter(watched, event);
}

ProfileMapView::Mode ProfileMapView::mode() const {
  return modes_->currentIndex() == 1 ? Mode::Matrix : Mode::Nesting;
}

void ProfileMapView::set_mode(Mode mode) { modes_->setCurrentIndex(mode == Mode::Matrix ? 1 : 0); }

QTableView* ProfileMapView::current_table() const { return mode() == Mode::Matrix ? matrix_table_ : table_; }

void ProfileMapView::update_title() {
  if (mode() == Mode::Nesting)
    title_->setText(tr(
        "<b>Profile Map</b>: every scope under its parent, by inclusive PP time (the selected nodes); the "
        "bar's length is the share of the total, its colours the categories. A header sorts the scopes "
        "within each level; an arrow (or a double-click, or Left and Right) folds a scope. Click a scope to "
        "see its code."));
  else
    title_->setText(
        tr("<b>Scopes × processors</b>: each scope's inclusive PP time on every node (all nodes), split "
           "into the categories, the bar's length against the scope's busiest node. Click a cell to select "
           "the scope and show that node's times; click a scope's name to select it only."));
}

void ProfileMapView::follow_scope(qint64 id) {
  const int row = model_->row_of_scope(id);
  if (row >= 0) select_source_row(table_, proxy_, row);
  follow_in_matrix();
}

// The selected scope's row, in the column of the node filter (the scope column for all nodes).
void ProfileMapView::follow_in_matrix() {
  const int row = matrix_->row_of_scope(context_->scope());
  if (row < 0) {
    matrix_table_->clearSelection();
    return;
  }
  const int column =
      context_->node_filter() < 0 ? 0 : std::max(0, matrix_->column_of_node(context_->node_filter()));
  const QModelIndex index = matrix_->index(row, column);
  matrix_table_->setCurrentIndex(index);
  matrix_table_->scrollTo(index);
}

void ProfileMapView::matrix_clicked(const QModelIndex& index) {
  // Read the cell first: a new node filter resets the model.
  const qint64 scope = index.data(roles::ScopeId).toLongLong();
  const int node = index.data(roles::Node).toInt();
  if (node >= 0) context_->set_node_filter(node);
  context_->select_scope(scope);
  follow_in_matrix();
}

}  // namespace ncp2::gui
