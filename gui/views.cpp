#include "gui/views.hpp"

#include <algorithm>

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/column_fit.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

constexpr ColumnFit kCPWaitFit{
    .bar = CPWaitMapModel::Profile, .flexible = CPWaitMapModel::Location, .flexible_min = kLocationMinWidth};
// Who waited how long is the long text: it takes (or gives) what is left, elided at its end.
constexpr ColumnFit kCausesFit{.flexible = CausesModel::WaitingNodes, .flexible_min = 100};
constexpr ColumnFit kScopeProfileFit{.bar = ScopeProfileModel::Profile};
// The meaning wraps (it is the histogram's explanation): the bars keep a readable length.
constexpr ColumnFit kHistogramFit{.bar = CategoryHistogramModel::Bar,
                                  .bar_min = 180,
                                  .bar_max = 260,
                                  .flexible = CategoryHistogramModel::Description};

}  // namespace

// --- CPWait Map ------------------------------------------------------------------------------

CPWaitView::CPWaitView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new CPWaitMapModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      causes_(new CausesModel(this)),
      causes_proxy_(new QSortFilterProxyModel(this)) {
  auto* column = new QVBoxLayout(this);
  auto* title = make_title(this);
  title->setText(
      tr("<b>CPWait Map</b>: every source of waiting (scope &times; category &times; operation), summed "
         "over the selected nodes; the profile splits each into the 8 intervals of Table 1 and the "
         "synchronization delay. Click a row to see its code and its causes."));
  column->addWidget(title);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter: scope, category or operation"));
  filter_->setClearButtonEnabled(true);
  column->addWidget(filter_);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(build_map(split));
  split->addWidget(build_causes(split));
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  column->addWidget(split, 1);

  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(context_, &AnalysisContext::analysis_changed, this, [this] {
    model_->set_analysis(context_->analysis());
    // On this machine model every row is a PP's Wait (CPWait is zero by design, docs/schema.md):
    // a column that says "Wait" on every row only takes the room of the cumulative %.
    const auto analysis = context_->analysis();
    const bool all_wait =
        !analysis || std::all_of(analysis->cpwait_rows().begin(), analysis->cpwait_rows().end(),
                                 [](const CPWaitRow& r) { return r.kind == "Wait"; });
    table_->setColumnHidden(CPWaitMapModel::Kind, all_wait);
    causes_->set_causes(context_->analysis(), {});
    causes_title_->setText(tr("<b>Causes</b>: select a row."));
    causes_note_->clear();
    setProperty("queried", QString());
    fit_columns(table_, kCPWaitFit);
  });
  connect(context_, &AnalysisContext::scope_changed, this, &CPWaitView::follow_scope);
  connect(table_, &QTableView::clicked, this, &CPWaitView::row_activated);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { row_activated(current); });
  connect(causes_table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const auto scope = index.data(roles::ScopeId).toLongLong();
    if (scope >= 0) context_->select_scope(scope);
  });
}

QWidget* CPWaitView::build_map(QWidget* parent) {
  auto* top = new QWidget(parent);
  auto* top_column = new QVBoxLayout(top);
  top_column->setContentsMargins(0, 0, 0, 0);
  table_ = location_table(model_, proxy_, top);
  table_->setObjectName(QStringLiteral("cpwait-map"));
  keep_columns_fitted(table_, kCPWaitFit);
  top_column->addWidget(table_, 1);
  more_ = new MoreRowsBar(model_, tr("sources of waiting (less time)"), top);
  more_->setObjectName(QStringLiteral("cpwait-more"));
  top_column->addWidget(more_);
  return top;
}

QWidget* CPWaitView::build_causes(QWidget* parent) {
  auto* bottom = new QWidget(parent);
  auto* bottom_column = new QVBoxLayout(bottom);
  bottom_column->setContentsMargins(0, 0, 0, 0);
  causes_title_ = make_title(bottom);
  causes_title_->setText(tr("<b>Causes</b>: select a row."));
  bottom_column->addWidget(causes_title_);
  causes_table_ = location_table(causes_, causes_proxy_, bottom);
  causes_table_->setObjectName(QStringLiteral("causes"));
  keep_columns_fitted(causes_table_, kCausesFit);
  bottom_column->addWidget(causes_table_, 1);
  causes_more_ = new MoreRowsBar(causes_, tr("causes (less delay)"), bottom);
  causes_more_->setObjectName(QStringLiteral("causes-more"));
  bottom_column->addWidget(causes_more_);
  causes_note_ = make_title(bottom);
  bottom_column->addWidget(causes_note_);
  return bottom;
}

void CPWaitView::show_causes(const CausesResult& result) {
  if (result.generation != generation_) return;  // a newer row was selected meanwhile
  if (!result.error.isEmpty()) {
    causes_note_->setText(
        tr("<span style=\"color:#b00\">Cannot read the causes: %1</span>").arg(result.error.toHtmlEscaped()));
    emit causes_ready();
    return;
  }
  causes_->set_causes(context_->analysis(), result.causes);
  fit_columns(causes_table_, kCausesFit);
  const CPWaitRow* row = nullptr;
  for (const auto& r : context_->analysis()->cpwait_rows())
    if (property("queried").toString() ==
        QString::fromStdString(std::to_string(r.scope) + "|" + r.kind + "|" + r.operation))
      row = &r;
  const auto row_delay = row ? row->parts[static_cast<std::size_t>(carnival::WaitPart::SyncDelay)] : 0;
  QString note;
  if (row_delay == 0)
    note = tr("No synchronization delay in this row: its waiting is protocol time only (the profile bar).");
  else if (result.causes.rows.empty())
    note = tr("The wait instances behind this row were not stored (capped), so their causes are unknown.");
  else
    note = tr("Synchronization delay of the row: %1; the stored wait instances explain %2 of it.")
               .arg(time_text(row_delay), time_text(result.causes.total_delay_ps));
  if (context_->analysis()->summary().waits_dropped > 0)
    note += tr(" %1 wait instances of the run were not stored.")
                .arg(context_->analysis()->summary().waits_dropped);
  causes_note_->setText(note);
  emit causes_ready();
}

void CPWaitView::select_row(int source_row) {
  select_source_row(table_, proxy_, source_row);
  row_activated(proxy_->mapFromSource(model_->index(source_row, 0)));
}

void CPWaitView::follow_scope(qint64 id) {
  if (const QModelIndex current = table_->currentIndex(); current.isValid()) {
    const CPWaitRow* row = model_->row_at(proxy_->mapToSource(current).row());
    if (row && row->scope == id) return;  // already on one of the scope's rows
  }
  for (int i = 0; i < model_->rowCount(); ++i) {
    const CPWaitRow* row = model_->row_at(i);
    if (!row || row->scope != id) continue;
    following_ = true;
    select_source_row(table_, proxy_, i);
    row_activated(proxy_->mapFromSource(model_->index(i, 0)));
    following_ = false;
    return;
  }
  table_->clearSelection();  // the scope did not wait: no row is about it
}

void CPWaitView::row_activated(const QModelIndex& proxy_index) {
  if (!proxy_index.isValid()) return;
  const CPWaitRow* row = model_->row_at(proxy_->mapToSource(proxy_index).row());
  if (!row) return;
  if (!following_) context_->select_scope(row->scope);
  const QString key =
      QString::fromStdString(std::to_string(row->scope) + "|" + row->kind + "|" + row->operation);
  if (property("queried").toString() == key) {
    // Already shown (e.g. it followed a scope selected elsewhere): tell waiters it is ready.
    if (!watcher_.running()) emit causes_ready();
    return;
  }
  setProperty("queried", key);
  query_causes(*row);
}

void CPWaitView::query_causes(const CPWaitRow& row) {
  const auto a = context_->analysis();
  causes_title_->setText(
      tr("<b>Causes</b> of the synchronization delay in <b>%1</b> &middot; %2 &middot; %3: "
         "the nodes (and their scopes) that made the others wait. Click one to see its code.")
          .arg(QString::fromStdString(a->scope_name(row.scope)).toHtmlEscaped(),
               QString::fromStdString(row.kind), QString::fromStdString(row.operation)));
  causes_->set_causes(a, {});
  causes_note_->setText(tr("Reading the wait instances…"));
  const int generation = ++generation_;
  // A worker thread with its own read-only connection: a large file never freezes the window.
  watcher_.start(
      [path = a->summary().path, scope = row.scope, kind = row.kind, operation = row.operation,
       node = a->node_filter(), generation] {
        CausesResult result;
        result.generation = generation;
        try {
          result.causes = ncp2::gui::query_causes(path, scope, kind, operation, node);
        } catch (const std::exception& e) {
          result.error = QString::fromStdString(e.what());
        }
        return result;
      },
      [this](const CausesResult& r) { show_causes(r); });
}

// --- a scope's profile per processor ---------------------------------------------------------

ScopeProfileView::ScopeProfileView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new ScopeProfileModel(this)),
      proxy_(new QSortFilterProxyModel(this)) {
  auto* column = new QVBoxLayout(this);
  title_ = make_title(this);
  column->addWidget(title_);
  table_ = make_table(model_, proxy_, this);
  table_->setObjectName(QStringLiteral("scope-profile"));
  keep_columns_fitted(table_, kScopeProfileFit);
  column->addWidget(table_, 1);
  connect(context_, &AnalysisContext::analysis_changed, this, &ScopeProfileView::refresh);
  connect(context_, &AnalysisContext::scope_changed, this, &ScopeProfileView::refresh);
  refresh();
}

QString ScopeProfileView::title() const { return title_->text(); }

void ScopeProfileView::refresh() {
  const auto a = context_->analysis();
  model_->set_scope(a, context_->scope());
  if (!a || model_->scope() < 0) {
    title_->setText(tr("<b>Profile per processor</b>: select a scope (click its vertical bar)."));
    return;
  }
  const auto id = static_cast<std::uint32_t>(model_->scope());
  title_->setText(
      tr("<b>%1</b> (%2): inclusive time on each processor, all nodes; bars scaled to the busiest. "
         "Imbalance (busiest PP / mean) <b>%3</b>.")
          .arg(QString::fromStdString(a->scope_name(id)).toHtmlEscaped(),
               QString::fromStdString(a->scope_location(id)).toHtmlEscaped())
          .arg(a->imbalance(id), 0, 'f', 2));
  // Without protocol controllers the CP columns would be zeros only.
  for (int c = ScopeProfileModel::FirstCategory + 4; c < ScopeProfileModel::ColumnCount; ++c)
    table_->setColumnHidden(c, !a->has_cp());
  fit_columns(table_, kScopeProfileFit);
}

// --- a scope's category histogram ------------------------------------------------------------

HistogramView::HistogramView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new CategoryHistogramModel(this)),
      proxy_(new QSortFilterProxyModel(this)) {
  auto* column = new QVBoxLayout(this);
  title_ = make_title(this);
  column->addWidget(title_);
  table_ = make_table(model_, proxy_, this);
  table_->setObjectName(QStringLiteral("histogram"));
  table_->setWordWrap(true);
  keep_columns_fitted(table_, kHistogramFit);
  column->addWidget(table_, 1);
  connect(context_, &AnalysisContext::analysis_changed, this, &HistogramView::refresh);
  connect(context_, &AnalysisContext::scope_changed, this, &HistogramView::refresh);
  refresh();
}

void HistogramView::refresh() {
  const auto a = context_->analysis();
  model_->set_scope(a, context_->scope());
  if (!a || model_->scope() < 0) {
    title_->setText(tr("<b>Category histogram</b>: select a scope (click its horizontal bar)."));
    return;
  }
  const auto id = model_->scope();
  title_->setText(tr("<b>%1</b> (%2): inclusive time by category over the selected nodes; bars scaled to the "
                     "largest category.")
                      .arg(QString::fromStdString(a->scope_name(id)).toHtmlEscaped(),
                           QString::fromStdString(a->scope_location(id)).toHtmlEscaped()));
  fit_columns(table_, kHistogramFit);
}

}  // namespace ncp2::gui
