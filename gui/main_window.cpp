#include "gui/main_window.hpp"

#include <algorithm>
#include <array>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include "gui/compare_view.hpp"
#include "gui/export.hpp"
#include "gui/find_bar.hpp"
#include "gui/models.hpp"
#include "gui/races_view.hpp"
#include "gui/source_panel.hpp"
#include "gui/source_view.hpp"
#include "gui/sweep_view.hpp"
#include "gui/timeline_view.hpp"
#include "gui/views.hpp"
#include "gui/widgets.hpp"
#include "sweep/sweep_reader.hpp"

namespace ncp2::gui {

namespace {

constexpr const char* kRecentKey = "recentFiles";

QString check_file(const QString& path) {
  try {
    check_integrity(path.toStdString());
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

// A sweep's folder or its database; any other file (or folder) is opened as a run, which says
// what it is not.
bool is_sweep_location(const QString& path) { return sweep::is_sweep(path.toStdString()); }

}  // namespace

LoadResult load_file(const QString& path) {
  LoadResult result;
  result.path = path;
  try {
    result.summary = std::make_shared<const RunSummary>(load_run_summary(path.toStdString()));
  } catch (const std::exception& e) {
    result.error = QString::fromStdString(e.what());
  }
  return result;
}

std::optional<ViewId> view_from_name(const QString& name) {
  if (name == QLatin1String("main")) return ViewId::Main;
  if (name == QLatin1String("scope")) return ViewId::Scope;
  if (name == QLatin1String("histogram")) return ViewId::Histogram;
  if (name == QLatin1String("profile-map")) return ViewId::ProfileMap;
  if (name == QLatin1String("matrix")) return ViewId::Matrix;
  if (name == QLatin1String("cpwait")) return ViewId::CPWait;
  if (name == QLatin1String("races")) return ViewId::Races;
  if (name == QLatin1String("timeline")) return ViewId::Timeline;
  if (name == QLatin1String("compare")) return ViewId::Compare;
  if (name == QLatin1String("sweep")) return ViewId::Sweep;
  return std::nullopt;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), context_(new AnalysisContext(this)) {
  setWindowTitle(tr("CARNIVAL"));
  auto* central = new QWidget(this);
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(4, 4, 4, 4);
  banner_ = new QLabel(central);
  banner_->setObjectName(QStringLiteral("banner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::RichText);
  banner_->setMargin(6);
  banner_->hide();
  connect(banner_, &QLabel::linkActivated, this, [this] { show_view(ViewId::Races); });
  column->addWidget(banner_);

  outer_ = new QSplitter(Qt::Vertical, central);
  split_ = new QSplitter(Qt::Horizontal, outer_);
  source_ = new SourcePanel(context_, split_);
  tabs_ = new QTabWidget(split_);
  profile_map_ = new ProfileMapView(context_, tabs_);
  cpwait_ = new CPWaitView(context_, tabs_);
  races_ = new RacesView(context_, tabs_);
  scope_profile_ = new ScopeProfileView(context_, tabs_);
  histogram_ = new HistogramView(context_, tabs_);
  tabs_->addTab(profile_map_, tr("Profile Map"));
  tabs_->addTab(cpwait_, tr("CPWait Map"));
  tabs_->addTab(races_, races_->tab_title());
  // Short titles: all five tabs fit the pane at 1024 px, without scroll arrows.
  tabs_->addTab(scope_profile_, tr("Per processor"));
  tabs_->addTab(histogram_, tr("Histogram"));
  tabs_->setTabToolTip(tabs_->indexOf(scope_profile_), tr("The selected scope's profile per processor"));
  tabs_->setTabToolTip(tabs_->indexOf(histogram_), tr("The selected scope's category histogram"));
  split_->addWidget(source_);
  split_->addWidget(tabs_);
  // The analysis pane gets more than half: its tables need ~550 px for their times to show.
  split_->setStretchFactor(0, 9);
  split_->setStretchFactor(1, 11);
  split_->setSizes({9 * 64, 11 * 64});  // proportions until the first layout
  build_lower_pane();
  outer_->addWidget(split_);
  outer_->addWidget(lower_tabs_);
  outer_->setChildrenCollapsible(false);
  column->addWidget(outer_, 1);
  legend_ = new CategoryLegend(central);
  legend_->setObjectName(QStringLiteral("legend"));
  column->addWidget(legend_);
  setCentralWidget(central);

  auto* bar = addToolBar(tr("Selection"));
  bar->setMovable(false);
  bar->addWidget(new QLabel(tr(" Nodes: "), bar));
  nodes_ = new QComboBox(bar);
  nodes_->setObjectName(QStringLiteral("node-filter"));
  nodes_->setToolTip(tr("Show the times of all nodes, or of one node only (every view follows)"));
  bar->addWidget(nodes_);
  run_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(run_label_);
  build_menus();
  refill_nodes();

  connect(nodes_, &QComboBox::activated, this,
          [this](int i) { context_->set_node_filter(nodes_->itemData(i).toInt()); });
  connect(context_, &AnalysisContext::analysis_changed, this, [this] {
    legend_->set_analysis(context_->analysis().get());
    refill_nodes();
  });
  connect(source_->view(), &SourceView::scope_bar_clicked, this,
          [this] { tabs_->setCurrentWidget(scope_profile_); });
  connect(source_->view(), &SourceView::category_bar_clicked, this,
          [this] { tabs_->setCurrentWidget(histogram_); });
  resize(1280, 800);
}

MainWindow::~MainWindow() {
  // The workers hold nothing of the window, but wait for them so that none outlives the process.
  loader_.wait();
  checker_.wait();
}

void MainWindow::build_lower_pane() {
  // The Timeline and the comparison need the window's whole width: a pane below, hidden until
  // chosen, so that the five tabs above keep their room.
  lower_tabs_ = new QTabWidget(outer_);
  lower_tabs_->setObjectName(QStringLiteral("lower-tabs"));
  timeline_ = new TimelineView(context_, lower_tabs_);
  compare_ = new CompareView(context_, lower_tabs_);
  lower_tabs_->addTab(timeline_, tr("Timeline"));
  lower_tabs_->addTab(compare_, tr("Compare"));
  sweep_ = new SweepView(lower_tabs_);
  lower_tabs_->addTab(sweep_, tr("Sweep"));
  connect(sweep_, &SweepView::open_run_requested, this, &MainWindow::open_file);
  connect(sweep_, &SweepView::compare_requested, this, &MainWindow::compare_with);
  connect(sweep_, &SweepView::point_unavailable, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10000); });
  connect(this, &MainWindow::run_opened, sweep_, &SweepView::run_opened);
  lower_tabs_->setTabsClosable(true);
  connect(lower_tabs_, &QTabWidget::tabCloseRequested, lower_tabs_, &QWidget::hide);
  lower_tabs_->hide();
}

void MainWindow::build_menus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* open = file->addAction(tr("&Open…"), this, &MainWindow::choose_file);
  open->setShortcut(QKeySequence::Open);
  file->addAction(tr("Open a s&weep folder…"), this, &MainWindow::choose_sweep_folder);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  refill_recent_menu();
  file->addAction(tr("&Compare with…"), this, &MainWindow::choose_comparison);
  build_export_menu(file);
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  build_edit_menu();
  auto* view = menuBar()->addMenu(tr("&View"));
  // Ctrl+1..6 in this order: the matrix last, so that the older views keep their keys.
  const std::array<std::pair<QString, ViewId>, 6> views = {{{tr("Profile Map"), ViewId::ProfileMap},
                                                            {tr("CPWait Map"), ViewId::CPWait},
                                                            {tr("Data races"), ViewId::Races},
                                                            {tr("Scope per processor"), ViewId::Scope},
                                                            {tr("Category histogram"), ViewId::Histogram},
                                                            {tr("Scopes × processors"), ViewId::Matrix}}};
  int key = 1;
  for (const auto& [name, id] : views) {
    auto* action = view->addAction(name, this, [this, v = id] { show_view(v); });
    action->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(key++)));
  }
  view->addSeparator();
  view->addAction(tr("Timeline"), this, [this] { show_view(ViewId::Timeline); })
      ->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(key++)));
  view->addAction(tr("Comparison"), this, [this] { show_view(ViewId::Compare); })
      ->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(key++)));
  view->addAction(tr("Sweep"), this, [this] { show_view(ViewId::Sweep); })
      ->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(key++)));
  view->addAction(tr("Hide the Timeline, Comparison and Sweep pane"), lower_tabs_, &QWidget::hide);
}

void MainWindow::choose_comparison() {
  if (path_.isEmpty()) {
    const QString message = tr("Open a run first (File > Open), then compare it with another.");
    statusBar()->showMessage(message, 10000);
    if (interactive_) QMessageBox::information(this, tr("Compare with…"), message);
    return;
  }
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Compare %1 with…").arg(QFileInfo(path_).fileName()), QFileInfo(path_).absolutePath(),
      tr("CARNIVAL databases (*.db);;All files (*)"));
  if (!path.isEmpty()) compare_with(path);
}

void MainWindow::compare_with(const QString& path) {
  show_lower(compare_);
  compare_->compare(path_, path);
}

QString MainWindow::compare_with_and_wait(const QString& path) {
  if (path_.isEmpty()) return tr("no run is open to compare with %1").arg(path);
  show_lower(compare_);
  return compare_->compare_and_wait(path_, path);
}

// The code gets what the analysis pane can spare beyond the width its tables need (their names,
// bars and times: kAnalysisPx), up to 100 columns of code, and never less than 9/20 of the width
// (issue 36: at 1280 px the even split showed ~60 columns of code).
void MainWindow::split_for_code() {
  constexpr int kAnalysisPx = 480;
  constexpr int kColumns = 100;
  const int total = std::max(split_->width(), 2);
  const SourceView* view = source_->view();
  const int code_px = view->layout_geometry().text_x() +
                      kColumns * QFontMetrics(view->font()).horizontalAdvance(QLatin1Char('x')) +
                      view->verticalScrollBar()->sizeHint().width() + 2 * view->frameWidth();
  const int source = std::clamp(std::min(total - kAnalysisPx, code_px), total * 9 / 20, total);
  split_->setSizes({source, total - source});
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!split_done_) {  // the first layout: the window has its size now
    split_done_ = true;
    split_for_code();
  }
}

void MainWindow::show_run_views(bool on) {
  split_->setVisible(on);
  lower_tabs_->setTabVisible(lower_tabs_->indexOf(timeline_), on);
  lower_tabs_->setTabVisible(lower_tabs_->indexOf(compare_), on);
}

void MainWindow::show_lower(QWidget* view) {
  const bool was_hidden = lower_tabs_->isHidden();
  lower_tabs_->show();
  lower_tabs_->setCurrentWidget(view);
  if (was_hidden) {
    // The pane takes most of the height: a timeline of 32 lanes needs it.
    const int total = std::max(outer_->height(), 2);
    outer_->setSizes({total * 3 / 10, total * 7 / 10});
  }
}

void MainWindow::build_export_menu(QMenu* file) {
  auto* menu = file->addMenu(tr("&Export"));
  struct Entry {
    QString name;
    ExportTarget target;
  };
  const std::array<Entry, 3> entries = {{{tr("the window"), ExportTarget::Window},
                                         {tr("the source view"), ExportTarget::Source},
                                         {tr("the analysis view in front"), ExportTarget::Analysis}}};
  for (const auto& entry : entries) {
    for (const QString& format : {QStringLiteral("png"), QStringLiteral("svg")}) {
      menu->addAction(tr("%1 as %2…").arg(entry.name, format.toUpper()), this, [this, entry, format] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export %1").arg(entry.name), QStringLiteral("carnival.") + format,
            tr("%1 images (*.%2)").arg(format.toUpper(), format));
        if (!path.isEmpty()) report_export(path, export_image(entry.target, path));
      });
    }
  }
  menu->addSeparator();
  menu->addAction(tr("the table in front as CSV…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the table"), QStringLiteral("carnival.csv"), tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty()) report_export(path, export_table(path));
  });
}

void MainWindow::build_edit_menu() {
  auto* edit = menuBar()->addMenu(tr("&Edit"));
  FindBar* find = source_->find_bar();
  edit->addAction(tr("&Find in the source…"), find, &FindBar::open)->setShortcut(QKeySequence::Find);
  edit->addAction(tr("Find &next"), find, &FindBar::find_next)->setShortcut(QKeySequence::FindNext);
  edit->addAction(tr("Find &previous"), find, &FindBar::find_previous)
      ->setShortcut(QKeySequence::FindPrevious);
}

QTableView* MainWindow::current_table() const {
  QWidget* front = tabs_->currentWidget();
  if (front == profile_map_) return profile_map_->current_table();
  if (front == cpwait_) return cpwait_->table();
  if (front == races_) return races_->table();
  if (front == scope_profile_) return scope_profile_->table();
  if (front == histogram_) return histogram_->table();
  return nullptr;
}

QString MainWindow::export_image(ExportTarget target, const QString& path) {
  QWidget* widget = target == ExportTarget::Window   ? static_cast<QWidget*>(this)
                    : target == ExportTarget::Source ? static_cast<QWidget*>(source_)
                                                     : tabs_->currentWidget();
  const QString title =
      target == ExportTarget::Analysis ? tabs_->tabText(tabs_->currentIndex()) : windowTitle();
  return path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? write_svg(widget, path, title)
                                                                   : write_png(widget, path);
}

QString MainWindow::export_table(const QString& path) {
  const QTableView* table = current_table();
  if (!table) return tr("no table in front");
  return write_csv(*table->model(), path);
}

void MainWindow::report_export(const QString& path, const QString& error) {
  if (error.isEmpty()) {
    statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    return;
  }
  statusBar()->showMessage(error, 10000);
  if (interactive_) QMessageBox::warning(this, tr("Export"), error);
}

void MainWindow::choose_file() {
  const QString start = path_.isEmpty() ? QString() : QFileInfo(path_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a CARNIVAL database"), start,
                                                    tr("CARNIVAL databases (*.db);;All files (*)"));
  if (!path.isEmpty()) open_file(path);
}

void MainWindow::choose_sweep_folder() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Open a sweep (the --out folder of ncp2 sweep)"));
  if (!dir.isEmpty()) open_file(dir);
}

QString MainWindow::open_sweep(const QString& path) {
  if (QString error = sweep_->open(path); !error.isEmpty()) {
    fail(path, error);
    return error;
  }
  show_run_views(!path_.isEmpty());  // no run open yet: the sweep takes the window
  show_lower(sweep_);
  setWindowTitle(tr("CARNIVAL — sweep %1 — %2")
                     .arg(QString::fromStdString(sweep_->sweep()->header.target),
                          QDir(QString::fromStdString(sweep_->sweep()->folder)).dirName()));
  statusBar()->showMessage(tr("Opened the sweep %1").arg(path), 5000);
  remember(path);
  emit sweep_opened(path);
  return {};
}

void MainWindow::open_file(const QString& path) {
  if (is_sweep_location(path)) {
    open_sweep(path);
    return;
  }
  statusBar()->showMessage(tr("Opening %1…").arg(path));
  QApplication::setOverrideCursor(Qt::BusyCursor);
  loader_.start([path] { return load_file(path); }, [this](const LoadResult& r) { loaded(r); });
}

QString MainWindow::open_file_and_wait(const QString& path) {
  if (is_sweep_location(path)) return open_sweep(path);
  const LoadResult result = load_file(path);  // here: the caller waits anyway
  if (!result.summary) {
    fail(path, result.error);
    return result.error;
  }
  loaded(result);
  checker_.finish_now();  // the check loaded() started, its result shown
  QString error = check_file(path);
  integrity_done(path, error);
  return error;
}

void MainWindow::loaded(const LoadResult& result) {
  if (QApplication::overrideCursor()) QApplication::restoreOverrideCursor();
  if (!result.summary) {
    fail(result.path, result.error);
    return;
  }
  path_ = result.path;
  if (split_->isHidden()) {  // a sweep had the window: the run's views come back, half of the height
    show_run_views(true);
    const int total = std::max(outer_->height(), 2);
    outer_->setSizes({total / 2, total / 2});
  }
  integrity_error_.clear();
  warnings_.clear();
  for (const auto& w : result.summary->warnings()) warnings_ << QString::fromStdString(w);
  context_->set_run(result.summary);
  tabs_->setTabText(tabs_->indexOf(races_), races_->tab_title());
  update_banner();
  const auto& run = result.summary->run;
  setWindowTitle(tr("CARNIVAL — %1 on %2, %3 nodes — %4")
                     .arg(QString::fromStdString(run.workload), QString::fromStdString(run.machine))
                     .arg(run.nodes)
                     .arg(QFileInfo(path_).fileName()));
  const auto races = result.summary->races.size();
  // A real run's time is measured, not emulated.
  const QString time_kind = run.machine == "real" ? tr("measured") : tr("virtual");
  run_label_->setText(tr("%1 · %2 · %3 nodes · %4 %5 · %6%7%8")
                          .arg(QString::fromStdString(run.workload), QString::fromStdString(run.machine))
                          .arg(run.nodes)
                          .arg(time_text(run.virtual_time_ps), time_kind, QString::fromStdString(run.status),
                               run.verified ? tr(" · verified") : QString(),
                               races == 0   ? QString()
                               : races == 1 ? tr(" · 1 data race")
                                            : tr(" · %1 data races").arg(races)));
  statusBar()->showMessage(tr("Opened %1").arg(path_), 5000);
  remember(path_);
  emit run_opened(path_);
  // The whole-file check reads every page: after the first paint, on a worker thread.
  checking_ = path_;
  checker_.start([path = path_] { return check_file(path); },
                 [this](const QString& error) { integrity_done(checking_, error); });
}

void MainWindow::integrity_done(const QString& path, const QString& error) {
  if (path != path_) return;  // another file was opened meanwhile
  integrity_error_ = error;
  update_banner();
  if (!error.isEmpty() && interactive_) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Damaged file"), error, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
  emit integrity_checked(path, error);
}

void MainWindow::fail(const QString& path, const QString& message) {
  if (QApplication::overrideCursor()) QApplication::restoreOverrideCursor();
  statusBar()->showMessage(tr("Cannot open %1").arg(path), 10000);
  if (path_.isEmpty()) {
    // Nothing else to show: the window explains itself.
    banner_->setStyleSheet(QStringLiteral("background:#f8d7da; color:#58151c;"));
    banner_->setText(tr("<b>Cannot open this file.</b> %1").arg(message.toHtmlEscaped()));
    banner_->show();
  }
  if (interactive_) {
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot open"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
  emit open_failed(path, message);
}

void MainWindow::update_banner() {
  QStringList lines;
  if (!integrity_error_.isEmpty())
    lines << tr("<b>This file is damaged</b>: %1. The views may be wrong.")
                 .arg(integrity_error_.toHtmlEscaped());
  // "see the Races tab" is a link to it.
  for (const auto& w : warnings_)
    lines << w.toHtmlEscaped().replace(QStringLiteral("the Races tab"),
                                       QStringLiteral("the <a href=\"#races\">Races tab</a>"));
  banner_->setStyleSheet(integrity_error_.isEmpty() ? QStringLiteral("background:#fff3cd; color:#664d03;")
                                                    : QStringLiteral("background:#f8d7da; color:#58151c;"));
  banner_->setText(lines.join(QStringLiteral("<br>")));
  banner_->setVisible(!lines.isEmpty());
}

void MainWindow::refill_nodes() {
  nodes_->clear();
  nodes_->addItem(tr("All nodes"), -1);
  if (const auto a = context_->analysis())
    for (int n : a->node_ids()) nodes_->addItem(tr("node %1").arg(n), n);
  nodes_->setCurrentIndex(std::max(0, nodes_->findData(context_->node_filter())));
  nodes_->setEnabled(nodes_->count() > 1);
}

void MainWindow::show_view(ViewId view) {
  const int total = std::max(split_->width(), 2);
  switch (view) {
    case ViewId::Main:
      tabs_->setCurrentWidget(profile_map_);
      split_for_code();
      return;
    case ViewId::ProfileMap:
      tabs_->setCurrentWidget(profile_map_);
      profile_map_->set_mode(ProfileMapView::Mode::Nesting);
      break;
    case ViewId::Matrix:
      tabs_->setCurrentWidget(profile_map_);
      profile_map_->set_mode(ProfileMapView::Mode::Matrix);
      break;
    case ViewId::CPWait:
      tabs_->setCurrentWidget(cpwait_);
      break;
    case ViewId::Races:
      // A race is about code: the source keeps almost half of the width.
      tabs_->setCurrentWidget(races_);
      split_for_code();
      return;
    case ViewId::Scope:
      tabs_->setCurrentWidget(scope_profile_);
      break;
    case ViewId::Histogram:
      tabs_->setCurrentWidget(histogram_);
      break;
    case ViewId::Timeline:
      show_lower(timeline_);
      return;
    case ViewId::Compare:
      show_lower(compare_);
      return;
    case ViewId::Sweep:
      show_lower(sweep_);
      return;
  }
  // The table in front: 3/5 of the width (its times fit at 1024 px), the code stays readable.
  split_->setSizes({total * 2 / 5, total * 3 / 5});
}

QStringList MainWindow::recent_files() { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::remember(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recent_files();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
  refill_recent_menu();
}

void MainWindow::refill_recent_menu() {
  recent_menu_->clear();
  const QStringList files = recent_files();
  for (const auto& f : files) recent_menu_->addAction(f, this, [this, f] { open_file(f); });
  if (files.isEmpty()) {
    recent_menu_->addAction(tr("(none)"))->setEnabled(false);
    return;
  }
  recent_menu_->addSeparator();
  recent_menu_->addAction(tr("Clear the list"), this, [this] {
    QSettings().remove(kRecentKey);
    refill_recent_menu();
  });
}

}  // namespace ncp2::gui
