// The finish-time-fairness LP on small cases solved by hand.
#include "mechanisms/finish_time_fairness.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mechanisms/lp.h"

namespace schedkit {
namespace {

FtfJob Job(double elapsed, double remaining, double isolated, int gpus) {
  FtfJob j;
  j.elapsed_s = elapsed;
  j.solo_remaining_s = remaining;
  j.isolated_s = isolated;
  j.gpus = gpus;
  return j;
}

// min x + 2y s.t. x + y >= 3, x - y <= 1, 0 <= x, y <= 2: optimum x = 2, y = 1, cost 4;
// adding the row y >= 1.5 and re-solving moves it to x = 1.5, y = 1.5, cost 4.5.
TEST(LinearProgram, SolvesAndResolvesAfterAddingARow) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, 2, 1);
  const int y = lp.AddVariable(0, 2, 2);
  lp.AddRow({{x, 1}, {y, 1}}, 3, kLpInfinity);
  lp.AddRow({{x, 1}, {y, -1}}, -kLpInfinity, 1);
  ASSERT_EQ(lp.Solve(), LpStatus::kOptimal);
  EXPECT_NEAR(lp.Value(x), 2, 1e-9);
  EXPECT_NEAR(lp.Value(y), 1, 1e-9);
  EXPECT_NEAR(lp.Objective(), 4, 1e-9);
  lp.AddRow({{y, 1}}, 1.5, kLpInfinity);
  ASSERT_EQ(lp.Solve(), LpStatus::kOptimal);
  EXPECT_NEAR(lp.Value(x), 1.5, 1e-9);
  EXPECT_NEAR(lp.Objective(), 4.5, 1e-9);
  EXPECT_EQ(lp.rows(), 3);
}

TEST(LinearProgram, ReportsInfeasibility) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, 1, 1);
  lp.AddRow({{x, 1}}, 2, kLpInfinity);
  EXPECT_EQ(lp.Solve(), LpStatus::kInfeasible);
}

// Three jobs, nothing elapsed, isolated time 10 each, remaining 10, 20, 30 s, GPUs
// 1, 1, 2, capacity 2. Ratio_i = s_i / (10 x_i). At x = 1 the worst ratio is 3, where the
// least shares 1/3, 2/3, 1 need 3 GPUs > 2: capacity binds, every ratio equals rho and
// x_i = s_i / (10 rho); sum g_i x_i = 90 / (10 rho) = 2 gives rho = 4.5 and
// x = (2/9, 4/9, 2/3).
TEST(FinishTimeFairness, ThreeJobsCapacityBindingByHand) {
  const std::vector<FtfJob> jobs = {Job(0, 10, 10, 1), Job(0, 20, 10, 1), Job(0, 30, 10, 2)};
  for (FtfSelection sel : {FtfSelection::kLeast, FtfSelection::kCentre}) {
    auto a = SolveFinishTimeFairness(jobs, 2, sel);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_TRUE(a->capacity_bound);
    EXPECT_GE(a->lp_rounds, 1);
    EXPECT_NEAR(a->rho, 4.5, 1e-7);
    EXPECT_NEAR(a->share[0], 2.0 / 9, 1e-7);
    EXPECT_NEAR(a->share[1], 4.0 / 9, 1e-7);
    EXPECT_NEAR(a->share[2], 2.0 / 3, 1e-7);
  }
}

// Elapsed time matters: A has waited 100 s with 900 s left and an isolated time of 1000;
// B is new with 10 s left and isolated time 10; one GPU. Both ratios are 1 at x = 1, and
// 900/(1000 rho - 100) + 1/rho = 1 gives rho^2 - 2 rho + 0.1 = 0, rho = 1 + sqrt(0.9).
TEST(FinishTimeFairness, TwoJobsWithElapsedTimeByHand) {
  auto a = SolveFinishTimeFairness({Job(100, 900, 1000, 1), Job(0, 10, 10, 1)}, 1,
                                   FtfSelection::kCentre);
  ASSERT_TRUE(a.ok());
  const double rho = 1 + std::sqrt(0.9);
  EXPECT_NEAR(a->rho, rho, 1e-7);
  EXPECT_NEAR(a->share[1], 1 / rho, 1e-7);
  EXPECT_NEAR(a->share[0], 1 - 1 / rho, 1e-7);
}

// The same three jobs on 4 GPUs: the least shares fit, so rho* = 3 (job 3 at x = 1) and
// the other shares are not unique. kLeast gives 1/3 and 2/3; kCentre gives the point
// where 2/(x - l) - 1/(1 - x) = g / (capacity - sum g x) for both slack jobs.
TEST(FinishTimeFairness, SlackCapacitySelections) {
  const std::vector<FtfJob> jobs = {Job(0, 10, 10, 1), Job(0, 20, 10, 1), Job(0, 30, 10, 2)};
  auto least = SolveFinishTimeFairness(jobs, 4, FtfSelection::kLeast);
  ASSERT_TRUE(least.ok());
  EXPECT_FALSE(least->capacity_bound);
  EXPECT_EQ(least->lp_rounds, 0);
  EXPECT_DOUBLE_EQ(least->rho, 3);
  EXPECT_NEAR(least->share[0], 1.0 / 3, 1e-12);
  EXPECT_NEAR(least->share[1], 2.0 / 3, 1e-12);
  EXPECT_EQ(least->share[2], 1);

  auto centre = SolveFinishTimeFairness(jobs, 4, FtfSelection::kCentre);
  ASSERT_TRUE(centre.ok());
  EXPECT_DOUBLE_EQ(centre->rho, 3);
  EXPECT_EQ(centre->share[2], 1);
  const double slack = 4 - (centre->share[0] + centre->share[1] + 2);
  ASSERT_GT(slack, 0);
  const double l[2] = {1.0 / 3, 2.0 / 3};
  for (int i = 0; i < 2; ++i) {
    const double x = centre->share[i];
    EXPECT_GT(x, l[i]);
    EXPECT_LT(x, 1);
    EXPECT_NEAR(2 / (x - l[i]) - 1 / (1 - x), 1 / slack, 1e-6) << i;
  }
}

// Uncoupled (huge capacity): the centre is least + 2/3 (1 - least).
TEST(FinishTimeFairness, CentreWithoutCouplingIsTwoThirdsOfTheWay) {
  auto a = SolveFinishTimeFairness({Job(0, 10, 10, 1), Job(0, 30, 10, 1)}, 1e9,
                                   FtfSelection::kCentre);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->share[0], 1.0 / 3 + 2.0 / 3 * (2.0 / 3), 1e-6);
  EXPECT_EQ(a->share[1], 1);
}

}  // namespace
}  // namespace schedkit
