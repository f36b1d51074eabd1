// The sweep database's reader and the sweep's plots (sweep/sweep_reader, sweep/sweep_plots) on the
// fixture sweeps of sweep_fixture.hpp: what is read, which files are written, what the SVG holds
// (a polyline per curve, the legend's labels, a marker per point), the PNG's size and pixels, the
// points left out, and the files refused.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#ifdef NCP2_HAVE_QT_GUI
#include <QColor>
#include <QImage>
#include <QString>
#endif

#include "carnival/store_error.hpp"
#include "figures/figure.hpp"
#include "run_command.hpp"
#include "sweep/sweep_plots.hpp"
#include "sweep/sweep_reader.hpp"
#include "sweep_fixture.hpp"

namespace fs = std::filesystem;
using namespace ncp2::sweep;
using namespace ncp2::sweep::testing;

namespace {

class SweepPlots : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ncp2-sweep-plots-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // NCP2_KEEP_TEST_FILES=1 keeps the folder, to look at the plots.
  void TearDown() override {
    if (std::getenv("NCP2_KEEP_TEST_FILES") == nullptr) fs::remove_all(dir_);
  }

  fs::path dir_;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The message of the StoreError that reading `path` throws ("" when it reads).
std::string read_error(const std::string& path) {
  try {
    read_sweep(path);
  } catch (const ncp2::carnival::StoreError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_F(SweepPlots, TheReaderReturnsEveryPointWithItsSettingsCategoriesAndWaits) {
  const auto expected = standard_points();
  write_sweep(dir_, expected);
  const Sweep sweep = read_sweep(dir_.string());  // the folder: its sweep.db
  EXPECT_EQ(sweep.db_path, (dir_ / "sweep.db").string());
  EXPECT_EQ(sweep.header.target, "sor");
  ASSERT_EQ(sweep.points.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const SweepPoint& p = sweep.points[i];
    EXPECT_EQ(p.name, expected[i].name());
    EXPECT_EQ(p.machine, expected[i].machine);
    EXPECT_EQ(p.nodes, expected[i].nodes);
    EXPECT_EQ(p.status, PointStatus::Done);
    ASSERT_EQ(p.setting_values.size(), 1U);
    EXPECT_EQ(p.setting_values[0].value, expected[i].latency);
    EXPECT_EQ(p.series(), expected[i].machine + ", network.link_latency=" + expected[i].latency);
    EXPECT_EQ(p.virtual_time_ps, expected[i].virtual_time_ps);
    ASSERT_TRUE(p.speedup);
    EXPECT_DOUBLE_EQ(*p.speedup, *expected[i].speedup);
    EXPECT_EQ(p.categories.size(), expected[i].machine == "ncp2" ? 6U : 4U);  // CPComp, CPIdle on ncp2 only
    ASSERT_EQ(p.waits.size(), 1U);
    EXPECT_EQ(p.waits[0].count, expected[i].nodes * 10);
    EXPECT_TRUE(fs::exists(sweep.point_db_path(p))) << sweep.point_db_path(p);
  }
  EXPECT_TRUE(is_sweep(dir_.string()));
  EXPECT_TRUE(is_sweep((dir_ / "sweep.db").string()));
  EXPECT_FALSE(is_sweep(sweep.point_db_path(sweep.points[0])));  // a run's database
}

TEST_F(SweepPlots, TheCategoryColoursComeFromThePointsRunDatabases) {
  write_sweep(dir_, standard_points());
  const auto styles = category_styles(read_sweep(dir_.string()));
  const auto comp =
      std::find_if(styles.begin(), styles.end(), [](const auto& c) { return c.name == "Comp"; });
  ASSERT_NE(comp, styles.end());
  EXPECT_EQ(comp->color, ncp2::carnival::category_catalogue().front().color);
  // A stored colour changed in the first point's database is the one the plots use.
  ncp2::carnival::sql::Db db((dir_ / "points" / (standard_points()[0].name() + ".db")).string(),
                             SQLITE_OPEN_READWRITE);
  db.exec("UPDATE categories SET color = '#123456' WHERE name = 'Comp'");
  db.close();
  const auto changed = category_styles(read_sweep(dir_.string()));
  EXPECT_EQ(
      std::find_if(changed.begin(), changed.end(), [](const auto& c) { return c.name == "Comp"; })->color,
      "#123456");
}

TEST_F(SweepPlots, BothPlotsAreWrittenAsSvgAndPngWithACurvePerMachineAndSettings) {
  write_sweep(dir_, standard_points());
  const auto written = write_sweep_plots(dir_.string());
  const std::size_t per_plot = ncp2::figures::png_available() ? 2 : 1;
  EXPECT_EQ(written.size(), 2 * per_plot);
  for (const auto& f : written) EXPECT_TRUE(fs::exists(f)) << f;
  const std::string speedup = slurp(dir_ / "speedup.svg");
  EXPECT_EQ(speedup.rfind("<svg", 0), 0U);
  EXPECT_EQ(occurrences(speedup, R"(class="curve")"), 4U);
  EXPECT_EQ(occurrences(speedup, R"(class="point")"), 16U);
  // The key every curve has is named once, above the curves' machines and values.
  EXPECT_EQ(occurrences(speedup, ">machine, network.link_latency</text>"), 1U);
  for (const char* label : {"ncp2, 1us", "ncp2, 5us", "treadmarks, 1us", "treadmarks, 5us"})
    EXPECT_EQ(occurrences(speedup, std::string(">") + label + "</text>"), 1U) << label;
  EXPECT_EQ(occurrences(speedup, "left out"), 0U);  // nothing failed
  const std::string categories = slurp(dir_ / "categories.svg");
  for (const char* label :
       {"Comp (PP)", "Extra (PP)", "Wait (PP)", "Prste (PP)", "CPComp (CP)", "CPIdle (CP)"})
    EXPECT_EQ(occurrences(categories, std::string(">") + label + "</text>"), 1U) << label;
  EXPECT_EQ(occurrences(categories, "CPWait (CP)"), 0U);  // no time in it: not in the legend
  // A PP bar of 4 segments per point, and a CP bar of 2 on ncp2.
  EXPECT_EQ(occurrences(categories, R"(class="bar")"), 16U * 4 + 8U * 2);
}

TEST_F(SweepPlots, FailedAndNotRunPointsAreLeftOutAndCounted) {
  auto points = standard_points();
  points[2].status = "failed";  // ncp2 1us, 4 nodes
  points[2].message = "verification failed: sum differs";
  points[2].virtual_time_ps.reset();
  points[2].speedup.reset();
  points[15].status = "not run";  // treadmarks 5us, 8 nodes
  points[15].virtual_time_ps.reset();
  points[15].speedup.reset();
  write_sweep(dir_, points);
  const Sweep sweep = read_sweep(dir_.string());
  EXPECT_EQ(sweep.count(PointStatus::Failed), 1U);
  EXPECT_EQ(sweep.count(PointStatus::NotRun), 1U);
  EXPECT_EQ(sweep.points[2].message, "verification failed: sum differs");
  const auto speedup = speedup_figure(sweep);
  EXPECT_EQ(speedup.marks.size(), 14U);
  EXPECT_TRUE(std::none_of(speedup.marks.begin(), speedup.marks.end(),
                           [&](const PointMark& m) { return m.point_id == sweep.points[2].id; }));
  write_sweep_plots(dir_.string());
  for (const char* file : {"speedup.svg", "categories.svg"}) {
    const std::string svg = slurp(dir_ / file);
    EXPECT_EQ(occurrences(svg, "left out: 1 failed, 1 not run (of 16 points)"), 1U) << file;
  }
  // ncp2 1us breaks where its 4-node point is missing (two lines); treadmarks 5us ends at 4 nodes.
  EXPECT_EQ(occurrences(slurp(dir_ / "speedup.svg"), R"(class="curve")"), 5U);
  // In the categories plot, their slots say why they are empty (and take the clicks on them).
  const std::string categories = slurp(dir_ / "categories.svg");
  EXPECT_EQ(occurrences(categories, R"(class="bar")"), 14U * 4 + 7U * 2);
  EXPECT_EQ(occurrences(categories, ">failed</text>"), 1U);
  EXPECT_EQ(occurrences(categories, ">not run</text>"), 1U);
  EXPECT_EQ(categories_figure(sweep, category_styles(sweep)).marks.size(), 16U);
}

TEST_F(SweepPlots, APointWithoutAOneNodePointHasNoSpeedupAndTheFigureSaysSo) {
  auto points = standard_points();
  points[0].status = "failed";  // ncp2 1us on 1 node: its curve has no baseline
  for (int i = 0; i < 4; ++i) points[static_cast<std::size_t>(i)].speedup.reset();
  write_sweep(dir_, points);
  const Sweep sweep = read_sweep(dir_.string());
  const std::string svg = ncp2::figures::figure_svg(speedup_figure(sweep).figure);
  EXPECT_EQ(occurrences(svg, R"(class="curve")"), 3U);
  EXPECT_EQ(occurrences(svg, "3 finished points without a 1-node point"), 1U);
  // They are still in the categories plot: their time is known (and the failed one is labelled).
  EXPECT_EQ(categories_figure(sweep, category_styles(sweep)).marks.size(), 16U);
}

TEST_F(SweepPlots, EveryMarkIsInsideItsFigure) {
  write_sweep(dir_, standard_points());
  const Sweep sweep = read_sweep(dir_.string());
  for (const auto& drawn : {speedup_figure(sweep), categories_figure(sweep, category_styles(sweep))}) {
    EXPECT_EQ(drawn.marks.size(), 16U);
    const ncp2::figures::Box whole{0, 0, static_cast<double>(drawn.figure.width),
                                   static_cast<double>(drawn.figure.height)};
    for (const auto& m : drawn.marks) {
      EXPECT_TRUE(whole.contains({m.box.left, m.box.top}) && whole.contains({m.box.right(), m.box.bottom()}))
          << "point " << m.point_id;
      EXPECT_GT(m.box.height, 0);
    }
  }
}

#ifdef NCP2_HAVE_QT_GUI
TEST_F(SweepPlots, ThePngHasTheFiguresSizeAndTheCurvesColoursAtTheirPoints) {
  write_sweep(dir_, standard_points());
  write_sweep_plots(dir_.string());
  const Sweep sweep = read_sweep(dir_.string());
  const auto speedup = speedup_figure(sweep);
  const QImage image(QString::fromStdString((dir_ / "speedup.png").string()));
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.width(), speedup.figure.width);
  EXPECT_EQ(image.height(), speedup.figure.height);
  // Each marker's centre is filled with its curve's colour (far from white).
  for (const auto& m : speedup.marks) {
    const QColor c = image.pixelColor(static_cast<int>(m.box.left + m.box.width / 2),
                                      static_cast<int>(m.box.top + m.box.height / 2));
    EXPECT_LT(c.lightness(), 200) << "point " << m.point_id;
  }
  const QImage categories(QString::fromStdString((dir_ / "categories.png").string()));
  EXPECT_EQ(categories.width(), categories_figure(sweep, category_styles(sweep)).figure.width);
}
#endif

TEST_F(SweepPlots, AFileThatIsNotASweepIsRefusedWithTheReason) {
  EXPECT_NE(read_error((dir_ / "missing.db").string()).find("no such file"), std::string::npos);
  EXPECT_NE(read_error(dir_.string()).find("a folder without sweep.db"), std::string::npos);
  { std::ofstream((dir_ / "notes.db").string()) << "not a database\n"; }
  EXPECT_NE(read_error((dir_ / "notes.db").string()).find("is not an SQLite database"), std::string::npos);
  {
    ncp2::carnival::sql::Db foreign((dir_ / "foreign.db").string(),
                                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    foreign.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  }
  EXPECT_NE(read_error((dir_ / "foreign.db").string()).find("is not an NCP2-Carnival database"),
            std::string::npos);
  const auto run_db = (dir_ / "run.db").string();
  write_point_run(run_db, standard_points()[0]);
  const std::string run_error = read_error(run_db);
  EXPECT_NE(run_error.find("the database of one run"), std::string::npos) << run_error;
  EXPECT_FALSE(is_sweep(run_db));
  EXPECT_FALSE(is_sweep((dir_ / "notes.db").string()));
}

TEST_F(SweepPlots, ANewerOrDamagedSweepDatabaseIsRefused) {
  write_sweep(dir_ / "newer", standard_points(), kSweepFormatRead + 1);
  EXPECT_NE(read_error((dir_ / "newer").string()).find("was written by a newer version (sweep format 2"),
            std::string::npos);
  FixturePoint odd;
  odd.status = "finished";
  write_sweep(dir_ / "bad-status", {odd});
  EXPECT_NE(read_error((dir_ / "bad-status").string()).find("has the status 'finished'"), std::string::npos);
  // Its pages overwritten after the header: SQLite reads garbage.
  const auto damaged = write_sweep(dir_ / "damaged", standard_points());
  {
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1024);
    const std::string noise(8192, '\x5a');
    f.write(noise.data(), static_cast<std::streamsize>(noise.size()));
  }
  const std::string error = read_error(damaged);
  EXPECT_TRUE(error.find("corrupt") != std::string::npos ||
              error.find("not a sweep database") != std::string::npos)
      << error;
  EXPECT_THROW(write_sweep_plots((dir_ / "damaged").string()), ncp2::carnival::StoreError);
}

// The database `ncp2 sweep` itself writes, read and plotted: the reader and the writer agree.
TEST_F(SweepPlots, ARealSweepIsReadAndPlotted) {
  const auto r = ncp2::testing::run_ncp2(
      "sweep counter --nodes 1,2 --machine ncp2,treadmarks --progress never --out " + dir_.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const Sweep sweep = read_sweep(dir_.string());
  ASSERT_EQ(sweep.points.size(), 4U);
  EXPECT_EQ(sweep.header.target, "counter");
  for (const auto& p : sweep.points) {
    EXPECT_EQ(p.status, PointStatus::Done) << p.name << ": " << p.message;
    ASSERT_TRUE(p.speedup) << p.name;
    if (p.nodes == 1) {
      EXPECT_DOUBLE_EQ(*p.speedup, 1.0);
    }
    EXPECT_TRUE(fs::exists(sweep.point_db_path(p))) << p.name;
    EXPECT_FALSE(p.categories.empty()) << p.name;
  }
  write_sweep_plots(dir_.string());
  const std::string svg = slurp(dir_ / "speedup.svg");
  EXPECT_EQ(occurrences(svg, R"(class="curve")"), 2U);
  EXPECT_EQ(occurrences(svg, R"(class="point")"), 4U);
  EXPECT_EQ(occurrences(svg, ">ncp2</text>"), 1U);  // no --set: the machine alone names the curve
  EXPECT_EQ(occurrences(svg, ">treadmarks</text>"), 1U);
}
