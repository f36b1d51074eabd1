// The window on the offscreen platform: loading off the UI thread, the shared selection followed
// by every view (clicks with QTest, signals with QSignalSpy), pixel relations on grabbed images,
// bad input, recent files, headless rendering and the `carnival` executable itself.
#include <array>

#include <QAbstractItemView>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "gui/headless.hpp"
#include "gui/main_window.hpp"
#include "gui/models.hpp"
#include "gui/source_panel.hpp"
#include "gui/source_view.hpp"
#include "gui/views.hpp"
#include "gui/widgets.hpp"
#include "gui_fixture.hpp"
#include "offscreen_test.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;

namespace {

constexpr int kWaitMs = 10000;  // generous: the machine is shared; a pass takes milliseconds

// Opens a file the way a user does (asynchronously) and waits for the outcome.
bool open_and_wait(MainWindow& w, const QString& path) {
  QSignalSpy opened(&w, &MainWindow::run_opened);
  QSignalSpy failed(&w, &MainWindow::open_failed);
  w.open_file(path);
  for (int i = 0; i < 100 && opened.isEmpty() && failed.isEmpty(); ++i) QTest::qWait(20);
  if (opened.isEmpty() && failed.isEmpty()) opened.wait(kWaitMs);
  return !opened.isEmpty();
}

// Clicks a source row of a table shown through a proxy.
void click_row(QTableView* table, int source_row, int column = 0) {
  auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
  const QModelIndex index = proxy->mapFromSource(proxy->sourceModel()->index(source_row, column));
  table->scrollTo(index);
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
}

int gray_at(const QImage& image, QPoint p) { return qGray(image.pixel(p)); }

}  // namespace

class WidgetTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString db_;
  BadFiles bad_;

 public:
  static void initMain() { ncp2::gui::testing::prepare_offscreen(); }

 private slots:
  void initTestCase() {
    ncp2::gui::testing::begin_gui_test("carnival-widget-test");
    QSettings().clear();
    db_ = write_db(dir_, "fixture.db", gui_fixture());
    bad_ = write_bad_files(dir_);
  }

  void opening_loads_off_the_ui_thread_and_fills_every_view() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QSignalSpy checked(&w, &MainWindow::integrity_checked);
    QSignalSpy opened(&w, &MainWindow::run_opened);
    w.open_file(db_);
    QVERIFY(opened.isEmpty());  // the UI thread went on; the result comes later
    QVERIFY(opened.wait(kWaitMs));
    QCOMPARE(w.current_file(), db_);
    QVERIFY(checked.count() == 1 || checked.wait(kWaitMs));
    QCOMPARE(checked.front().at(1).toString(), QString());
    QVERIFY(w.banner()->isHidden());
    QCOMPARE(w.profile_map()->model()->rowCount(), 4);
    QCOMPARE(w.cpwait()->model()->rowCount(), 4);
    QCOMPARE(w.scope_profile()->model()->rowCount(), 2);  // the hottest scope below the root
    QCOMPARE(w.context()->scope(), qint64{1});
    QCOMPARE(w.histogram()->model()->rowCount(), 7);
    QCOMPARE(w.node_chooser()->count(), 3);  // all, node 0, node 1
    QVERIFY(w.windowTitle().contains("phases on ncp2, 2 nodes"));
    // The legend: every category, in the file's colours, each with its explanation.
    CategoryLegend* legend = w.legend();
    QVERIFY(legend->isVisible());
    QCOMPARE(legend->items().size(), std::size_t{16});
    QCOMPARE(legend->items().front().color, std::string("#0072B2"));
    const QRect comp = legend->item_rect(0);
    QVERIFY(legend->rect().contains(comp));
    QVERIFY(legend->tooltip_at(comp.center()).contains("application computation"));
    const QImage legend_image = legend->grab().toImage();
    QCOMPARE(QColor(legend_image.pixel(comp.left() + 5, comp.center().y())), QColor("#0072B2"));
    QVERIFY(legend->rect().contains(legend->item_rect(15)));  // SyncDelay, on a row of its own group
    QCOMPARE(w.source_panel()->file_chooser()->count(), 2);
    QVERIFY(w.source_panel()->file_chooser()->isEnabled());
    QCOMPARE(w.source_panel()->view()->file(), QString("workloads/phases.cpp"));
  }

  void cpwait_row_click_shows_the_scopes_line_and_selects_the_scope() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 600);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    w.show_view(ViewId::CPWait);
    SourceView* source = w.source_panel()->view();
    QVERIFY(source->last_visible_line() < 200);  // update's code is out of sight
    QSignalSpy scope_changed(w.context(), &AnalysisContext::scope_changed);
    QSignalSpy causes_ready(w.cpwait(), &CPWaitView::causes_ready);
    click_row(w.cpwait()->table(), 1);  // update x Wait x page fault
    QCOMPARE(w.context()->scope(), qint64{2});
    QCOMPARE(scope_changed.count(), 1);
    QCOMPARE(w.context()->line(), 200);
    QVERIFY(source->first_visible_line() <= 200 && 200 <= source->last_visible_line());
    QCOMPARE(w.scope_profile()->model()->scope(), qint64{2});  // every view follows
    QCOMPARE(w.histogram()->model()->scope(), qint64{2});
    QVERIFY(causes_ready.wait(kWaitMs));
    QCOMPARE(w.cpwait()->causes_model()->rowCount(), 0);  // page faults: no synchronization delay

    click_row(w.cpwait()->table(), 0);  // phase loop x Wait x barrier
    QCOMPARE(w.context()->scope(), qint64{1});
    QVERIFY(source->first_visible_line() <= 10 && 10 <= source->last_visible_line());
    QVERIFY(causes_ready.wait(kWaitMs));
    CausesModel* causes = w.cpwait()->causes_model();
    QCOMPARE(causes->rowCount(), 2);
    QVERIFY(!w.cpwait()->findChild<MoreRowsBar*>("causes-more")->isVisible());  // all causes shown
    QCOMPARE(causes->index(0, CausesModel::NodeColumn).data().toString(), QString("0"));
    // A cause is clickable: its scope (update, where node 0 was late) is selected.
    click_row(w.cpwait()->causes_table(), 0);
    QCOMPARE(w.context()->scope(), qint64{2});
    QVERIFY(source->first_visible_line() <= 200 && 200 <= source->last_visible_line());
  }

  void cpwait_map_follows_a_scope_selected_elsewhere_and_keeps_the_line() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 600);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    w.show_view(ViewId::CPWait);
    QSignalSpy causes_ready(w.cpwait(), &CPWaitView::causes_ready);
    w.context()->select_line(QString("workloads/phases.cpp"), 205);  // inside update (lines 200-...)
    QCOMPARE(w.context()->scope(), qint64{2});
    QTableView* table = w.cpwait()->table();
    QVERIFY(table->currentIndex().isValid());
    QCOMPARE(table->currentIndex().data(roles::ScopeId).toLongLong(), 2);  // the map follows
    QCOMPARE(w.context()->line(), 205);   // and leaves the line where the user put it
    QVERIFY(causes_ready.wait(kWaitMs));  // the causes panel follows too
    w.context()->select_scope(1);
    QCOMPARE(table->currentIndex().data(roles::ScopeId).toLongLong(), 1);
  }

  void cpwait_map_filters_and_shows_n_more() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    w.show_view(ViewId::CPWait);
    CPWaitView* view = w.cpwait();
    QTest::keyClicks(view->filter(), "lock");
    QCOMPARE(view->proxy()->rowCount(), 1);
    view->filter()->clear();
    QCOMPARE(view->proxy()->rowCount(), 4);
    view->model()->set_limit(2);
    auto* more = view->findChild<MoreRowsBar*>("cpwait-more");
    QVERIFY(more && more->isVisible());
    QVERIFY(more->text().contains("2 more"));
    QTest::mouseClick(more->button(), Qt::LeftButton);
    QCOMPARE(view->model()->rowCount(), 4);
    QVERIFY(!more->isVisible());
  }

  void profile_map_click_scrolls_the_source_to_the_scope() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 600);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    w.show_view(ViewId::ProfileMap);
    SourceView* source = w.source_panel()->view();
    QVERIFY(source->last_visible_line() < 300);
    click_row(w.profile_map()->table(), 3);  // verify, lines 300-320
    QCOMPARE(w.context()->scope(), qint64{3});
    QVERIFY(source->first_visible_line() <= 300 && 300 <= source->last_visible_line());
    // And the map follows a selection made elsewhere.
    w.context()->select_scope(2);
    auto* table = w.profile_map()->table();
    QCOMPARE(table->currentIndex().data(roles::ScopeId).toLongLong(), 2);
  }

  void source_view_clicks_select_scopes_and_open_their_views() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 600);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    SourceView* source = w.source_panel()->view();
    source->scroll_to_line(200);
    const auto& layout = source->layout_geometry();
    QSignalSpy bar_clicked(source, &SourceView::scope_bar_clicked);
    QTest::mouseClick(source->viewport(), Qt::LeftButton, {},
                      source->to_viewport(layout.scope_bar_rect(2)).center());
    QCOMPARE(bar_clicked.count(), 1);
    QCOMPARE(w.context()->scope(), qint64{2});
    QCOMPARE(w.tabs()->currentWidget(), w.scope_profile());
    QVERIFY(w.scope_profile()->title().contains("update"));
    QVERIFY(w.scope_profile()->title().contains("1.02"));  // imbalance 1050 / 1025

    w.context()->select_scope(1);
    source->scroll_to_line(200);
    QTest::mouseClick(source->viewport(), Qt::LeftButton, {},
                      source->to_viewport(layout.category_bar_rect(2)).center());
    QCOMPARE(w.context()->scope(), qint64{2});
    QCOMPARE(w.tabs()->currentWidget(), w.histogram());

    QTest::mouseClick(source->viewport(), Qt::LeftButton, {},
                      source->to_viewport(layout.number_rect(240)).center());
    QCOMPARE(w.context()->line(), 240);
    QCOMPARE(w.context()->scope(), qint64{1});  // the innermost scope holding line 240

    const QString tip = source->tooltip_at(source->to_viewport(layout.scope_bar_rect(2)).center());
    QVERIFY2(tip.contains("update") && tip.contains("2.05 ms") && tip.contains("52.6 %"), qPrintable(tip));
    QVERIFY(source->tooltip_at(source->to_viewport(layout.number_rect(215)).center()).contains("line 215"));
    QVERIFY(source->tooltip_at(source->to_viewport(layout.category_bar_rect(2)).center())
                .contains("CPComp: 600 us"));

    // The file chooser shows the other file.
    QComboBox* files = w.source_panel()->file_chooser();
    files->setCurrentIndex(files->findText("workloads/helper.hpp"));
    emit files->activated(files->currentIndex());
    QCOMPARE(source->file(), QString("workloads/helper.hpp"));
    QCOMPARE(source->layout_geometry().line_count(), 2);
  }

  void hottest_line_number_is_darker_than_a_cold_one_and_scope_0_darkest() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 700);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    SourceView* source = w.source_panel()->view();
    w.context()->select_scope(3);  // verify: update's bars are not outlined
    source->scroll_to_line(200);
    QVERIFY(source->first_visible_line() <= 195 && 215 <= source->last_visible_line());
    const QImage image = source->viewport()->grab().toImage();
    const auto& layout = source->layout_geometry();
    auto cell_gray = [&](int line) {
      const QRect cell = source->to_viewport(layout.number_rect(line));
      return gray_at(image, {cell.left() + 2, cell.center().y()});  // left of the right-aligned digits
    };
    // Line 215 (update, 66 us) against 195 (phase loop, 7 us).
    QVERIFY(source->line_time(215) > source->line_time(195));
    QVERIFY2(cell_gray(215) < cell_gray(195),
             qPrintable(QString("%1 vs %2").arg(cell_gray(215)).arg(cell_gray(195))));
    QCOMPARE(cell_gray(215), kDarkestGray);  // the hottest line
    auto bar_gray = [&](std::uint32_t id) {
      const QRect bar = source->to_viewport(layout.scope_bar_rect(id));
      return gray_at(image, {bar.center().x(), source->to_viewport(layout.number_rect(215)).center().y()});
    };
    QVERIFY(bar_gray(0) < bar_gray(1));  // inclusive 3900 us > 3550 us
    QVERIFY(bar_gray(1) < bar_gray(2));  // 3550 us > 2050 us
    QCOMPARE(bar_gray(0), kDarkestGray);
  }

  void category_bar_segments_are_proportional_to_the_times_within_a_pixel() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 700);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    SourceView* source = w.source_panel()->view();
    w.context()->select_scope(3);
    source->scroll_to_line(200);
    const QImage image = source->viewport()->grab().toImage();
    const auto analysis = w.context()->analysis();
    const auto& inclusive =
        analysis->scope(2)->inclusive;  // update: Comp 1200, Extra 200, Wait 500, Prste 150
    const QRect bar = source->to_viewport(source->layout_geometry().category_bar_rect(2));
    const int y = bar.top() + 1;  // the PP row
    std::int64_t pp = 0;
    for (std::size_t k = 0; k < 4; ++k) pp += inclusive[k];
    int covered = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const QColor color = category_color(*analysis, k);
      int width = 0;
      for (int x = bar.left(); x <= bar.right(); ++x) width += QColor(image.pixel(x, y)) == color ? 1 : 0;
      const double exact = bar.width() * static_cast<double>(inclusive[k]) / static_cast<double>(pp);
      QVERIFY2(std::abs(width - exact) <= 1.0,
               qPrintable(QString("category %1: %2 px, exact %3").arg(k).arg(width).arg(exact)));
      covered += width;
    }
    QCOMPARE(covered, bar.width());
    // The CP row below it: CPComp 600, CPWait 50, CPIdle 0.
    const int cp_y = bar.bottom() - 1;
    int cpcomp = 0;
    for (int x = bar.left(); x <= bar.right(); ++x)
      cpcomp += QColor(image.pixel(x, cp_y)) == category_color(*analysis, 4);
    QVERIFY(std::abs(cpcomp - bar.width() * 600.0 / 650.0) <= 1.0);
  }

  void table_bars_are_proportional_too() {
    const QRect cell(10, 0, 206, 20);
    const QRect half = BarDelegate::bar_rect(cell, 0.5);
    QCOMPARE(half.width(), 100);                             // 200 px inside the margins
    QCOMPARE(BarDelegate::bar_rect(cell, 1e-9).width(), 1);  // never invisible
    QCOMPARE(BarDelegate::bar_rect(cell, 0).width(), 0);
  }

  void node_filter_applies_to_every_view() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    QComboBox* nodes = w.node_chooser();
    nodes->setCurrentIndex(nodes->findData(1));
    emit nodes->activated(nodes->currentIndex());
    QCOMPARE(w.context()->node_filter(), 1);
    QCOMPARE(w.cpwait()->model()->rowCount(), 3);
    QCOMPARE(w.profile_map()->model()->index(0, ProfileMapModel::Time).data().toString(), QString("2.10 ms"));
    QCOMPARE(nodes->currentIndex(), nodes->findData(1));
  }

  void shading_choice_recolours_the_lines() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    SourceView* source = w.source_panel()->view();
    w.context()->set_shading(Shading::Linear);
    const int linear = source->number_color(240).value();
    w.context()->set_shading(Shading::Log);
    QVERIFY(source->number_color(240).value() < linear);  // log lifts the lukewarm lines
    QCOMPARE(w.source_panel()->shading_chooser()->currentText(), QString("log"));
  }

  void bad_files_get_a_message_and_leave_the_open_run_alone() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    // Nothing open yet: the window says why.
    QVERIFY(!open_and_wait(w, bad_.text));
    QVERIFY(w.banner()->isVisible());
    QVERIFY(w.banner()->text().contains("is not an SQLite database"));
    QVERIFY(open_and_wait(w, db_));
    const auto analysis = w.context()->analysis();
    const std::array<std::pair<QString, QString>, 7> cases = {{
        {bad_.random, "is not an SQLite database"},
        {bad_.empty, "is not an SQLite database"},
        {bad_.foreign, "is not an NCP2-Carnival database"},
        {bad_.newer, "was written by a newer version (schema "},
        {bad_.missing_table, "no table 'wait_summary'"},
        {bad_.directory, "is a directory"},
        {dir_.filePath("absent.db"), "no such file"},
    }};
    for (const auto& [path, message] : cases) {
      QSignalSpy failed(&w, &MainWindow::open_failed);
      QVERIFY2(!open_and_wait(w, path), qPrintable(path));
      QCOMPARE(failed.count(), 1);
      QVERIFY2(failed.front().at(1).toString().contains(message),
               qPrintable(failed.front().at(1).toString()));
      QCOMPARE(w.current_file(), db_);  // the earlier run stays
      QCOMPARE(w.context()->analysis(), analysis);
    }
  }

  void a_damaged_file_is_refused_or_flagged() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QSignalSpy failed(&w, &MainWindow::open_failed);
    QSignalSpy checked(&w, &MainWindow::integrity_checked);
    w.open_file(bad_.truncated);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty() || !checked.isEmpty(), kWaitMs);
    const QString message =
        failed.isEmpty() ? checked.front().at(1).toString() : failed.front().at(1).toString();
    QVERIFY2(message.contains("is corrupt"), qPrintable(message));
    QVERIFY(w.banner()->isVisible());
  }

  void incomplete_and_empty_runs_open_with_a_banner() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, bad_.incomplete));
    QVERIFY(w.banner()->isVisible());
    QVERIFY(w.banner()->text().contains("INCOMPLETE (interrupted by SIGINT)"));
    QCOMPARE(w.cpwait()->model()->rowCount(), 4);  // shown all the same
    QVERIFY(open_and_wait(w, bad_.empty_run));
    QVERIFY(w.banner()->text().contains("recorded no time"));
    QVERIFY(!w.banner()->text().contains("INCOMPLETE"));
    QCOMPARE(w.cpwait()->model()->rowCount(), 0);
    QVERIFY(!w.grab().isNull());  // paints without a crash
    QVERIFY(open_and_wait(w, db_));
    QVERIFY(w.banner()->isHidden());
  }

  void recent_files_remember_what_was_opened() {
    QSettings().clear();
    MainWindow w;
    w.set_interactive(false);
    QVERIFY(open_and_wait(w, bad_.incomplete));
    QVERIFY(open_and_wait(w, db_));
    QVERIFY(!open_and_wait(w, bad_.text));  // failures are not remembered
    const QStringList files = MainWindow::recent_files();
    QCOMPARE(files.size(), 2);
    QCOMPARE(files.front(), QFileInfo(db_).absoluteFilePath());
    QCOMPARE(files.back(), QFileInfo(bad_.incomplete).absoluteFilePath());
    QVERIFY(open_and_wait(w, bad_.incomplete));
    QCOMPARE(MainWindow::recent_files().front(), QFileInfo(bad_.incomplete).absoluteFilePath());
    QCOMPARE(MainWindow::recent_files().size(), 2);
  }

  void render_view_draws_each_view_and_refuses_bad_input() {
    for (const char* view : {"main", "scope", "histogram", "profile-map", "cpwait"}) {
      MainWindow w;
      CommandLine options;
      options.file = db_;
      options.view = view;
      options.scope = "phase loop";
      options.size = {900, 600};
      QString error;
      const QImage image = render_view(w, options, &error);
      QVERIFY2(!image.isNull(), qPrintable(error));
      QCOMPARE(image.size(), QSize(900, 600));
      QCOMPARE(w.context()->scope(), qint64{1});
      QVERIFY(w.node_chooser()->isEnabled());
      if (QString(view) == "cpwait") QCOMPARE(w.cpwait()->causes_model()->rowCount(), 2);
    }
    MainWindow w;
    CommandLine options;
    options.file = db_;
    options.scope = "no such scope";
    QString error;
    QVERIFY(render_view(w, options, &error).isNull());
    QVERIFY(error.contains("no scope named 'no such scope' (scopes: program, phase loop, update, verify)"));
  }

  void the_executable_writes_a_png_and_exits_2_on_bad_input() {
    const QString out = dir_.filePath("shot.png");
    QProcess p;
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--view", "cpwait", "--size", "800x500", db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(800, 500));

    p.start(CARNIVAL_BINARY, {"--screenshot", out, bad_.newer});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("was written by a newer version"));

    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--view", "pie", db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("unknown view 'pie'"));

    // Interactive use without a display: a message, not Qt's abort.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(name);
    p.setProcessEnvironment(env);
    p.start(CARNIVAL_BINARY, {db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("no display"));
    p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());

    p.start(CARNIVAL_BINARY, {"--screenshot", dir_.filePath("no/such/dir/x.png"), db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(p.readAllStandardError().contains("cannot write"));
  }
};

QTEST_MAIN(WidgetTest)
#include "widget_test.moc"
