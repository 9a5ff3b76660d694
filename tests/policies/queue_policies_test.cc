// Hand-computed scenarios for the built-in queue policies. Zero restart overhead
// unless a test says otherwise; the expected times are worked out in the comments.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

const ClusterSpec kFourGpus = ClusterSpec::Uniform(1, 1, 4, 0, 0);
const ClusterSpec kOneGpu = ClusterSpec::Uniform(1, 1, 1, 0, 0);

TEST(Fifo, RunsInArrivalOrderAndFillsFreeGpus) {
  // J1 holds all 4 GPUs 0-100; J2 and J3 (2 GPUs each) then run side by side.
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(10).Duration(50).Build(),
                        JobBuilder(3).Gpus(2).Submit(20).Duration(30).Build()},
                       kFourGpus, Request("fifo"));
  EXPECT_DOUBLE_EQ(r.Jct(1), 100);
  EXPECT_DOUBLE_EQ(r.Jct(2), 140);  // 100 -> 150.
  EXPECT_DOUBLE_EQ(r.Jct(3), 110);  // 100 -> 130.
  EXPECT_EQ(r.summary.preemptions, 0);
}

TEST(Summary, SlowdownIsJctOverSoloRuntime) {
  // The FIFO run above: slowdowns 100/100 = 1, 140/50 = 2.8 and 110/30 = 11/3.
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(10).Duration(50).Build(),
                        JobBuilder(3).Gpus(2).Submit(20).Duration(30).Build()},
                       kFourGpus, Request("fifo"));
  EXPECT_DOUBLE_EQ(r.summary.avg_slowdown, (1 + 2.8 + 11.0 / 3) / 3);
  EXPECT_DOUBLE_EQ(r.summary.p99_slowdown, 11.0 / 3);  // Nearest rank: ceil(0.99 x 3) = 3rd.
}

TEST(Fifo, HeadOfLineBlockingWithoutBackfill) {
  // J1 (3 GPUs) runs; J2 needs 4 and waits; J3 (1 GPU) fits now but, without
  // backfill, waits behind J2.
  std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(3).Submit(0).Duration(100).Build(),
                               JobBuilder(2).Gpus(4).Submit(1).Duration(10).Build(),
                               JobBuilder(3).Gpus(1).Submit(2).Duration(10).Build()};
  auto backfill = RunScenario(jobs, kFourGpus, Request("fifo"));
  EXPECT_DOUBLE_EQ(backfill.Start(3), 2);
  auto blocked = RunScenario(jobs, kFourGpus, Request("fifo", {{"backfill", "false"}}));
  EXPECT_DOUBLE_EQ(blocked.Start(2), 100);
  EXPECT_DOUBLE_EQ(blocked.Start(3), 110);
}

TEST(Sjf, ShortestTotalRuntimeFirstWithoutPreemption) {
  // J1 runs 0-100 (no preemption); then J3 (20 s) before J2 (50 s).
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(4).Submit(10).Duration(50).Build(),
                        JobBuilder(3).Gpus(4).Submit(20).Duration(20).Build()},
                       kFourGpus, Request("sjf"));
  EXPECT_DOUBLE_EQ(r.Jct(1), 100);
  EXPECT_DOUBLE_EQ(r.Jct(3), 100);  // 100 -> 120.
  EXPECT_DOUBLE_EQ(r.Jct(2), 160);  // 120 -> 170.
}

TEST(Srtf, PreemptsForShorterRemainingTimeAndPaysRestartOverhead) {
  // Overhead 5 s per (re)start. J1 starts at 0, works 5..10 (5 s done, 95 left).
  // J2 (20 s) arrives at 10 with less remaining: J1 is preempted; J2 ends 10+5+20=35.
  // J1 restarts at 35 and ends 35+5+95=135.
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(4).Submit(10).Duration(20).Build()},
                       kFourGpus, Request("srtf"), /*overhead_s=*/5);
  EXPECT_DOUBLE_EQ(r.Jct(2), 25);
  EXPECT_DOUBLE_EQ(r.Jct(1), 135);
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);
  EXPECT_DOUBLE_EQ(r.jobs.at(1).executed_s, 10 + 100);  // 0-10 and 35-135.
}

TEST(Srsf, WeighsRemainingTimeByGpus) {
  // At 10, J1 (1 GPU) has 90 s x 1 GPU left; J2 needs 4 GPUs x 40 s = 160 GPU-s.
  // SRSF keeps J1; J2 waits for all 4 GPUs (100 -> 140). SRTF preempts J1 instead.
  std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(1).Submit(0).Duration(100).Build(),
                               JobBuilder(2).Gpus(4).Submit(10).Duration(40).Build()};
  auto srsf = RunScenario(jobs, kFourGpus, Request("srsf"));
  EXPECT_DOUBLE_EQ(srsf.Jct(1), 100);
  EXPECT_DOUBLE_EQ(srsf.Jct(2), 130);
  auto srtf = RunScenario(jobs, kFourGpus, Request("srtf"));
  EXPECT_DOUBLE_EQ(srtf.Jct(2), 40);   // 10 -> 50.
  EXPECT_DOUBLE_EQ(srtf.Jct(1), 140);  // 10 s done, 90 left from 50.
}

TEST(Las, SharesByAttainedServiceEveryQuantum) {
  // One GPU, quantum 50. Ties on attained service go to the earlier job (J1).
  // 0-50 J1; 50-100 J2 (J1 has 50 attained); at 100 both have 50: J1 wins the tie
  // and finishes at 150; J2 runs 150-200.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(1).Submit(0).Duration(100).Build()},
                       kOneGpu, Request("las", {{"quantum_s", "50"}}));
  EXPECT_DOUBLE_EQ(r.Jct(1), 150);
  EXPECT_DOUBLE_EQ(r.Jct(2), 200);
  EXPECT_EQ(r.summary.preemptions, 2);
}

TEST(Tiresias, DemotesAtThresholdAndRunsFifoWithinQueue) {
  // One GPU, one threshold at 100 GPU-s. J2 arrives at 10 in queue 0 behind J1 (FIFO).
  // J1 crosses 100 GPU-s at t=100 and drops to queue 1: J2 runs 100-150, J1 150-350.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(300).Build(),
                        JobBuilder(2).Gpus(1).Submit(10).Duration(50).Build()},
                       kOneGpu, Request("tiresias", {{"thresholds", "100"}}));
  EXPECT_DOUBLE_EQ(r.Jct(2), 140);
  EXPECT_DOUBLE_EQ(r.Jct(1), 350);
}

TEST(Tiresias, AttainedServiceCountsGpus) {
  // Four GPUs, threshold 100 GPU-s: a 4-GPU job is demoted after 25 s of running.
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(4).Submit(1).Duration(10).Build()},
                       kFourGpus, Request("tiresias", {{"thresholds", "100"}}));
  EXPECT_DOUBLE_EQ(r.Start(2), 25);
  EXPECT_DOUBLE_EQ(r.Jct(2), 34);   // 25 -> 35.
  EXPECT_DOUBLE_EQ(r.Jct(1), 110);  // 25 s done, 75 left from 35.
}

TEST(Tiresias, NoPreemptionWithinAQueueAndFifoByQueueEntry) {
  // One GPU, threshold 100. J1 runs 0-100 in queue 0 and is demoted at 100; J2
  // (arrived at 50, queue 0) runs from 100. At 200 J2 is demoted too, into the queue
  // where J1 waits with an earlier entry time; but running jobs stay ahead within a
  // queue, so J2 runs on to 250. J1 then runs 250-450.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(300).Build(),
                        JobBuilder(2).Gpus(1).Submit(50).Duration(150).Build()},
                       kOneGpu, Request("tiresias", {{"thresholds", "100"}}));
  EXPECT_DOUBLE_EQ(r.Jct(2), 200);  // 100 -> 250 without interruption.
  EXPECT_EQ(r.jobs.at(2).preemptions, 0);
  EXPECT_DOUBLE_EQ(r.Jct(1), 450);
}

TEST(Compat, NonPreemptivePoliciesStayNonPreemptiveUnderCompatMuri) {
  PolicyRequest req = Request("fifo");
  req.compat = CompatMode::kMuri;
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(4).Submit(10).Duration(20).Build()},
                       kFourGpus, req);
  EXPECT_EQ(r.summary.preemptions, 0);
  // Compat muri runs jobs 1.015x their solo time: J1 ends at 101.5, J2 at 101.5 + 20.3.
  EXPECT_NEAR(r.Jct(2), 111.8, 1e-9);
}

TEST(Modular, RejectsJobsLargerThanTheCluster) {
  auto r = RunScenario({JobBuilder(1).Gpus(8).Submit(0).Duration(10).Build(),
                        JobBuilder(2).Gpus(2).Submit(0).Duration(10).Build()},
                       kFourGpus, Request("fifo"));
  EXPECT_EQ(r.jobs.at(1).outcome, RecordedJob::Outcome::kRejected);
  EXPECT_EQ(r.summary.rejected, 1);
  EXPECT_EQ(r.summary.jobs, 1);
}

TEST(Modular, PriorityPreemptionKeepsUnneededVictimsRunning) {
  // Two 2-GPU nodes, best-fit. J1, J2 (2 GPUs, long) fill the cluster. J3 (1 GPU,
  // short) arrives: SRTF chooses J3 and the shorter-remaining of J1/J2 by count; the
  // preempted one frees a whole node, so exactly one preemption happens.
  const ClusterSpec two_nodes = ClusterSpec::Uniform(1, 2, 2, 0, 0);
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(2).Submit(0).Duration(200).Build(),
                        JobBuilder(3).Gpus(1).Submit(10).Duration(10).Build()},
                       two_nodes, Request("srtf"));
  EXPECT_EQ(r.summary.preemptions, 1);
  EXPECT_EQ(r.jobs.at(2).preemptions, 1);
  EXPECT_DOUBLE_EQ(r.Jct(3), 10);
  EXPECT_DOUBLE_EQ(r.Jct(1), 100);
}

TEST(Admission, LoadBasedHoldsJobsUntilDemandDrops) {
  // threshold 1.0 on 4 GPUs, stopping before the crossing job: J2 (4 GPUs) is admitted
  // only when J1 finishes, so the later, smaller J3 (admitted behind J2, FIFO admission)
  // cannot overtake it.
  PolicyRequest req =
      Request("fifo", {{"admission.threshold", "1.0"}, {"admission.admit_crossing", "false"}});
  req.admission = "load-based";
  auto r = RunScenario({JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                        JobBuilder(2).Gpus(4).Submit(1).Duration(10).Build(),
                        JobBuilder(3).Gpus(1).Submit(2).Duration(10).Build()},
                       kFourGpus, req);
  EXPECT_DOUBLE_EQ(r.Start(2), 100);
  EXPECT_DOUBLE_EQ(r.Start(3), 110);
}

// threshold 0.5 on 4 GPUs: the limit is 2 GPUs. J1 (1 GPU, 100 s) at 0, J2 (2 GPUs, 10 s)
// at 1, J3 (1 GPU, 10 s) at 2.
//   Blox (default, the crossing job is admitted): at 1 the demand is 1 <= 2, so J2 is
//     admitted (demand 3) and starts at once on the 3 free GPUs; at 2 the demand is
//     3 > 2, J3 waits; J2 ends at 11, the demand drops to 1, J3 is admitted and starts.
//   admit_crossing=false: J2 would make it 3 > 2, so J2 and J3 (no skipping) wait until
//     J1 ends at 100; J2 runs 100-110 (demand 2, J3 would make 3); J3 starts at 110.
TEST(Admission, LoadBasedAdmitsTheCrossingJobAsBloxDoes) {
  const std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(1).Submit(0).Duration(100).Build(),
                                     JobBuilder(2).Gpus(2).Submit(1).Duration(10).Build(),
                                     JobBuilder(3).Gpus(1).Submit(2).Duration(10).Build()};
  PolicyRequest blox = Request("fifo", {{"admission.threshold", "0.5"}});
  blox.admission = "load-based";
  auto r = RunScenario(jobs, kFourGpus, blox);
  EXPECT_DOUBLE_EQ(r.Start(2), 1);
  EXPECT_DOUBLE_EQ(r.Start(3), 11);

  PolicyRequest stop_before = blox;
  stop_before.options["admission.admit_crossing"] = "false";
  r = RunScenario(jobs, kFourGpus, stop_before);
  EXPECT_DOUBLE_EQ(r.Start(2), 100);
  EXPECT_DOUBLE_EQ(r.Start(3), 110);
}

// The backfill walk over the queue's parts by GPU demand (issue 20) and Tiresias' running
// jobs kept in key order between demotions.
// J1 and J2 (2 GPUs each) fill 4 GPUs at 0; queued behind them, in SJF order: J5 (4 GPUs,
// 5 s), J4 (2 GPUs, 10 s), J3 (1 GPU, 500 s).
std::vector<JobSpec> FourClassesQueued() {
  return {JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
          JobBuilder(2).Gpus(2).Submit(0).Duration(1000).Build(),
          JobBuilder(3).Gpus(1).Submit(1).Duration(500).Build(),
          JobBuilder(4).Gpus(2).Submit(2).Duration(10).Build(),
          JobBuilder(5).Gpus(4).Submit(3).Duration(5).Build()};
}

const ClusterSpec kTwoGpusOneNode = ClusterSpec::Uniform(1, 1, 2, 0, 0);

TEST(BackfillWalk, TriesJobsInQueueOrderAcrossDemandClasses) {
  // SJF (no preemption). At 100 J1 ends: 2 free. J5 cannot fit; J4, ahead of J3 in the
  // queue, takes both GPUs (walking the 1-GPU jobs first would have started J3 and left
  // J4 waiting).
  // At 110 J4 ends: J5 still cannot fit, J3 starts (110-610). At 1000 J2 ends: J5 runs.
  auto r = RunScenario(FourClassesQueued(), kFourGpus, Request("sjf"));
  EXPECT_DOUBLE_EQ(r.Start(4), 100);
  EXPECT_DOUBLE_EQ(r.Start(3), 110);
  EXPECT_DOUBLE_EQ(r.Start(5), 1000);
  EXPECT_DOUBLE_EQ(r.Jct(5), 1002);  // 1000 -> 1005, submitted at 3.
}

TEST(BackfillWalk, WithoutBackfillTheFirstMisfitStillBlocks) {
  // The same jobs with backfill=false: at 100 J5 (first in the queue) does not fit, so
  // nobody starts. At 1000 J5 takes all 4 GPUs; at 1005 J4 and J3 start together.
  auto r = RunScenario(FourClassesQueued(), kFourGpus, Request("sjf", {{"backfill", "false"}}));
  EXPECT_DOUBLE_EQ(r.Start(5), 1000);
  EXPECT_DOUBLE_EQ(r.Start(4), 1005);
  EXPECT_DOUBLE_EQ(r.Start(3), 1005);
}

TEST(TiresiasIndex, ADemotedRunningJobIsPreemptedFirst) {
  // Two GPUs, threshold 100 GPU-s. J1 (from 0) and J2 (from 50) run. J1 is demoted at
  // 100, while nobody waits: the policy sleeps through it, and the decision at J3's
  // arrival (120) re-keys it first (queue 1). J3 arrives in queue 0 and outranks only
  // J1, which it preempts; J2 (queue 0 until 150) keeps running. J3 runs 120-140; J1,
  // 120 s done, resumes at 140 and ends at 320; J2 ends at 350.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(300).Build(),
                        JobBuilder(2).Gpus(1).Submit(50).Duration(300).Build(),
                        JobBuilder(3).Gpus(1).Submit(120).Duration(20).Build()},
                       kTwoGpusOneNode, Request("tiresias", {{"thresholds", "100"}}));
  EXPECT_DOUBLE_EQ(r.Start(3), 120);
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);
  EXPECT_EQ(r.jobs.at(2).preemptions, 0);
  EXPECT_DOUBLE_EQ(r.Jct(1), 320);
  EXPECT_DOUBLE_EQ(r.Jct(2), 300);
}

// Demotions while nobody waits cannot reorder anything: the policy is not woken for
// them (issue 20: at 80-89 % nearly every demotion comes so, about 45 % of the events),
// and re-reads the keys of the jobs demoted meanwhile at the next decision.
TEST(TiresiasIndex, DemotionsWhileNobodyWaitsCostNoWakeups) {
  // Two GPUs, thresholds 100 and 200 GPU-s: J1 (1 GPU, 300 s) runs alone and is demoted
  // twice, at 100 and 200. Its arrival and its completion are the only events.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(300).Build()},
                       kTwoGpusOneNode, Request("tiresias", {{"thresholds", "100:200"}}));
  EXPECT_DOUBLE_EQ(r.Jct(1), 300);
  EXPECT_EQ(r.summary.events, 2);
}

TEST(TiresiasIndex, DemotionsSleptThroughAreReadAtTheNextDecision) {
  // Two GPUs, thresholds 100 and 200. J1 (from 0) and J2 (from 10) run with nobody
  // waiting: J1 reaches queue 2 at 200, J2 at 210, unseen. J3 (queue 0) arrives at 250
  // and outranks both; the decision reads their keys first: (queue 2, entered at 200)
  // and (queue 2, entered at 210), so J2, behind, is preempted (240 s done). J3 runs
  // 250-270; J2 resumes at 270 and ends at 1,030. Events: three arrivals and three
  // completions (the four demotions woke nobody).
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(1000).Build(),
                        JobBuilder(2).Gpus(1).Submit(10).Duration(1000).Build(),
                        JobBuilder(3).Gpus(1).Submit(250).Duration(20).Build()},
                       kTwoGpusOneNode, Request("tiresias", {{"thresholds", "100:200"}}));
  EXPECT_DOUBLE_EQ(r.Start(3), 250);
  EXPECT_EQ(r.jobs.at(1).preemptions, 0);
  EXPECT_EQ(r.jobs.at(2).preemptions, 1);
  EXPECT_DOUBLE_EQ(r.Jct(1), 1000);
  EXPECT_DOUBLE_EQ(r.Jct(2), 1020);
  EXPECT_DOUBLE_EQ(r.Jct(3), 20);
  EXPECT_EQ(r.summary.events, 6);
}

TEST(TiresiasIndex, ARestartedJobIsWokenAtItsNextDemotion) {
  // One GPU, thresholds 100 and 200. J1 and J2 (1,000 s each) arrive at 0; J1 runs
  // (FIFO). At 100 J1 drops to queue 1 and J2 preempts it; J2 drops to queue 1 at 200
  // and keeps running (running jobs stay ahead within a queue). J3 (queue 0, 50 s)
  // arrives at 250 and preempts J2 (150 GPU-s). At 300 J1 (queue 1 since 100) resumes
  // before J2 (since 200) with 100 GPU-s: its next demotion is at 300 + 100 = 400, not
  // at 200 as its first run foresaw. At 400 J2 outranks it and runs from 400 (150 GPU-s),
  // is demoted at 450 and runs on to its end at 1,250; J1 ends at 1,250 + 800 = 2,050.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(1000).Build(),
                        JobBuilder(2).Gpus(1).Submit(0).Duration(1000).Build(),
                        JobBuilder(3).Gpus(1).Submit(250).Duration(50).Build()},
                       kOneGpu, Request("tiresias", {{"thresholds", "100:200"}}));
  EXPECT_DOUBLE_EQ(r.Start(3), 250);
  EXPECT_DOUBLE_EQ(r.Jct(3), 50);
  EXPECT_EQ(r.jobs.at(1).preemptions, 2);
  EXPECT_EQ(r.jobs.at(2).preemptions, 1);
  EXPECT_DOUBLE_EQ(r.Jct(2), 1250);
  EXPECT_DOUBLE_EQ(r.Jct(1), 2050);
}

}  // namespace
}  // namespace schedkit::testing
