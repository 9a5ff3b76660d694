// Hand-computed group iteration times (docs/interleaving.md).
#include "mechanisms/interleaving.h"

#include <gtest/gtest.h>

namespace schedkit {
namespace {

constexpr double kF2 = 1.33 / 1.015, kF3 = 1.5 / 1.015, kF4 = 1.37 / 1.015;

TEST(Interleaving, GroupSizeFactors) {
  EXPECT_DOUBLE_EQ(GroupSizeFactor(1), 1.015);
  EXPECT_DOUBLE_EQ(GroupSizeFactor(2), kF2);
  EXPECT_DOUBLE_EQ(GroupSizeFactor(3), kF3);
  EXPECT_DOUBLE_EQ(GroupSizeFactor(4), kF4);
}

// a = (1, 2, 0), b = (2, 1, 0). Order (a, b): f = 0,0,1,3,4,4 -> period 4 (early exit
// at i = 4). Order (b, a): f = 0,0,2,3,5,5 -> period 5. Closed form:
// max(1, 1 + 0) + max(2, 2 + 0) = 3, the minimum.
TEST(Interleaving, TwoJobsRecurrenceAndClosedForm) {
  const StageTimes a{1, 2, 0}, b{2, 1, 0};
  EXPECT_DOUBLE_EQ(OrderedGroupPeriod({a, b}), 4);
  EXPECT_DOUBLE_EQ(OrderedGroupPeriod({b, a}), 5);
  EXPECT_DOUBLE_EQ(MinGroupPeriod({a, b}), 3);
  const JobSpec ja = JobBuilder(1).Iterations(10, 2.0).Stages(1, 2, 0).Build();
  const JobSpec jb = JobBuilder(2).Iterations(10, 2.0).Stages(2, 1, 0).Build();
  const double tt = GroupIterationTime({&ja, &jb});
  EXPECT_DOUBLE_EQ(tt, 3 * kF2);
  EXPECT_DOUBLE_EQ(InterleavingEfficiency({&ja, &jb}), 6 / (4 * 3 * kF2));
  EXPECT_DOUBLE_EQ(GroupRate(ja, tt), 2.0 * 1.015 / (3 * kF2));
}

// A single job's iteration time is its own, times 1.015; stages are not used.
TEST(Interleaving, SingleJob) {
  const JobSpec j = JobBuilder(1).Iterations(10, 0.5).Stages(1, 1, 1).Build();
  EXPECT_DOUBLE_EQ(GroupIterationTime({&j}), 0.5 * 1.015);
  EXPECT_DOUBLE_EQ(GroupRate(j, 0.5 * 1.015), 1.0);
}

// GPU-only jobs (0, g, 0) cannot overlap: each phase adds the next job's GPU time, so
// every ordering's period is 1 + 2 + 3 = 6 (f = 0,3,3,4,6,9 -> f5 - f1 = 6).
TEST(Interleaving, ThreeGpuOnlyJobsDoNotOverlap) {
  const StageTimes a{0, 1, 0}, b{0, 2, 0}, c{0, 3, 0};
  EXPECT_DOUBLE_EQ(OrderedGroupPeriod({a, b, c}), 6);
  EXPECT_DOUBLE_EQ(MinGroupPeriod({a, b, c}), 6);
  const JobSpec j1 = JobBuilder(1).Stages(0, 1, 0).Build();
  const JobSpec j2 = JobBuilder(2).Stages(0, 2, 0).Build();
  const JobSpec j3 = JobBuilder(3).Stages(0, 3, 0).Build();
  EXPECT_DOUBLE_EQ(GroupIterationTime({&j1, &j2, &j3}), 6 * kF3);
  EXPECT_DOUBLE_EQ(InterleavingEfficiency({&j1, &j2, &j3}), 6 / (4 * 6 * kF3));
}

// Three jobs whose stages fit together perfectly: (1,0,0), (0,1,0), (0,0,1). Order
// (a, b, c): f = 0,0,1,1,2,2; at i = 4, f5 - f1 = 2 = f4 - f0: period 2.
TEST(Interleaving, ThreeComplementaryJobs) {
  const StageTimes a{1, 0, 0}, b{0, 1, 0}, c{0, 0, 1};
  EXPECT_DOUBLE_EQ(OrderedGroupPeriod({a, b, c}), 2);
}

// Four identical jobs (1, 1, 1): every phase adds 1, so the period is 4 for every
// ordering and the group runs 3 stage-seconds per job every 4 x 1.37/1.015 seconds.
TEST(Interleaving, FourIdenticalJobs) {
  const StageTimes s{1, 1, 1};
  EXPECT_DOUBLE_EQ(OrderedGroupPeriod({s, s, s, s}), 4);
  const JobSpec j = JobBuilder(1).Iterations(10, 3.0).Stages(1, 1, 1).Build();
  EXPECT_DOUBLE_EQ(GroupIterationTime({&j, &j, &j, &j}), 4 * kF4);
  EXPECT_DOUBLE_EQ(InterleavingEfficiency({&j, &j, &j, &j}), 12 / (4 * 4 * kF4));
}

// Four jobs (2,0,0), (0,2,0), (0,0,2), (1,1,0): in the given order f = 0,0,2,2,4,4 and
// the period is 4; the best ordering reaches 3, the GPU's own load per round (2 + 1).
TEST(Interleaving, FourMixedJobs) {
  const std::vector<StageTimes> jobs{{2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 1, 0}};
  EXPECT_DOUBLE_EQ(OrderedGroupPeriod(jobs), 4);
  EXPECT_DOUBLE_EQ(MinGroupPeriod(jobs), 3);
}

}  // namespace
}  // namespace schedkit
