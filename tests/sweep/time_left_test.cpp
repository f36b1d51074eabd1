// The estimate of a sweep's time left (sweep/time_left.hpp).
#include <gtest/gtest.h>

#include "sweep/time_left.hpp"

namespace ncp2::sweep {
namespace {

TEST(SweepTimeLeft, UnknownBeforeAnyPointFinished) {
  const TimeLeft t;
  EXPECT_FALSE(t.expected(4));
  EXPECT_FALSE(t.estimate({1, 2}, {}, 2));
}

TEST(SweepTimeLeft, OneNodeCountSoFarScalesWithTheNodes) {
  TimeLeft t;
  t.finished(2, 1.0);
  t.finished(2, 3.0);
  EXPECT_DOUBLE_EQ(*t.expected(2), 2.0);
  EXPECT_DOUBLE_EQ(*t.expected(8), 8.0);
}

TEST(SweepTimeLeft, FitsAFixedCostAndACostPerNode) {
  TimeLeft t;
  t.finished(1, 2.0);  // 1 s + 1 s per node
  t.finished(3, 4.0);
  t.finished(7, 8.0);
  EXPECT_NEAR(*t.expected(15), 16.0, 1e-9);
  EXPECT_NEAR(*t.expected(0), 1.0, 1e-9);
}

TEST(SweepTimeLeft, NeverBelowNothing) {
  TimeLeft t;
  t.finished(1, 5.0);  // slower on fewer nodes: the slope is kept at 0
  t.finished(4, 1.0);
  EXPECT_GE(*t.expected(16), 0.0);
  EXPECT_GE(*t.expected(1), 0.0);
}

TEST(SweepTimeLeft, SpreadsTheWorkOverTheCoresButNotBelowTheLongestPoint) {
  TimeLeft t;
  t.finished(1, 1.0);
  t.finished(2, 2.0);  // 1 s per node
  // Four 2-node points on 2 cores: 4 s; a running 4-node point 1 s in: 3 s more.
  EXPECT_NEAR(*t.estimate({2, 2, 2, 2}, {}, 2), 4.0, 1e-9);
  EXPECT_NEAR(*t.estimate({2, 2, 2, 2}, {{4, 1.0}}, 2), 5.5, 1e-9);
  // One 16-node point left on 8 cores: 16 s, not 2 s.
  EXPECT_NEAR(*t.estimate({16}, {}, 8), 16.0, 1e-9);
  // A running point past its expected time adds nothing.
  EXPECT_NEAR(*t.estimate({}, {{2, 10.0}}, 2), 0.0, 1e-9);
}

}  // namespace
}  // namespace ncp2::sweep
