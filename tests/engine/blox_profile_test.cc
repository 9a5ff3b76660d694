// `--compat blox` (issue 16): 300-s rounds, JCT to the end of the finishing round,
// first-fit placement with preemption from the tail of the order and no backfill, LAS
// on wall-seconds, no restart cost, and the measurement window. Times worked out in the
// comments.
#include <gtest/gtest.h>

#include "schedkit/compat.h"
#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

const ClusterSpec kTwoByTwo = ClusterSpec::Uniform(1, 2, 2, 0, 0);  // 4 GPUs, 2 nodes.

PolicyRequest BloxLas() {
  PolicyRequest r = Request("las");
  r.compat = CompatMode::kBlox;
  return r;
}

// Y: 4 GPUs, submit 0, 10,000 s. X: 1 GPU, submit 100, 500 s. Z: 1 GPU, submit 400, 400 s.
std::vector<JobSpec> ThreeJobs() {
  return {JobBuilder(0).Gpus(4).Submit(0).Duration(10000).Build(),
          JobBuilder(1).Gpus(1).Submit(100).Duration(500).Build(),
          JobBuilder(2).Gpus(1).Submit(400).Duration(400).Build()};
}

TEST(BloxProfile, RowSaysWhatItChanges) {
  const CompatProfile& p = ProfileFor(CompatMode::kBlox);
  EXPECT_EQ(p.decision_round_s, 300);
  EXPECT_EQ(p.end_round_s, 300);
  ASSERT_TRUE(p.measured.has_value());
  EXPECT_EQ(p.measured->first, 3000);
  EXPECT_EQ(p.measured->last, 4000);
  EXPECT_FALSE(p.restart_overheads);
  EXPECT_STREQ(p.default_placement, "first-fit");
  EXPECT_EQ(p.knobs.las_attained, AttainedService::kWallSeconds);
  EXPECT_TRUE(p.knobs.tail_preemption);
  EXPECT_EQ(p.progress, ProgressModel::kClean);
  // The clean row keeps the event-driven model.
  const CompatProfile& clean = ProfileFor(CompatMode::kNone);
  EXPECT_EQ(clean.decision_round_s, 0);
  EXPECT_EQ(clean.end_round_s, 0);
  EXPECT_FALSE(clean.measured.has_value());
  EXPECT_TRUE(clean.restart_overheads);
  EXPECT_FALSE(clean.knobs.tail_preemption);
  EXPECT_EQ(clean.knobs.las_attained, AttainedService::kGpuSeconds);
}

// Rounds at 0, 300, 600, ...; LAS keys are wall-seconds run, ties by submit time.
//    0  Y starts on all 4 GPUs.
//  300  X (submitted 100) is seen. Order X(0), Y(300). X finds no free GPU and stops Y,
//       the tail; X takes n0g0. Y (stopped) needs 4 of 3 free, nobody behind it: it waits.
//  600  Z (submitted 400) is seen. Order Z(0), Y(300, submit 0), X(300, submit 100).
//       Z takes n0g1. Y needs 4 of 2 free: X, behind it, is stopped; 3 free, still no
//       fit, and nobody else is behind: X's stop stands, the walk ends, and X is not
//       placed again although 3 GPUs are idle (no backfill).
//  900  Z's quantum. Order Y(300, s0), X(300, s100), Z(300, s400): Y stops Z and runs.
// 1200  Y's quantum. Order X(300), Z(300), Y(600): X stops Y, X and Z run; Y waits.
// 1300  Z has run 300 + 100 = 400 s: done; its GPU idles until 1500. JCT 1500 - 400.
// 1400  X has run 300 + 200 = 500 s: done. JCT 1500 - 100.
// 1500  Y runs its last 10,000 - 600 = 9,400 s: done at 10,900, in the round that ends
//       at 11,100. JCT 11,100.
TEST(BloxProfile, RoundsTailPreemptionNoBackfillJctToRoundEnd) {
  // The 10-s restart overhead is not paid: the profile has no restart cost.
  auto r = RunScenario(ThreeJobs(), kTwoByTwo, BloxLas(), /*overhead_s=*/10);
  EXPECT_DOUBLE_EQ(r.Start(0), 0);
  EXPECT_DOUBLE_EQ(r.Start(1), 300);  // Submitted at 100, seen at the round.
  EXPECT_DOUBLE_EQ(r.Start(2), 600);  // Submitted at 400.
  EXPECT_DOUBLE_EQ(r.jobs.at(2).end_s, 1500);
  EXPECT_DOUBLE_EQ(r.Jct(2), 1100);
  EXPECT_DOUBLE_EQ(r.jobs.at(1).end_s, 1500);
  EXPECT_DOUBLE_EQ(r.Jct(1), 1400);
  EXPECT_DOUBLE_EQ(r.Jct(0), 11100);
  EXPECT_DOUBLE_EQ(r.jobs.at(0).executed_s, 10000);  // No overhead paid.
  EXPECT_EQ(r.jobs.at(0).preemptions, 2);             // At 300 and 1200.
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);             // At 600, for Y, which never fit.
  EXPECT_EQ(r.jobs.at(2).preemptions, 1);             // At 900.
}

// The same jobs without the profile: decisions at events, exact JCTs, LAS on GPU-seconds
// and the clean mechanism (which backfills): X and Z start as soon as they arrive.
TEST(BloxProfile, WithoutTheProfileArrivalsAreSeenAtOnce) {
  auto r = RunScenario(ThreeJobs(), kTwoByTwo, Request("las"));
  EXPECT_DOUBLE_EQ(r.Start(1), 100);
  EXPECT_DOUBLE_EQ(r.Start(2), 400);
}

// The measurement window: only ids 1..2 count; `jobs` says how many finished.
TEST(BloxProfile, MeasurementWindowAlone) {
  Trace trace;
  trace.jobs = ThreeJobs();
  SimulatorOptions options;
  options.overheads = RestartOverheads(0);
  options.measured = MeasuredJobs{1, 2};
  PolicyRequest request = BloxLas();
  Result<RunOutput> run = RunSimulation(trace, kTwoByTwo, request, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->summary.jobs, 2);
  EXPECT_DOUBLE_EQ(run->summary.avg_jct_s, (1400 + 1100) / 2.0);
  EXPECT_EQ(run->summary.preemptions, 2);
  EXPECT_DOUBLE_EQ(run->summary.makespan_s, 11100);  // The whole run's.
  // The profile's own window (3000-4000) holds none of these jobs.
  options.measured.reset();
  run = RunSimulation(trace, kTwoByTwo, request, options);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->summary.jobs, 0);
  // Usable without the profile: an event-driven run over job 0 only.
  options.measured = MeasuredJobs{0, 0};
  run = RunSimulation(trace, kTwoByTwo, Request("fifo"), options);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->summary.jobs, 1);
  EXPECT_DOUBLE_EQ(run->summary.avg_jct_s, 10000);
}

// The engine's cadence alone (the simulator, without the profile's metrics): a
// completion mid-round frees its GPUs at once, but the policy hears of it, and starts the
// next job, at the round's end.
TEST(BloxProfile, EngineRoundsDelayDecisionsNotCompletions) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Gpus(4).Submit(0).Duration(100).Build(),
                JobBuilder(1).Gpus(4).Submit(50).Duration(100).Build()};
  SimulatorOptions options;
  options.decision_round_s = 300;
  Result<std::unique_ptr<Policy>> policy = MakePolicy(Request("fifo"));
  ASSERT_TRUE(policy.ok());
  MetricsRecorder recorder(&trace);
  Simulator sim(&trace, &kTwoByTwo, options);
  sim.AddObserver(&recorder);
  ASSERT_TRUE(sim.Run(policy->get()).ok());
  EXPECT_DOUBLE_EQ(recorder.job(0).end_s, 100);  // Exact: the recorder does not round.
  EXPECT_DOUBLE_EQ(recorder.job(1).first_start_s, 300);
  EXPECT_DOUBLE_EQ(recorder.job(1).end_s, 400);
  EXPECT_EQ(sim.stats().end_time, 600);  // The decision that hears of job 1's end.
  EXPECT_EQ(sim.stats().decisions, 3);   // At 0, 300 and 600.

  options.decision_round_s = -1;
  Simulator bad(&trace, &kTwoByTwo, options);
  EXPECT_FALSE(bad.Run(policy->get()).ok());
}

}  // namespace
}  // namespace schedkit::testing
