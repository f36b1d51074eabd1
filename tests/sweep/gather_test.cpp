// A point's files read back (sweep/gather.hpp), the sweep database written and read again
// (sweep/sweep_db.hpp with sweep/sweep_reader.hpp), and the sweep's folder (sweep/sweep_folder.hpp),
// on the synthetic run of tests/carnival/fixture.hpp.
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "../carnival/fixture.hpp"
#include "carnival/store.hpp"
#include "sweep/gather.hpp"
#include "sweep/point_command.hpp"
#include "sweep/sweep_db.hpp"
#include "sweep/sweep_folder.hpp"
#include "sweep/sweep_reader.hpp"

namespace ncp2::sweep {
namespace {

namespace fs = std::filesystem;
using carnival::testing::us;

class SweepFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ncp2-gather-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "points");
    point_ = {"ncp2-n2", "ncp2", 2, {}};
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& relative) const { return (dir_ / relative).string(); }
  // The point's database with the fixture's run, changed by `edit`; and its statistics JSON.
  void write_point(const std::function<void(carnival::RunInfo&)>& edit = {}, bool json = true) const {
    carnival::RunData data = carnival::testing::make_fixture();
    if (edit) edit(data.run);
    carnival::write_run(path(point_files(point_).db), data, {.force = true});
    if (json) std::ofstream(path(point_files(point_).stats_json)) << "{}\n";
  }
  void write_log(const std::string& text) const { std::ofstream(path(point_files(point_).log)) << text; }

  fs::path dir_;
  Point point_;
};

TEST_F(SweepFilesTest, CompleteOnlyWithACompleteRunAndItsStatistics) {
  EXPECT_FALSE(point_complete(dir_.string(), point_));
  write_point({}, false);
  EXPECT_FALSE(point_complete(dir_.string(), point_));  // no JSON
  write_point();
  EXPECT_TRUE(point_complete(dir_.string(), point_));
  write_point([](carnival::RunInfo& r) { r.status = "incomplete"; });
  EXPECT_FALSE(point_complete(dir_.string(), point_));
  std::ofstream(path(point_files(point_).db)) << "not a database";
  EXPECT_FALSE(point_complete(dir_.string(), point_));
}

TEST_F(SweepFilesTest, ADonePointHasItsTimeCategoriesSummedOverNodesAndThePPsWaits) {
  write_point();
  const PointRecord r = gather_point(dir_.string(), point_, PointRun{RunEnd::Exited, 0, 1.5, {}});
  EXPECT_EQ(r.status, PointStatus::Done);
  EXPECT_EQ(r.virtual_time_ps, us(2000));
  EXPECT_EQ(r.verified, true);
  EXPECT_DOUBLE_EQ(*r.wall_s, 0.125);  // the run's own, as its database says
  // The fixture's profile summed over nodes and scopes (tests/carnival/fixture.hpp).
  std::map<std::string, std::int64_t> categories;
  for (const CategoryTime& c : r.categories) categories[c.category] = c.time_ps;
  EXPECT_EQ(categories.size(), 7U);
  EXPECT_EQ(categories["Comp"], us(2250));
  EXPECT_EQ(categories["Extra"], us(200));
  EXPECT_EQ(categories["Wait"], us(1300));
  EXPECT_EQ(categories["Prste"], us(150));
  EXPECT_EQ(categories["CPComp"], us(900));
  EXPECT_EQ(categories["CPWait"], us(50));
  EXPECT_EQ(categories["CPIdle"], us(2750));
  // The PPs' waits, largest first; the CP's wait for its PP is not among them.
  ASSERT_EQ(r.waits.size(), 3U);
  EXPECT_EQ(r.waits[0].kind, "barrier");
  EXPECT_EQ(r.waits[0].count, 2);
  EXPECT_EQ(r.waits[0].time_ps, us(800));
  EXPECT_EQ(r.waits[1].kind, "page fault");
  EXPECT_EQ(r.waits[1].time_ps, us(500));
  EXPECT_EQ(r.waits[2].kind, "lock acquire");
}

TEST_F(SweepFilesTest, AFailedPointSaysWhy) {
  write_point([](carnival::RunInfo& r) {
    r.verified = false;
    r.message = "sum 41, expected 42";
  });
  PointRecord r = gather_point(dir_.string(), point_, PointRun{RunEnd::Exited, 1, 1, {}});
  EXPECT_EQ(r.status, PointStatus::Failed);
  EXPECT_EQ(r.message, "not verified: sum 41, expected 42");

  write_point([](carnival::RunInfo& run) {
    run.status = "deadlock";
    run.message = "node 1 waits for lock 3";
  });
  r = gather_point(dir_.string(), point_, PointRun{RunEnd::Exited, 3, 1, {}});
  EXPECT_EQ(r.status, PointStatus::Failed);
  EXPECT_EQ(r.message, "deadlock: node 1 waits for lock 3");

  fs::remove(path(point_files(point_).db));
  write_log("[node 0] output\nncp2: node 1: crashed: Segmentation fault\nworkload ...\n");
  r = gather_point(dir_.string(), point_, PointRun{RunEnd::Exited, 1, 0.5, {}});
  EXPECT_EQ(r.status, PointStatus::Failed);
  EXPECT_EQ(r.message, "node 1: crashed: Segmentation fault");
  EXPECT_DOUBLE_EQ(*r.wall_s, 0.5);

  write_log("");
  r = gather_point(dir_.string(), point_, PointRun{RunEnd::Exited, 7, 0.5, {}});
  EXPECT_EQ(r.message, "it left no database");

  r = gather_point(dir_.string(), point_,
                   PointRun{RunEnd::Exited, -1, 0, "cannot write x.log: No such file"});
  EXPECT_EQ(r.status, PointStatus::Failed);
  EXPECT_EQ(r.message, "could not be started: cannot write x.log: No such file");
}

TEST_F(SweepFilesTest, AnInterruptedOrUnstartedPointIsNotRun) {
  PointRecord r = gather_point(dir_.string(), point_, std::nullopt);
  EXPECT_EQ(r.status, PointStatus::NotRun);
  r = gather_point(dir_.string(), point_, PointRun{RunEnd::Interrupted, -1, 2, {}});
  EXPECT_EQ(r.status, PointStatus::NotRun);
  write_point([](carnival::RunInfo& run) { run.status = "incomplete"; });
  r = gather_point(dir_.string(), point_, PointRun{RunEnd::Interrupted, 1, 2, {}});
  EXPECT_EQ(r.status, PointStatus::NotRun);
  EXPECT_FALSE(r.virtual_time_ps);  // a partial run's numbers are not the point's
  EXPECT_TRUE(r.categories.empty());
}

TEST(SweepSpeedups, OverTheDoneOneNodePointOfTheSameMachineAndSettings) {
  std::vector<Point> points = {{"a1", "ncp2", 1, {{"k", "x"}}},
                               {"a4", "ncp2", 4, {{"k", "x"}}},
                               {"b4", "ncp2", 4, {{"k", "y"}}},
                               {"t1", "treadmarks", 1, {{"k", "x"}}},
                               {"t4", "treadmarks", 4, {{"k", "x"}}}};
  std::vector<PointRecord> records(points.size());
  const std::vector<std::int64_t> times = {1000, 400, 300, 2000, 800};
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].status = PointStatus::Done;
    records[i].virtual_time_ps = times[i];
  }
  records[3].status = PointStatus::Failed;
  compute_speedups(points, records);
  EXPECT_DOUBLE_EQ(*records[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(*records[1].speedup, 2.5);
  EXPECT_FALSE(records[2].speedup);  // no 1-node point with k=y
  EXPECT_FALSE(records[3].speedup);  // failed
  EXPECT_FALSE(records[4].speedup);  // its 1-node point failed
}

TEST_F(SweepFilesTest, TheSweepDatabaseReadsBackAsWritten) {
  write_point();
  const std::vector<Point> points = {point_, {"ncp2-n4", "ncp2", 4, {}}};
  std::vector<PointRecord> records = {
      gather_point(dir_.string(), points[0], PointRun{RunEnd::Exited, 0, 1, {}}),
      gather_point(dir_.string(), points[1], std::nullopt)};
  records[0].speedup = 1.75;
  const SweepHeader header{
      kSweepFormat, "ncp2 sweep phases --nodes 2,4 --out d", "phases", "", "00ff", "2026-01-01T00:00:00Z"};
  const std::string db = path(kSweepDbName);
  write_sweep_db(db, header, points, records);
  write_sweep_db(db, header, points, records);  // replaced, not refused
  const Sweep sweep = read_sweep(dir_.string());
  EXPECT_EQ(sweep.header.command, header.command);
  EXPECT_EQ(sweep.header.grid_hash, "00ff");
  EXPECT_EQ(sweep.header.format, kSweepFormat);
  ASSERT_EQ(sweep.points.size(), 2U);
  const SweepPoint& done = sweep.points[0];
  EXPECT_EQ(done.id, 1);
  EXPECT_EQ(done.name, "ncp2-n2");
  EXPECT_EQ(done.status, PointStatus::Done);
  EXPECT_EQ(done.virtual_time_ps, us(2000));
  EXPECT_EQ(done.speedup, 1.75);
  EXPECT_TRUE(done.verified);
  EXPECT_EQ(done.db_file, "points/ncp2-n2.db");
  EXPECT_EQ(done.categories.size(), 7U);
  EXPECT_EQ(done.waits.size(), 3U);
  const SweepPoint& not_run = sweep.points[1];
  EXPECT_EQ(not_run.status, PointStatus::NotRun);
  EXPECT_FALSE(not_run.virtual_time_ps);
  EXPECT_TRUE(not_run.categories.empty());
}

class SweepFolderTest : public SweepFilesTest {
 protected:
  SweepHeader header(const std::string& hash) const {
    return {kSweepFormat,          "ncp2 sweep counter --nodes 2 --out d", "counter", "", hash,
            "2026-01-02T00:00:00Z"};
  }
  void write_sweep(const std::string& hash) const {
    write_sweep_db(path(kSweepDbName), header(hash), {point_}, {PointRecord{}});
  }
};

TEST_F(SweepFolderTest, ANewFolderIsMadeAndTheSameSweepResumes) {
  const fs::path fresh = dir_ / "new" / "sweep";
  FolderState state = prepare_folder(fresh.string(), header("aa"), {point_}, false);
  EXPECT_FALSE(state.resumed);
  EXPECT_TRUE(fs::is_directory(fresh / kPointsFolder));
  write_sweep("aa");
  SweepHeader later = header("aa");
  later.created = "2030-01-01T00:00:00Z";
  state = prepare_folder(dir_.string(), later, {point_}, false);
  EXPECT_TRUE(state.resumed);
  EXPECT_EQ(state.created, "2026-01-02T00:00:00Z");  // the first start's
}

TEST_F(SweepFolderTest, AnotherSweepNeedsForceWhichRemovesOnlyItsFiles) {
  write_sweep("aa");
  write_point();
  write_log("log\n");
  std::ofstream(path("notes.txt")) << "mine\n";
  std::ofstream(path("points/mine.db")) << "mine\n";
  try {
    (void)prepare_folder(dir_.string(), header("bb"), {point_}, false);
    FAIL() << "another sweep was not refused";
  } catch (const FolderError& e) {
    EXPECT_NE(std::string(e.what()).find("holds another sweep"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos);
  }
  EXPECT_TRUE(fs::exists(path(point_files(point_).db)));
  const FolderState state = prepare_folder(dir_.string(), header("bb"), {}, true);
  EXPECT_FALSE(state.resumed);
  EXPECT_FALSE(fs::exists(path(point_files(point_).db)));
  EXPECT_FALSE(fs::exists(path(point_files(point_).stats_json)));
  EXPECT_FALSE(fs::exists(path(point_files(point_).log)));
  EXPECT_TRUE(fs::exists(path("notes.txt")));
  EXPECT_TRUE(fs::exists(path("points/mine.db")));
}

TEST_F(SweepFolderTest, AFileThatIsNotASweepIsNeverReplaced) {
  std::ofstream(path(kSweepDbName)) << "results of an earlier experiment\n";
  for (const bool force : {false, true}) {
    EXPECT_THROW((void)prepare_folder(dir_.string(), header("aa"), {point_}, force), FolderError);
    std::ifstream in(path(kSweepDbName));
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "results of an earlier experiment");
  }
}

TEST_F(SweepFolderTest, PointFilesWithoutASweepNeedForce) {
  write_point();
  EXPECT_THROW((void)prepare_folder(dir_.string(), header("aa"), {point_}, false), FolderError);
  (void)prepare_folder(dir_.string(), header("aa"), {point_}, true);
  EXPECT_FALSE(fs::exists(path(point_files(point_).db)));
}

TEST_F(SweepFolderTest, AFileInPlaceOfTheFolderIsRefused) {
  std::ofstream(path("file")) << "x";
  EXPECT_THROW((void)prepare_folder(path("file"), header("aa"), {point_}, false), FolderError);
}

}  // namespace
}  // namespace ncp2::sweep
