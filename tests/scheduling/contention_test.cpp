// The contention model's limits (issue 22): a job alone gets its demand; saturation divides B.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "scheduling/contention.hpp"

namespace ncp2::sched {
namespace {

const ContentionModel kModel(Bandwidth(29.5), Bandwidth(14.75));

double served_sum(const std::vector<JobShare>& shares) {
  double sum = 0;
  for (const auto& s : shares) sum += s.served.per_us();
  return sum;
}

TEST(Contention, AJobAloneGetsItsDemand) {
  for (const double d : {0.0, 0.05, 5.0, 13.5, 29.5}) {
    const std::vector<BusLoad> alone = {{Bandwidth(d), 2}};
    const auto shares = kModel.shares(alone);
    ASSERT_EQ(shares.size(), 1U);
    EXPECT_DOUBLE_EQ(shares[0].rate, 1.0) << d;
    EXPECT_DOUBLE_EQ(shares[0].served.per_us(), d) << d;
  }
}

TEST(Contention, BelowTheCapacityNobodySlows) {
  const std::vector<BusLoad> loads = {{Bandwidth(13.5), 1}, {Bandwidth(10), 2}, {Bandwidth(6), 1}};
  EXPECT_DOUBLE_EQ(kModel.transfer_stretch(loads), 1.0);
  for (const auto& s : kModel.shares(loads)) EXPECT_DOUBLE_EQ(s.rate, 1.0);
}

TEST(Contention, SaturationDividesTheCapacity) {
  const std::vector<BusLoad> four_bbma(4, BusLoad{Bandwidth(13.5), 1});
  const auto shares = kModel.shares(four_bbma);
  EXPECT_NEAR(served_sum(shares), 29.5, 1e-6);
  // Equal jobs get equal parts: B / 4 each.
  for (const auto& s : shares) EXPECT_NEAR(s.served.per_us(), 29.5 / 4, 1e-6);
  EXPECT_GT(kModel.transfer_stretch(four_bbma), 1.0);
}

TEST(Contention, SaturationSlowsTheHeavyMoreThanTheLight) {
  const std::vector<BusLoad> loads = {
      {Bandwidth(14), 1}, {Bandwidth(14), 1}, {Bandwidth(14), 1}, {Bandwidth(2), 1}};
  const auto shares = kModel.shares(loads);
  EXPECT_NEAR(served_sum(shares), 29.5, 1e-6);
  EXPECT_LT(shares[0].rate, shares[3].rate);
  EXPECT_LT(shares[3].rate, 1.0);  // the light one waits for the bus too, a little
}

TEST(Contention, AJobWithoutBusTrafficKeepsFullSpeedBesideSaturation) {
  const std::vector<BusLoad> loads = {
      {Bandwidth(14), 1}, {Bandwidth(14), 1}, {Bandwidth(14), 1}, {Bandwidth(0), 1}};
  const auto shares = kModel.shares(loads);
  EXPECT_DOUBLE_EQ(shares[3].rate, 1.0);
  EXPECT_NEAR(served_sum(shares), 29.5, 1e-6);
}

TEST(Contention, ImpossibleParametersAreRefused) {
  EXPECT_THROW(ContentionModel(Bandwidth(0), Bandwidth(1)), std::invalid_argument);
  EXPECT_THROW(ContentionModel(Bandwidth(-3), Bandwidth(1)), std::invalid_argument);
  EXPECT_THROW(ContentionModel(Bandwidth(29.5), Bandwidth(0)), std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::sched
