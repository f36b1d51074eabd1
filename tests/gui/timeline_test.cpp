// The Timeline view and the comparison of two runs: the timeline's lanes and flows as read from a
// store, its geometry at a zoom (placement, sub-pixel merging, hit tests), a large timeline, and
// offscreen: the Timeline pane (a click selects the segment's scope, the colours are the file's),
// the Compare pane (rows, notes, bad files) and `carnival --view timeline|compare`.
#include <cmath>

#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QMouseEvent>
#include <QProcess>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QWheelEvent>

#include "gui/compare_view.hpp"
#include "gui/main_window.hpp"
#include "gui/timeline_view.hpp"
#include "gui_fixture.hpp"
#include "offscreen_test.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;
using ncp2::carnival::Category;

namespace {

constexpr int kWaitMs = 20000;

// A lane of `n` segments of `width_ps` each, back to back, in the category `pick(i)` gives.
template <class Pick>
TimelineLane lane_of(std::size_t n, std::int64_t width_ps, Pick pick) {
  TimelineLane lane;
  for (std::size_t i = 0; i < n; ++i) {
    TimelineSegment s;
    s.start_ps = static_cast<std::int64_t>(i) * width_ps;
    s.end_ps = s.start_ps + width_ps;
    s.category = pick(i);
    s.scope = static_cast<std::uint32_t>(i % 3);
    lane.segments.push_back(s);
  }
  return lane;
}

bool open_and_wait(MainWindow& w, const QString& path) {
  QSignalSpy opened(&w, &MainWindow::run_opened);
  w.open_file(path);
  return opened.wait(kWaitMs) || !opened.isEmpty();
}

}  // namespace

class TimelineTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString db_;          // the GUI fixture on ncp2
  QString treadmarks_;  // the same on treadmarks, without CP segments, 100 us more Comp in update

 public:
  static void initMain() { ncp2::gui::testing::prepare_offscreen(); }

 private slots:
  void initTestCase() {
    ncp2::gui::testing::begin_gui_test("carnival-timeline-test");
    db_ = write_db(dir_, "fixture.db", gui_fixture());
    auto tm = gui_fixture();
    tm.run.machine = "treadmarks";
    std::erase_if(tm.timeline, [](const ncp2::carnival::Segment& s) { return s.cp; });
    std::erase_if(tm.profile,
                  [](const ncp2::carnival::ProfileCell& c) { return !is_pp_category(c.category); });
    tm.profile.push_back({0, 2, Category::Comp, "none", us(100), 1});
    treadmarks_ = write_db(dir_, "treadmarks.db", tm);
  }

  // --- the data ----------------------------------------------------------------------------------

  void lanes_segments_and_flows_are_read_from_the_store() {
    const auto d = load_timeline(db_.toStdString());
    QVERIFY(d.has_cp);
    QCOMPARE(d.lanes.size(), std::size_t{4});  // n0 PP, n0 CP, n1 PP, n1 CP
    QCOMPARE(d.lanes[0].node, 0);
    QVERIFY(!d.lanes[0].cp);
    QVERIFY(d.lanes[1].cp);
    QCOMPARE(d.lanes[0].segments.size(), std::size_t{5});
    QCOMPARE(d.lanes[1].segments.size(), std::size_t{3});
    QCOMPARE(d.lanes[2].segments.size(), std::size_t{2});
    QCOMPARE(d.segment_count, std::size_t{11});
    QCOMPARE(d.end_ps, us(2000));
    QCOMPARE(d.lanes[0].segments[1].category, Category::Wait);
    QCOMPARE(d.operations[d.lanes[0].segments[1].operation], std::string("barrier"));
    // Waits 1, 2 and 6 have a synchronization delay and a cause; by end.
    QCOMPARE(d.flows.size(), std::size_t{3});
    const auto& first = d.flows.front();  // wait 1: node 0 waits from 500 us, 130 us for node 1
    QCOMPARE(first.waiter, 0);
    QCOMPARE(first.cause, 1);
    QCOMPARE(first.start_ps, us(500));
    QCOMPARE(first.release_ps, us(630));
    QCOMPARE(first.end_ps, us(700));
  }

  void a_machine_without_protocol_controllers_has_one_lane_per_node() {
    const auto d = load_timeline(treadmarks_.toStdString());
    QVERIFY(!d.has_cp);
    QCOMPARE(d.lanes.size(), std::size_t{2});
    QVERIFY(!d.lanes[0].cp && !d.lanes[1].cp);
    QCOMPARE(d.lanes[1].node, 1);
    QVERIFY(d.lane_of(1, false).has_value());
    QVERIFY(!d.lane_of(1, true).has_value());
  }

  void bad_files_give_the_stores_messages() {
    const auto text = write_bytes(dir_, "text.db", "not a database\n");
    try {
      (void)load_timeline(text.toStdString());
      QFAIL("a text file was read as a timeline");
    } catch (const ncp2::carnival::StoreError& e) {
      QVERIFY(QString(e.what()).contains("is not an SQLite database"));
    }
    // A segment of a node the run does not have: damage, said, not a lane.
    const auto damaged = write_db(dir_, "damaged.db", gui_fixture());
    QVERIFY(exec_sql(damaged, "UPDATE timeline SET node = 7 WHERE node = 1;"));
    const auto bad = load_timeline_file(damaged);
    QVERIFY(!bad.data);
    QVERIFY2(bad.error.contains("is corrupt: the timeline has a segment of node 7, the run has 2 nodes"),
             qPrintable(bad.error));
    const auto huge = write_db(dir_, "huge.db", gui_fixture());
    QVERIFY(exec_sql(huge, "UPDATE runs SET nodes = 1000000000;"));
    QVERIFY(
        load_timeline_file(huge).error.contains("is corrupt: the run has 1000000000 nodes (at most 16384)"));
    // Overlapping segments (damage) are cut where the previous one ends: the lane stays searchable.
    const auto overlap = write_db(dir_, "overlap.db", gui_fixture());
    QVERIFY(exec_sql(overlap,
                     "UPDATE timeline SET start_ps = 400000000 WHERE node = 0 AND resource = 'PP' AND "
                     "start_ps = 700000000;"));
    const auto cut = load_timeline(overlap.toStdString());
    QCOMPARE(cut.lanes[0].segments[1].start_ps, us(500));  // was 400 us, inside the first
    for (std::size_t i = 1; i < cut.lanes[0].segments.size(); ++i)
      QVERIFY(cut.lanes[0].segments[i].start_ps >= cut.lanes[0].segments[i - 1].end_ps);
    const auto r = load_timeline_file(dir_.filePath("missing.db"));
    QVERIFY(!r.data);
    QVERIFY(r.error.contains("no such file"));
  }

  // --- geometry ----------------------------------------------------------------------------------

  void segments_are_placed_at_the_zoom() {
    const auto d = load_timeline(db_.toStdString());
    // 2000 px for 2000 us: 1 us per pixel.
    const auto window = TimeWindow::fit(d.end_ps, 2000);
    QCOMPARE(window.ps_per_pixel, 1e6);
    const auto runs = lane_runs(d.lanes[0], window, 2000, 2);
    QCOMPARE(runs.size(), std::size_t{5});
    QCOMPARE(runs[0].x0, 0);
    QCOMPARE(runs[0].x1, 500);
    QCOMPARE(runs[1].category, Category::Wait);
    QCOMPARE(runs[1].x0, 500);
    QCOMPARE(runs[1].x1, 700);
    QCOMPARE(runs[2].x1, 800);
    QVERIFY(runs[2].selected);  // Comp of scope 2 (update)
    QVERIFY(!runs[0].selected);
    QCOMPARE(runs[4].category, Category::Extra);
    QCOMPARE(runs[4].x1, 1300);
    // Zoomed in twice around x = 600 (600 us): that time stays under the pointer.
    const auto closer = window.zoomed(2.0, 600);
    QCOMPARE(closer.ps_per_pixel, 5e5);
    QCOMPARE(closer.t_of(600), 600e6);
    const auto zoomed = lane_runs(d.lanes[0], closer, 800, -1);  // 300 us .. 700 us
    QCOMPARE(zoomed.size(), std::size_t{2});
    QCOMPARE(zoomed[0].x0, 0);
    QCOMPARE(zoomed[0].x1, 400);  // Comp to 500 us
    QCOMPARE(zoomed[1].x1, 800);  // Wait to 700 us
    // Panned right by 100 px: 50 us later.
    QCOMPARE(closer.panned(-100).start_ps, closer.start_ps + 100 * 5e5);
  }

  void sub_pixel_segments_are_merged_per_pixel_column() {
    // 10 000 segments of 100 ps over 100 px: 100 per pixel, 3 in 4 Comp: one Comp run.
    const auto lane =
        lane_of(10000, 100, [](std::size_t i) { return i % 4 == 0 ? Category::Wait : Category::Comp; });
    const auto window = TimeWindow::fit(1'000'000, 100);
    const auto runs = lane_runs(lane, window, 100, -1);
    QCOMPARE(runs.size(), std::size_t{1});
    QCOMPARE(runs[0].x0, 0);
    QCOMPARE(runs[0].x1, 100);
    QCOMPARE(runs[0].category, Category::Comp);
    QCOMPARE(runs[0].merged, std::size_t{10000});
    // Comp for the first half, Wait for the second: two runs meeting in the middle.
    const auto halves =
        lane_of(10000, 100, [](std::size_t i) { return i < 5000 ? Category::Comp : Category::Wait; });
    const auto two = lane_runs(halves, window, 100, 1);
    QCOMPARE(two.size(), std::size_t{2});
    QCOMPARE(two[0].x1, 50);
    QCOMPARE(two[1].x0, 50);
    QCOMPARE(two[1].category, Category::Wait);
    QVERIFY(two[0].selected);  // every pixel holds a segment of scope 1
    // Whatever the count, never more runs than pixels.
    const auto mixed =
        lane_of(100000, 10, [](std::size_t i) { return i % 3 == 0 ? Category::Extra : Category::Comp; });
    QVERIFY(lane_runs(mixed, TimeWindow::fit(1'000'000, 300), 300, -1).size() <= 300);
  }

  void hit_tests_and_visible_flows() {
    const auto d = load_timeline(db_.toStdString());
    const auto* s = segment_at(d.lanes[0], us(600));
    QVERIFY(s);
    QCOMPARE(s->category, Category::Wait);
    QCOMPARE(segment_at(d.lanes[0], us(1500)), nullptr);  // after the last PP segment of node 0
    std::size_t total = 0;
    QCOMPARE(visible_flows(d, 0, us(600), 10, &total).size(), std::size_t{0});
    QCOMPARE(visible_flows(d, us(600), us(2000), 10, &total).size(), std::size_t{3});
    QCOMPARE(total, std::size_t{3});
    QCOMPARE(visible_flows(d, us(600), us(2000), 1, &total).size(), std::size_t{1});
    // Who made a wait last: node 0 at 600 us waits for node 1 (wait 1); node 1 at 1500 us for
    // node 0 (wait 2); node 0 at 900 us waits for a page, which has no cause.
    const auto* f = flow_at(d, 0, false, us(600));
    QVERIFY(f);
    QCOMPARE(f->cause, 1);
    QCOMPARE(flow_at(d, 1, false, us(1500))->cause, 0);
    QCOMPARE(flow_at(d, 0, false, us(900)), nullptr);
    QCOMPARE(flow_at(d, 0, true, us(600)), nullptr);  // the CP did not wait
    QCOMPARE(total, std::size_t{3});
  }

  void a_large_timeline_loads_and_draws_quickly() {
    // 300 000 segments on 16 nodes (Water on 16 nodes stores about 257 000).
    auto d = gui_fixture();
    d.run.nodes = 16;
    d.timeline.clear();
    for (int i = 0; i < 300000; ++i) {
      const int node = i % 16;
      const std::int64_t t = static_cast<std::int64_t>(i / 16) * 1000 + 100;
      d.timeline.push_back(
          {node, false, i % 5 == 0 ? Category::Wait : Category::Comp, "none", 2, t, t + 900});
    }
    // A CP segment of the last node before its PP segments (the order the rows come in): still
    // 16 nodes, 32 lanes.
    d.timeline.push_back({15, true, Category::CPIdle, "none", 0, 0, 10});
    const auto path = write_db(dir_, "large.db", d);
    QElapsedTimer timer;
    timer.start();
    const auto data = load_timeline(path.toStdString());
    const auto load_ms = timer.elapsed();
    QCOMPARE(data.segment_count, std::size_t{300001});
    QCOMPARE(data.lanes.size(), std::size_t{32});
    timer.restart();
    std::size_t runs = 0;
    const auto window = TimeWindow::fit(data.end_ps, 1200);
    for (const auto& lane : data.lanes) runs += lane_runs(lane, window, 1200, 2).size();
    const auto draw_ms = timer.elapsed();
    QVERIFY(runs <= std::size_t{32} * 1200);
    qInfo("300 000 segments: loaded in %lld ms, one frame's runs in %lld ms", static_cast<long long>(load_ms),
          static_cast<long long>(draw_ms));
    QVERIFY2(load_ms < 10000, "loading 300 000 segments took more than 10 s");
    QVERIFY2(draw_ms < 500, "one frame of 300 000 segments took more than 0.5 s");
  }

  // --- the window --------------------------------------------------------------------------------

  void the_timeline_pane_follows_and_sets_the_selection() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    QVERIFY(w.lower_tabs()->isHidden());  // until chosen
    TimelineView* view = w.timeline();
    QSignalSpy loaded(view, &TimelineView::loaded);
    w.show_view(ViewId::Timeline);
    QVERIFY(w.lower_tabs()->isVisible());
    QVERIFY(loaded.count() == 1 || loaded.wait(kWaitMs));
    TimelineCanvas* canvas = view->canvas();
    QVERIFY(canvas->data());
    QVERIFY(view->status_text().contains("11 segments on 4 lanes"));
    // Node 0's PP: Comp of update (scope 2) from 700 to 800 us.
    const auto& window = canvas->window();
    const int x = TimelineCanvas::kLabelWidth + static_cast<int>(window.x_of(static_cast<double>(us(750))));
    const int y = canvas->lane_top(0) + canvas->lane_height() / 2;
    std::size_t lane = 99;
    const auto* s = canvas->segment_at_point({x, y}, &lane);
    QVERIFY(s);
    QCOMPARE(lane, std::size_t{0});
    QCOMPARE(s->scope, 2u);
    const QImage image = canvas->grab().toImage();
    QCOMPARE(image.pixelColor(x, y), QColor("#0072B2"));  // Comp, in the file's colour
    QTest::mouseClick(canvas, Qt::LeftButton, {}, {x, y});
    QCOMPARE(w.context()->scope(), qint64{2});
    // Zoom keeps the time under the pointer; Fit shows the whole run again.
    const double before = canvas->window().t_of(x - TimelineCanvas::kLabelWidth);
    canvas->zoom(4.0, x - TimelineCanvas::kLabelWidth);
    QCOMPARE(canvas->window().t_of(x - TimelineCanvas::kLabelWidth), before);
    QTest::keyClick(canvas, Qt::Key_0);
    QCOMPARE(canvas->window().start_ps, 0.0);
    // The tooltip names the segment.
    const QString tip = canvas->tooltip_at({x, y});
    QVERIFY2(
        tip.contains("node 0 PP") && tip.contains("Comp") && tip.contains("update") && tip.contains("100 us"),
        qPrintable(tip));
    QVERIFY(canvas->tooltip_at({5, 5}).isEmpty());  // the axis
    // A wait with a cause names it: node 0's barrier wait from 500 us, 130 us for node 1.
    const int wait_x =
        TimelineCanvas::kLabelWidth + static_cast<int>(canvas->window().x_of(static_cast<double>(us(600))));
    const QString wait_tip = canvas->tooltip_at({wait_x, y});
    QVERIFY2(
        wait_tip.contains("Wait (barrier)") && wait_tip.contains("made to wait by <b>node 1</b>: 130 us"),
        qPrintable(wait_tip));
  }

  void the_wheel_zooms_around_the_pointer_and_a_drag_pans() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    w.show_view(ViewId::Timeline);
    w.timeline()->load_and_wait();
    TimelineCanvas* canvas = w.timeline()->canvas();
    const double fitted = canvas->window().ps_per_pixel;
    const QPointF at(TimelineCanvas::kLabelWidth + 300, canvas->lane_top(0) + 2);
    const double t = canvas->window().t_of(300);
    QWheelEvent wheel(at, canvas->mapToGlobal(at), {}, {0, 120}, Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas, &wheel);
    QCOMPARE(canvas->window().ps_per_pixel, fitted / 1.25);
    QVERIFY(std::abs(canvas->window().t_of(300) - t) < 1.0);
    // Dragging 100 px to the right shows 100 px earlier; the drag selects nothing.
    const qint64 scope = w.context()->scope();
    const double start = canvas->window().start_ps;
    const QPoint from = at.toPoint();
    QTest::mousePress(canvas, Qt::LeftButton, {}, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(from + QPoint(100, 0)),
                     canvas->mapToGlobal(QPointF(from + QPoint(100, 0))), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QApplication::sendEvent(canvas, &move);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, from + QPoint(100, 0));
    QVERIFY(std::abs(canvas->window().start_ps - (start - 100 * canvas->window().ps_per_pixel)) < 1.0);
    QCOMPARE(w.context()->scope(), scope);
    // The node filter tints its lanes.
    w.context()->set_node_filter(1);
    const QImage image = canvas->grab().toImage();
    const auto lane = *canvas->data()->lane_of(1, false);
    QVERIFY(image.pixelColor(2, canvas->lane_top(lane) + canvas->lane_height() / 2) !=
            canvas->palette().base().color());
    QCOMPARE(image.pixelColor(2, canvas->lane_top(0) + canvas->lane_height() / 2),
             canvas->palette().base().color());
  }

  void lanes_that_do_not_fit_scroll() {
    // 64 nodes with CPs: 128 lanes of at least 4 px do not fit the pane.
    auto d = gui_fixture();
    d.run.nodes = 64;
    d.timeline.clear();
    for (int n = 0; n < 64; ++n) {
      d.timeline.push_back({n, false, Category::Comp, "none", 1, 0, us(1000)});
      d.timeline.push_back({n, true, Category::CPIdle, "none", 0, 0, us(1000)});
    }
    const auto path = write_db(dir_, "wide.db", d);
    MainWindow w;
    w.set_interactive(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(open_and_wait(w, path));
    w.show_view(ViewId::Timeline);
    w.timeline()->load_and_wait();
    QApplication::processEvents();
    TimelineCanvas* canvas = w.timeline()->canvas();
    QCOMPARE(canvas->data()->lanes.size(), std::size_t{128});
    QCOMPARE(canvas->lane_height(), 4);
    QVERIFY(canvas->max_scroll_y() > 0);
    auto* bar = w.timeline()->findChild<QScrollBar*>();
    QVERIFY(bar && bar->isVisible());
    QCOMPARE(bar->maximum(), canvas->max_scroll_y());
    QVERIFY(!canvas->lane_at(canvas->height() - 1).has_value() ||
            *canvas->lane_at(canvas->height() - 1) < std::size_t{127});
    // Scrolled to the end (the bar, as a user drags it): the last lane is in view.
    bar->setValue(bar->maximum());
    QCOMPARE(canvas->scroll_y(), canvas->max_scroll_y());
    QCOMPARE(*canvas->lane_at(canvas->height() - 1), std::size_t{127});
    QVERIFY(canvas->lane_top(127) + canvas->lane_height() <= canvas->height());
    // The keys scroll back a lane at a time; never above the first.
    QTest::keyClick(canvas, Qt::Key_Up);
    QCOMPARE(canvas->scroll_y(), canvas->max_scroll_y() - 4);
    QCOMPARE(bar->value(), canvas->scroll_y());
    canvas->set_scroll_y(-100);
    QCOMPARE(canvas->scroll_y(), 0);
    QCOMPARE(*canvas->lane_at(TimelineCanvas::kAxisHeight), std::size_t{0});
  }

  void a_run_without_a_timeline_says_so() {
    auto d = gui_fixture();
    d.timeline.clear();
    const auto path = write_db(dir_, "no-timeline.db", d);
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, path));
    w.show_view(ViewId::Timeline);
    w.timeline()->load_and_wait();
    QVERIFY2(w.timeline()->status_text().contains("stored no timeline"),
             qPrintable(w.timeline()->status_text()));
  }

  void the_compare_pane_lists_both_runs_and_says_what_differs() {
    MainWindow w;
    w.set_interactive(false);
    w.show();
    QVERIFY(open_and_wait(w, db_));
    QCOMPARE(w.compare_with_and_wait(treadmarks_), QString());
    QVERIFY(w.lower_tabs()->isVisible());
    CompareModel* model = w.comparison()->model();
    QVERIFY(model->rowCount() > 20);
    QVERIFY(w.comparison()->title_text().contains("phases on treadmarks"));
    int update_row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->row_at(r)->key.starts_with("update ")) update_row = r;
    QVERIFY(update_row >= 0);
    QCOMPARE(model->row_at(update_row)->diff_ps(), us(100));
    QCOMPARE(model->index(update_row, CompareModel::Difference).data().toString(), QString("+100 us"));
    // A scope row selects that scope of the open run (A).
    QTableView* table = w.comparison()->table();
    const QModelIndex cell =
        static_cast<QSortFilterProxyModel*>(table->model())->mapFromSource(model->index(update_row, 1));
    table->scrollTo(cell);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
    QCOMPARE(w.context()->scope(), qint64{2});
    // Another program: said, and what matches is still compared.
    auto other = gui_fixture();
    other.run.workload = "water";
    const auto water = write_db(dir_, "water.db", other);
    QCOMPARE(w.compare_with_and_wait(water), QString());
    QVERIFY(w.comparison()->title_text().contains("different programs"));
    QVERIFY(model->rowCount() > 20);
    // A file that is not a run: the message, no rows.
    const QString error = w.compare_with_and_wait(dir_.filePath("missing.db"));
    QVERIFY(error.contains("no such file"));
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(w.comparison()->title_text().contains("Cannot compare"));
  }

  void the_executable_renders_the_timeline_and_the_comparison() {
    QProcess p;
    const QString out = dir_.filePath("timeline.png");
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--view", "timeline", db_});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(!QImage(out).isNull());
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--view", "compare", "--compare", treadmarks_, db_});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    p.start(CARNIVAL_BINARY, {"--screenshot", out, "--view", "compare", db_});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("--compare B.db"));
    p.start(CARNIVAL_BINARY,
            {"--screenshot", out, "--view", "compare", "--compare", dir_.filePath("none.db"), db_});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("no such file"));
  }
};

QTEST_MAIN(TimelineTest)
#include "timeline_test.moc"
