// A real racy run opened in the window, end to end: a workload that forgets a lock runs with
// race detection and the profiler (run/runner), the carnival writer stores it, and the GUI
// reads what the writer wrote — the races, the source of this file (the scope's file) — and a
// click on a race shows its lines here. NCP2_KEEP_RACES_DB=FILE keeps the database (the
// screenshot of docs/gui.md: no built-in workload has a race).
#include <algorithm>

#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "carnival/scope.hpp"
#include "gui/main_window.hpp"
#include "gui/races_view.hpp"
#include "gui/source_panel.hpp"
#include "gui/source_view.hpp"
#include "gui_fixture.hpp"
#include "offscreen_test.hpp"
#include "tests/workloads/custom_workload.hpp"

using namespace ncp2::gui;
using namespace ncp2::gui::testing;
namespace wl = ncp2::workloads;

namespace {

constexpr int kWaitMs = 10000;
constexpr const char* kThisFile = "tests/gui/races_run_test.cpp";
int g_read_line = 0;  // the lines of the racing statements, taken where they are written
int g_write_line = 0;

// A histogram with a forgotten lock: nodes 0 and 1 bump shared buckets (each its own) without one,
// while node 2 sums them all for a progress line, without one either: it races with both. The total is
// counted under lock 1, so it does not race.
void count_keys(ncp2::dsm::Process& p, wl::testing::Lambdas& self) {
  CARNIVAL_SCOPE_KIND(p, "count keys", "function");
  const auto buckets = p.view(self.array);
  for (std::int64_t key = p.id(); key < 48; key += 2) {
    const std::int64_t b = (key * 7) % 16;  // node 0's buckets are even, node 1's odd: they do not race
    g_write_line = __LINE__ + 1;
    buckets.set(b, buckets.get(b) + 1);
  }
  const auto lock = p.lock(1U);
  buckets.set(16, buckets.get(16) + 1);
}

void progress(ncp2::dsm::Process& p, wl::testing::Lambdas& self) {
  CARNIVAL_SCOPE_KIND(p, "progress", "function");
  std::int64_t counted = 0;
  g_read_line = __LINE__ + 1;
  for (const std::int64_t n : p.view(self.array).read_span(0, 16)) counted += n;
  (void)counted;
}

void histogram(ncp2::dsm::Process& p, wl::testing::Lambdas& self) {
  CARNIVAL_SCOPE_KIND(p, "histogram", "function");
  self.array = p.alloc<std::int64_t>("buckets", 32);
  p.barrier(0);
  if (p.id() < 2)
    count_keys(p, self);
  else
    progress(p, self);
}

// Runs the workload on 3 nodes with the profiler and race detection, stores it like `ncp2 run --db`.
QString write_racy_run(const QTemporaryDir& dir) {
  const wl::Workload w = wl::testing::custom(
      histogram, [](ncp2::dsm::Process&, wl::testing::Lambdas& self) { self.set(true, "not checked"); });
  ncp2::run::RunOptions options;
  options.profile = true;
  options.detect_races = true;
  ncp2::run::RunOutcome o = ncp2::run::run_workload(wl::testing::machine(ncp2::emu::MachineKind::Ncp2, 3), w,
                                                    w.defaults(), 1, options);
  if (!o.profile) return {};
  ncp2::carnival::RunData data = std::move(*o.profile);
  data.run.verified = o.verified;
  data.run.message = o.verification;
  data.races_checked = o.races_checked;
  data.races = o.races;
  const QString keep = qEnvironmentVariable("NCP2_KEEP_RACES_DB");
  QString path = keep.isEmpty() ? dir.filePath("racy.db") : keep;
  ncp2::carnival::write_run(path.toStdString(), data, {.force = true});
  return path;
}

}  // namespace

class RacesRunTest : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString db_;

 public:
  static void initMain() { ncp2::gui::testing::prepare_offscreen(); }

 private slots:
  void initTestCase() {
    ncp2::gui::testing::begin_gui_test("carnival-races-run-test");
    db_ = write_racy_run(dir_);
    QVERIFY(!db_.isEmpty());
  }

  void what_the_writer_stored_is_what_the_gui_reads() {
    const RunSummary s = load_run_summary(db_.toStdString());
    QVERIFY(s.races_checked);
    QVERIFY(!s.races.empty());
    QVERIFY(!s.run.verified);  // a run with races never is
    for (const auto& r : s.races) {
      QCOMPARE(r.region, std::string("buckets"));
      QVERIFY(r.first.node < r.second.node);
      QVERIFY(r.first.writes || r.second.writes);
      QCOMPARE(r.first.vector_time.size(), std::size_t{3});
      for (const auto* a : {&r.first, &r.second}) {
        QCOMPARE(a->file, std::string(kThisFile));
        QCOMPARE(a->line, a->writes ? g_write_line : g_read_line);
        const auto scope =
            std::find_if(s.scopes.begin(), s.scopes.end(), [&](const auto& sc) { return sc.id == a->scope; });
        QVERIFY(scope != s.scopes.end());
        QCOMPARE(QString::fromStdString(scope->name), QString(a->writes ? "count keys" : "progress"));
      }
    }
    // The scope's file is stored, so the accesses' lines can be shown.
    QVERIFY(
        std::any_of(s.sources.begin(), s.sources.end(), [](const auto& f) { return f.file == kThisFile; }));
    const auto banner = s.warnings();
    QVERIFY(std::any_of(banner.begin(), banner.end(),
                        [](const std::string& w) { return w.find("This run completed with") == 0; }));
  }

  void a_click_shows_the_racing_lines_of_this_file() {
    MainWindow w;
    w.set_interactive(false);
    w.resize(1100, 650);
    w.show();
    QSignalSpy opened(&w, &MainWindow::run_opened);
    w.open_file(db_);
    QVERIFY(opened.wait(kWaitMs));
    w.show_view(ViewId::Races);
    QVERIFY(w.races()->model()->rowCount() > 0);
    QTableView* table = w.races()->table();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(0, RacesModel::First)).center());
    const auto* race = w.context()->selected_race();
    QVERIFY(race);
    SourceView* source = w.source_panel()->view();
    QCOMPARE(source->file(), QString(kThisFile));
    QCOMPARE(w.context()->line(), race->first.line);
    QVERIFY(source->first_visible_line() <= race->first.line &&
            race->first.line <= source->last_visible_line());
    QVERIFY(!source->race_marks().empty());
    QVERIFY(source->race_marks().size() <= 2);
  }
};

QTEST_MAIN(RacesRunTest)
#include "races_run_test.moc"
