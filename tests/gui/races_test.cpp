// Data races in the GUI (issue 16): the read side of table races (and of stores older than it),
// the banner line, the races model under QAbstractItemModelTester, and the Races tab offscreen —
// a click on a race moves the source view to its first access and marks both lines, a click on
// its second access (another file) moves there, accesses without a stored source stay put.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "gui/headless.hpp"
#include "gui/main_window.hpp"
#include "gui/races_view.hpp"
#include "gui/source_panel.hpp"
#include "gui/source_view.hpp"
#include "gui/views.hpp"
#include "gui_fixture.hpp"
#include "offscreen_test.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;

namespace {

constexpr int kWaitMs = 10000;

bool open_and_wait(MainWindow& w, const QString& path) {
  QSignalSpy opened(&w, &MainWindow::run_opened);
  QSignalSpy failed(&w, &MainWindow::open_failed);
  w.open_file(path);
  if (opened.isEmpty() && failed.isEmpty()) opened.wait(kWaitMs);
  return !opened.isEmpty();
}

void click_cell(QTableView* table, int source_row, int column) {
  auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
  const QModelIndex index = proxy->mapFromSource(proxy->sourceModel()->index(source_row, column));
  table->scrollTo(index);
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
}

std::vector<int> marked_lines(const SourceView* view) {
  std::vector<int> lines;
  for (const auto& m : view->race_marks()) lines.push_back(m.line);
  return lines;
}

bool shows_line(const SourceView* view, int line) {
  return view->first_visible_line() <= line && line <= view->last_visible_line();
}

}  // namespace

class RacesTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString races_db_, clean_db_, off_db_, v3_db_;

 public:
  static void initMain() { ncp2::gui::testing::prepare_offscreen(); }

 private slots:
  void initTestCase() {
    ncp2::gui::testing::begin_gui_test("carnival-races-test");
    races_db_ = write_races_db(dir_, "races.db");
    QVERIFY(!races_db_.isEmpty());
    clean_db_ =
        write_races_db(dir_, "clean.db", "INSERT OR REPLACE INTO meta VALUES ('race_detection', 'on');");
    QVERIFY(!clean_db_.isEmpty());
    off_db_ = write_db(dir_, "off.db", gui_fixture());
    v3_db_ = write_v3_db(dir_, "v3.db");
    QVERIFY(!v3_db_.isEmpty());
  }

  // --- the read side ---------------------------------------------------------------------------

  void the_races_are_read_by_id_with_both_accesses() {
    const RunSummary s = load_run_summary(races_db_.toStdString());
    QVERIFY(s.races_checked);
    QCOMPARE(s.races.size(), std::size_t{3});
    const auto& r = s.races[0];
    QCOMPARE(r.id, 1U);
    QCOMPARE(r.region, std::string("grid"));
    QCOMPARE(r.offset, std::uint64_t{1024});
    QVERIFY(!r.address);
    QCOMPARE(r.occurrences, std::uint64_t{3});
    QCOMPARE(r.first.node, 0);
    QVERIFY(r.first.writes);
    QCOMPARE(r.first.file, std::string("workloads/phases.cpp"));
    QCOMPARE(r.first.line, 205);
    QCOMPARE(r.first.scope, 2U);
    QCOMPARE(r.first.interval, 3U);
    QCOMPARE(r.first.vector_time, (std::vector<std::uint32_t>{3, 1}));
    QCOMPARE(r.second.node, 1);
    QVERIFY(!r.second.writes);
    QCOMPARE(r.second.line, 305);
    QCOMPARE(r.second.vector_time, (std::vector<std::uint32_t>{1, 2}));
    QCOMPARE(s.races[1].address.value_or(0), std::uint64_t{0x7f0010});
    QCOMPARE(s.races[1].second.file, std::string("workloads/helper.hpp"));
    QCOMPARE(s.races[2].first.line, 0);
  }

  void detection_off_none_found_and_version_3_stores_read_without_error() {
    const RunSummary clean = load_run_summary(clean_db_.toStdString());
    QVERIFY(clean.races_checked);
    QVERIFY(clean.races.empty());
    const RunSummary off = load_run_summary(off_db_.toStdString());
    QVERIFY(!off.races_checked);
    QVERIFY(off.races.empty());
    const RunSummary v3 = load_run_summary(v3_db_.toStdString());  // no races table at all
    QVERIFY(!v3.races_checked);
    QVERIFY(v3.races.empty());
    QCOMPARE(v3.profile.size(), off.profile.size());  // the rest reads as before
    check_integrity(v3_db_.toStdString());
  }

  void a_damaged_vector_time_is_reported_as_corruption() {
    const QString path = write_races_db(dir_, "bad-vt.db");
    QVERIFY(exec_sql(path, "UPDATE races SET second_vector_time = '[3,,1]' WHERE id = 2;"));
    try {
      (void)load_run_summary(path.toStdString());
      QFAIL("a damaged vector time was read");
    } catch (const ncp2::carnival::StoreError& e) {
      QVERIFY2(QString(e.what()).contains("is corrupt: vector time '[3,,1]' in races"), e.what());
    }
  }

  void the_banner_line_counts_the_races() {
    const auto line = [](const RunSummary& s) {
      for (const auto& w : s.warnings())
        if (w.find("data race") != std::string::npos) return QString::fromStdString(w);
      return QString();
    };
    QCOMPARE(line(load_run_summary(races_db_.toStdString())),
             QString("This run completed with 3 data races: see the Races tab."));
    QCOMPARE(line(load_run_summary(clean_db_.toStdString())), QString());
    const QString one =
        write_races_db(dir_, "one.db",
                       "INSERT INTO races VALUES (1, 1, 'x', 0, NULL, 1, 0, 'write', '', 0, 0, 1, "
                       "'[1,0]', 1, 'write', '', 0, 0, 1, '[0,1]');",
                       "deadlock");
    QVERIFY(!one.isEmpty());
    QCOMPARE(line(load_run_summary(one.toStdString())),
             QString("1 data race was found before the run stopped: see the Races tab."));
  }

  void the_command_line_knows_the_races_view() {
    const CommandLine c =
        parse_command_line({"carnival", "--screenshot", "x.png", "--view", "races", "f.db"});
    QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
    QCOMPARE(view_from_name(c.view), std::optional<ViewId>(ViewId::Races));
  }

  // --- the model -------------------------------------------------------------------------------

  void the_races_model_passes_the_tester_and_shows_each_race() {
    const auto summary = std::make_shared<const RunSummary>(load_run_summary(races_db_.toStdString()));
    const auto all = std::make_shared<const Analysis>(summary);
    const auto node1 = std::make_shared<const Analysis>(summary, 1);
    RacesModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSortRole(roles::Sort);
    proxy.setSourceModel(&m);
    QAbstractItemModelTester proxy_tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (const auto& a : {all, node1, std::shared_ptr<const Analysis>(), all}) {
      m.set_analysis(a);
      for (int c = 0; c < m.columnCount(); ++c) {
        proxy.sort(c, Qt::DescendingOrder);
        proxy.sort(c, Qt::AscendingOrder);
      }
      m.set_limit(1);
      m.show_all();
    }
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.index(0, RacesModel::Id).data().toUInt(), 1U);
    QCOMPARE(m.index(0, RacesModel::Location).data().toString(), QString("grid+1024"));
    QCOMPARE(m.index(0, RacesModel::Occurrences).data().toULongLong(), 3ULL);
    QCOMPARE(m.index(0, RacesModel::First).data().toString(),
             QString("node 0 write\nphases.cpp:205 · update"));
    QCOMPARE(m.index(0, RacesModel::Second).data().toString(),
             QString("node 1 read\nphases.cpp:305 · verify"));
    QCOMPARE(m.index(1, RacesModel::Location).data().toString(), QString("counter+0 @ 0x7f0010"));
    QCOMPARE(m.index(1, RacesModel::Second).data().toString(),
             QString("node 1 write\nhelper.hpp:2 · program"));
    QCOMPARE(m.index(2, RacesModel::First).data().toString(), QString("node 0 read\nunknown site · program"));
    const QString tip = m.index(0, RacesModel::Location).data(Qt::ToolTipRole).toString();
    for (const char* part : {"interval 3, vector time [3,1]", "interval 2, vector time [1,2]",
                             "workloads/phases.cpp:205", "workloads/phases.cpp:305", "3 occurrences"})
      QVERIFY2(tip.contains(part), qPrintable(tip));
    QCOMPARE(m.index(0, RacesModel::Second).data(roles::ScopeId).toLongLong(), 3);
    // Sorting by a site orders by file, then line as a number (12 before 205).
    proxy.sort(RacesModel::First, Qt::AscendingOrder);
    QCOMPARE(proxy.index(1, RacesModel::Id).data().toUInt(), 2U);
    QCOMPARE(proxy.index(2, RacesModel::Id).data().toUInt(), 1U);
  }

  // --- the window ------------------------------------------------------------------------------

  void the_races_tab_lists_the_races_and_the_banner_counts_them() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, races_db_));
    RacesView* view = w.races();
    QCOMPARE(w.tabs()->tabText(w.tabs()->indexOf(view)), QString("Races (3)"));
    QCOMPARE(w.tabs()->indexOf(view), w.tabs()->indexOf(w.cpwait()) + 1);  // next to the CPWait Map
    QCOMPARE(view->model()->rowCount(), 3);
    QVERIFY(view->title().contains("3 data races"));
    QVERIFY(w.banner()->isVisible());
    QVERIFY(w.banner()->text().contains("This run completed with 3 data races"));
    QVERIFY(w.banner()->text().contains("<a href=\"#races\">Races tab</a>"));
    emit w.banner()->linkActivated(QStringLiteral("#races"));  // the banner's link opens the tab
    QCOMPARE(w.tabs()->currentWidget(), view);
    QVERIFY(view->table()->isVisible());
  }

  void clicking_a_race_shows_its_first_access_and_marks_both_lines() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 600);
    w.show();
    QVERIFY(open_and_wait(w, races_db_));
    w.show_view(ViewId::Races);
    SourceView* source = w.source_panel()->view();
    QVERIFY(!shows_line(source, 205));
    QSignalSpy race_changed(w.context(), &AnalysisContext::race_changed);
    click_cell(w.races()->table(), 0, RacesModel::Location);
    QCOMPARE(race_changed.count(), 1);
    QCOMPARE(w.context()->race(), 1U);
    QCOMPARE(w.context()->file(), QString("workloads/phases.cpp"));
    QCOMPARE(w.context()->line(), 205);
    QCOMPARE(w.context()->scope(), qint64{2});  // update holds line 205: every view follows
    QVERIFY(shows_line(source, 205));
    QCOMPARE(marked_lines(source), (std::vector<int>{205, 305}));
    QVERIFY(w.races()->details().contains("vector time [3,1]"));
    QVERIFY(w.races()->first_button()->isEnabled());
    QVERIFY(w.races()->second_button()->text().contains("phases.cpp:305"));
    // The marked line carries the red edge at the text column's left.
    const QImage image = source->viewport()->grab().toImage();
    const QRect row =
        source->to_viewport(QRect(source->layout_geometry().text_x(), source->layout_geometry().row_y(205), 4,
                                  source->layout_geometry().metrics().row_height));
    QCOMPARE(QColor(image.pixel(row.center())), QColor(176, 0, 32));
    QVERIFY(source->tooltip_at(row.center() + QPoint(40, 0)).contains("race 1</b>: node 0 writes here"));

    click_cell(w.races()->table(), 0, RacesModel::Second);  // the second access
    QCOMPARE(w.context()->line(), 305);
    QCOMPARE(w.context()->scope(), qint64{3});
    QVERIFY(shows_line(source, 305));
    QCOMPARE(marked_lines(source), (std::vector<int>{205, 305}));
  }

  void the_second_access_in_another_file_switches_the_file() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 600);
    w.show();
    QVERIFY(open_and_wait(w, races_db_));
    w.show_view(ViewId::Races);
    SourceView* source = w.source_panel()->view();
    click_cell(w.races()->table(), 1, RacesModel::First);
    QCOMPARE(source->file(), QString("workloads/phases.cpp"));
    QCOMPARE(w.context()->line(), 12);
    QCOMPARE(marked_lines(source), (std::vector<int>{12}));  // the other line is in helper.hpp
    QVERIFY(w.races()->second_button()->text().contains("helper.hpp:2"));
    QTest::mouseClick(w.races()->second_button(), Qt::LeftButton);
    QCOMPARE(source->file(), QString("workloads/helper.hpp"));
    QCOMPARE(w.source_panel()->file_chooser()->currentText(), QString("workloads/helper.hpp"));
    QCOMPARE(w.context()->line(), 2);
    QCOMPARE(marked_lines(source), (std::vector<int>{2}));
    QTest::mouseClick(w.races()->first_button(), Qt::LeftButton);
    QCOMPARE(source->file(), QString("workloads/phases.cpp"));
    QCOMPARE(w.context()->line(), 12);
  }

  void an_access_without_a_stored_source_leaves_the_view_where_it_is() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, races_db_));
    w.show_view(ViewId::Races);
    const int line = w.context()->line();
    click_cell(w.races()->table(), 2, RacesModel::First);
    QCOMPARE(w.context()->race(), 3U);
    QCOMPARE(w.context()->line(), line);
    QVERIFY(!w.races()->first_button()->isEnabled());
    QVERIFY(w.races()->second_button()->isEnabled());
    QTest::mouseClick(w.races()->second_button(), Qt::LeftButton);
    QCOMPARE(w.context()->line(), 100);
    QCOMPARE(marked_lines(w.source_panel()->view()), (std::vector<int>{100}));
  }

  void a_run_without_races_says_so_and_older_stores_open() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, clean_db_));
    w.show_view(ViewId::Races);
    QVERIFY(w.races()->title().contains("No data races found</b> (race detection was on)"));
    QVERIFY(!w.races()->table()->isVisible());
    QCOMPARE(w.tabs()->tabText(w.tabs()->indexOf(w.races())), QString("Races"));
    QVERIFY(w.banner()->isHidden());

    QSignalSpy checked(&w, &MainWindow::integrity_checked);
    QVERIFY(open_and_wait(w, v3_db_));
    QVERIFY(w.races()->title().contains("Race detection was off"));
    QCOMPARE(w.races()->model()->rowCount(), 0);
    QCOMPARE(w.cpwait()->model()->rowCount(), 4);  // the rest as ever
    QVERIFY(w.banner()->isHidden());
    QVERIFY(checked.count() == 1 || checked.wait(kWaitMs));
    QCOMPARE(checked.back().at(1).toString(), QString());
    QVERIFY(marked_lines(w.source_panel()->view()).empty());
  }

  void a_new_run_clears_the_race() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, races_db_));
    QVERIFY(w.context()->select_race(1));
    QVERIFY(open_and_wait(w, off_db_));
    QCOMPARE(w.context()->race(), 0U);
    QVERIFY(w.context()->selected_race() == nullptr);
    QVERIFY(!w.context()->select_race(1));  // this run has none
  }

  void the_executable_renders_the_races_view() {
    const QString out = dir_.filePath("races.png");
    QProcess p;
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--view", "races", "--size", "1000x600", races_db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(1000, 600));
  }
};

QTEST_MAIN(RacesTest)
#include "races_test.moc"
