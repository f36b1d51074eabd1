// The contention model (issues 22 and 35): a job alone gets its demand; every job slows as the bus
// fills, before it saturates; saturation is a heavy loss; a job without bus traffic keeps its
// speed; the queueing constant is calibrated on the survey's most demanding application.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "scheduling/contention.hpp"

namespace ncp2::sched {
namespace {

const ContentionModel kModel(Bandwidth(kSurveyBusCapacity), Bandwidth(kDefaultThreadPeak), survey_queueing());

double served_sum(const std::vector<JobShare>& shares) {
  double sum = 0;
  for (const auto& s : shares) sum += s.served.per_us();
  return sum;
}

TEST(Contention, AJobAloneGetsItsDemand) {
  for (const double d : {0.0, 0.05, 5.0, 13.5, 23.31}) {
    const std::vector<BusLoad> alone = {{Bandwidth(d), 2}};
    const auto shares = kModel.shares(alone);
    ASSERT_EQ(shares.size(), 1U);
    EXPECT_DOUBLE_EQ(shares[0].rate, 1.0) << d;
    EXPECT_DOUBLE_EQ(shares[0].served.per_us(), d) << d;
  }
}

// The calibration point (seed 003: the most demanding application alone used 23.31 of 29.5).
TEST(Contention, TwoThreadsThatOnlyTransferDrawTheSurveysMostDemandingBandwidth) {
  EXPECT_NEAR(kModel.bus_bound_solo(2).per_us(), 23.31, 1e-6);
  // k from its definition: 2 x 14.75 / L(u) = u x 29.5 at u = 23.31 / 29.5.
  const double u = 23.31 / 29.5;
  EXPECT_NEAR(survey_queueing(), (29.5 / 23.31 - 1) * (1 - u) / u, 1e-12);
  // One such thread (a BBMA) draws less than half the bus; four of them cannot fill it.
  EXPECT_GT(kModel.bus_bound_solo(1).per_us(), 13.0);
  EXPECT_LT(kModel.bus_bound_solo(1).per_us(), 14.75);
  EXPECT_LT(kModel.bus_bound_solo(4).per_us(), 29.5);
}

TEST(Contention, EveryJobSlowsBeforeTheBusSaturates) {
  // 20 of 29.5 asked: below the capacity, yet both wait in the queue a little.
  const std::vector<BusLoad> loads = {{Bandwidth(10), 2}, {Bandwidth(10), 2}};
  const auto shares = kModel.shares(loads);
  for (const auto& s : shares) {
    EXPECT_LT(s.rate, 0.99);
    EXPECT_GT(s.rate, 0.9);
  }
  EXPECT_LT(served_sum(shares), 20.0);
}

TEST(Contention, TheSlowdownGrowsWithTheLoadOfTheOthers) {
  double previous = 1.0;
  for (const double other : {2.0, 6.0, 10.0, 14.0, 18.0, 22.0}) {
    const std::vector<BusLoad> loads = {{Bandwidth(10), 2}, {Bandwidth(other), 2}};
    const double rate = kModel.shares(loads)[0].rate;
    EXPECT_LT(rate, previous) << other;
    previous = rate;
  }
  EXPECT_LT(previous, 0.9);  // beside a job of 22 the pair asks 32 > 29.5: a clear loss
}

TEST(Contention, SaturationIsAHeavyLossAndNeverServesMoreThanTheCapacity) {
  const std::vector<BusLoad> four_bbma(4, BusLoad{kModel.bus_bound_solo(1), 1});
  const auto shares = kModel.shares(four_bbma);
  EXPECT_LT(served_sum(shares), 29.5);
  EXPECT_GT(served_sum(shares), 0.9 * 29.5);
  for (const auto& s : shares) {
    EXPECT_NEAR(s.served.per_us(), served_sum(shares) / 4, 1e-9);  // equal jobs, equal parts
    EXPECT_LT(s.rate, 0.6);                                        // each runs at most 0.6 of its solo speed
  }
  // Far beyond the capacity the served sum stays below it.
  const std::vector<BusLoad> many(40, BusLoad{Bandwidth(14), 1});
  EXPECT_LT(served_sum(kModel.shares(many)), 29.5);
}

TEST(Contention, SaturationSlowsTheHeavyMoreThanTheLight) {
  const std::vector<BusLoad> loads = {
      {Bandwidth(13), 1}, {Bandwidth(13), 1}, {Bandwidth(13), 1}, {Bandwidth(2), 1}};
  const auto shares = kModel.shares(loads);
  EXPECT_LT(shares[0].rate, shares[3].rate);
  EXPECT_LT(shares[3].rate, 1.0);  // the light one waits for the bus too, a little
}

TEST(Contention, AJobWithoutBusTrafficKeepsFullSpeedBesideSaturation) {
  const std::vector<BusLoad> loads = {
      {Bandwidth(13), 1}, {Bandwidth(13), 1}, {Bandwidth(13), 1}, {Bandwidth(0), 1}};
  const auto shares = kModel.shares(loads);
  EXPECT_DOUBLE_EQ(shares[3].rate, 1.0);
  EXPECT_LT(served_sum(shares), 29.5);
}

TEST(Contention, ImpossibleParametersAreRefused) {
  EXPECT_THROW(ContentionModel(Bandwidth(0), Bandwidth(1), 0.07), std::invalid_argument);
  EXPECT_THROW(ContentionModel(Bandwidth(-3), Bandwidth(1), 0.07), std::invalid_argument);
  EXPECT_THROW(ContentionModel(Bandwidth(29.5), Bandwidth(0), 0.07), std::invalid_argument);
  EXPECT_THROW(ContentionModel(Bandwidth(29.5), Bandwidth(14.75), 0), std::invalid_argument);
  // Two threads of 10/us cannot draw 23.31; nothing draws the whole bus alone.
  EXPECT_THROW(calibrated_queueing(Bandwidth(29.5), Bandwidth(10), 2, Bandwidth(23.31)),
               std::invalid_argument);
  EXPECT_THROW(calibrated_queueing(Bandwidth(29.5), Bandwidth(14.75), 2, Bandwidth(29.5)),
               std::invalid_argument);
}

}  // namespace
}  // namespace ncp2::sched
