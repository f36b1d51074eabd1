#include "gui/sweep_view.hpp"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/models.hpp"
#include "gui/sweep_plot.hpp"
#include "gui/widgets.hpp"
#include "sweep/sweep_plots.hpp"

namespace ncp2::gui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString speedup_text(const sweep::SweepPoint& p) {
  return p.speedup ? QStringLiteral("%1×").arg(*p.speedup, 0, 'f', 2) : QStringLiteral("—");
}

QString status_text(const sweep::SweepPoint& p) {
  if (p.status == sweep::PointStatus::Done) return p.verified ? QObject::tr("verified") : QObject::tr("done");
  return q(std::string(sweep::to_string(p.status)));
}

bool same_file(const QString& a, const QString& b) {
  return QFileInfo(a).absoluteFilePath() == QFileInfo(b).absoluteFilePath();
}

}  // namespace

// --- the model -----------------------------------------------------------------------------------

void SweepPointsModel::set_sweep(std::shared_ptr<const sweep::Sweep> sweep) {
  beginResetModel();
  sweep_ = std::move(sweep);
  endResetModel();
}

const sweep::SweepPoint* SweepPointsModel::point_at(int row) const {
  if (!sweep_ || row < 0 || row >= static_cast<int>(sweep_->points.size())) return nullptr;
  return &sweep_->points[static_cast<std::size_t>(row)];
}

int SweepPointsModel::row_of(std::int64_t point_id) const {
  for (int r = 0; r < rowCount(); ++r)
    if (point_at(r)->id == point_id) return r;
  return -1;
}

int SweepPointsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !sweep_ ? 0 : static_cast<int>(sweep_->points.size());
}

int SweepPointsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SweepPointsModel::data(const QModelIndex& index, int role) const {
  const auto* p = point_at(index.row());
  if (!p) return {};
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::DisplayRole) {
    switch (column) {
      case Name:
        return q(p->name);
      case Machine:
        return q(p->machine);
      case Nodes:
        return p->nodes;
      case Settings:
        return q(p->settings);
      case Status:
        return status_text(*p);
      case VirtualTime:
        return p->virtual_time_ps ? time_text(*p->virtual_time_ps) : QStringLiteral("—");
      case Speedup:
        return speedup_text(*p);
      case Message:
        return q(p->message);
      case ColumnCount:
        return {};
    }
  }
  if (role == roles::Sort) {
    switch (column) {
      case Nodes:
        return p->nodes;
      case VirtualTime:
        return QVariant::fromValue<qlonglong>(p->virtual_time_ps.value_or(-1));
      case Speedup:
        return p->speedup.value_or(-1.0);
      case Name:
        return QVariant::fromValue<qlonglong>(p->id);  // the grid's order
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::TextAlignmentRole && (column == Nodes || column == VirtualTime || column == Speedup))
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && p->status != sweep::PointStatus::Done) return QColor(0xa6, 0x1b, 0x1b);
  if (role == Qt::ToolTipRole) return q(p->name) + (p->message.empty() ? QString() : "\n" + q(p->message));
  return {};
}

QVariant SweepPointsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (static_cast<Column>(section)) {
    case Name:
      return tr("Point");
    case Machine:
      return tr("Machine");
    case Nodes:
      return tr("Nodes");
    case Settings:
      return tr("Settings");
    case Status:
      return tr("Status");
    case VirtualTime:
      return tr("Virtual time");
    case Speedup:
      return tr("Speedup");
    case Message:
      return tr("Message");
    case ColumnCount:
      return {};
  }
  return {};
}

// --- the view ------------------------------------------------------------------------------------

SweepView::SweepView(QWidget* parent)
    : QWidget(parent), model_(new SweepPointsModel(this)), proxy_(new QSortFilterProxyModel(this)) {
  setObjectName(QStringLiteral("sweep"));
  auto* column = new QVBoxLayout(this);
  title_ = make_title(this);
  title_->setObjectName(QStringLiteral("sweep-title"));
  title_->setText(tr("<b>Sweep</b>: open a sweep's folder or its sweep.db (File &gt; Open)."));
  column->addWidget(title_);
  auto* row = new QHBoxLayout;
  message_ = new QLabel(this);
  message_->setObjectName(QStringLiteral("sweep-message"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  row->addWidget(message_, 1);
  compare_button_ = new QPushButton(tr("Compare with…"), this);
  compare_button_->setCheckable(true);
  compare_button_->setToolTip(
      tr("Then click the point to compare the open run with (or Ctrl+click a point)"));
  compare_button_->setEnabled(false);
  row->addWidget(compare_button_);
  column->addLayout(row);

  auto* split = new QSplitter(Qt::Horizontal, this);
  plots_ = new QTabWidget(split);
  speedup_ = new SweepPlot(plots_);
  categories_ = new SweepPlot(plots_);
  plots_->addTab(speedup_, tr("Speedup"));
  plots_->addTab(categories_, tr("Categories"));
  table_ = make_table(model_, proxy_, split);
  table_->setObjectName(QStringLiteral("sweep-table"));
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setColumnHidden(SweepPointsModel::Name, true);  // machine, nodes and settings say it; tooltips too
  table_->viewport()->installEventFilter(this);
  split->addWidget(plots_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({3 * 200, 2 * 200});  // proportions until the first layout: the table's columns need room
  column->addWidget(split, 1);

  for (auto* plot : {speedup_, categories_}) {
    plot->set_describe([this](std::int64_t id) { return describe(id); });
    connect(plot, &SweepPlot::point_clicked, this, [this](std::int64_t id, Qt::KeyboardModifiers m) {
      activate_point(id, (m & (Qt::ControlModifier | Qt::ShiftModifier)) != 0);
    });
  }
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    if (const auto* p = model_->point_at(proxy_->mapToSource(index).row()))
      activate_point(p->id, (table_modifiers_ & (Qt::ControlModifier | Qt::ShiftModifier)) != 0);
  });
  connect(compare_button_, &QPushButton::toggled, this, [this](bool on) {
    if (on) say(tr("Click the point to compare the open run with."), false);
  });
}

bool SweepView::eventFilter(QObject* watched, QEvent* event) {
  // QTableView::clicked carries no modifiers: they are taken from the press.
  if (watched == table_->viewport() && event->type() == QEvent::MouseButtonPress)
    table_modifiers_ = static_cast<QMouseEvent*>(event)->modifiers();
  return QWidget::eventFilter(watched, event);
}

QString SweepView::open(const QString& path) {
  std::shared_ptr<const sweep::Sweep> read;
  std::vector<carnival::CategoryInfo> styles;
  try {
    read = std::make_shared<const sweep::Sweep>(sweep::read_sweep(path.toStdString()));
    styles = sweep::category_styles(*read);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  sweep_ = read;
  opened_ = compared_ = -1;
  compare_button_->setChecked(false);
  compare_button_->setEnabled(false);
  model_->set_sweep(sweep_);
  table_->resizeColumnsToContents();
  speedup_->set_layout([read](sweep::FigureSize size) { return sweep::speedup_figure(*read, size); });
  categories_->set_layout(
      [read, styles](sweep::FigureSize size) { return sweep::categories_figure(*read, styles, size); });
  refresh_highlight();
  using sweep::PointStatus;
  title_->setText(tr("<b>Sweep</b> %1 — %2 points: %3 done, %4 failed, %5 not run — %6")
                      .arg(q(sweep_->header.target).toHtmlEscaped())
                      .arg(sweep_->points.size())
                      .arg(sweep_->count(PointStatus::Done))
                      .arg(sweep_->count(PointStatus::Failed))
                      .arg(sweep_->count(PointStatus::NotRun))
                      .arg(q(sweep_->folder).toHtmlEscaped()));
  title_->setToolTip(q(sweep_->header.command));
  say(tr("Click a point (on a curve, a bar or in the table) to open its run; Ctrl+click another to compare."),
      false);
  return {};
}

QString SweepView::message() const { return message_->text(); }

void SweepView::say(const QString& text, bool problem) {
  message_->setStyleSheet(problem ? QStringLiteral("color:#a61b1b;") : QString());
  message_->setText(text);
}

QString SweepView::why_unavailable(const sweep::SweepPoint& p) const {
  const QString name = q(p.name);
  if (p.status == sweep::PointStatus::Failed)
    return tr("%1 failed: %2").arg(name, p.message.empty() ? tr("no message recorded") : q(p.message));
  if (p.status == sweep::PointStatus::NotRun)
    return tr("%1 did not run (the sweep stopped before it%2); run the same `ncp2 sweep` command again to "
              "resume")
        .arg(name, p.message.empty() ? QString() : QStringLiteral(": ") + q(p.message));
  const QString path = q(sweep_->point_db_path(p));
  if (path.isEmpty() || !QFileInfo::exists(path))
    return tr("%1: its run database %2 is missing").arg(name, path);
  return {};
}

void SweepView::activate_point(std::int64_t id, bool compare) {
  const auto* p = sweep_ ? sweep_->find(id) : nullptr;
  if (!p) return;
  select_source_row(table_, proxy_, model_->row_of(id));
  if (const QString why = why_unavailable(*p); !why.isEmpty()) {
    say(why, true);
    emit point_unavailable(why);
    return;
  }
  const QString path = q(sweep_->point_db_path(*p));
  const bool comparing = (compare || compare_button_->isChecked()) && opened_ >= 0;
  compare_button_->setChecked(false);
  if (comparing && id == opened_) {
    say(tr("%1 is the open run: click another point to compare it with.").arg(q(p->name)), false);
    return;
  }
  if (comparing) {
    compared_ = id;
    refresh_highlight();
    say(tr("Comparing %1 (A) with %2 (B): the Compare tab.").arg(q(sweep_->find(opened_)->name), q(p->name)),
        false);
    emit compare_requested(path);
    return;
  }
  say(tr("Opening %1…").arg(q(p->name)), false);
  emit open_run_requested(path);
}

void SweepView::run_opened(const QString& path) {
  opened_ = -1;
  compared_ = -1;
  if (sweep_)
    for (const auto& p : sweep_->points)
      if (!p.db_file.empty() && same_file(q(sweep_->point_db_path(p)), path)) opened_ = p.id;
  compare_button_->setEnabled(opened_ >= 0);
  if (opened_ >= 0)
    say(tr("%1 is open above. Ctrl+click another point (or Compare with…) to compare them.")
            .arg(q(sweep_->find(opened_)->name)),
        false);
  refresh_highlight();
}

void SweepView::refresh_highlight() {
  for (auto* plot : {speedup_, categories_}) plot->set_highlight(opened_, compared_);
}

QString SweepView::describe(std::int64_t id) const {
  const auto* p = sweep_ ? sweep_->find(id) : nullptr;
  if (!p) return {};
  QString text = q(p->name) + QStringLiteral("\n") + status_text(*p);
  if (p->virtual_time_ps) text += tr(" · %1 virtual").arg(time_text(*p->virtual_time_ps));
  if (p->speedup) text += tr(" · speedup %1").arg(speedup_text(*p));
  if (p->status != sweep::PointStatus::Done && !p->message.empty())
    text += QStringLiteral("\n") + q(p->message);
  return text;
}

}  // namespace ncp2::gui
