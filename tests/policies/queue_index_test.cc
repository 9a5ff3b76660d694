// The indexes ModularPolicy keeps so that a long queue costs little (issue 20): the
// backfill walk over the queue's parts by GPU demand, and running jobs kept in key order
// between Tiresias' demotions. Hand-computed scenarios; zero restart overhead.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

const ClusterSpec kFourGpus = ClusterSpec::Uniform(1, 1, 4, 0, 0);
const ClusterSpec kTwoGpus = ClusterSpec::Uniform(1, 1, 2, 0, 0);

TEST(BackfillWalk, TriesJobsInQueueOrderAcrossDemandClasses) {
  // SJF (no preemption) on 4 GPUs. J1 and J2 (2 GPUs each) fill the cluster at 0. Queued
  // by solo runtime: J5 (4 GPUs, 5 s), J4 (2 GPUs, 10 s), J3 (1 GPU, 500 s).
  // At 100 J1 ends: 2 free. J5 cannot fit; J4, ahead of J3 in the queue, takes both GPUs
  // (walking the 1-GPU jobs first would have started J3 and left J4 waiting).
  // At 110 J4 ends: J5 still cannot fit, J3 starts (110-610). At 1000 J2 ends: J5 runs.
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(0).Duration(1000).Build(),
                        JobBuilder(3).Gpus(1).Submit(1).Duration(500).Build(),
                        JobBuilder(4).Gpus(2).Submit(2).Duration(10).Build(),
                        JobBuilder(5).Gpus(4).Submit(3).Duration(5).Build()},
                       kFourGpus, Request("sjf"));
  EXPECT_DOUBLE_EQ(r.Start(4), 100);
  EXPECT_DOUBLE_EQ(r.Start(3), 110);
  EXPECT_DOUBLE_EQ(r.Start(5), 1000);
  EXPECT_DOUBLE_EQ(r.Jct(5), 1002);  // 1000 -> 1005, submitted at 3.
}

TEST(BackfillWalk, WithoutBackfillTheFirstMisfitStillBlocks) {
  // The same jobs with backfill=false: at 100 J5 (first in the queue) does not fit, so
  // nobody starts. At 1000 J5 takes all 4 GPUs; at 1005 J4 and J3 start together.
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(0).Duration(1000).Build(),
                        JobBuilder(3).Gpus(1).Submit(1).Duration(500).Build(),
                        JobBuilder(4).Gpus(2).Submit(2).Duration(10).Build(),
                        JobBuilder(5).Gpus(4).Submit(3).Duration(5).Build()},
                       kFourGpus, Request("sjf", {{"backfill", "false"}}));
  EXPECT_DOUBLE_EQ(r.Start(5), 1000);
  EXPECT_DOUBLE_EQ(r.Start(4), 1005);
  EXPECT_DOUBLE_EQ(r.Start(3), 1005);
}

TEST(TiresiasIndex, ADemotedRunningJobIsPreemptedFirst) {
  // Two GPUs, threshold 100 GPU-s. J1 (from 0) and J2 (from 50) run. J1 is demoted at
  // 100 (its wake-up re-keys it: queue 1). J3 arrives at 120 in queue 0 and outranks only
  // J1, which it preempts; J2 (queue 0 until 150) keeps running. J3 runs 120-140; J1,
  // 120 s done, resumes at 140 and ends at 320; J2 ends at 350.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(300).Build(),
                        JobBuilder(2).Gpus(1).Submit(50).Duration(300).Build(),
                        JobBuilder(3).Gpus(1).Submit(120).Duration(20).Build()},
                       kTwoGpus, Request("tiresias", {{"thresholds", "100"}}));
  EXPECT_DOUBLE_EQ(r.Start(3), 120);
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);
  EXPECT_EQ(r.jobs.at(2).preemptions, 0);
  EXPECT_DOUBLE_EQ(r.Jct(1), 320);
  EXPECT_DOUBLE_EQ(r.Jct(2), 300);
}

}  // namespace
}  // namespace schedkit::testing
