// Finish-time fairness on small cases solved by hand, and against the LP it replaced.
#include "mechanisms/finish_time_fairness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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
    EXPECT_TRUE(a.capacity_bound);
    EXPECT_GE(a.evaluations, 1);
    EXPECT_NEAR(a.rho, 4.5, 1e-7);
    EXPECT_NEAR(a.share[0], 2.0 / 9, 1e-7);
    EXPECT_NEAR(a.share[1], 4.0 / 9, 1e-7);
    EXPECT_NEAR(a.share[2], 2.0 / 3, 1e-7);
  }
}

// Elapsed time matters: A has waited 100 s with 900 s left and an isolated time of 1000;
// B is new with 10 s left and isolated time 10; one GPU. Both ratios are 1 at x = 1, and
// 900/(1000 rho - 100) + 1/rho = 1 gives rho^2 - 2 rho + 0.1 = 0, rho = 1 + sqrt(0.9).
TEST(FinishTimeFairness, TwoJobsWithElapsedTimeByHand) {
  auto a = SolveFinishTimeFairness({Job(100, 900, 1000, 1), Job(0, 10, 10, 1)}, 1,
                                   FtfSelection::kCentre);
  const double rho = 1 + std::sqrt(0.9);
  EXPECT_NEAR(a.rho, rho, 1e-7);
  EXPECT_NEAR(a.share[1], 1 / rho, 1e-7);
  EXPECT_NEAR(a.share[0], 1 - 1 / rho, 1e-7);
}

// The same three jobs on 4 GPUs: the least shares fit, so rho* = 3 (job 3 at x = 1) and
// the other shares are not unique. kLeast gives 1/3 and 2/3; kCentre gives the point
// where 2/(x - l) - 1/(1 - x) = g / (capacity - sum g x) for both slack jobs.
TEST(FinishTimeFairness, SlackCapacitySelections) {
  const std::vector<FtfJob> jobs = {Job(0, 10, 10, 1), Job(0, 20, 10, 1), Job(0, 30, 10, 2)};
  auto least = SolveFinishTimeFairness(jobs, 4, FtfSelection::kLeast);
  EXPECT_FALSE(least.capacity_bound);
  EXPECT_EQ(least.evaluations, 0);
  EXPECT_DOUBLE_EQ(least.rho, 3);
  EXPECT_NEAR(least.share[0], 1.0 / 3, 1e-12);
  EXPECT_NEAR(least.share[1], 2.0 / 3, 1e-12);
  EXPECT_EQ(least.share[2], 1);

  auto centre = SolveFinishTimeFairness(jobs, 4, FtfSelection::kCentre);
  EXPECT_DOUBLE_EQ(centre.rho, 3);
  EXPECT_EQ(centre.share[2], 1);
  const double slack = 4 - (centre.share[0] + centre.share[1] + 2);
  ASSERT_GT(slack, 0);
  const double l[2] = {1.0 / 3, 2.0 / 3};
  for (int i = 0; i < 2; ++i) {
    const double x = centre.share[i];
    EXPECT_GT(x, l[i]);
    EXPECT_LT(x, 1);
    EXPECT_NEAR(2 / (x - l[i]) - 1 / (1 - x), 1 / slack, 1e-6) << i;
  }
}

// Uncoupled (huge capacity): the centre is least + 2/3 (1 - least).
TEST(FinishTimeFairness, CentreWithoutCouplingIsTwoThirdsOfTheWay) {
  auto a = SolveFinishTimeFairness({Job(0, 10, 10, 1), Job(0, 30, 10, 1)}, 1e9,
                                   FtfSelection::kCentre);
  EXPECT_NEAR(a.share[0], 1.0 / 3 + 2.0 / 3 * (2.0 / 3), 1e-6);
  EXPECT_EQ(a.share[1], 1);
}

// The convex program as the LP schedkit solved before (z = 1/x, Kelley's tangent cuts for
// sum(g / z) <= capacity): an independent lower bound on rho*, within its cut tolerance.
double LpRho(const std::vector<FtfJob>& jobs, double capacity, double rho_box) {
  LinearProgram lp;
  const int rho = lp.AddVariable(rho_box, kLpInfinity, 1.0);
  std::vector<int> z(jobs.size(), -1), y(jobs.size(), -1);
  std::vector<LpTerm> capacity_row;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].solo_remaining_s <= 0) continue;
    z[i] = lp.AddVariable(1.0, kLpInfinity, 0.0);
    y[i] = lp.AddVariable(0.0, kLpInfinity, 0.0);
  }
  auto add_cut = [&](size_t i, double z0) {
    const double g = jobs[i].gpus;
    lp.AddRow({{y[i], 1.0}, {z[i], g / (z0 * z0)}}, 2 * g / z0, kLpInfinity);
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (z[i] < 0) continue;
    lp.AddRow({{z[i], jobs[i].solo_remaining_s}, {rho, -jobs[i].isolated_s}}, -kLpInfinity,
              -jobs[i].elapsed_s);
    capacity_row.push_back({y[i], 1.0});
    add_cut(i, 1.0);
  }
  lp.AddRow(capacity_row, -kLpInfinity, capacity);
  for (int round = 0; round < 500; ++round) {
    EXPECT_EQ(lp.Solve(), LpStatus::kOptimal);
    double gpu_sum = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (z[i] < 0) continue;
      const double need = jobs[i].gpus / lp.Value(z[i]);
      gpu_sum += need;
      if (need > lp.Value(y[i])) add_cut(i, lp.Value(z[i]));
    }
    if (gpu_sum <= capacity * (1 + 1e-6)) return lp.Value(rho);
  }
  ADD_FAILURE() << "LP did not converge";
  return 0;
}

double LeastGpus(const std::vector<FtfJob>& jobs, double rho) {
  double sum = 0;
  for (const FtfJob& j : jobs) {
    const double x = j.solo_remaining_s <= 0
                         ? 0
                         : std::min(1.0, j.solo_remaining_s / (j.isolated_s * rho - j.elapsed_s));
    sum += j.gpus * x;
  }
  return sum;
}

// Random busy clusters (capacity binding): rho* agrees with the LP's optimum, and it is
// exact to the last bit: the least shares fit at rho* and not at the double below it.
TEST(FinishTimeFairness, BindingOptimumMatchesTheLpAndIsExactToTheLastBit) {
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> u(0, 1);
  int binding = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + static_cast<int>(u(rng) * (trial < 40 ? 20 : 300));
    std::vector<FtfJob> jobs;
    for (int i = 0; i < n; ++i) {
      const int gpus = 1 << static_cast<int>(u(rng) * 4);
      // Some jobs done (no work left), some never run; isolated times around their work.
      const double remaining = u(rng) < 0.1 ? 0 : 100 + u(rng) * 1e5;
      const double elapsed = u(rng) * 1e4;
      jobs.push_back(Job(elapsed, remaining, elapsed + (50 + remaining) * (1 + 2 * u(rng)), gpus));
    }
    const double capacity = 8 + std::floor(u(rng) * n);  // Asked: ~3.75 n.
    auto a = SolveFinishTimeFairness(jobs, capacity, FtfSelection::kLeast);
    if (!a.capacity_bound) continue;
    ++binding;
    double rho_box = 0;
    for (const FtfJob& j : jobs) {
      rho_box = std::max(rho_box, (j.elapsed_s + j.solo_remaining_s) / j.isolated_s);
    }
    EXPECT_LE(LeastGpus(jobs, a.rho), capacity) << trial;
    EXPECT_GT(LeastGpus(jobs, std::nextafter(a.rho, 0.0)), capacity) << trial;
    const double lp = LpRho(jobs, capacity, rho_box);
    EXPECT_GE(a.rho, lp * (1 - 1e-7)) << trial;
    EXPECT_LE(a.rho, lp * (1 + 1e-4)) << trial;
    // O(jobs) work a few dozen times, not a bisection from scratch (~120).
    EXPECT_LT(a.evaluations, 60) << trial;
  }
  EXPECT_GE(binding, 40);
}

}  // namespace
}  // namespace schedkit
