// LinearProgram::SetRowBounds: bounds moved before and after a solve, re-solved warm.
#include "mechanisms/lp.h"

#include <gtest/gtest.h>

namespace schedkit {
namespace {

TEST(LinearProgramRowBounds, MovedBoundsAreSolvedWarm) {
  // max x + y with x, y in [0, 10] and x + y <= 4: 4.
  LinearProgram lp;
  const int x = lp.AddVariable(0, 10, -1);
  const int y = lp.AddVariable(0, 10, -1);
  lp.AddRow({{x, 1}, {y, 1}}, -kLpInfinity, 4);
  ASSERT_EQ(lp.Solve(), LpStatus::kOptimal);
  EXPECT_NEAR(lp.Objective(), -4, 1e-9);
  // Raise the cap: 6.
  lp.SetRowBounds(0, -kLpInfinity, 6);
  ASSERT_EQ(lp.Solve(), LpStatus::kOptimal);
  EXPECT_NEAR(lp.Objective(), -6, 1e-9);
  // A row added after the solve, x - y >= 8, moved before the next solve to x - y >= 2:
  // x + y <= 6 and x - y >= 2 still allow 6 (x = 4, y = 2 or more x).
  lp.AddRow({{x, 1}, {y, -1}}, 8, kLpInfinity);
  lp.SetRowBounds(1, 2, kLpInfinity);
  ASSERT_EQ(lp.Solve(), LpStatus::kOptimal);
  EXPECT_NEAR(lp.Objective(), -6, 1e-9);
  EXPECT_GE(lp.Value(x) - lp.Value(y), 2 - 1e-9);
  // x + y >= 30 cannot be met with x, y <= 10; back to <= 6 it can.
  lp.SetRowBounds(0, 30, kLpInfinity);
  EXPECT_EQ(lp.Solve(), LpStatus::kInfeasible);
  lp.SetRowBounds(0, -kLpInfinity, 6);
  ASSERT_EQ(lp.Solve(), LpStatus::kOptimal);
  EXPECT_NEAR(lp.Objective(), -6, 1e-9);
}

}  // namespace
}  // namespace schedkit
