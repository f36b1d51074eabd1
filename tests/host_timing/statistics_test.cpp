// Summary statistics on synthetic samples with known answers.
#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "host_timing/statistics.hpp"

namespace ncp2::timing {
namespace {

TEST(Statistics, OneToHundred) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.median, 50.5);  // even count: mean of the two middle values
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p99, 99);  // nearest rank: ceil(0.99 * 100) = 99th value
  EXPECT_EQ(v.front(), 100);    // the input is not reordered
}

TEST(Statistics, OddCountAndOutlier) {
  const std::vector<double> v = {5, 3, 1000, 4, 2};
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 4);
  EXPECT_DOUBLE_EQ(s.mean, 202.8);
  EXPECT_DOUBLE_EQ(s.p99, 1000);  // ceil(4.95) = 5th of 5
  EXPECT_DOUBLE_EQ(s.min, 2);
}

TEST(Statistics, P99OfAThousandIsThe990th) {
  std::vector<double> v(1000);
  for (int i = 0; i < 1000; ++i) v[static_cast<std::size_t>(i)] = i + 1;
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  EXPECT_DOUBLE_EQ(summarize(v).p99, 990);
}

TEST(Statistics, EmptyAndSingle) {
  const Summary e = summarize({});
  EXPECT_EQ(e.count, 0u);
  EXPECT_EQ(e.max, 0);
  const std::vector<double> one = {7.5};
  const Summary s = summarize(one);
  EXPECT_DOUBLE_EQ(s.min, 7.5);
  EXPECT_DOUBLE_EQ(s.median, 7.5);
  EXPECT_DOUBLE_EQ(s.p99, 7.5);
  EXPECT_DOUBLE_EQ(s.max, 7.5);
}

TEST(Statistics, HistogramModeFindsTheCluster) {
  // Bins of width 10 from 100: [100,110) holds 2, [120,130) holds 4, [300,310) holds 1.
  const std::vector<double> v = {100, 105, 121, 122, 125, 129, 300};
  EXPECT_DOUBLE_EQ(histogram_mode(v, 10), 125);
  // A tie goes to the lower bin.
  const std::vector<double> tie = {0, 1, 10, 11};
  EXPECT_DOUBLE_EQ(histogram_mode(tie, 10), 5);
  EXPECT_EQ(histogram_mode({}, 1), 0);
  EXPECT_THROW((void)histogram_mode(v, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::timing
