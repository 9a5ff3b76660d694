#include "schedkit/simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

#include "engine/event_queue.h"
#include "schedkit/metrics.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"
#include "sim_test_util.h"
#include "test_files.h"

namespace schedkit::testing {
namespace {

// The simulator drops stale events from anywhere in its queue once they pile up
// (DropStaleEvents): the rest must pop in the order they would have, ties in time
// included, whenever the drop comes.
TEST(EventQueue, DroppingEventsKeepsTheOrderTheRestPopIn) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> time(0, 50);  // Many ties: seq decides them.
  EventQueue all, dropped;
  std::vector<std::tuple<Time, uint64_t, int32_t>> expected, got;
  auto keep = [](const TimedEvent& e) { return e.job % 3 != 0; };
  for (int32_t job = 0; job < 3000; ++job) {
    const Time t = time(rng);
    all.Push(t, job, 0);
    dropped.Push(t, job, 0);
    if (job % 500 == 499) dropped.DropIf([&](const TimedEvent& e) { return !keep(e); });
  }
  dropped.DropIf([&](const TimedEvent& e) { return !keep(e); });
  for (; !all.empty(); all.Pop()) {
    if (keep(all.top())) expected.emplace_back(all.top().time, all.top().seq, all.top().job);
  }
  for (; !dropped.empty(); dropped.Pop()) {
    got.emplace_back(dropped.top().time, dropped.top().seq, dropped.top().job);
  }
  EXPECT_EQ(got.size(), 2000u);
  EXPECT_EQ(got, expected);
}

// A policy that does something illegal, to check the engine refuses it.
class DoubleBooker final : public Policy {
 public:
  std::string_view Name() const override { return "double-booker"; }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    for (JobId id : events.arrived) {
      Placement p;
      p.shares.push_back(NodeShare{.node = 0, .gpu_mask = 0b1});  // Always GPU 0 of node 0.
      out->start.push_back(StartDecision{id, p});
    }
  }
};

// A job's restart overhead is its model's at its GPU count, else the default: the
// model looked up by a view of the name (no key built), the count within it.
TEST(RestartOverheads, ForReadsTheModelThenTheGpuCountElseTheDefault) {
  RestartOverheads overheads(7);
  EXPECT_EQ(overheads.For("resnet", 2), 7);  // An empty table.
  overheads.Set("resnet", 2, 30);
  overheads.Set("resnet", 4, 40);
  overheads.Set("bert", 2, 50);
  overheads.Set("resnet", 2, 31);  // Set again: replaced.
  EXPECT_EQ(overheads.For("resnet", 2), 31);
  EXPECT_EQ(overheads.For("resnet", 4), 40);
  EXPECT_EQ(overheads.For("resnet", 8), 7);
  EXPECT_EQ(overheads.For("bert", 2), 50);
  EXPECT_EQ(overheads.For("bert", 4), 7);
  EXPECT_EQ(overheads.For("gpt", 2), 7);
  EXPECT_EQ(overheads.For(std::string_view("resnet50").substr(0, 6), 4), 40);
  EXPECT_EQ(overheads.For("resnet50", 4), 7);
}

TEST(Simulator, RefusesAPolicyThatDoubleBooksAGpu) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Submit(0).Duration(10).Build(),
                JobBuilder(2).Submit(1).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  DoubleBooker policy;
  Status st = sim.Run(&policy);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("double-booker"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("busy"), std::string::npos) << st.message();
}

TEST(Simulator, RefusesConflictingDecisionsWithoutApplyingAny) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 4, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Submit(0).Duration(10).Build(),
                JobBuilder(2).Submit(0).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  EventBatch batch;
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  auto gpu = [](uint64_t mask) { return Placement{{NodeShare{.node = 0, .gpu_mask = mask}}}; };
  Decisions twice;
  twice.start = {{1, gpu(0b01)}, {1, gpu(0b10)}};
  EXPECT_FALSE(sim.Apply(twice).ok());
  Decisions reject_and_start;
  reject_and_start.reject = {2};
  reject_and_start.start = {{2, gpu(0b01)}};
  EXPECT_FALSE(sim.Apply(reject_and_start).ok());
  Decisions bad_wake;
  bad_wake.start = {{1, gpu(0b01)}};
  bad_wake.wake_at = 0;
  EXPECT_FALSE(sim.Apply(bad_wake).ok());
  Decisions wrong_size;
  wrong_size.start = {{1, gpu(0b11)}};
  EXPECT_FALSE(sim.Apply(wrong_size).ok());
  // Nothing of the refused decisions was applied.
  EXPECT_TRUE(sim.view().RunningJobs().empty());
  EXPECT_EQ(sim.view().PendingJobs(), (std::vector<JobId>{1, 2}));
  EXPECT_EQ(sim.view().Resources().total_free_gpus(), 4);
}

// Regression: a sub-second job late in a long trace (issue 2 review: trace3 on the tiny
// cluster, job 709 at t ~ 3e7 s) left a few ulps of the clock as "work" at its own
// completion event, and the invariant check aborted.
TEST(Simulator, TinyJobsLateInALongTraceComplete) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 200; ++i) {
    jobs.push_back(JobBuilder(i).Gpus(1).Submit(3.3e7 + i * 0.7071).Duration(0.957 + i * 1e-3).Build());
  }
  auto r = RunScenario(jobs, ClusterSpec::Uniform(1, 1, 1, 0, 0), Request("fifo"), 30);
  EXPECT_EQ(r.summary.jobs, 200);
  EXPECT_NEAR(r.Jct(0), 30 + 0.957, 1e-6);
}

// Issue 21 (found again by fuzz/corpus/trace/huge_submit_times.csv): a valid trace with
// submit times of 1e15-1e16 s aborted on "finished faster than its solo runtime", the
// clock's resolution there being a second or more. Times past 2^32 s are refused with the
// reason; up to 2^32 s a one-second job still runs one second.
TEST(Simulator, Issue21TimesPastTheClocksResolutionAreRefusedNotAborted) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  for (double submit : {1e15, 1e16, 4294967296.0 * 1.0000001}) {
    Trace trace;
    trace.jobs = {JobBuilder(1).Gpus(1).Submit(submit).Duration(1).Build()};
    Result<RunOutput> run = RunSimulation(trace, cluster, Request("fifo"), SimulatorOptions());
    ASSERT_FALSE(run.ok()) << submit;
    EXPECT_NE(run.status().message().find("job 1: submit_s"), std::string::npos)
        << run.status().message();
    EXPECT_NE(run.status().message().find("2^32 s"), std::string::npos);
  }
  Trace long_job;
  long_job.jobs = {JobBuilder(2).Gpus(1).Submit(0).Duration(1e300).Build()};
  Result<RunOutput> run = RunSimulation(long_job, cluster, Request("fifo"), SimulatorOptions());
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("job 2: solo runtime"), std::string::npos)
      << run.status().message();

  auto last = RunScenario({JobBuilder(3).Gpus(1).Submit(4294967295.0).Duration(1).Build()},
                          cluster, Request("fifo"));
  EXPECT_EQ(last.Jct(3), 1);
}

TEST(Simulator, StepInterfaceDrivesAPolicyLikeRun) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 4, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Gpus(4).Submit(0).Duration(100).Build(),
                JobBuilder(2).Gpus(4).Submit(10).Duration(20).Build()};
  PolicyRequest req;
  req.policy = "srtf";
  auto policy = MakePolicy(req);
  ASSERT_TRUE(policy.ok());
  Simulator sim(&trace, &cluster, SimulatorOptions());
  MetricsRecorder rec(&trace);
  sim.AddObserver(&rec);
  EventBatch batch;
  std::vector<Time> decision_times;
  while (sim.NextDecisionPoint(&batch)) {
    decision_times.push_back(sim.view().Now());
    Decisions d;
    (*policy)->Decide(sim.view(), batch, &d);
    ASSERT_TRUE(sim.Apply(d).ok());
  }
  EXPECT_EQ(decision_times, (std::vector<Time>{0, 10, 30, 120}));
  EXPECT_DOUBLE_EQ(rec.job(0).end_s, 120);
}

TEST(Simulator, ViewReportsLiveProgressOfRunningJobs) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Gpus(2).Submit(0).Duration(100).Build(),
                JobBuilder(2).Gpus(1).Submit(30).Duration(10).Build()};
  SimulatorOptions options;
  options.overheads = RestartOverheads(4);
  Simulator sim(&trace, &cluster, options);
  PolicyRequest req;
  req.policy = "fifo";
  auto policy = MakePolicy(req);
  EventBatch batch;
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  Decisions d;
  (*policy)->Decide(sim.view(), batch, &d);
  ASSERT_TRUE(sim.Apply(d).ok());
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));  // t = 30: J2 arrives.
  const JobStatus s = sim.view().Status(1);
  EXPECT_EQ(s.state, JobState::kRunning);
  EXPECT_DOUBLE_EQ(s.executed_s, 30);
  EXPECT_DOUBLE_EQ(s.attained_gpu_s, 60);
  EXPECT_DOUBLE_EQ(s.remaining_s, 100 - (30 - 4));  // The first 4 s were overhead.
  EXPECT_EQ(sim.view().PendingJobs(), std::vector<JobId>{2});
  // A placement exactly while running (view.h), the same through PlacementOf.
  ASSERT_NE(s.placement, nullptr);
  ASSERT_NE(sim.view().PlacementOf(1), nullptr);
  EXPECT_EQ(*sim.view().PlacementOf(1), *s.placement);
  EXPECT_EQ(s.placement->gpus(), 2);
  EXPECT_EQ(sim.view().Status(2).placement, nullptr);
  EXPECT_EQ(sim.view().PlacementOf(2), nullptr);
}


TEST(Simulator, EveryPolicyGivesByteIdenticalOutputsForTheSameInputs) {
  GeneratorConfig gen;
  gen.num_jobs = 400;
  gen.jobs_per_hour = 8;
  gen.seed = 7;
  auto trace = GenerateTrace(gen);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 8, 0, 0);
  const std::string dir = ::testing::TempDir() + "/determinism";
  std::filesystem::create_directories(dir);
  for (const auto& policy : BuiltinRegistries().policies.entries()) {
    if (TooSlowForEveryPolicyLoops(policy.name)) continue;
    std::string outputs[2];
    for (int run = 0; run < 2; ++run) {
      SimulatorOptions options;
      options.overheads = RestartOverheads(10);
      auto out = RunSimulation(*trace, cluster, Request(policy.name), options);
      ASSERT_TRUE(out.ok()) << out.status().message();
      EXPECT_EQ(out->summary.jobs, 400) << policy.name;
      ASSERT_TRUE(WriteJobsCsv(*out->recorder, dir + "/jobs.csv").ok());
      ASSERT_TRUE(WriteTimeSeriesCsv(*out->recorder, dir + "/ts.csv").ok());
      outputs[run] = ReadFile(dir + "/jobs.csv") + ReadFile(dir + "/ts.csv");
    }
    EXPECT_EQ(outputs[0], outputs[1]) << policy.name;
    EXPECT_GT(outputs[0].size(), 1000u) << policy.name;
  }
}

TEST(Simulator, InvariantsHoldOnAGeneratedTraceForEveryPolicyAndPlacement) {
  GeneratorConfig gen;
  gen.num_jobs = 300;
  gen.jobs_per_hour = 6;
  gen.seed = 3;
  auto generated = GenerateTrace(gen);
  ASSERT_TRUE(generated.ok());
  const ClusterSpec cluster = ClusterSpec::Uniform(2, 2, 8, 64, 512);
  for (const auto& policy : BuiltinRegistries().policies.entries()) {
    if (TooSlowForEveryPolicyLoops(policy.name)) continue;
    std::vector<std::string> placements;
    for (const auto& placement : BuiltinRegistries().placements.entries()) {
      // Of the six GPU-sharing modules, which differ only in their scores (tested in
      // tests/sharing/placement_modules_test.cc), the two with machinery of their own:
      // fragmentation (fgd) and the view's pod kinds (fgd-clustering).
      const std::string& name = placement.name;
      if (name.rfind("fgd", 0) == 0 && name != "fgd" && name != "fgd-clustering") continue;
      placements.push_back(name);
    }
    // A policy that takes no placement module places jobs itself (antman).
    if (!policy.takes_placement) placements = {""};
    for (const std::string& placement_name : placements) {
      PolicyRequest req;
      req.policy = policy.name;
      req.placement = placement_name;
      SimulatorOptions options;
      options.overheads = RestartOverheads(20);
      auto out = RunSimulation(*generated, cluster, req, options);
      ASSERT_TRUE(out.ok()) << policy.name << "/" << placement_name;
      EXPECT_EQ(out->summary.jobs, 300) << policy.name << "/" << placement_name;
      EXPECT_GT(out->summary.gpu_utilization, 0);
      EXPECT_LE(out->summary.gpu_utilization, 1 + 1e-9);
      ExpectJobInvariants(*generated, *out->recorder);
    }
  }
}

}  // namespace
}  // namespace schedkit::testing
