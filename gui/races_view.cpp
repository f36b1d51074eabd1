#include "gui/races_view.hpp"

#include <array>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/widgets.hpp"

namespace ncp2::gui {

namespace {

QString file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return QString::fromStdString(slash == std::string::npos ? path : path.substr(slash + 1));
}

QString site_text(const carnival::RaceAccess& a, bool whole_path) {
  if (a.file.empty() || a.line <= 0) return QStringLiteral("unknown site");
  return QStringLiteral("%1:%2")
      .arg(whole_path ? QString::fromStdString(a.file) : file_name(a.file))
      .arg(a.line);
}

QString kind_text(const carnival::RaceAccess& a) {
  return a.writes ? QStringLiteral("write") : QStringLiteral("read");
}

// "node 0 writes at workloads/phases.cpp:205 in update (interval 3, vector time [3,1])"
QString access_sentence(const Analysis& a, const carnival::RaceAccess& access) {
  return QStringLiteral("node %1 %2 at %3 in <b>%4</b> (interval %5, vector time %6)")
      .arg(access.node)
      .arg(access.writes ? QStringLiteral("writes") : QStringLiteral("reads"),
           site_text(access, true).toHtmlEscaped(),
           QString::fromStdString(a.scope_name(access.scope)).toHtmlEscaped())
      .arg(access.interval)
      .arg(vector_time_label(access.vector_time));
}

// A sort key that orders sites by file, then line numerically.
QString site_key(const carnival::RaceAccess& a) {
  return QStringLiteral("%1:%2:%3")
      .arg(QString::fromStdString(a.file))
      .arg(a.line, 9, 10, QLatin1Char('0'))
      .arg(a.node);
}

}  // namespace

QString race_access_label(const Analysis& a, const carnival::RaceAccess& access) {
  return QStringLiteral("node %1 %2\n%3 · %4")
      .arg(access.node)
      .arg(kind_text(access), site_text(access, false), QString::fromStdString(a.scope_name(access.scope)));
}

QString vector_time_label(const std::vector<std::uint32_t>& vt) {
  QStringList parts;
  for (auto v : vt) parts << QString::number(v);
  return QStringLiteral("[%1]").arg(parts.join(QLatin1Char(',')));
}

QString race_location_label(const carnival::RaceRow& race) {
  QString text = QStringLiteral("%1+%2").arg(QString::fromStdString(race.region)).arg(race.offset);
  if (race.address) text += QStringLiteral(" @ 0x%1").arg(*race.address, 0, 16);
  return text;
}

QString race_details(const Analysis& a, const carnival::RaceRow& race) {
  return QObject::tr(
             "<b>race %1</b> on %2, %3 %4<br><b>first</b>: %5<br><b>second</b>: %6<br>"
             "Neither happens before the other: no lock or barrier orders them.")
      .arg(race.id)
      .arg(race_location_label(race).toHtmlEscaped())
      .arg(race.occurrences)
      .arg(race.occurrences == 1 ? QObject::tr("occurrence") : QObject::tr("occurrences"),
           access_sentence(a, race.first), access_sentence(a, race.second));
}

// --- RacesModel ------------------------------------------------------------------------------

void RacesModel::set_analysis(std::shared_ptr<const Analysis> a) {
  beginResetModel();
  a_ = std::move(a);
  endResetModel();
}

int RacesModel::total() const { return a_ ? static_cast<int>(a_->summary().races.size()) : 0; }

const carnival::RaceRow* RacesModel::race_at(int row) const {
  if (!a_ || row < 0 || row >= rowCount()) return nullptr;
  return &a_->summary().races[static_cast<std::size_t>(row)];
}

int RacesModel::row_of_race(std::uint32_t id) const {
  for (int row = 0; row < rowCount(); ++row)
    if (race_at(row)->id == id) return row;
  return -1;
}

int RacesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RacesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  static constexpr std::array names = {"#", "Where", "Count", "First access", "Second access"};
  if (role == Qt::DisplayRole)
    return section >= 0 && section < ColumnCount ? QString(names[static_cast<std::size_t>(section)])
                                                 : QVariant();
  if (role == Qt::ToolTipRole && (section == First || section == Second))
    return tr("node, read or write, file:line, scope; click to show this access's line");
  if (role == Qt::ToolTipRole && section == Occurrences)
    return tr("occurrences: pairs of intervals found racing at these two sites");
  return {};
}

QVariant RacesModel::display(const carnival::RaceRow& r, int column) const {
  switch (column) {
    case Id:
      return QVariant::fromValue<quint32>(r.id);
    case Location:
      return race_location_label(r);
    case First:
      return race_access_label(*a_, r.first);
    case Second:
      return race_access_label(*a_, r.second);
    case Occurrences:
      return QVariant::fromValue<qulonglong>(r.occurrences);
    default:
      return {};
  }
}

QVariant RacesModel::sort_key(const carnival::RaceRow& r, int column) const {
  switch (column) {
    case Id:
      return QVariant::fromValue<quint32>(r.id);
    case Location:
      return QStringLiteral("%1+%2")
          .arg(QString::fromStdString(r.region))
          .arg(r.offset, 20, 10, QLatin1Char('0'));
    case First:
      return site_key(r.first);
    case Second:
      return site_key(r.second);
    case Occurrences:
      return QVariant::fromValue<qulonglong>(r.occurrences);
    default:
      return {};
  }
}

QVariant RacesModel::data(const QModelIndex& index, int role) const {
  const carnival::RaceRow* r = index.isValid() ? race_at(index.row()) : nullptr;
  if (!r) return {};
  const int col = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return display(*r, col);
    case roles::Sort:
      return sort_key(*r, col);
    case Qt::TextAlignmentRole:
      return col == Id || col == Occurrences ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
      // Writes stand out: the access that makes it a race.
      if ((col == First && r->first.writes) || (col == Second && r->second.writes)) return QColor(176, 0, 32);
      return {};
    case Qt::ToolTipRole:
      return race_details(*a_, *r) +
             tr("<br><i>click: the first access's line; click the second access: its line</i>");
    case roles::ScopeId:
      return QVariant::fromValue<qint64>(col == Second ? r->second.scope : r->first.scope);
    case roles::Node:
      return col == Second ? r->second.node : r->first.node;
    default:
      return {};
  }
}

// --- RacesView -------------------------------------------------------------------------------

RacesView::RacesView(AnalysisContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new RacesModel(this)),
      proxy_(new QSortFilterProxyModel(this)) {
  auto* column = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setTextFormat(Qt::RichText);
  title_->setWordWrap(true);
  title_->setObjectName(QStringLiteral("races-title"));
  title_->setAlignment(Qt::AlignLeft | Qt::AlignTop);  // alone in the tab (no races), it stays on top
  column->addWidget(title_);
  table_ = make_table(model_, proxy_, this);
  table_->setObjectName(QStringLiteral("races"));
  // Two lines a row (who and how, then where): narrow enough for the tab beside the source.
  table_->verticalHeader()->setDefaultSectionSize(2 * table_->fontMetrics().height() + 8);
  // The two accesses share the width left by the short columns: both stay in sight (elided, the
  // tooltip and the panel below have them whole).
  auto* header = table_->horizontalHeader();
  for (int c : {RacesModel::Id, RacesModel::Location, RacesModel::Occurrences})
    header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  for (int c : {RacesModel::First, RacesModel::Second}) header->setSectionResizeMode(c, QHeaderView::Stretch);
  column->addWidget(table_, 1);
  more_ = new MoreRowsBar(model_, tr("races"), this);
  column->addWidget(more_);

  detail_panel_ = new QWidget(this);
  auto* detail_column = new QVBoxLayout(detail_panel_);
  detail_column->setContentsMargins(0, 0, 0, 0);
  details_ = new QLabel(detail_panel_);
  details_->setTextFormat(Qt::RichText);
  details_->setWordWrap(true);
  details_->setObjectName(QStringLiteral("race-details"));
  detail_column->addWidget(details_);
  auto* buttons = new QHBoxLayout;
  first_ = new QPushButton(detail_panel_);
  second_ = new QPushButton(detail_panel_);
  buttons->addWidget(first_);
  buttons->addWidget(second_);
  buttons->addStretch(1);
  detail_column->addLayout(buttons);
  column->addWidget(detail_panel_);

  connect(context_, &AnalysisContext::analysis_changed, this, &RacesView::refresh);
  connect(context_, &AnalysisContext::race_changed, this, &RacesView::follow_race);
  connect(table_, &QTableView::clicked, this, &RacesView::cell_chosen);
  connect(table_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { cell_chosen(current); });
  connect(first_, &QPushButton::clicked, this, [this] { context_->select_race(context_->race(), 0); });
  connect(second_, &QPushButton::clicked, this, [this] { context_->select_race(context_->race(), 1); });
  refresh();
}

QString RacesView::title() const { return title_->text(); }

QString RacesView::details() const { return details_->text(); }

QString RacesView::tab_title() const {
  const auto a = context_->analysis();
  if (!a || a->summary().races.empty()) return tr("Races");
  return tr("Races (%1)").arg(a->summary().races.size());
}

void RacesView::refresh() {
  const auto a = context_->analysis();
  model_->set_analysis(a);  // a node filter recomputes the analysis; the races (all nodes) stay
  const std::size_t n = a ? a->summary().races.size() : 0;
  if (!a)
    title_->setText(tr("<b>Data races</b>: open a run."));
  else if (n == 0 && !a->summary().races_checked)  // races without the meta key still show
    title_->setText(
        tr("<b>Race detection was off</b> for this run, so no data races are known.<br>"
           "<code>ncp2 run --detect-races</code> finds accesses of different nodes to the same bytes, at "
           "least one a write, that no lock or barrier orders."));
  else if (n == 0)
    title_->setText(tr("<b>No data races found</b> (race detection was on)."));
  else
    title_->setText(tr("<b>%1 data race%2</b>: accesses of different nodes to the same bytes, at least one "
                       "a write, that no lock or barrier orders. Click a race to see its first access "
                       "(both lines are marked); click its second access to see that one.")
                        .arg(n)
                        .arg(n == 1 ? QString() : QStringLiteral("s")));
  table_->setVisible(n > 0);
  follow_race(context_->race());
}

void RacesView::cell_chosen(const QModelIndex& proxy_index) {
  if (!proxy_index.isValid() || following_) return;
  const carnival::RaceRow* race = model_->race_at(proxy_->mapToSource(proxy_index).row());
  if (race) context_->select_race(race->id, proxy_index.column() == RacesModel::Second ? 1 : 0);
}

void RacesView::follow_race(quint32 id) {
  const auto a = context_->analysis();
  const carnival::RaceRow* race = context_->selected_race();
  detail_panel_->setVisible(race != nullptr);
  if (!race || !a) {
    table_->clearSelection();
    return;
  }
  const int row = model_->row_of_race(id);
  const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
  if (index.isValid() && table_->currentIndex().row() != index.row()) {
    following_ = true;  // selecting the row is not a click: the line stays where it is
    table_->setCurrentIndex(index);
    table_->selectRow(index.row());
    table_->scrollTo(index);
    following_ = false;
  }
  details_->setText(race_details(*a, *race));
  // Short texts (the file without its directories): the buttons must not widen the tab.
  const auto button = [&](QPushButton* b, const QString& which, const carnival::RaceAccess& access) {
    const bool shown = context_->can_show(access);
    b->setEnabled(shown);
    b->setText(shown ? tr("Show the %1 access: %2").arg(which, site_text(access, false))
                     : tr("%1 access: source not stored").arg(which));
    b->setToolTip(shown ? tr("Show %1 in the source view").arg(site_text(access, true))
                        : tr("The run stored no source text for %1").arg(site_text(access, true)));
  };
  button(first_, tr("first"), race->first);
  button(second_, tr("second"), race->second);
}

}  // namespace ncp2::gui
