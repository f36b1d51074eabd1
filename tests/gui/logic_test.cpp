// The GUI's logic without a QApplication: shading maps, bar partitions, the analysis of a fixture
// database, the source view's geometry, the read side's answers to bad files, the command line.
#include <numeric>

#include <QTest>

#include "gui/analysis.hpp"
#include "gui/headless.hpp"
#include "gui/source_layout.hpp"
#include "gui/text_find.hpp"
#include "gui_fixture.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;
using ncp2::carnival::Category;

class LogicTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString db_;
  std::shared_ptr<const RunSummary> summary_;

  std::shared_ptr<const RunSummary> load(const QString& path) {
    return std::make_shared<const RunSummary>(load_run_summary(path.toStdString()));
  }
  // The message of the StoreError that loading `path` throws (empty if it loads).
  static QString load_error(const QString& path) {
    try {
      (void)load_run_summary(path.toStdString());
      check_integrity(path.toStdString());
    } catch (const ncp2::carnival::StoreError& e) {
      return QString::fromStdString(e.what());
    }
    return {};
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    db_ = write_db(dir_, "fixture.db", gui_fixture());
    summary_ = load(db_);
  }

  // --- shading and bars ----------------------------------------------------------------------

  void shading_maps_zero_to_white_and_the_maximum_to_the_darkest_gray() {
    for (auto m : {Shading::Linear, Shading::Sqrt, Shading::Log}) {
      QCOMPARE(shade_intensity(0, 10, m), 0.0);
      QCOMPARE(shade_intensity(10, 10, m), 1.0);
      QCOMPARE(shade_intensity(5, 0, m), 0.0);  // nothing to compare with
      QCOMPARE(gray_level(shade_intensity(0, 10, m)), 255);
      QCOMPARE(gray_level(shade_intensity(10, 10, m)), kDarkestGray);
    }
  }

  void shading_is_monotonic_and_sqrt_and_log_lift_small_values() {
    for (auto m : {Shading::Linear, Shading::Sqrt, Shading::Log}) {
      double previous = -1;
      for (int v = 0; v <= 1000; v += 5) {
        const double i = shade_intensity(v, 1000, m);
        QVERIFY2(i >= previous, to_string(m));
        previous = i;
      }
    }
    const double small = 0.01;
    QVERIFY(shade_intensity(small, 1, Shading::Sqrt) > shade_intensity(small, 1, Shading::Linear));
    QVERIFY(shade_intensity(small, 1, Shading::Log) > shade_intensity(small, 1, Shading::Sqrt));
    QCOMPARE(shade_intensity(0.25, 1, Shading::Sqrt), 0.5);
  }

  void shading_names_round_trip() {
    for (auto m : {Shading::Linear, Shading::Sqrt, Shading::Log})
      QCOMPARE(*shading_from_string(to_string(m)), m);
    QVERIFY(!shading_from_string("cubic"));
  }

  void partition_fills_the_pixels_exactly_within_one_pixel_of_each_share() {
    const std::vector<std::int64_t> values = {1200, 200, 500, 150};
    for (int pixels : {1, 7, 92, 333}) {
      const auto widths = partition(values, pixels);
      QCOMPARE(std::accumulate(widths.begin(), widths.end(), 0), pixels);
      for (std::size_t i = 0; i < values.size(); ++i) {
        const double exact = pixels * static_cast<double>(values[i]) / 2050.0;
        QVERIFY(std::abs(widths[i] - exact) < 1.0);
      }
    }
  }

  void find_matches_every_occurrence_ignoring_case_without_overlaps() {
    const QStringList lines = {"int grid = 0;", "", "update(Grid, grid);  // GRID", "aaaa"};
    const auto grid = find_matches(lines, "grid");
    QCOMPARE(grid.size(), std::size_t{4});
    QCOMPARE(grid[0], (TextMatch{.line = 1, .column = 4, .length = 4}));
    QCOMPARE(grid[1], (TextMatch{.line = 3, .column = 7, .length = 4}));
    QCOMPARE(grid[2], (TextMatch{.line = 3, .column = 13, .length = 4}));
    QCOMPARE(grid[3], (TextMatch{.line = 3, .column = 24, .length = 4}));
    QCOMPARE(find_matches(lines, "aa").size(), std::size_t{2});  // "aaaa" holds two, not three
    QVERIFY(find_matches(lines, "").empty());
    QVERIFY(find_matches(lines, "nowhere").empty());
  }

  void find_steps_wrap_around_both_ends_and_say_so() {
    bool wrapped = true;
    QCOMPARE(step_match(3, -1, true, &wrapped), 0);
    QVERIFY(!wrapped);
    QCOMPARE(step_match(3, -1, false, &wrapped), 2);
    QCOMPARE(step_match(3, 1, true, &wrapped), 2);
    QVERIFY(!wrapped);
    QCOMPARE(step_match(3, 2, true, &wrapped), 0);
    QVERIFY(wrapped);
    QCOMPARE(step_match(3, 0, false, &wrapped), 2);
    QVERIFY(wrapped);
    QCOMPARE(step_match(0, 0, true, &wrapped), -1);
    const std::vector<TextMatch> matches = {{.line = 5}, {.line = 9}, {.line = 9}, {.line = 20}};
    QCOMPARE(first_match_from(matches, 1), 0);
    QCOMPARE(first_match_from(matches, 6), 1);
    QCOMPARE(first_match_from(matches, 21), 0);  // past the last: wraps to the first
    QCOMPARE(first_match_from({}, 1), -1);
  }

  void partition_of_nothing_is_empty() {
    const std::vector<std::int64_t> zeros = {0, 0, 0};
    QCOMPARE(partition(zeros, 50), (std::vector<int>{0, 0, 0}));
    const std::vector<std::int64_t> negative = {-5, 10};
    QCOMPARE(partition(negative, 10), (std::vector<int>{0, 10}));
  }

  // --- the analysis --------------------------------------------------------------------------

  void inclusive_times_sum_the_subtree_over_both_nodes() {
    const Analysis a(summary_);
    QCOMPARE(a.total_pp_ps(), us(3900));
    QCOMPARE(pp_total(a.scope(0)->inclusive), us(3900));
    QCOMPARE(pp_total(a.scope(1)->inclusive), us(3550));
    QCOMPARE(pp_total(a.scope(2)->inclusive), us(2050));
    QCOMPARE(pp_total(a.scope(3)->inclusive), us(150));
    QCOMPARE(pp_total(a.scope(1)->exclusive), us(1500));
    QCOMPARE(a.scope(2)->inclusive[static_cast<std::size_t>(Category::Wait)], us(500));
    QCOMPARE(a.scope(2)->inclusive[static_cast<std::size_t>(Category::CPComp)], us(600));
    QCOMPARE(a.scope(2)->depth, 2);
    QCOMPARE(a.roots(), std::vector<std::uint32_t>{0});
    QCOMPARE(a.scopes_by_time(), (std::vector<std::uint32_t>{0, 1, 2, 3}));
    QCOMPARE(a.dominant_category(2), Category::Comp);
  }

  void node_filter_keeps_one_nodes_times() {
    const Analysis a(summary_, 1);
    // Node 1: program 100, phase loop 900, update 1000, verify 100.
    QCOMPARE(a.total_pp_ps(), us(2100));
    QCOMPARE(pp_total(a.scope(1)->inclusive), us(1900));
    std::int64_t waits = 0;
    for (const auto& r : a.cpwait_rows()) waits += r.total_ps;
    QCOMPARE(waits, us(600 + 200 + 50));  // node 1's barrier, page fault, CPWait page fault
  }

  void node_profile_and_imbalance_of_a_scope() {
    const Analysis a(summary_);
    const auto rows = a.node_profile(1);  // phase loop, inclusive: node 0 1650, node 1 1900
    QCOMPARE(rows.size(), std::size_t{2});
    QCOMPARE(pp_total(rows[0].times), us(1650));
    QCOMPARE(pp_total(rows[1].times), us(1900));
    QCOMPARE(rows[1].finish_ps, us(2000));
    QCOMPARE(a.imbalance(1), 1900.0 / 1775.0);
  }

  void cpwait_rows_sum_the_summary_by_scope_kind_operation_largest_first() {
    const Analysis a(summary_);
    const auto& rows = a.cpwait_rows();
    QCOMPARE(rows.size(), std::size_t{4});
    QCOMPARE(a.total_wait_ps(), us(1450));
    QCOMPARE(rows[0].scope, 1u);
    QCOMPARE(rows[0].operation, std::string("barrier"));
    QCOMPARE(rows[0].total_ps, us(800));
    QCOMPARE(rows[0].count, std::uint64_t{2});
    QCOMPARE(rows[0].parts[static_cast<std::size_t>(ncp2::carnival::WaitPart::SyncDelay)], us(630));
    QCOMPARE(rows[1].total_ps, us(500));  // update, page fault, Wait
    QCOMPARE(rows[3].kind, std::string("CPWait"));
    QCOMPARE(rows.back().cumulative_percent, 100.0);
    for (std::size_t i = 1; i < rows.size(); ++i) QVERIFY(rows[i - 1].total_ps >= rows[i].total_ps);
  }

  // A CPWait Map row's drill-down by node adds up to the row, longest first; the node filter
  // narrows it.
  void cpwait_rows_drill_down_by_node() {
    const Analysis a(summary_);
    for (const auto& row : a.cpwait_rows()) {
      const auto nodes = a.cpwait_by_node(row);
      QVERIFY(!nodes.empty());
      std::int64_t total = 0;
      std::uint64_t count = 0;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        total += nodes[i].total_ps;
        count += nodes[i].count;
        if (i > 0) QVERIFY(nodes[i - 1].total_ps >= nodes[i].total_ps);
      }
      QCOMPARE(total, row.total_ps);
      QCOMPARE(count, row.count);
    }
    const Analysis one(summary_, 1);
    for (const auto& row : one.cpwait_rows())
      for (const auto& n : one.cpwait_by_node(row)) QCOMPARE(n.node, 1);
  }

  void line_times_spread_each_scope_over_its_own_lines() {
    const Analysis a(summary_);
    const auto times = a.line_times("workloads/phases.cpp");
    QCOMPARE(times.size(), std::size_t{400});
    QCOMPARE(std::accumulate(times.begin(), times.end(), std::int64_t{0}), us(3900));
    // update (lines 200-230) holds its 2050 us; phase loop's own lines hold 1500 us.
    QCOMPARE(std::accumulate(times.begin() + 199, times.begin() + 230, std::int64_t{0}), us(2050));
    const auto hottest = std::max_element(times.begin(), times.end()) - times.begin() + 1;
    QVERIFY(hottest >= 200 && hottest <= 230);
    QVERIFY(times[0] < times[10]);  // program's own line is colder than the phase loop's
    QCOMPARE(a.innermost_scope_at("workloads/phases.cpp", 215), std::int64_t{2});
    QCOMPARE(a.innermost_scope_at("workloads/phases.cpp", 100), std::int64_t{1});
    QCOMPARE(a.innermost_scope_at("workloads/phases.cpp", 5), std::int64_t{0});
    QCOMPARE(a.innermost_scope_at("workloads/phases.cpp", 401), std::int64_t{-1});
    QCOMPARE(a.files(), (std::vector<std::string>{"workloads/helper.hpp", "workloads/phases.cpp"}));
    QVERIFY(a.line_times("workloads/helper.hpp") == std::vector<std::int64_t>(2, 0));
  }

  // With line attribution (scopes of kind `line`), a line shades by its own time; a scope's rest
  // goes to its first line, not over its comments and braces; line scopes own no lines.
  void line_times_with_line_scopes_are_each_lines_own_time() {
    auto d = gui_fixture();
    d.scopes.push_back({4, 2, "line 215", "line", "workloads/phases.cpp", 215, 215});
    d.scopes.push_back({5, 1, "line 20", "line", "workloads/phases.cpp", 20, 20});
    d.profile.push_back({0, 4, Category::Comp, "none", us(900), 1});
    d.profile.push_back({1, 4, Category::Wait, "page fault", us(100), 1});
    d.profile.push_back({0, 5, Category::Comp, "none", us(40), 1});
    const Analysis a(load(write_db(dir_, "lines.db", d)));
    const auto times = a.line_times("workloads/phases.cpp");
    QCOMPARE(times[214], us(1000));       // line 215: its line scope's time, both nodes
    QCOMPARE(times[19], us(40));          // line 20
    QCOMPARE(times[199], us(2050));       // update's own rest on its first line (200)
    QCOMPARE(times[9], us(1500));         // the phase loop's on line 10
    QCOMPARE(times[4], std::int64_t{0});  // a line nothing was attributed to stays unshaded
    QCOMPARE(times[209], std::int64_t{0});
    QCOMPARE(std::accumulate(times.begin(), times.end(), std::int64_t{0}), us(2050 + 1500 + 1040 + 150));
    QCOMPARE(a.innermost_scope_at("workloads/phases.cpp", 215), std::int64_t{2});  // the code's scope
    QVERIFY(a.line_scope("workloads/phases.cpp", 215) != nullptr);
    QVERIFY(a.line_scope("workloads/phases.cpp", 216) == nullptr);
  }

  void colours_and_words_come_from_the_categories_table() {
    const QString path = write_db(dir_, "recoloured.db", gui_fixture());
    QVERIFY(exec_sql(
        path, "UPDATE categories SET color = '#123456', description = 'own words' WHERE name = 'Comp';"));
    const Analysis a(load(path));
    QCOMPARE(a.style(0).color, std::string("#123456"));
    QCOMPARE(a.style(0).description, std::string("own words"));
    QCOMPARE(a.style(kCategories + 8).name, std::string("SyncDelay"));
  }

  void scopes_the_data_mentions_but_does_not_describe_hang_under_the_root() {
    auto d = gui_fixture();
    d.profile.push_back({0, 42, Category::Comp, "none", us(10), 1});
    const Analysis a(load(write_db(dir_, "unknown-scope.db", d)));
    QVERIFY(a.scope(42));
    QCOMPARE(a.scope(42)->scope.parent, std::int64_t{0});
    QCOMPARE(a.scope_name(42), std::string("scope 42"));
    QCOMPARE(a.scope(42)->depth, 1);
  }

  void absurd_line_numbers_are_cut_not_allocated() {
    auto d = gui_fixture();
    d.scopes.push_back({7, 0, "huge", "block", "elsewhere.cpp", 5, 2'000'000'000});
    d.scopes.push_back({8, 0, "negative", "block", "elsewhere.cpp", -3, -1});
    d.profile.push_back({0, 7, Category::Comp, "none", us(10), 1});
    const Analysis a(load(write_db(dir_, "absurd.db", d)));
    const auto times = a.line_times("elsewhere.cpp");
    QCOMPARE(times.size(), Analysis::kMaxLines);
    QCOMPARE(std::accumulate(times.begin(), times.end(), std::int64_t{0}), us(10));
    QCOMPARE(a.innermost_scope_at("elsewhere.cpp", 1), std::int64_t{-1});
    QCOMPARE(a.innermost_scope_at("elsewhere.cpp", 6), std::int64_t{7});
  }

  // --- the source view's geometry ------------------------------------------------------------

  void layout_puts_scope_bars_in_depth_columns_along_their_lines() {
    SourceMetrics m;
    m.row_height = 10;
    const SourceLayout l({{0, 0, 1, 400}, {1, 1, 10, 250}, {2, 2, 200, 230}, {3, 1, 300, 320}}, 400, m);
    QCOMPARE(l.depth_columns(), 3);
    const QRect root = l.scope_bar_rect(0), loop = l.scope_bar_rect(1), update = l.scope_bar_rect(2);
    QVERIFY(root.left() < loop.left() && loop.left() < update.left());
    QCOMPARE(loop.top(), 9 * 10 + 1);
    QCOMPARE(loop.bottom(), 250 * 10 - 2);
    QCOMPARE(l.scope_bar_rect(3).left(), loop.left());  // same depth, same column
    QVERIFY(l.numbers_x() > update.right());
    QVERIFY(l.text_x() >= l.numbers_x() + m.number_width);
    QVERIFY(l.scope_bar_rect(99).isNull());
  }

  void category_bars_of_scopes_starting_on_one_line_stack_downwards() {
    SourceMetrics m;
    const SourceLayout l({{0, 0, 1, 50}, {1, 1, 1, 20}, {2, 2, 1, 1}}, 50, m);
    QCOMPARE(l.category_bar_line(0), 1);
    QCOMPARE(l.category_bar_line(1), 2);
    QCOMPARE(l.category_bar_line(2), 1);  // a one-line scope shares its only line
  }

  void hits_name_the_innermost_scope_under_the_pointer() {
    SourceMetrics m;
    m.row_height = 10;
    const SourceLayout l({{0, 0, 1, 400}, {1, 1, 10, 250}, {2, 2, 200, 230}}, 400, m);
    const QRect update = l.scope_bar_rect(2);
    SourceHit h = l.hit(update.center());
    QCOMPARE(h.area, SourceHit::Area::ScopeBar);
    QCOMPARE(h.scope, std::int64_t{2});
    QCOMPARE(h.line, update.center().y() / 10 + 1);
    h = l.hit(l.category_bar_rect(1).center());
    QCOMPARE(h.area, SourceHit::Area::CategoryBar);
    QCOMPARE(h.scope, std::int64_t{1});
    h = l.hit(l.number_rect(77).center());
    QCOMPARE(h.area, SourceHit::Area::LineNumber);
    QCOMPARE(h.line, 77);
    h = l.hit({l.text_x() + 50, 5});
    QCOMPARE(h.area, SourceHit::Area::Text);
    QCOMPARE(l.hit({5, 400 * 10 + 5}).area, SourceHit::Area::None);  // below the last line
    // Column 2 on line 100 holds no scope (update starts at 200).
    QCOMPARE(l.hit({update.center().x(), 100 * 10 - 5}).area, SourceHit::Area::None);
  }

  void deep_scopes_share_the_last_column() {
    SourceMetrics m;
    m.max_depth_columns = 2;
    const SourceLayout l({{0, 0, 1, 10}, {1, 1, 2, 9}, {2, 2, 3, 8}}, 10, m);
    QCOMPARE(l.depth_columns(), 2);
    QCOMPARE(l.scope_bar_rect(2).left(), l.scope_bar_rect(1).left());
    QCOMPARE(l.hit({l.scope_bar_rect(2).center().x(), l.row_y(5) + 2}).scope, std::int64_t{2});
  }

  // --- bad input -----------------------------------------------------------------------------

  void bad_files_give_the_documented_messages() {
    const BadFiles b = write_bad_files(dir_);
    QVERIFY(load_error(b.text).endsWith("is not an SQLite database"));
    QVERIFY(load_error(b.random).endsWith("is not an SQLite database"));
    QVERIFY(load_error(b.empty).endsWith("is not an SQLite database"));
    QVERIFY(load_error(b.foreign).contains("is not an NCP2-Carnival database (application_id 0x0"));
    QVERIFY(load_error(b.newer).contains(
        QString("was written by a newer version (schema %1, this tool reads up to %2)")
            .arg(ncp2::carnival::kSchemaVersion + 1)
            .arg(ncp2::carnival::kSchemaVersion)));
    QVERIFY(load_error(b.missing_table).contains("(no table 'wait_summary')"));
    QVERIFY2(load_error(b.truncated).contains("is corrupt"), qPrintable(load_error(b.truncated)));
    QVERIFY(load_error(dir_.filePath("absent.db")).endsWith("no such file"));
    QVERIFY(load_error(b.directory).endsWith("is a directory, not a database file"));
    QVERIFY(load_error(b.incomplete).isEmpty());
    QVERIFY(load_error(b.empty_run).isEmpty());
  }

  void incomplete_and_empty_runs_load_with_a_warning() {
    const BadFiles b = write_bad_files(dir_);
    const auto incomplete = load(b.incomplete);
    QCOMPARE(incomplete->run.status, std::string("incomplete"));
    QVERIFY(!incomplete->warnings().empty());
    QVERIFY(QString::fromStdString(incomplete->warnings().front())
                .contains("INCOMPLETE (interrupted by SIGINT)"));
    const auto empty = load(b.empty_run);
    QVERIFY(empty->is_empty());
    QVERIFY(QString::fromStdString(empty->warnings().front()).contains("recorded no time"));
    const Analysis a(empty);  // nothing to show, nothing to crash on
    QCOMPARE(a.total_pp_ps(), std::int64_t{0});
    QVERIFY(a.cpwait_rows().empty());
    QVERIFY(summary_->warnings().empty());
  }

  void a_file_without_runs_is_refused() {
    const QString path = write_db(dir_, "no-run.db", gui_fixture());
    QVERIFY(exec_sql(path, "DELETE FROM runs;"));
    QVERIFY(load_error(path).endsWith("contains no run"));
  }

  // --- causes --------------------------------------------------------------------------------

  void causes_of_a_row_group_its_waits_by_cause_node_and_scope() {
    // phase loop x barrier: wait 1 (node 0, sync 130, cause node 1 in update), wait 2 (node 1,
    // sync 500, cause node 0 in update).
    const Causes c = query_causes(db_.toStdString(), 1, "Wait", "barrier", -1);
    QCOMPARE(c.rows.size(), std::size_t{2});
    QCOMPARE(c.rows[0].node, 0);
    QCOMPARE(c.rows[0].scope, std::int64_t{2});
    QCOMPARE(c.rows[0].delay_ps, us(500));
    QCOMPARE(c.rows[1].node, 1);
    QCOMPARE(c.rows[1].delay_ps, us(130));
    QCOMPARE(c.total_delay_ps, us(630));
    const Causes only_node0 = query_causes(db_.toStdString(), 1, "Wait", "barrier", 0);
    QCOMPARE(only_node0.rows.size(), std::size_t{1});
    QCOMPARE(only_node0.rows[0].node, 1);
    QVERIFY(query_causes(db_.toStdString(), 2, "Wait", "page fault", -1).rows.empty());
  }

  // --- the command line ----------------------------------------------------------------------

  void command_line_reads_the_screenshot_options() {
    const CommandLine c =
        parse_command_line({"carnival", "--screenshot", "out.png", "--view", "cpwait", "--scope", "update",
                            "--size", "900x600", "--node", "1", "run.db"});
    QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
    QCOMPARE(c.screenshot, QString("out.png"));
    QCOMPARE(c.view, QString("cpwait"));
    QCOMPARE(c.scope, QString("update"));
    QCOMPARE(c.size, QSize(900, 600));
    QCOMPARE(c.node, 1);
    QCOMPARE(c.file, QString("run.db"));
    QVERIFY(parse_command_line({"carnival"}).error.isEmpty());
  }

  void command_line_refuses_what_it_cannot_do() {
    QVERIFY(parse_command_line({"carnival", "--view", "pie", "a.db"}).error.contains("unknown view 'pie'"));
    QVERIFY(parse_command_line({"carnival", "--size", "big", "a.db"}).error.contains("--size 'big'"));
    QVERIFY(parse_command_line({"carnival", "--size", "10x10", "a.db"}).error.contains("at least 200x150"));
    QVERIFY(parse_command_line({"carnival", "--screenshot", "o.png"}).error.contains("needs a database"));
    QVERIFY(parse_command_line({"carnival", "a.db", "b.db"}).error.contains("one database at a time"));
    QVERIFY(parse_command_line({"carnival", "--node", "x", "a.db"}).error.contains("--node 'x'"));
    QVERIFY(!parse_command_line({"carnival", "--bogus"}).error.isEmpty());
  }
};

QTEST_APPLESS_MAIN(LogicTest)
#include "logic_test.moc"
