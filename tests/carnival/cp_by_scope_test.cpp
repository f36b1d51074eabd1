// The CP's time split over the scopes the PP was in (carnival/cp_by_scope.*), on hand-made
// stretches: out of step, in PP gaps, past the PP's end, and the bound on what is held back.
#include "carnival/cp_by_scope.hpp"

#include <map>
#include <utility>

#include <gtest/gtest.h>

namespace ncp2::carnival {
namespace {

struct Collected {
  std::map<std::pair<std::uint32_t, Category>, std::int64_t> time;
  CpByScope::Sink sink() {
    return [this](std::uint32_t scope, Category c, std::int64_t ps) { time[{scope, c}] += ps; };
  }
};

TEST(CpByScope, SplitsACpStretchAtThePpsScopeChanges) {
  Collected got;
  CpByScope split(got.sink());
  split.cp(0, 100, Category::CPIdle);  // known before any PP stretch: held back
  EXPECT_TRUE(got.time.empty());
  split.pp(0, 30, 1);
  split.pp(30, 80, 2);
  split.pp(80, 120, 1);
  split.cp(100, 110, Category::CPComp);
  split.finish();
  EXPECT_EQ((got.time[{1, Category::CPIdle}]), 30 + 20);
  EXPECT_EQ((got.time[{2, Category::CPIdle}]), 50);
  EXPECT_EQ((got.time[{1, Category::CPComp}]), 10);
  EXPECT_EQ(got.time.size(), 3U);
}

TEST(CpByScope, PpStretchesFirstThenCp) {
  Collected got;
  CpByScope split(got.sink());
  split.pp(0, 50, 3);
  split.pp(50, 60, 4);
  split.cp(0, 55, Category::CPComp);
  EXPECT_EQ((got.time[{3, Category::CPComp}]), 50);
  EXPECT_EQ((got.time[{4, Category::CPComp}]), 5);
  split.cp(55, 60, Category::CPIdle);
  EXPECT_EQ((got.time[{4, Category::CPIdle}]), 5);
  EXPECT_EQ(split.pending(), 1U);  // the last PP stretch: a later CP stretch may still fall in it
}

TEST(CpByScope, TimeInAPpGapGoesToTheScopeBeforeIt) {
  Collected got;
  CpByScope split(got.sink());
  split.pp(0, 10, 5);
  split.pp(20, 30, 6);  // nothing counted on the PP in [10, 20)
  split.cp(0, 30, Category::CPIdle);
  EXPECT_EQ((got.time[{5, Category::CPIdle}]), 20);
  EXPECT_EQ((got.time[{6, Category::CPIdle}]), 10);
}

TEST(CpByScope, TimeAfterThePpsEndGoesToTheWholeProgram) {
  Collected got;
  CpByScope split(got.sink());
  split.pp(0, 10, 7);
  split.cp(0, 25, Category::CPIdle);
  split.finish();
  EXPECT_EQ((got.time[{7, Category::CPIdle}]), 10);
  EXPECT_EQ((got.time[{0, Category::CPIdle}]), 15);
  EXPECT_EQ(split.pending(), 0U);
}

TEST(CpByScope, ContiguousStretchesOfOneScopeAreHeldAsOne) {
  Collected got;
  CpByScope split(got.sink());
  for (std::int64_t t = 0; t < 1000; t += 10) split.pp(t, t + 10, 1);
  EXPECT_EQ(split.pending(), 1U);
  split.cp(0, 1000, Category::CPIdle);
  EXPECT_EQ((got.time[{1, Category::CPIdle}]), 1000);
}

}  // namespace
}  // namespace ncp2::carnival
