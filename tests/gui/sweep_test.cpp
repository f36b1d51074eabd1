// The sweep view on the offscreen platform: a sweep opened from its folder or its sweep.db, a click
// on a curve's marker or a table row opening that point's run, a second point compared with it
// (Ctrl+click, or "Compare with…"), a failed or not-run point saying why, files that are not a
// sweep, and the headless screenshot (through render_view and the `carnival` executable).
#include <filesystem>

#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "../sweep/sweep_fixture.hpp"
#include "gui/compare_view.hpp"
#include "gui/headless.hpp"
#include "gui/main_window.hpp"
#include "gui/source_panel.hpp"
#include "gui/sweep_plot.hpp"
#include "gui/sweep_view.hpp"
#include "offscreen_test.hpp"

using namespace ncp2::gui;
namespace fixture = ncp2::sweep::testing;

namespace {

constexpr int kWaitMs = 10000;

// The point ids of the standard grid (1-based, in its order): ncp2 1us 1 2 4 8, ncp2 5us 1 2 4 8,
// treadmarks 1us ..., treadmarks 5us ...
constexpr std::int64_t kNcp2OneUsFourNodes = 3;
constexpr std::int64_t kTreadmarksOneUsFourNodes = 11;
constexpr std::int64_t kNotRunPoint = 16;

std::vector<fixture::FixturePoint> points_with_failures() {
  auto points = fixture::standard_points();
  auto& failed = points[1];  // ncp2 1us, 2 nodes
  failed.status = "failed";
  failed.message = "exit status 1: verification failed: sum 41 differs from 42";
  failed.virtual_time_ps.reset();
  failed.speedup.reset();
  auto& not_run = points[static_cast<std::size_t>(kNotRunPoint - 1)];
  not_run.status = "not run";
  not_run.virtual_time_ps.reset();
  not_run.speedup.reset();
  return points;
}

QString point_db(const QString& sweep_dir, std::int64_t id) {
  const auto points = fixture::standard_points();
  return QDir(sweep_dir).filePath(
      QString::fromStdString("points/" + points[static_cast<std::size_t>(id - 1)].name() + ".db"));
}

// Clicks a point's marker on the speedup plot, with `modifiers`.
bool click_marker(SweepView* view, std::int64_t id, Qt::KeyboardModifiers modifiers = {}) {
  view->plots()->setCurrentWidget(view->speedup_plot());
  const auto at = view->speedup_plot()->point_position(id);
  if (!at) return false;
  QTest::mouseClick(view->speedup_plot(), Qt::LeftButton, modifiers, at->toPoint());
  return true;
}

bool wait_for(QSignalSpy& spy) { return !spy.isEmpty() || spy.wait(kWaitMs); }

}  // namespace

class SweepTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString sweep_;  // the standard grid with a failed and a not-run point

 public:
  static void initMain() { ncp2::gui::testing::prepare_offscreen(); }

 private slots:
  void initTestCase() {
    ncp2::gui::testing::begin_gui_test("carnival-sweep-test");
    sweep_ = dir_.filePath("sweep");
    fixture::write_sweep(sweep_.toStdString(), points_with_failures());
  }

  void a_sweep_folder_opens_in_the_sweep_view_with_its_points_and_curves() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QSignalSpy opened(&w, &MainWindow::sweep_opened);
    w.open_file(sweep_);
    QVERIFY(wait_for(opened));
    SweepView* view = w.sweep_view();
    QCOMPARE(view->model()->rowCount(), 16);
    QCOMPARE(w.lower_tabs()->currentWidget(), view);
    QVERIFY(view->isVisible());
    QVERIFY(!w.source_panel()->isVisible());  // no run yet: the sweep has the window
    QVERIFY(w.windowTitle().contains("sweep sor"));
    // Every finished point with a speedup has a marker; the failed and not-run ones none.
    QCOMPARE(view->speedup_plot()->figure().marks.size(), std::size_t{14});
    QVERIFY(!view->speedup_plot()->point_position(2));
    QVERIFY(view->speedup_plot()->point_position(kNcp2OneUsFourNodes));
    // The file itself opens the same way, waiting.
    MainWindow again;
    again.set_interactive(false);
    QCOMPARE(again.open_file_and_wait(sweep_ + "/sweep.db"), QString());
    QCOMPARE(again.sweep_view()->model()->rowCount(), 16);
  }

  void a_click_on_a_marker_opens_its_run_and_ctrl_click_compares_another() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QCOMPARE(w.open_file_and_wait(sweep_), QString());
    SweepView* view = w.sweep_view();
    QTest::qWait(50);  // the plot laid out at its size

    QSignalSpy run(&w, &MainWindow::run_opened);
    QVERIFY(click_marker(view, kNcp2OneUsFourNodes));
    QVERIFY(wait_for(run));
    QCOMPARE(QFileInfo(run.takeFirst().at(0).toString()).absoluteFilePath(),
             QFileInfo(point_db(sweep_, kNcp2OneUsFourNodes)).absoluteFilePath());
    QVERIFY(w.context()->analysis() != nullptr);
    QCOMPARE(w.context()->analysis()->summary().run.machine, std::string("ncp2"));
    QCOMPARE(w.context()->analysis()->summary().run.nodes, 4);
    QCOMPARE(view->opened_point(), kNcp2OneUsFourNodes);
    QVERIFY(w.source_panel()->isVisible());  // the run's views are back
    QVERIFY(view->compare_button()->isEnabled());

    QSignalSpy compared(w.comparison(), &CompareView::compared);
    w.show_view(ViewId::Sweep);
    QVERIFY(click_marker(view, kTreadmarksOneUsFourNodes, Qt::ControlModifier));
    QVERIFY(wait_for(compared));
    QCOMPARE(compared.takeFirst().at(0).toString(), QString());  // no error
    QCOMPARE(w.lower_tabs()->currentWidget(), w.comparison());
    QVERIFY(w.comparison()->title_text().contains("treadmarks"));
    QVERIFY(w.comparison()->model()->rowCount() > 0);
    QCOMPARE(view->compared_point(), kTreadmarksOneUsFourNodes);
    QCOMPARE(w.current_file(), point_db(sweep_, kNcp2OneUsFourNodes));  // A stays the open run
    if (const QByteArray out = qgetenv("NCP2_SWEEP_SCREENSHOT"); !out.isEmpty()) {
      w.grab().save(QString(out) + ".compare.png");
      w.show_view(ViewId::Sweep);
      w.grab().save(QString(out) + ".run.png");
    }
  }

  void table_rows_open_and_the_compare_button_compares_the_next_one() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QCOMPARE(w.open_file_and_wait(sweep_), QString());
    SweepView* view = w.sweep_view();
    auto* proxy = static_cast<QSortFilterProxyModel*>(view->table()->model());
    const auto click_row = [&](std::int64_t id) {
      const QModelIndex index =
          proxy->mapFromSource(view->model()->index(view->model()->row_of(id), SweepPointsModel::Machine));
      view->table()->scrollTo(index);
      QTest::mouseClick(view->table()->viewport(), Qt::LeftButton, {},
                        view->table()->visualRect(index).center());
    };
    QSignalSpy run(&w, &MainWindow::run_opened);
    click_row(5);  // ncp2 5us, 1 node
    QVERIFY(wait_for(run));
    QCOMPARE(view->opened_point(), std::int64_t{5});
    QSignalSpy compared(w.comparison(), &CompareView::compared);
    w.show_view(ViewId::Sweep);
    view->compare_button()->click();
    QVERIFY(view->message().contains("Click the point to compare"));
    click_row(6);
    QVERIFY(wait_for(compared));
    QCOMPARE(view->compared_point(), std::int64_t{6});
    QVERIFY(!view->compare_button()->isChecked());  // one comparison per press
  }

  void a_failed_or_not_run_point_says_why_and_opens_nothing() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QCOMPARE(w.open_file_and_wait(sweep_), QString());
    SweepView* view = w.sweep_view();
    QSignalSpy run(&w, &MainWindow::run_opened);
    QSignalSpy unavailable(view, &SweepView::point_unavailable);
    // The failed point's slot on the categories plot is labelled and takes the click.
    view->plots()->setCurrentWidget(view->categories_plot());
    QTest::qWait(50);
    const auto at = view->categories_plot()->point_position(2);
    QVERIFY(at);
    QTest::mouseClick(view->categories_plot(), Qt::LeftButton, {}, at->toPoint());
    QCOMPARE(unavailable.size(), 1);
    QVERIFY(view->message().contains("failed: exit status 1: verification failed: sum 41 differs from 42"));
    view->activate_point(kNotRunPoint, false);
    QCOMPARE(unavailable.size(), 2);
    QVERIFY(view->message().contains("did not run"));
    QVERIFY(view->message().contains("again to resume"));
    QTest::qWait(100);
    QVERIFY(run.isEmpty());
    QVERIFY(w.current_file().isEmpty());
  }

  void files_that_are_not_sweeps_are_refused_with_the_reason() {
    MainWindow w;
    w.set_interactive(false);
    QDir(dir_.path()).mkdir("empty-folder");
    const QString error = w.open_file_and_wait(dir_.filePath("empty-folder"));  // neither a run nor a sweep
    QVERIFY2(error.contains("is a directory, not a database file"), qPrintable(error));
    QVERIFY(!w.banner()->isHidden());
    // A sweep database of a newer format: refused by the sweep reader, not taken for a run.
    const QString newer = dir_.filePath("newer");
    fixture::write_sweep(newer.toStdString(), fixture::standard_points(), ncp2::sweep::kSweepFormatRead + 1);
    const QString newer_error = w.open_file_and_wait(newer);
    QVERIFY2(newer_error.contains("was written by a newer version (sweep format"), qPrintable(newer_error));
  }

  void the_headless_screenshot_shows_the_curves_at_their_points() {
    MainWindow w;
    CommandLine options = parse_command_line({"carnival", "--screenshot", "x.png", sweep_});
    QVERIFY(options.error.isEmpty());
    QString error;
    const QImage image = render_view(w, options, &error);
    QVERIFY2(!image.isNull(), qPrintable(error));
    QCOMPARE(image.size(), QSize(1280, 800));
    // NCP2_SWEEP_SCREENSHOT=OUT.png keeps the picture (and the categories tab's), to look at.
    if (const QByteArray out = qgetenv("NCP2_SWEEP_SCREENSHOT"); !out.isEmpty()) {
      image.save(QString(out));
      w.sweep_view()->plots()->setCurrentWidget(w.sweep_view()->categories_plot());
      w.grab().save(QString(out) + ".categories.png");
      w.sweep_view()->plots()->setCurrentWidget(w.sweep_view()->speedup_plot());
    }
    // The widget paints the figure where its marks say: each marker's centre has its curve's colour.
    SweepPlot* plot = w.sweep_view()->speedup_plot();
    const QImage drawn = plot->grab().toImage();
    const QPointF at = *plot->point_position(kNcp2OneUsFourNodes);
    const QColor c = drawn.pixelColor((at * drawn.devicePixelRatio()).toPoint());
    QVERIFY2(c.blue() > c.red() + 60, qPrintable(c.name()));  // ncp2 1us: the palette's blue #0072B2
    const QPointF other = *plot->point_position(kTreadmarksOneUsFourNodes);
    const QColor green = drawn.pixelColor((other * drawn.devicePixelRatio()).toPoint());
    QVERIFY2(green.green() > green.red() + 60, qPrintable(green.name()));  // treadmarks 1us: #009E73
  }

  void the_executable_renders_a_sweep_headless() {
    const QString out = dir_.filePath("sweep.png");
    QProcess p;
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--size", "1000x700", sweep_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(1000, 700));
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--scope", "relax", sweep_ + "/sweep.db"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("is a sweep: --scope, --node and --compare are for a run"));
  }
};

QTEST_MAIN(SweepTest)
#include "sweep_test.moc"
