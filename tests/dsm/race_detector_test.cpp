// The race detector's logic on synthetic executions: happens-before through locks and barriers,
// byte-exact overlaps, reads and writes.
#include "dsm/race_detector.hpp"

#include <gtest/gtest.h>

namespace ncp2::dsm {
namespace {

constexpr NodeId n0 = emu::node_id(0);
constexpr NodeId n1 = emu::node_id(1);
constexpr NodeId n2 = emu::node_id(2);
constexpr PageId kPage{7};

AccessSite at(std::uint64_t where) { return {where, 0, 0}; }

// The races of a run that ends here.
std::vector<RaceDetector::Race> finished(RaceDetector& d) {
  d.finish();
  return d.races();
}

void barrier(RaceDetector& d, int nodes) {
  for (int p = 0; p < nodes; ++p) d.barrier_arrive(emu::node_id(p));
  for (int p = 0; p < nodes; ++p) d.barrier_depart(emu::node_id(p));
}

TEST(RaceDetector, DifferentBytesOfOneWordDoNotRace) {
  RaceDetector d(2, 4096);
  d.write(n0, kPage, 0, 1, at(10));
  d.write(n1, kPage, 1, 1, at(11));
  d.read(n1, kPage, 2, 2, at(12));
  barrier(d, 2);
  EXPECT_TRUE(finished(d).empty());
}

TEST(RaceDetector, ConcurrentWritesOfTheSameByteRace) {
  RaceDetector d(2, 4096);
  d.write(n0, kPage, 100, 4, at(10));
  d.write(n1, kPage, 103, 2, at(11));  // overlaps byte 103
  const auto races = finished(d);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].page, kPage);
  EXPECT_EQ(races[0].offset, 103u);
  EXPECT_EQ(races[0].first.node, n0);
  EXPECT_EQ(races[0].second.node, n1);
  EXPECT_TRUE(races[0].first.writes);
  EXPECT_TRUE(races[0].second.writes);
  EXPECT_EQ(races[0].first.site.where, 10u);
  EXPECT_EQ(races[0].second.site.where, 11u);
  EXPECT_EQ(races[0].first.clock, (std::vector<std::uint32_t>{1, 0}));
}

TEST(RaceDetector, AReadConcurrentWithAWriteRacesWhicheverComesFirst) {
  RaceDetector d(2, 4096);
  d.read(n1, kPage, 8, 8, at(21));
  d.write(n0, kPage, 12, 4, at(20));
  const auto races = finished(d);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].offset, 12u);
  EXPECT_TRUE(races[0].first.writes);    // node 0 wrote
  EXPECT_FALSE(races[0].second.writes);  // node 1 read
  EXPECT_EQ(races[0].second.site.where, 21u);
}

TEST(RaceDetector, ConcurrentReadsDoNotRace) {
  RaceDetector d(3, 4096);
  for (int p = 0; p < 3; ++p) d.read(emu::node_id(p), kPage, 0, 64, at(1));
  EXPECT_TRUE(finished(d).empty());
}

TEST(RaceDetector, ABarrierOrdersEverythingBeforeItWithEverythingAfter) {
  RaceDetector d(3, 4096);
  d.write(n0, kPage, 0, 64, at(1));  // node 0 initializes
  barrier(d, 3);
  d.read(n1, kPage, 0, 64, at(2));
  d.read(n2, kPage, 0, 64, at(3));
  barrier(d, 3);
  d.write(n2, kPage, 0, 8, at(4));  // a later phase rewrites it
  EXPECT_TRUE(finished(d).empty());
}

TEST(RaceDetector, WritesBetweenTheSameBarriersRace) {
  RaceDetector d(3, 4096);
  barrier(d, 3);
  d.write(n0, kPage, 40, 8, at(1));
  d.write(n2, kPage, 44, 8, at(3));
  barrier(d, 3);
  ASSERT_EQ(finished(d).size(), 1u);
}

TEST(RaceDetector, TheSameLockOrdersCriticalSections) {
  RaceDetector d(2, 4096);
  d.acquired(n0, LockId{5});
  d.write(n0, kPage, 0, 8, at(1));
  d.release(n0, LockId{5});
  d.acquired(n1, LockId{5});  // granted by node 0's release
  d.read(n1, kPage, 0, 8, at(2));
  d.write(n1, kPage, 0, 8, at(2));
  d.release(n1, LockId{5});
  EXPECT_TRUE(finished(d).empty());
}

TEST(RaceDetector, DifferentLocksDoNotOrder) {
  RaceDetector d(2, 4096);
  d.acquired(n0, LockId{1});
  d.write(n0, kPage, 0, 8, at(1));
  d.release(n0, LockId{1});
  d.acquired(n1, LockId{2});
  d.write(n1, kPage, 4, 8, at(2));
  d.release(n1, LockId{2});
  EXPECT_EQ(finished(d).size(), 1u);
}

TEST(RaceDetector, OrderIsTransitiveThroughAThirdNode) {
  RaceDetector d(3, 4096);
  d.write(n0, kPage, 0, 4, at(1));
  d.release(n0, LockId{1});
  d.acquired(n1, LockId{1});
  d.release(n1, LockId{2});
  d.acquired(n2, LockId{2});
  d.write(n2, kPage, 0, 4, at(3));  // after node 0's write: node 1 passed it on
  EXPECT_TRUE(finished(d).empty());
}

TEST(RaceDetector, AWriteAfterTheReleaseIsNotCoveredByIt) {
  RaceDetector d(2, 4096);
  d.release(n0, LockId{1});
  d.write(n0, kPage, 0, 4, at(1));  // after the release: the acquirer did not see it
  d.acquired(n1, LockId{1});
  d.read(n1, kPage, 0, 4, at(2));
  EXPECT_EQ(finished(d).size(), 1u);
}

TEST(RaceDetector, OneReportPerPairOfNodesAndSitesWithItsOccurrences) {
  RaceDetector d(2, 4096);
  for (int round = 0; round < 3; ++round) {  // three pairs of concurrent critical sections
    for (std::size_t k = 0; k < 10; ++k) {
      d.write(n0, kPage, k * 8, 8, at(1));
      d.write(n1, kPage, k * 8, 8, at(2));
    }
    d.write(n0, PageId{8}, 0, 1, at(3));
    d.write(n1, PageId{8}, 0, 1, at(4));
    d.barrier_arrive(n0);
    d.barrier_arrive(n1);
    d.barrier_depart(n0);
    d.barrier_depart(n1);
  }
  const auto races = finished(d);
  ASSERT_EQ(races.size(), 2u);
  EXPECT_EQ(races[0].page, kPage);
  EXPECT_EQ(races[0].offset, 0u);
  EXPECT_EQ(races[0].occurrences, 3u);
  EXPECT_EQ(races[1].page, PageId{8});
  EXPECT_EQ(races[1].occurrences, 3u);
  EXPECT_EQ(d.race_pairs(), 6u);
}

TEST(RaceDetector, BitmapsMergedFromAnInstrumentedProgramRace) {
  RaceDetector d(2, 256);
  std::vector<std::uint64_t> none(4, 0);
  std::vector<std::uint64_t> bytes_64_to_71(4, 0);
  bytes_64_to_71[1] = 0xff;
  const std::vector<SiteRange> wrote{{at(5), 64, 71}};
  d.merge(n0, kPage, none, bytes_64_to_71, {}, wrote);  // node 0 wrote 8 bytes at 64
  d.read(n1, kPage, 70, 4, at(6));
  const auto races = finished(d);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].offset, 70u);
  EXPECT_TRUE(races[0].first.writes);
  EXPECT_EQ(races[0].first.site.where, 5u);
  EXPECT_FALSE(races[0].second.writes);
  EXPECT_THROW(d.merge(n0, kPage, std::vector<std::uint64_t>(5, 0), none, {}, {}), std::out_of_range);
}

// A struct's two fields on one page: node 0 writes `id` (bytes 0..3), then `count` (4..7) from
// another line; node 1 writes `count`. The race is blamed on node 0's `count` line, not on its
// first access to the page.
TEST(RaceDetector, TheRaceNamesTheAccessThatTouchedTheRacingByte) {
  RaceDetector d(2, 4096);
  d.write(n0, kPage, 0, 4, at(1));
  d.write(n0, kPage, 4, 4, at(2));
  d.read(n0, kPage, 0, 8, at(3));  // a wider read from a third line
  d.write(n1, kPage, 4, 4, at(9));
  const auto races = finished(d);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].offset, 4u);
  EXPECT_EQ(races[0].first.site.where, 2u);
  EXPECT_EQ(races[0].second.site.where, 9u);
}

TEST(RaceDetector, TwoRacyLinePairsOnOnePageAreTwoRaces) {
  RaceDetector d(2, 4096);
  d.write(n0, kPage, 0, 4, at(1));
  d.write(n0, kPage, 100, 4, at(2));
  d.write(n1, kPage, 0, 4, at(5));
  d.read(n1, kPage, 100, 4, at(6));
  const auto races = finished(d);
  ASSERT_EQ(races.size(), 2u);
  EXPECT_EQ(races[0].offset, 0u);
  EXPECT_EQ(races[0].first.site.where, 1u);
  EXPECT_EQ(races[0].second.site.where, 5u);
  EXPECT_TRUE(races[0].second.writes);
  EXPECT_EQ(races[1].offset, 100u);
  EXPECT_EQ(races[1].first.site.where, 2u);
  EXPECT_EQ(races[1].second.site.where, 6u);
  EXPECT_FALSE(races[1].second.writes);
  EXPECT_EQ(d.race_pairs(), 1u);  // one pair of segments and page
}

// Node 0 writes every other word of a page from one line, then fills one hole from another; node
// 1 reads byte `read_at`: the site blamed for node 0.
std::uint64_t blamed_for(std::size_t read_at) {
  RaceDetector d(2, 4096);
  for (std::size_t i = 0; i < 64; i += 2) d.write(n0, kPage, i * 8, 8, at(7));
  d.write(n0, kPage, 8, 8, at(8));
  d.read(n1, kPage, read_at, 4, at(9));
  const auto races = finished(d);
  return races.size() == 1 ? races[0].first.site.where : 0;
}

TEST(RaceDetector, ALoopOverAPageIsOneSiteWithTheHullOfItsBytes) {
  EXPECT_EQ(blamed_for(8), 8u);  // the narrower range holding byte 8
  EXPECT_EQ(blamed_for(16), 7u);
  EXPECT_EQ(blamed_for(500), 7u);
}

TEST(RaceDetector, SitesBeyondTheLimitAreBlamedOnTheFirst) {
  for (const std::uint64_t racing : {std::uint64_t{1}, std::uint64_t{RaceDetector::kSitesPerPage + 1}}) {
    RaceDetector d(2, 4096);
    for (std::uint64_t s = 0; s < RaceDetector::kSitesPerPage + 2; ++s)
      d.write(n0, kPage, s * 8, 8, at(100 + s));
    d.write(n1, kPage, racing * 8, 1, at(9));
    const auto races = finished(d);
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].first.site.where, racing == 1 ? 101u : 100u) << "racing site " << racing;
  }
}

TEST(RaceDetector, SegmentsEveryNodeHasSeenAreDropped) {
  RaceDetector d(3, 4096);
  for (int round = 0; round < 200; ++round) {  // a lock passed around, never a barrier
    for (int p = 0; p < 3; ++p) {
      d.acquired(emu::node_id(p), LockId{1});
      d.write(emu::node_id(p), kPage, 0, 8, at(1));
      d.release(emu::node_id(p), LockId{1});
    }
  }
  EXPECT_LT(d.kept_segments(), 30u);  // not the 600 segments written
  EXPECT_TRUE(finished(d).empty());
}

TEST(RaceDetector, ABarrierArrivalDoesNotOrderALaterEpisode) {
  RaceDetector d(2, 4096);
  barrier(d, 2);
  // Node 0 departs episode 2 and arrives at episode 3 before node 1 departs episode 2.
  d.barrier_arrive(n0);
  d.barrier_arrive(n1);
  d.barrier_depart(n0);
  d.write(n0, kPage, 0, 8, at(1));
  d.barrier_arrive(n0);  // episode 3 gathers node 0's clock
  d.barrier_depart(n1);  // must not see it
  d.write(n1, kPage, 0, 8, at(2));
  EXPECT_EQ(finished(d).size(), 1u);
}

TEST(RaceDetector, BadAccessesAreRefused) {
  RaceDetector d(2, 4096);
  EXPECT_THROW(d.write(n0, kPage, 4090, 8, at(1)), std::out_of_range);
  EXPECT_THROW(RaceDetector(0, 4096), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::dsm
