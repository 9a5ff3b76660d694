// The optimus policy on hand-computed scenarios. Scaling curve: step(w) = 1 + 0.25 (w - 1)
// s, so a job asking for 1 GPU runs 1.6x as fast on 2, 2x on 3 and 16/7x on 4
// (schedkit/scaling.h). No restart overhead; the timings are worked out in the comments.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "schedkit/run.h"
#include "schedkit/scaling.h"
#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

const ClusterSpec kFourGpus = ClusterSpec::Uniform(1, 1, 4, 0, 0);

struct OptimusRun {
  std::map<JobId, RecordedJob> jobs;
  Summary summary;
  double Jct(JobId id) const { return jobs.at(id).jct_s(); }
};

OptimusRun RunOptimus(std::vector<JobSpec> jobs, std::map<std::string, std::string> options = {},
                      double overhead_s = 0) {
  Trace trace;
  trace.jobs = std::move(jobs);
  SimulatorOptions sim;
  sim.scaling = std::make_shared<ScalingModel>(StepTimeCurve{1, 0.25});
  sim.overheads = RestartOverheads(overhead_s);
  Result<RunOutput> run = RunSimulation(trace, kFourGpus, Request("optimus", options), sim);
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.status().message());
  OptimusRun out;
  if (!run.ok()) return out;
  out.summary = run->summary;
  for (const RecordedJob& r : run->recorder->Jobs()) out.jobs[r.id] = r;
  return out;
}

TEST(Optimus, SrtfOrderThenLeftoverGpusRoundRobinToElasticJobs) {
  // J1 elastic 1..4 GPUs, 160 s; J2 rigid 2 GPUs, 100 s; both at 0. J3 elastic 1..3, 60 s,
  // at 50.
  //  t=0:  order J2 (100 left), J1 (160). J2 gets 2, J1 1; the leftover GPU goes round-robin
  //        to elastic jobs only: J1 -> 2 GPUs, speed 1.6.
  //  t=50: J1 has 160 - 80 = 80 left, J2 50, J3 60. Order J2, J3, J1: 2 + 1 + 1 = 4 GPUs,
  //        nothing left over; J1 shrinks to 1 GPU (a restart), speed 1.
  //  t=100: J2 ends. J3 has 10 left, J1 30. Order J3, J1, 1 GPU each; the 2 left over go
  //        one to each: both on 2 GPUs, speed 1.6. J3 ends at 100 + 10 / 1.6 = 106.25.
  //  t=106.25: J1 has 30 - 10 = 20 left, alone: 4 GPUs (its max), speed 16/7, ends at
  //        106.25 + 20 x 7/16 = 115.
  OptimusRun r = RunOptimus({JobBuilder(1).Gpus(1).MaxGpus(4).Duration(160).Build(),
                             JobBuilder(2).Gpus(2).Duration(100).Build(),
                             JobBuilder(3).Gpus(1).MaxGpus(3).Submit(50).Duration(60).Build()});
  EXPECT_DOUBLE_EQ(r.Jct(2), 100);
  EXPECT_DOUBLE_EQ(r.Jct(3), 56.25);
  EXPECT_DOUBLE_EQ(r.Jct(1), 115);
  // J1 restarted at 50 (2 -> 1 GPUs), 100 (1 -> 2) and 106.25 (2 -> 4); J3 at 100 (1 -> 2).
  EXPECT_EQ(r.jobs.at(1).preemptions, 3);
  EXPECT_EQ(r.jobs.at(2).preemptions, 0);
  EXPECT_EQ(r.jobs.at(3).preemptions, 1);
  EXPECT_EQ(r.jobs.at(1).placement, "n0:0-3");
}

TEST(Optimus, RestartOverheadIsPaidOnEveryResize) {
  // One elastic job (1..2 GPUs, 32 s) at 0 and a rigid 3-GPU job (10 s) at 5, overhead 2 s
  // per start. J1: 2 GPUs from 0, working from 2 at 1.6: at 5 it has 32 - 4.8 = 27.2 left.
  // J2 (10 s, ahead) takes 3 GPUs, J1 shrinks to 1: J2 works 7..17, ends at 17; J1 works
  // from 7 at 1, has 17.2 left at 17, grows to 2 GPUs, works from 19 at 1.6: ends at
  // 19 + 10.75 = 29.75.
  OptimusRun r = RunOptimus({JobBuilder(1).Gpus(1).MaxGpus(2).Duration(32).Build(),
                             JobBuilder(2).Gpus(3).Submit(5).Duration(10).Build()},
                            {}, /*overhead_s=*/2);
  EXPECT_DOUBLE_EQ(r.Jct(2), 12);
  EXPECT_DOUBLE_EQ(r.Jct(1), 29.75);
}

TEST(Optimus, PriorityComesBeforeRemainingTimeAndNoBackfill) {
  // J1 (3 GPUs, 50 s, priority 1) is ahead of the shorter J2 (2 GPUs, 10 s); J2 does not fit
  // beside it and, without backfill, neither does J3 (1 GPU, 20 s) behind it: J3 waits
  // until 50, then J2 and J3 run together (J3 grown to 2 GPUs: 20 / 1.6 = 12.5).
  std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(3).Priority(1).Duration(50).Build(),
                               JobBuilder(2).Gpus(2).Duration(10).Build(),
                               JobBuilder(3).Gpus(1).MaxGpus(2).Duration(20).Build()};
  OptimusRun r = RunOptimus(jobs);
  EXPECT_DOUBLE_EQ(r.Jct(1), 50);
  EXPECT_DOUBLE_EQ(r.Jct(2), 60);
  EXPECT_DOUBLE_EQ(r.Jct(3), 62.5);
  // With backfill J3 runs beside J1 from 0 on the one GPU left.
  OptimusRun b = RunOptimus(jobs, {{"backfill", "true"}});
  EXPECT_DOUBLE_EQ(b.Jct(3), 20);
  // Without priorities, SRTF alone: J2 (10 s) first.
  OptimusRun p = RunOptimus(jobs, {{"use_priority", "false"}});
  EXPECT_LT(p.Jct(2), 50);
}

TEST(Optimus, RefusesABadOption) {
  PolicyRequest request = Request("optimus", {{"backfill", "maybe"}});
  Result<std::unique_ptr<Policy>> p = MakePolicy(request);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("backfill"), std::string::npos) << p.status().message();
}

}  // namespace
}  // namespace schedkit::testing
