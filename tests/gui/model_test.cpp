// Every model of the GUI under QAbstractItemModelTester (through resets, limits, filters, sorting
// proxies), and the figures and roles they expose.
#include <algorithm>
#include <array>

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTest>

#include "gui/export.hpp"
#include "gui/models.hpp"
#include "gui/profile_map_model.hpp"
#include "gui_fixture.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;

class ModelTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::shared_ptr<const RunSummary> summary_;
  std::shared_ptr<const Analysis> all_, node1_, empty_;

  static qlonglong sum_of(const QVariant& list) {
    qlonglong s = 0;
    for (const auto& v : list.toList()) s += v.toLongLong();
    return s;
  }

  // Runs the tester over a model through the changes every view makes, with a sorting proxy.
  template <class Model, class Set>
  void exercise(Model& model, Set set) {
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSortRole(roles::Sort);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxy_tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (const auto& a : {all_, node1_, empty_, std::shared_ptr<const Analysis>(), all_}) {
      set(a);
      for (int c = 0; c < model.columnCount(); ++c) {
        proxy.sort(c, Qt::DescendingOrder);
        proxy.sort(c, Qt::AscendingOrder);
      }
      proxy.setFilterFixedString(QStringLiteral("a"));
      proxy.setFilterFixedString(QString());
      model.set_limit(1);
      model.show_all();
    }
  }

 private slots:
  void initTestCase() {
    summary_ = std::make_shared<const RunSummary>(
        load_run_summary(write_db(dir_, "f.db", gui_fixture()).toStdString()));
    all_ = std::make_shared<const Analysis>(summary_);
    node1_ = std::make_shared<const Analysis>(summary_, 1);
    auto empty = gui_fixture();
    empty.profile.clear();
    empty.waits.clear();
    empty.wait_summary.clear();
    empty_ = std::make_shared<const Analysis>(
        std::make_shared<const RunSummary>(load_run_summary(write_db(dir_, "e.db", empty).toStdString())));
  }

  void cpwait_map_model_passes_the_tester_and_shows_the_rows_by_time() {
    CPWaitMapModel m;
    exercise(m, [&](auto a) { m.set_analysis(a); });
    QCOMPARE(m.rowCount(), 4);
    QCOMPARE(m.columnCount(), int(CPWaitMapModel::ColumnCount));
    QCOMPARE(m.index(0, CPWaitMapModel::Location).data().toString(),
             QString("phase loop (phases.cpp:10-250)"));
    QCOMPARE(m.index(0, CPWaitMapModel::Kind).data().toString(), QString("Wait"));
    QCOMPARE(m.index(0, CPWaitMapModel::Operation).data().toString(), QString("barrier"));
    QCOMPARE(m.index(0, CPWaitMapModel::Time).data().toString(), QString("800 us"));
    QCOMPARE(m.index(0, CPWaitMapModel::Percent).data().toString(), QString("55.2 %"));
    QCOMPARE(m.index(3, CPWaitMapModel::Cumulative).data().toString(), QString("100.0 %"));
    const QModelIndex bar = m.index(0, CPWaitMapModel::Profile);
    QCOMPARE(bar.data(roles::BarValues).toList().size(), 9);
    QCOMPARE(sum_of(bar.data(roles::BarValues)), qlonglong(us(800)));
    QCOMPARE(bar.data(roles::BarColors).toList().size(), 9);
    QCOMPARE(bar.data(roles::BarColors).toList().back().value<QColor>(), QColor("#332288"));  // SyncDelay
    QCOMPARE(bar.data(roles::BarScale).toDouble(), 1.0);
    QCOMPARE(m.index(1, CPWaitMapModel::Profile).data(roles::BarScale).toDouble(), 500.0 / 800.0);
    QCOMPARE(m.index(1, 0).data(roles::ScopeId).toLongLong(), 2);
    QVERIFY(m.index(0, 0).data(Qt::ToolTipRole).toString().contains("SyncDelay: 630 us"));
  }

  void cpwait_map_sorts_numerically_through_a_proxy() {
    CPWaitMapModel m;
    m.set_analysis(all_);
    QSortFilterProxyModel proxy;
    proxy.setSortRole(roles::Sort);
    proxy.setSourceModel(&m);
    proxy.sort(CPWaitMapModel::Time, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, CPWaitMapModel::Time).data().toString(), QString("50.0 us"));
    QCOMPARE(proxy.index(3, CPWaitMapModel::Time).data().toString(), QString("800 us"));
    proxy.setFilterKeyColumn(-1);
    proxy.setFilterFixedString("lock");
    QCOMPARE(proxy.rowCount(), 1);
  }

  void limited_models_show_the_top_rows_and_count_the_rest() {
    CPWaitMapModel m;
    m.set_analysis(all_);
    m.set_limit(3);
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.hidden_rows(), 1);
    QVERIFY(!m.row_at(3));
    m.show_all();
    QCOMPARE(m.rowCount(), 4);
    QCOMPARE(m.hidden_rows(), 0);
  }

  void node_filter_changes_the_cpwait_map() {
    CPWaitMapModel m;
    m.set_analysis(node1_);
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.index(0, CPWaitMapModel::Time).data().toString(), QString("600 us"));
  }

  void profile_map_model_passes_the_tester_and_orders_scopes_by_time() {
    ProfileMapModel m;
    exercise(m, [&](auto a) { m.set_analysis(a); });
    QCOMPARE(m.rowCount(), 4);
    QCOMPARE(m.index(0, ProfileMapModel::Scope).data().toString(), QString("program"));
    QCOMPARE(m.index(2, ProfileMapModel::Scope).data().toString(), QString("update"));
    QCOMPARE(m.index(1, ProfileMapModel::Time).data().toString(), QString("3.55 ms"));
    QCOMPARE(m.index(1, ProfileMapModel::Percent).data().toString(), QString("91.0 %"));
    QCOMPARE(m.index(0, ProfileMapModel::Profile).data(roles::BarScale).toDouble(), 1.0);
    QCOMPARE(m.index(3, ProfileMapModel::Profile).data(roles::BarScale).toDouble(), 150.0 / 3900.0);
    QCOMPARE(sum_of(m.index(2, ProfileMapModel::Profile).data(roles::BarValues)), qlonglong(us(2050)));
    QCOMPARE(m.index(2, ProfileMapModel::Dominant).data().toString(), QString("Comp"));
    QCOMPARE(m.index(2, ProfileMapModel::Dominant).data(Qt::DecorationRole).value<QColor>(),
             QColor("#0072B2"));
    QCOMPARE(m.row_of_scope(3), 3);
    m.set_limit(2);
    QCOMPARE(m.row_of_scope(3), -1);  // not shown
  }

  // The nesting: each scope under its parent, depth and fold marks; the % of a scope's children
  // add up to at most its own (a flat list of inclusive times added up to more than 100 %).
  void profile_map_nests_each_scope_under_its_parent() {
    ProfileMapModel m;
    m.set_analysis(all_);
    const std::array<int, 4> depth = {0, 1, 2, 1};  // program > phase loop > update; program > verify
    const std::array<int, 4> fold = {0, 0, -1, -1};
    for (int r = 0; r < 4; ++r) {
      QCOMPARE(m.index(r, ProfileMapModel::Scope).data(roles::Depth).toInt(),
               depth[static_cast<std::size_t>(r)]);
      QCOMPARE(m.index(r, ProfileMapModel::Scope).data(roles::Fold).toInt(),
               fold[static_cast<std::size_t>(r)]);
    }
    QVERIFY(!m.index(0, ProfileMapModel::Time).data(roles::Depth).isValid());  // only the scope column
    for (std::size_t r = 0; r < m.rows().size(); ++r) {
      qlonglong children = 0;
      for (const auto& other : m.rows())
        if (other.path.size() == m.rows()[r].path.size() + 1 &&
            std::equal(m.rows()[r].path.begin(), m.rows()[r].path.end(), other.path.begin()))
          children += m.sort_key(other.scope, ProfileMapModel::Time).toLongLong();
      QVERIFY(children <= m.sort_key(m.rows()[r].scope, ProfileMapModel::Time).toLongLong());
    }
    QCOMPARE(m.rows()[2].path, (std::vector<std::uint32_t>{0, 1, 2}));
    // The limit keeps the largest scopes and their ancestors.
    m.set_limit(3);
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.hidden_rows(), 1);
    QCOMPARE(nested_rows(*all_, 1).size(), std::size_t{1});
  }

  void nesting_proxy_sorts_within_each_level_and_folds() {
    ProfileMapModel m;
    NestingSortProxy proxy(&m);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.set_analysis(all_);
    auto order = [&] {
      QStringList names;
      for (int r = 0; r < proxy.rowCount(); ++r)
        names << proxy.index(r, ProfileMapModel::Scope).data().toString();
      return names.join(QLatin1Char('/'));
    };
    proxy.sort(ProfileMapModel::Time, Qt::AscendingOrder);
    QCOMPARE(order(), QString("program/verify/phase loop/update"));
    proxy.sort(ProfileMapModel::Time, Qt::DescendingOrder);
    QCOMPARE(order(), QString("program/phase loop/update/verify"));
    proxy.sort(ProfileMapModel::Scope, Qt::DescendingOrder);
    QCOMPARE(order(), QString("program/verify/phase loop/update"));
    proxy.sort(ProfileMapModel::Location, Qt::AscendingOrder);  // phases.cpp:10-250 < phases.cpp:300-320
    QCOMPARE(order(), QString("program/phase loop/update/verify"));
    m.toggle_fold(1);
    QCOMPARE(order(), QString("program/phase loop/verify"));
    QCOMPARE(m.index(1, ProfileMapModel::Scope).data(roles::Fold).toInt(), 1);
    m.toggle_fold(2);  // no children: nothing to fold
    QCOMPARE(m.index(2, ProfileMapModel::Scope).data(roles::Fold).toInt(), -1);
    m.toggle_fold(1);
    QCOMPARE(order(), QString("program/phase loop/update/verify"));
    // A fold stays for another node filter of the same run, not for another run.
    m.toggle_fold(1);
    m.set_analysis(node1_);
    QVERIFY(m.is_folded(1));
    QCOMPARE(order(), QString("program/phase loop/verify"));
    m.set_analysis(empty_);
    QCOMPARE(proxy.rowCount(), 0);
    m.set_analysis(all_);
    QVERIFY(!m.is_folded(1));
    QCOMPARE(order(), QString("program/phase loop/update/verify"));
  }

  void matrix_model_has_a_cell_per_scope_and_node() {
    ScopeNodeMatrixModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (const auto& a : {all_, node1_, empty_, std::shared_ptr<const Analysis>(), node1_}) m.set_analysis(a);
    // The node filter does not change it: every node, every scope.
    QCOMPARE(m.rowCount(), 4);
    QCOMPARE(m.columnCount(), 3);
    QCOMPARE(m.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(), QString("Scope"));
    QCOMPARE(m.headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(), QString("1"));
    const int phase = m.row_of_scope(1);
    QCOMPARE(phase, 1);
    QCOMPARE(m.index(phase, 0).data(roles::Depth).toInt(), 1);
    QCOMPARE(m.index(phase, 0).data(roles::Node).toInt(), -1);
    QCOMPARE(m.index(phase, 2).data(roles::Node).toInt(), 1);
    QCOMPARE(m.index(phase, 2).data(roles::ScopeId).toLongLong(), 1);
    // Inclusive per node (as the profile per processor): 1.65 ms on node 0, 1.90 ms on node 1.
    QCOMPARE(sum_of(m.index(phase, 1).data(roles::BarValues)), qlonglong(us(1650)));
    QCOMPARE(sum_of(m.index(phase, 2).data(roles::BarValues)), qlonglong(us(1900)));
    QCOMPARE(m.index(phase, 2).data(roles::BarScale).toDouble(), 1.0);
    QCOMPARE(m.index(phase, 1).data(roles::BarScale).toDouble(), 1650.0 / 1900.0);
    QCOMPARE(m.index(phase, 1).data(roles::BarColors).toList().front().value<QColor>(), QColor("#0072B2"));
    QVERIFY(m.index(phase, 1).data(Qt::ToolTipRole).toString().contains("1.65 ms"));
    QCOMPARE(m.column_of_node(1), 2);
    QCOMPARE(m.node_of_column(0), -1);
    // The root holds everything: its cells sum to the total PP time.
    QCOMPARE(sum_of(m.index(0, 1).data(roles::BarValues)) + sum_of(m.index(0, 2).data(roles::BarValues)),
             qlonglong(all_->total_pp_ps()));
  }

  void csv_has_the_header_the_rows_in_order_and_quotes_what_needs_it() {
    ProfileMapModel m;
    m.set_analysis(all_);
    const QStringList lines = table_csv(m).split(QStringLiteral("\r\n"));
    QCOMPARE(lines.size(), 6);  // header, 4 rows, the empty rest after the last line break
    QCOMPARE(lines[0], QString("Depth,Scope,Profile,Time,%,Dominant,Location"));
    const QStringList update = lines[3].split(QLatin1Char(','));
    QCOMPARE(update[0], QString("2"));
    QCOMPARE(update[1], QString("update"));
    qlonglong segments = 0;  // the bar as its segments in ps
    for (const auto& v : update[2].split(QLatin1Char(' '))) segments += v.toLongLong();
    QCOMPARE(segments, qlonglong(us(2050)));
    QCOMPARE(update[3], QString("2.05 ms"));
    QStandardItemModel plain(1, 2);
    plain.setHorizontalHeaderLabels({"name", "note"});
    plain.setData(plain.index(0, 0), "a, b");
    plain.setData(plain.index(0, 1), "say \"hi\"");
    QCOMPARE(table_csv(plain), QString("name,note\r\n\"a, b\",\"say \"\"hi\"\"\"\r\n"));
  }

  void scope_profile_model_passes_the_tester_and_scales_to_the_busiest_node() {
    ScopeProfileModel m;
    exercise(m, [&](auto a) { m.set_scope(a, 1); });
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.index(0, ScopeProfileModel::PPTime).data().toString(), QString("1.65 ms"));
    QCOMPARE(m.index(1, ScopeProfileModel::PPTime).data().toString(), QString("1.90 ms"));
    QCOMPARE(m.index(1, ScopeProfileModel::Profile).data(roles::BarScale).toDouble(), 1.0);
    QCOMPARE(m.index(0, ScopeProfileModel::Profile).data(roles::BarScale).toDouble(), 1650.0 / 1900.0);
    QCOMPARE(m.headerData(ScopeProfileModel::FirstCategory + 6, Qt::Horizontal, Qt::DisplayRole).toString(),
             QString("CPIdle"));
    m.set_scope(all_, 99);  // no such scope
    QCOMPARE(m.rowCount(), 0);
  }

  void histogram_model_passes_the_tester_and_lists_the_seven_categories() {
    CategoryHistogramModel m;
    exercise(m, [&](auto a) { m.set_scope(a, 2); });
    QCOMPARE(m.rowCount(), 7);
    QCOMPARE(m.index(0, CategoryHistogramModel::CategoryColumn).data().toString(), QString("Comp"));
    QCOMPARE(m.index(0, CategoryHistogramModel::Time).data().toString(), QString("1.20 ms"));
    QCOMPARE(m.index(2, CategoryHistogramModel::Percent).data().toString(),
             QString("24.4 %"));  // Wait 500/2050
    QCOMPARE(m.index(4, CategoryHistogramModel::Percent).data().toString(),
             QString("92.3 %"));  // CPComp 600/650
    QCOMPARE(m.index(0, CategoryHistogramModel::Bar).data(roles::BarScale).toDouble(), 1.0);
    QCOMPARE(m.index(2, CategoryHistogramModel::Bar).data(roles::BarScale).toDouble(), 500.0 / 1200.0);
    QVERIFY(m.index(0, 0).data(Qt::ToolTipRole).toString().contains("1200000000 ps exactly"));
  }

  void causes_model_passes_the_tester() {
    CausesModel m;
    const Causes causes = query_causes(summary_->path, 1, "Wait", "barrier", -1);
    exercise(m, [&](auto a) { m.set_causes(a, causes); });
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.index(0, CausesModel::NodeColumn).data().toString(), QString("0"));
    QCOMPARE(m.index(0, CausesModel::ScopeColumn).data().toString(), QString("update"));
    QCOMPARE(m.index(0, CausesModel::Delay).data().toString(), QString("500 us"));
    QCOMPARE(m.index(0, CausesModel::Percent).data().toString(), QString("79.4 %"));
    QCOMPARE(m.index(0, 0).data(roles::ScopeId).toLongLong(), 2);
    m.clear();
    QCOMPARE(m.rowCount(), 0);
  }
};

QTEST_GUILESS_MAIN(ModelTest)
#include "model_test.moc"
