#include "gui/compare_view.hpp"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "carnival/report.hpp"
#include "gui/models.hpp"
#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

QString side_text(const std::optional<std::int64_t>& ps) { return ps ? time_text(*ps) : QStringLiteral("—"); }

QString run_text(const carnival::RunInfo& r, const std::string& path) {
  return QObject::tr("%1 on %2, %3 nodes, %4, %5 virtual (%6)")
      .arg(QString::fromStdString(r.workload), QString::fromStdString(r.machine))
      .arg(r.nodes)
      .arg(QString::fromStdString(r.status), time_text(r.virtual_time_ps),
           QFileInfo(QString::fromStdString(path)).fileName());
}

}  // namespace

CompareResult compare_files(const QString& a, const QString& b) {
  CompareResult out;
  try {
    out.comparison = std::make_shared<const carnival::Comparison>(carnival::compare_runs(
        carnival::read_compared_run(a.toStdString()), carnival::read_compared_run(b.toStdString())));
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  return out;
}

// --- the model -----------------------------------------------------------------------------------

void CompareModel::set_comparison(std::shared_ptr<const carnival::Comparison> c) {
  beginResetModel();
  c_ = std::move(c);
  endResetModel();
}

const carnival::CompareRow* CompareModel::row_at(int row) const {
  if (!c_ || row < 0 || row >= static_cast<int>(c_->rows.size())) return nullptr;
  return &c_->rows[static_cast<std::size_t>(row)];
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !c_ ? 0 : static_cast<int>(c_->rows.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  const auto* r = row_at(index.row());
  if (!r) return {};
  const auto ratio = r->ratio();
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Section:
        return QString::fromStdString(std::string(carnival::to_string(r->section)));
      case What:
        return QString::fromStdString(r->key);
      case A:
        return side_text(r->a_ps);
      case B:
        return side_text(r->b_ps);
      case Difference:
        return r->diff_ps() > 0 ? QStringLiteral("+") + time_text(r->diff_ps()) : time_text(r->diff_ps());
      case Ratio:
        return ratio ? QStringLiteral("%1×").arg(*ratio, 0, 'f', 2) : QStringLiteral("—");
      default:
        return {};
    }
  }
  if (role == roles::Sort) {
    switch (index.column()) {
      case Section:
        return index.row();  // the comparison's own order
      case What:
        return QString::fromStdString(r->key);
      case A:
        return QVariant::fromValue<qlonglong>(r->a_ps.value_or(-1));
      case B:
        return QVariant::fromValue<qlonglong>(r->b_ps.value_or(-1));
      case Difference:
        return QVariant::fromValue<qlonglong>(r->diff_ps());
      case Ratio:
        return ratio.value_or(-1.0);
      default:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() >= A)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() >= Difference && r->diff_ps() != 0 && r->a_ps && r->b_ps)
    return QColor(r->diff_ps() > 0 ? QStringLiteral("#a61b1b")
                                   : QStringLiteral("#1b6e2a"));  // slower, faster
  if (role == Qt::ToolTipRole)
    return QObject::tr("%1<br>A: %2<br>B: %3<br>B − A: %4")
        .arg(QString::fromStdString(r->key).toHtmlEscaped(), side_text(r->a_ps), side_text(r->b_ps),
             time_text(r->diff_ps()));
  return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Section:
      return tr("Section");
    case What:
      return tr("What");
    case A:
      return tr("A");
    case B:
      return tr("B");
    case Difference:
      return tr("B − A");
    case Ratio:
      return tr("B / A");
    default:
      return {};
  }
}

// --- the view ------------------------------------------------------------------------------------

CompareView::CompareView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new CompareModel(this)),
      proxy_(new QSortFilterProxyModel(this)) {
  setObjectName(QStringLiteral("compare"));
  auto* column = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setObjectName(QStringLiteral("compare-title"));
  title_->setTextFormat(Qt::RichText);
  title_->setWordWrap(true);
  title_->setText(tr("<b>Compare two runs</b>: open a run, then File &gt; Compare with… another."));
  column->addWidget(title_);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter rows (scope, category, operation…)"));
  filter_->setClearButtonEnabled(true);
  column->addWidget(filter_);
  table_ = make_table(model_, proxy_, this);
  table_->setObjectName(QStringLiteral("compare-table"));
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->horizontalHeader()->setStretchLastSection(false);  // "What" takes the room, not B / A
  table_->horizontalHeader()->setSectionResizeMode(CompareModel::What, QHeaderView::Stretch);
  column->addWidget(table_, 1);
  connect(table_, &QTableView::clicked, this, &CompareView::row_clicked);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
}

CompareView::~CompareView() { watcher_.wait(); }

QString CompareView::title_text() const { return title_->text(); }

void CompareView::compare(const QString& a, const QString& b) {
  title_->setText(
      tr("Comparing %1 with %2…").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()).toHtmlEscaped());
  watcher_.start([a, b] { return compare_files(a, b); }, [this](const CompareResult& r) { show_result(r); });
}

QString CompareView::compare_and_wait(const QString& a, const QString& b) {
  watcher_.finish_now();
  const CompareResult result = compare_files(a, b);  // here: the caller waits anyway
  show_result(result);
  return result.error;
}

void CompareView::row_clicked(const QModelIndex& proxy_index) {
  const auto* row = model_->row_at(proxy_->mapToSource(proxy_index).row());
  const auto analysis = context_->analysis();
  if (!row || !row->a_ps || row->section != carnival::CompareSection::Scope || !analysis) return;
  for (const auto& s : analysis->summary().scopes)
    if (carnival::compare_scope_label(s) == row->key) {
      context_->select_scope(s.id);
      return;
    }
}

void CompareView::show_result(const CompareResult& result) {
  if (!result.comparison) {
    model_->set_comparison(nullptr);
    title_->setText(tr("<b>Cannot compare</b>: %1").arg(result.error.toHtmlEscaped()));
    emit compared(result.error);
    return;
  }
  const auto& c = *result.comparison;
  QString text = tr("<b>A</b>: %1<br><b>B</b>: %2")
                     .arg(run_text(c.a, c.a_path).toHtmlEscaped(), run_text(c.b, c.b_path).toHtmlEscaped());
  for (const auto& note : c.notes)
    text += QStringLiteral("<br><span style=\"color:#7a4a00\">%1</span>")
                .arg(QString::fromStdString(note).toHtmlEscaped());
  title_->setText(text);
  model_->set_comparison(result.comparison);
  table_->resizeColumnsToContents();
  table_->horizontalHeader()->setSectionResizeMode(CompareModel::What, QHeaderView::Stretch);
  emit compared({});
}

}  // namespace ncp2::gui
