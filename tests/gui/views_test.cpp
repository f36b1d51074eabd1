// The window's newer views and tools on the offscreen platform: the Profile Map's nesting
// (folding, sorting within levels through the header), the scopes x processors matrix linked to
// the shared selection, export (PNG, SVG, CSV, also through the executable) and find in the
// source view (Ctrl+F, next and previous, wrapping, "no match", the highlights' pixels).
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "gui/export.hpp"
#include "gui/find_bar.hpp"
#include "gui/main_window.hpp"
#include "gui/profile_map.hpp"
#include "gui/source_panel.hpp"
#include "gui/source_view.hpp"
#include "gui/widgets.hpp"
#include "gui_fixture.hpp"
#include "offscreen_test.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;

namespace {

void settle() {
  for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
}

// The scope names of a table's rows, top to bottom.
QString scope_order(const QTableView* table) {
  QStringList names;
  for (int r = 0; r < table->model()->rowCount(); ++r) names << table->model()->index(r, 0).data().toString();
  return names.join(QLatin1Char('/'));
}

// A double-click as a user makes it: a click, then the second press.
void double_click(QTableView* table, const QModelIndex& index) {
  const QPoint at = table->visualRect(index).center();
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
  QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
}

QString read_text(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

}  // namespace

class ViewsTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString db_;

  // A window at a usable size with the fixture open.
  void open(MainWindow& w) {
    w.set_interactive(false);
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.open_file_and_wait(db_), QString());
    settle();
  }

 public:
  static void initMain() { ncp2::gui::testing::prepare_offscreen(); }

 private slots:
  void initTestCase() {
    ncp2::gui::testing::begin_gui_test("carnival-views-test");
    db_ = write_db(dir_, "fixture.db", gui_fixture());
  }

  void profile_map_shows_the_nesting_indented_sorts_within_levels_and_folds() {
    MainWindow w;
    open(w);
    w.show_view(ViewId::ProfileMap);
    settle();
    QTableView* table = w.profile_map()->table();
    QCOMPARE(scope_order(table), QString("program/phase loop/update/verify"));
    // A child's name starts further right than its parent's (the delegate indents by depth).
    const QModelIndex program = table->model()->index(0, 0);
    const QModelIndex update = table->model()->index(2, 0);
    QCOMPARE(BarDelegate::indent_of(update) - BarDelegate::indent_of(program),
             2 * BarDelegate::kIndentPerLevel);
    // The header sorts siblings only: by time ascending, verify before phase loop, update stays
    // under its parent.
    table->sortByColumn(ProfileMapModel::Time, Qt::AscendingOrder);
    QCOMPARE(scope_order(table), QString("program/verify/phase loop/update"));
    // The selection follows the sort.
    w.context()->select_scope(2);
    QCOMPARE(table->currentIndex().data(roles::ScopeId).toLongLong(), 2);
    // Double-click folds phase loop: update disappears, and comes back.
    const QModelIndex phase = table->model()->index(2, 0);
    QCOMPARE(phase.data().toString(), QString("phase loop"));
    double_click(table, phase);
    QCOMPARE(scope_order(table), QString("program/verify/phase loop"));
    QCOMPARE(table->model()->index(2, 0).data(roles::Fold).toInt(), 1);
    double_click(table, table->model()->index(2, 0));
    QCOMPARE(scope_order(table), QString("program/verify/phase loop/update"));
    // The arrows: drawn where a scope has children (program's, dark on an unselected row), none
    // for a leaf (update); a press on one folds without selecting.
    w.context()->select_scope(3);
    const auto arrow_at = [&](int row) {
      const QModelIndex index = table->model()->index(row, 0);
      const QRect cell = table->visualRect(index);
      return QPoint(cell.left() + BarDelegate::indent_of(index) - BarDelegate::kArrowWidth / 2,
                    cell.center().y());
    };
    const QImage image = table->viewport()->grab().toImage();
    QVERIFY(qGray(image.pixel(arrow_at(0))) < 100);
    QVERIFY(qGray(image.pixel(arrow_at(3))) > 200);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, arrow_at(2));
    QCOMPARE(scope_order(table), QString("program/verify/phase loop"));
    QCOMPARE(w.context()->scope(), qint64{3});
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, arrow_at(2));
    QCOMPARE(scope_order(table), QString("program/verify/phase loop/update"));
    // Left folds the current scope, Right unfolds it.
    w.context()->select_scope(1);
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Left);
    QCOMPARE(scope_order(table), QString("program/verify/phase loop"));
    QTest::keyClick(table, Qt::Key_Right);
    QCOMPARE(scope_order(table), QString("program/verify/phase loop/update"));
  }

  void matrix_cells_select_scope_and_node_and_follow_the_selection() {
    MainWindow w;
    open(w);
    w.show_view(ViewId::Matrix);
    settle();
    QCOMPARE(w.profile_map()->mode(), ProfileMapView::Mode::Matrix);
    QTableView* matrix = w.profile_map()->matrix_table();
    QVERIFY(matrix->isVisible());
    QVERIFY(!w.profile_map()->table()->isVisible());
    auto* model = w.profile_map()->matrix_model();
    QCOMPARE(model->columnCount(), 3);  // scope, node 0, node 1
    // Every node column lies inside the viewport, wide enough to show a split.
    for (int c = 0; c < model->columnCount(); ++c) {
      const int right = matrix->horizontalHeader()->sectionViewportPosition(c) + matrix->columnWidth(c);
      QVERIFY2(right <= matrix->viewport()->width(), qPrintable(QString::number(c)));
      QVERIFY(matrix->columnWidth(c) >= 28);
    }
    // The cell of phase loop on node 1: the scope and the node are selected everywhere.
    const QModelIndex cell = model->index(model->row_of_scope(1), model->column_of_node(1));
    QTest::mouseClick(matrix->viewport(), Qt::LeftButton, {}, matrix->visualRect(cell).center());
    QCOMPARE(w.context()->scope(), qint64{1});
    QCOMPARE(w.context()->node_filter(), 1);
    QCOMPARE(w.node_chooser()->currentData().toInt(), 1);
    QCOMPARE(matrix->currentIndex().row(), model->row_of_scope(1));
    QCOMPARE(matrix->currentIndex().column(), model->column_of_node(1));
    // Node 1 is the busiest in phase loop: its bar fills the cell, and starts in Comp's colour.
    const QRect bar = BarDelegate::bar_rect(matrix->visualRect(model->index(1, 2)), 1.0);
    const QImage image = matrix->viewport()->grab().toImage();
    QCOMPARE(QColor(image.pixel(bar.left() + 1, bar.center().y())), QColor("#0072B2"));
    // Node 0 spent 1650 of 1900 us: its bar ends short of the cell's end.
    const QRect short_bar = BarDelegate::bar_rect(matrix->visualRect(model->index(1, 1)), 1650.0 / 1900.0);
    QVERIFY(short_bar.width() < bar.width());
    QVERIFY(QColor(image.pixel(bar.right() - 1, bar.center().y())) != QColor(Qt::white));
    // A scope selected elsewhere: the matrix follows, in the node's column.
    w.context()->select_scope(2);
    QCOMPARE(matrix->currentIndex().row(), model->row_of_scope(2));
    QCOMPARE(matrix->currentIndex().column(), model->column_of_node(1));
    // All nodes again: the scope's name is selected.
    w.context()->set_node_filter(-1);
    QCOMPARE(matrix->currentIndex().column(), 0);
    // A node's header picks that node, the scope column's all nodes.
    auto* header = matrix->horizontalHeader();
    QTest::mouseClick(
        header->viewport(), Qt::LeftButton, {},
        QPoint(header->sectionViewportPosition(2) + header->sectionSize(2) / 2, header->height() / 2));
    QCOMPARE(w.context()->node_filter(), 1);
    QCOMPARE(matrix->currentIndex().column(), 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionSize(0) / 2, header->height() / 2));
    QCOMPARE(w.context()->node_filter(), -1);
    QCOMPARE(matrix->currentIndex().column(), 0);
    // A click on the name selects the scope and leaves the node filter alone.
    QTest::mouseClick(matrix->viewport(), Qt::LeftButton, {},
                      matrix->visualRect(model->index(3, 0)).center());
    QCOMPARE(w.context()->scope(), qint64{3});
    QCOMPARE(w.context()->node_filter(), -1);
  }

  void export_writes_png_svg_and_csv_of_what_is_shown() {
    MainWindow w;
    open(w);
    w.show_view(ViewId::ProfileMap);
    settle();
    const QString png = dir_.filePath("map.png");
    QCOMPARE(w.export_image(ExportTarget::Analysis, png), QString());
    QCOMPARE(QImage(png).size(), w.tabs()->currentWidget()->size());
    QCOMPARE(w.export_image(ExportTarget::Window, png), QString());
    QCOMPARE(QImage(png).size(), w.size());
    // SVG: vectors and text, the scope names and Comp's colour in it.
    const QString svg = dir_.filePath("map.svg");
    QCOMPARE(w.export_image(ExportTarget::Analysis, svg), QString());
    const QString text = read_text(svg);
    QVERIFY(text.contains("<svg"));
    QVERIFY2(text.contains(">phase loop<"), qPrintable(text.left(2000)));
    QVERIFY(text.contains("#0072b2", Qt::CaseInsensitive));
    // Drawn back, the SVG has the first row's bar where the screen has it, in Comp's colour.
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QWidget* front = w.tabs()->currentWidget();
    QImage drawn(front->size(), QImage::Format_RGB32);
    drawn.fill(Qt::white);
    QPainter painter(&drawn);
    renderer.render(&painter);
    painter.end();
    QTableView* table = w.profile_map()->table();
    const QRect bar =
        BarDelegate::bar_rect(table->visualRect(table->model()->index(0, ProfileMapModel::Profile)), 1.0);
    const QPoint at = table->viewport()->mapTo(front, bar.topLeft() + QPoint(2, bar.height() / 2));
    QCOMPARE(QColor(drawn.pixel(at)), QColor("#0072B2"));
    QCOMPARE(w.export_image(ExportTarget::Source, svg), QString());
    QVERIFY(read_text(svg).contains("compute(20)"));  // the source text in view, as text
    // CSV of the table in front, in its order (sorted by the user: the file follows).
    const QString csv = dir_.filePath("map.csv");
    table->sortByColumn(ProfileMapModel::Time, Qt::AscendingOrder);
    QCOMPARE(w.export_table(csv), QString());
    const QStringList lines = read_text(csv).split("\r\n");
    QCOMPARE(lines[0], QString("Depth,Scope,Profile,Time,%,Dominant,Location"));
    QVERIFY(lines[2].startsWith("1,verify,"));
    QVERIFY(lines[4].startsWith("2,update,"));
    w.show_view(ViewId::CPWait);
    QCOMPARE(w.export_table(csv), QString());
    QVERIFY(read_text(csv).startsWith("Location,Category,Operation,Count,Profile,Time,%,Cum. %\r\n"));
    // Every table has the export menu.
    for (const QTableView* any : w.findChildren<QTableView*>()) {
      QCOMPARE(any->contextMenuPolicy(), Qt::ActionsContextMenu);
      QCOMPARE(any->actions().size(), 2);
    }
    // A file that cannot be written says so.
    QVERIFY(
        w.export_image(ExportTarget::Window, dir_.filePath("no/such/dir/x.svg")).contains("cannot write"));
    QVERIFY(w.export_table(dir_.filePath("no/such/dir/x.csv")).contains("cannot write"));
  }

  // Qt 6.4's SVG generator does not clip: the source view draws only the characters in view, so
  // a long line is cut at the view's edge rather than written whole over the analysis pane.
  void svg_of_a_long_line_holds_only_what_is_in_view() {
    auto d = gui_fixture();
    const std::string long_run(300, 'x');
    std::string& text = d.sources[0].text;
    const auto line20 = text.find("  x20 = compute(20);");
    text.insert(line20, "  y = \"" + long_run + "\";  // END\n");
    const QString path = write_db(dir_, "long.db", d);
    MainWindow w;
    w.set_interactive(false);
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.open_file_and_wait(path), QString());
    settle();
    const QString svg = dir_.filePath("long.svg");
    QCOMPARE(w.export_image(ExportTarget::Window, svg), QString());
    const QString written = read_text(svg);
    QVERIFY(written.contains(QString(20, 'x')));                   // the line is shown
    QVERIFY(!written.contains(QString::fromStdString(long_run)));  // but not whole
    QVERIFY(!written.contains("END"));                             // nor its end
    // Nor does scope 0's bar (all of the program's 400 lines, in the darkest gray, #303030) run
    // on below the view: its rectangle is cut to the view's height (its edges just outside).
    SourceView* view = w.source_panel()->view();
    QCOMPARE(view->scope_bar_color(0), QColor(0x30, 0x30, 0x30));
    const QRegularExpression darkest("<g fill=\"#303030\"[^>]*>\\s*<rect [^>]*height=\"([0-9.]+)\"");
    double tallest = 0;
    for (auto it = darkest.globalMatch(written); it.hasNext();)
      tallest = std::max(tallest, it.next().captured(1).toDouble());
    QVERIFY2(tallest >= view->viewport()->height() - 4 && tallest <= view->viewport()->height() + 4,
             qPrintable(QString("scope 0's bar is %1 px high in a %2 px view")
                            .arg(tallest)
                            .arg(view->viewport()->height())));
    // Scrolled sideways, its start is gone too.
    view->horizontalScrollBar()->setValue(200);
    QCOMPARE(w.export_image(ExportTarget::Source, svg), QString());
    QVERIFY(!read_text(svg).contains("y = \""));
  }

  void the_executable_writes_svg_and_the_matrix_view() {
    const QString svg = dir_.filePath("shot.svg");
    QProcess p;
    p.start(CARNIVAL_BINARY, {"--screenshot", svg, "--view", "matrix", "--size", "900x600", db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    const QString text = read_text(svg);
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Scopes × processors"));
    const QString png = dir_.filePath("matrix.png");
    p.start(CARNIVAL_BINARY, {"--screenshot", png, "--view", "matrix", "--size", "900x600", db_});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QImage(png).size(), QSize(900, 600));
  }

  void find_in_source_highlights_steps_wraps_and_says_no_match() {
    MainWindow w;
    open(w);
    SourceView* view = w.source_panel()->view();
    FindBar* bar = w.source_panel()->find_bar();
    QVERIFY(!bar->isVisible());
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    view->verticalScrollBar()->setValue(0);
    view->setFocus();
    QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
    QVERIFY(bar->isVisible());
    QVERIFY(bar->field()->hasFocus());
    // "compute(39": lines 39 and 390-399, eleven matches.
    QTest::keyClicks(bar->field(), "COMPUTE(39");
    QCOMPARE(bar->matches().size(), std::size_t{11});
    QCOMPARE(bar->current(), 0);
    QCOMPARE(bar->status(), QString("1 of 11"));
    QCOMPARE(view->find_matches().size(), std::size_t{11});
    // The current match is painted in its colour, where the text is (the row's top pixel line is
    // clear of the glyphs).
    settle();
    const QRect first = view->match_rect(bar->matches()[0]);
    QVERIFY(view->viewport()->rect().contains(first));
    QImage image = view->viewport()->grab().toImage();
    QCOMPARE(QColor(image.pixel(first.left() + 1, first.top())), QColor(255, 152, 0));
    QVERIFY(QColor(image.pixel(first.left() - 3, first.top())) != QColor(255, 152, 0));  // before it: not
    // Enter goes to the next match, which scrolls into view.
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(bar->current(), 1);
    QCOMPARE(bar->matches()[1].line, 390);
    QVERIFY(view->first_visible_line() <= 390 && 390 <= view->last_visible_line());
    settle();
    image = view->viewport()->grab().toImage();
    const QRect current = view->match_rect(bar->matches()[1]);
    const QRect other = view->match_rect(bar->matches()[2]);
    QCOMPARE(QColor(image.pixel(current.left() + 1, current.top())), QColor(255, 152, 0));
    QCOMPARE(QColor(image.pixel(other.left() + 1, other.top())), QColor(255, 241, 118));
    // Past the last: back to the first, and it says so; Shift+Enter (and F3's twin) go back.
    for (int i = 0; i < 9; ++i) bar->find_next();
    QCOMPARE(bar->current(), 10);
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(bar->current(), 0);
    QCOMPARE(bar->status(), QString("1 of 11 (wrapped)"));
    QTest::keyClick(bar->field(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(bar->current(), 10);
    QVERIFY(bar->status().contains("wrapped"));
    QTest::keyClick(&w, Qt::Key_F3, Qt::ShiftModifier);
    QCOMPARE(bar->current(), 9);
    // Nothing to find.
    bar->field()->setText("no such text");
    QCOMPARE(bar->status(), QString("no match"));
    QCOMPARE(bar->current(), -1);
    QVERIFY(view->find_matches().empty());
    // Another file: found again there.
    bar->field()->setText("helper");
    view->show_file("workloads/helper.hpp");
    QCOMPARE(bar->matches().size(), std::size_t{2});
    // Esc closes the bar and clears the highlights.
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
    QVERIFY(view->find_matches().empty());
  }
};

QTEST_MAIN(ViewsTest)
#include "views_test.moc"
