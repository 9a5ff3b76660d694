// Simulator::Fork and SimulateFrom (schedkit/simulator.h).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "schedkit/metrics.h"
#include "schedkit/modular_policy.h"
#include "schedkit/run.h"
#include "schedkit/simulator.h"
#include "schedkit/trace.h"
#include "sim_test_util.h"
#include "test_files.h"

namespace schedkit::testing {
namespace {

// What a run leaves: jobs.csv, timeseries.csv and the engine's stats, as text.
std::string Outputs(const MetricsRecorder& recorder, const SimulationStats& stats,
                    const std::string& name) {
  const std::string jobs = TestTempPath(name + "_jobs.csv");
  const std::string series = TestTempPath(name + "_series.csv");
  EXPECT_TRUE(WriteJobsCsv(recorder, jobs).ok());
  EXPECT_TRUE(WriteTimeSeriesCsv(recorder, series).ok());
  char end[64];
  std::snprintf(end, sizeof(end), "%.17g", stats.end_time);
  return ReadFile(jobs) + ReadFile(series) + "events=" + std::to_string(stats.events) +
         " decisions=" + std::to_string(stats.decisions) +
         " preemptions=" + std::to_string(stats.preemptions) +
         " unfinished=" + std::to_string(stats.unfinished) + " end=" + end;
}

Trace BloxTrace(int64_t jobs, uint64_t seed) {
  GeneratorConfig g;
  g.num_jobs = jobs;
  g.jobs_per_hour = 6;  // About 1.5x the 16 GPUs' capacity: queues, preemptions.
  g.seed = seed;
  Result<Trace> t = GenerateTrace(g);
  EXPECT_TRUE(t.ok());
  return *t;
}

SimulatorOptions Options() {
  SimulatorOptions o;
  o.overheads = RestartOverheads(10);  // Restarts cost something: forks must carry it.
  return o;
}

// One straight run of `request` to the end; then the same run stepped by hand and forked
// before the first decision and after decisions 7, 40 and 100. Each fork, run to the end
// with the policy's clone and a copy of the original's recorder, must leave exactly the
// straight run's outputs; and so must the original, run on after the last fork.
void ExpectForksEndLikeTheStraightRun(const PolicyRequest& request, const Trace& trace,
                                      const ClusterSpec& cluster) {
  Result<std::unique_ptr<Policy>> straight_policy = MakePolicy(request);
  ASSERT_TRUE(straight_policy.ok()) << straight_policy.status().message();
  MetricsRecorder straight_rec(&trace);
  Simulator straight(&trace, &cluster, Options());
  straight.AddObserver(&straight_rec);
  ASSERT_TRUE(straight.Run(straight_policy->get()).ok());
  const std::string expected = Outputs(straight_rec, straight.stats(), "straight");
  ASSERT_GT(straight.stats().decisions, 100);

  Result<std::unique_ptr<Policy>> policy = MakePolicy(request);
  ASSERT_TRUE(policy.ok());
  MetricsRecorder rec(&trace);
  Simulator sim(&trace, &cluster, Options());
  sim.AddObserver(&rec);
  int forks = 0;
  auto fork_and_check = [&] {
    Result<SimulationFork> fork = sim.Fork(**policy);
    ASSERT_TRUE(fork.ok()) << fork.status().message();
    MetricsRecorder fork_rec = rec;  // The fork's own observer, caught up to the fork.
    fork->simulator->AddObserver(&fork_rec);
    ASSERT_TRUE(fork->simulator->Run(fork->policy.get()).ok());
    EXPECT_EQ(Outputs(fork_rec, fork->simulator->stats(), "fork"), expected)
        << "fork after " << sim.stats().decisions << " decisions";
    ++forks;
  };
  fork_and_check();  // Before anything happened.
  EventBatch batch;
  Decisions d;
  while (sim.NextDecisionPoint(&batch)) {
    d.Clear();
    (*policy)->Decide(sim.view(), batch, &d);
    ASSERT_TRUE(sim.Apply(d).ok());
    const int64_t k = sim.stats().decisions;
    if (k == 7 || k == 40 || k == 100) fork_and_check();
  }
  EXPECT_EQ(forks, 4);
  // The original, unaffected by its forks, ends as the straight run did. (Run from here
  // only finishes the stats: no event is left.)
  ASSERT_TRUE(sim.Run(policy->get()).ok());
  EXPECT_EQ(Outputs(rec, sim.stats(), "original"), expected);
}

// The outputs of a straight run of `request` (to tell a run that co-locates from one that
// does not).
std::string StraightRun(const PolicyRequest& request, const Trace& trace,
                        const ClusterSpec& cluster) {
  Result<std::unique_ptr<Policy>> policy = MakePolicy(request);
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  if (!policy.ok()) return "";
  MetricsRecorder rec(&trace);
  Simulator sim(&trace, &cluster, Options());
  sim.AddObserver(&rec);
  EXPECT_TRUE(sim.Run(policy->get()).ok());
  return Outputs(rec, sim.stats(), "plain");
}

TEST(Fork, ForkedRunsEndByteForByteLikeTheOriginal) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 4, 0, 0);
  const Trace trace = BloxTrace(80, 3);
  for (const char* name :
       {"fifo", "las", "srtf", "tiresias", "themis", "muri-s", "optimus", "gavel"}) {
    SCOPED_TRACE(name);
    ExpectForksEndLikeTheStraightRun(Request(name), trace, cluster);
  }
}

// Lucid with its tables: jobs of models A and B, whose pairs share GPUs at measured speeds
// (the forks must carry the co-location groups and the partners the policy keeps).
TEST(Fork, LucidForksWithItsSharingState) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 4, 0, 0);
  Trace trace = BloxTrace(80, 3);
  for (JobSpec& j : trace.jobs) {
    j.profile.model = j.id % 2 == 0 ? "A" : "B";
    j.profile.dataset = "D";
    j.profile.batch_size = 32;
    j.profile.gmem_mb = 1000;
  }
  const std::string colocate =
      ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,"
      "speed2\n0,B,D,1,32,0,0.5,A,D,1,32,0,0.8\n";
  PolicyRequest lucid = Request(
      "lucid", {{"share_scores", WriteTempFile("fork_single.csv",
                                               "model,dataset,batchsize,amp,label\nA,D,32,0,1\n"
                                               "B,D,32,0,1\n")},
                {"colocate", WriteTempFile("fork_colo.csv", colocate)}});
  ExpectForksEndLikeTheStraightRun(lucid, trace, cluster);
  // Not a trivial run: without its tables nobody shares, and the run differs.
  EXPECT_NE(StraightRun(lucid, trace, cluster), StraightRun(Request("lucid"), trace, cluster));
}

// AntMan: every third job opportunistic (trace priority 1), co-located as a guest on the
// guaranteed jobs' GPUs at the interleaved speed of their stage times.
TEST(Fork, AntManForksWithItsGuests) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 4, 0, 0);
  Trace trace = BloxTrace(80, 3);
  for (JobSpec& j : trace.jobs) {
    j.priority = j.id % 3 == 0 ? 1 : 0;
    j.iteration_time_s = 0.3;
    j.profile.stage_times_s = {0.1, 0.15, 0.05};
  }
  ExpectForksEndLikeTheStraightRun(Request("antman"), trace, cluster);
  // Not a trivial run: with every job guaranteed the run differs.
  Trace guaranteed = trace;
  for (JobSpec& j : guaranteed.jobs) j.priority = 0;
  EXPECT_NE(StraightRun(Request("antman"), trace, cluster),
            StraightRun(Request("antman"), guaranteed, cluster));
}

// The dynamic policy clones its current candidate and its round state (2 candidates and
// 1-h rounds keep the look-aheads cheap).
TEST(Fork, DynamicForksWithItsCurrentCandidate) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 4, 0, 0);
  const Trace trace = BloxTrace(80, 3);
  ExpectForksEndLikeTheStraightRun(Request("dynamic", {{"schedulings", "fifo,srtf"},
                                                       {"admissions", "accept-all"},
                                                       {"round_s", "3600"},
                                                       {"threads", "1"}}),
                                   trace, cluster);
  // With a forecast the clone also carries the window's arrivals.
  ExpectForksEndLikeTheStraightRun(Request("dynamic", {{"schedulings", "fifo,srtf"},
                                                       {"admissions", "accept-all"},
                                                       {"round_s", "3600"},
                                                       {"forecast", "recent"},
                                                       {"threads", "1"}}),
                                   trace, cluster);
}

// Every registered policy can be cloned (Simulator::Fork needs it), built with its default
// options.
TEST(Fork, EveryRegisteredPolicyClones) {
  for (const auto& entry : BuiltinRegistries().policies.entries()) {
    SCOPED_TRACE(entry.name);
    Result<std::unique_ptr<Policy>> policy = MakePolicy(Request(entry.name));
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    Result<std::unique_ptr<Policy>> copy = (*policy)->Clone();
    EXPECT_TRUE(copy.ok()) << copy.status().message();
  }
}

TEST(Fork, RefusedBetweenDecisionPointAndApply) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Submit(0).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
  EventBatch batch;
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  Result<SimulationFork> fork = sim.Fork(**fifo);
  ASSERT_FALSE(fork.ok());
  EXPECT_NE(fork.status().message().find("between NextDecisionPoint and Apply"), std::string::npos);
  ASSERT_TRUE(sim.Apply(Decisions()).ok());
  EXPECT_TRUE(sim.Fork(**fifo).ok());
}

// A policy that keeps the default Clone.
class Opaque final : public Policy {
 public:
  std::string_view Name() const override { return "opaque"; }
  void Decide(const ClusterView&, const EventBatch&, Decisions*) override {}
};

// A scheduling module that does not implement Clone (as a Python key).
class UncopyableKey final : public SchedulingModule {
 public:
  std::string_view Name() const override { return "uncopyable-key"; }
  PriorityKey Key(const JobStatus& job, Time) const override { return {job.spec->submit_s, 0, 0}; }
};

TEST(Fork, APolicyThatCannotBeClonedFailsTheForkNamingIt) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Submit(0).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  Opaque opaque;
  Result<SimulationFork> fork = sim.Fork(opaque);
  ASSERT_FALSE(fork.ok());
  EXPECT_EQ(fork.status().message(), "policy 'opaque' cannot be cloned");

  ModuleContext ctx;
  ModularPolicyConfig config;
  config.name = "mine";
  config.admission = BuiltinRegistries().admissions.Find("accept-all")->factory(ctx).value();
  config.placement = BuiltinRegistries().placements.Find("best-fit")->factory(ctx).value();
  config.scheduling = std::make_unique<UncopyableKey>();
  std::unique_ptr<Policy> mine = MakeModularPolicy(std::move(config));
  fork = sim.Fork(*mine);
  ASSERT_FALSE(fork.ok());
  EXPECT_EQ(fork.status().message(),
            "policy 'mine': scheduling module 'uncopyable-key' cannot be cloned");
}

// Lets `policy` decide the first decision point, then advances to the next one (the view
// is then at its time, its decisions not yet taken).
bool FirstDecisionThenNextPoint(Simulator* sim, Policy* policy, EventBatch* batch) {
  Decisions d;
  if (!sim->NextDecisionPoint(batch)) return false;
  policy->Decide(sim->view(), *batch, &d);
  return sim->Apply(d).ok() && sim->NextDecisionPoint(batch);
}

// One GPU. Job 0 (10,000 s) starts at 0; jobs 1-3 (100 s each) arrive at 100. Looking
// ahead from t = 100 (no overheads):
//  fifo: job 0 ends at 10,000, then 1, 2, 3 at 10,100, 10,200, 10,300.
//  srtf: job 0 (9,900 s left) is preempted; 1, 2, 3 end at 200, 300, 400; job 0 resumes
//        and ends at 400 + 9,900 = 10,300.
//  las:  job 0 has attained 100 GPU-s, the others 0: the same as srtf.
TEST(SimulateFrom, PredictsEachFreshPolicyFromTheView) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(10000).Build()};
  for (JobId id = 1; id <= 3; ++id) trace.jobs.push_back(JobBuilder(id).Submit(100).Duration(100).Build());
  Simulator sim(&trace, &cluster, SimulatorOptions());
  Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
  EventBatch batch;
  ASSERT_TRUE(FirstDecisionThenNextPoint(&sim, fifo->get(), &batch));
  ASSERT_EQ(sim.view().Now(), 100);  // Jobs 1-3 arrive.

  auto predict = [&](const std::string& name) {
    Result<std::unique_ptr<Policy>> p = MakePolicy(Request(name));
    EXPECT_TRUE(p.ok());
    Result<std::vector<PredictedFinish>> r = SimulateFrom(sim.view(), p->get(), SimulatorOptions());
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::vector<double> finish;
    for (const PredictedFinish& f : *r) finish.push_back(f.finish_s);
    return finish;
  };
  EXPECT_EQ(predict("fifo"), (std::vector<double>{10000, 10100, 10200, 10300}));
  EXPECT_EQ(predict("srtf"), (std::vector<double>{10300, 200, 300, 400}));
  EXPECT_EQ(predict("las"), (std::vector<double>{10300, 200, 300, 400}));
  // The view was only read: the run goes on as if nothing happened.
  Decisions d;
  (*fifo)->Decide(sim.view(), batch, &d);
  ASSERT_TRUE(sim.Apply(d).ok());
  ASSERT_TRUE(sim.Run(fifo->get()).ok());
  EXPECT_EQ(sim.stats().end_time, 10300);
}

// A restart overhead left to pay is carried into the look-ahead: job 0 started at 0 with
// a 50 s overhead; from t = 20 it still has 30 s of it, then 100 s of work: ends at 150.
TEST(SimulateFrom, CarriesWhatIsLeftOfARestartOverhead) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(100).Build(),
                JobBuilder(1).Submit(20).Duration(10).Build()};
  SimulatorOptions o;
  o.overheads = RestartOverheads(50);
  Simulator sim(&trace, &cluster, o);
  Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
  EventBatch batch;
  ASSERT_TRUE(FirstDecisionThenNextPoint(&sim, fifo->get(), &batch));
  ASSERT_EQ(sim.view().Now(), 20);
  Result<std::unique_ptr<Policy>> fresh = MakePolicy(Request("fifo"));
  Result<std::vector<PredictedFinish>> r = SimulateFrom(sim.view(), fresh->get(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].finish_s, 150);
  EXPECT_EQ((*r)[1].finish_s, 150 + 50 + 10);  // Its own start pays the overhead too.
}

// 40 jobs of whole seconds (so that every time below is exact) on 2 nodes of 2 GPUs, one
// job in three on 2 GPUs, a job every 150 s: about 1.8x what the cluster can run, so jobs
// queue and SRTF preempts.
Trace WholeSecondTrace() {
  Trace trace;
  for (JobId id = 0; id < 40; ++id) {
    trace.jobs.push_back(JobBuilder(id)
                             .Submit(150.0 * id)
                             .Duration(200 + 100 * ((id * 7919) % 13))
                             .Gpus(id % 3 == 0 ? 2 : 1)
                             .Build());
  }
  return trace;
}

// "id finish" with the finish to the last bit.
std::string FinishLine(JobId id, Time finish) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", finish);
  return std::to_string(id) + " " + text + "\n";
}

// A look-ahead whose arrivals are the rest of the trace is the straight run of the whole
// trace: run jobs 0-20 (submitted by 3,000 s) to the decision point at 3,000 s, then
// SimulateFrom there with a fresh policy and jobs 21-39 as arrivals. Every job's predicted
// finish (those of jobs 0-20 still in the system, and the 19 arrivals) equals, to the last bit, its finish in a
// straight run of all 40 jobs, for fifo and for srtf (which preempts on arrivals; fresh,
// it decides from the state alone, as the running one does), restart overheads included.
// The run the view belongs to never hears of the arrivals: run on, it ends exactly as a
// straight run of jobs 0-20 does.
TEST(SimulateFrom, WithTheTracesLaterJobsAsArrivalsItIsTheStraightRun) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 2, 0, 0);
  const Trace whole = WholeSecondTrace();
  const Time cut = 3000;
  Trace prefix;
  std::vector<JobSpec> later;
  for (const JobSpec& j : whole.jobs) (j.submit_s <= cut ? prefix.jobs : later).push_back(j);
  ASSERT_EQ(prefix.jobs.size(), 21u);
  for (const char* name : {"fifo", "srtf"}) {
    SCOPED_TRACE(name);
    MetricsRecorder straight_rec(&whole);
    Simulator straight(&whole, &cluster, Options());
    straight.AddObserver(&straight_rec);
    Result<std::unique_ptr<Policy>> straight_policy = MakePolicy(Request(name));
    ASSERT_TRUE(straight.Run(straight_policy->get()).ok());
    ASSERT_EQ(straight.stats().unfinished, 0);
    if (std::string(name) == "srtf") {
      ASSERT_GT(straight.stats().preemptions, 0);
    }

    MetricsRecorder rec(&prefix);
    Simulator sim(&prefix, &cluster, Options());
    sim.AddObserver(&rec);
    Result<std::unique_ptr<Policy>> policy = MakePolicy(Request(name));
    EventBatch batch;
    Decisions d;
    while (sim.NextDecisionPoint(&batch) && sim.view().Now() < cut) {
      d.Clear();
      (*policy)->Decide(sim.view(), batch, &d);
      ASSERT_TRUE(sim.Apply(d).ok());
    }
    ASSERT_EQ(sim.view().Now(), cut);
    ASSERT_FALSE(sim.view().RunningJobs().empty());
    ASSERT_GT(sim.view().PendingJobs().size(), 1u);  // Job 20 and some that wait.

    Result<std::unique_ptr<Policy>> fresh = MakePolicy(Request(name));
    Result<std::vector<PredictedFinish>> ahead = SimulateFrom(sim.view(), fresh->get(), Options(), later);
    ASSERT_TRUE(ahead.ok()) << ahead.status().message();
    const size_t in_system = sim.view().RunningJobs().size() + sim.view().PendingJobs().size();
    ASSERT_EQ(ahead->size(), in_system + later.size());
    // The view's jobs first, then the arrivals, each in (submit, id) order.
    for (size_t i = 0; i < ahead->size(); ++i) {
      EXPECT_EQ((*ahead)[i].arrival, i >= in_system) << (*ahead)[i].job;
      if (i > 0) {
        EXPECT_LT((*ahead)[i - 1].submit_s, (*ahead)[i].submit_s);
      }
    }
    // Each predicted finish against the straight run's, as text to the last bit.
    std::map<JobId, Time> straight_end;
    for (const RecordedJob& r : straight_rec.Jobs()) straight_end[r.id] = r.end_s;
    std::string predicted, expected;
    for (const PredictedFinish& f : *ahead) {
      predicted += FinishLine(f.job, f.finish_s);
      expected += FinishLine(f.job, straight_end.at(f.job));
    }
    EXPECT_EQ(predicted, expected);

    // The parent run goes on as if nothing happened: jobs 0-20 only, as their own run.
    d.Clear();
    (*policy)->Decide(sim.view(), batch, &d);
    ASSERT_TRUE(sim.Apply(d).ok());
    ASSERT_TRUE(sim.Run(policy->get()).ok());
    MetricsRecorder alone_rec(&prefix);
    Simulator alone(&prefix, &cluster, Options());
    alone.AddObserver(&alone_rec);
    Result<std::unique_ptr<Policy>> alone_policy = MakePolicy(Request(name));
    ASSERT_TRUE(alone.Run(alone_policy->get()).ok());
    EXPECT_EQ(rec.num_jobs(), prefix.jobs.size());
    EXPECT_EQ(Outputs(rec, sim.stats(), "parent"), Outputs(alone_rec, alone.stats(), "alone"));
  }
}

// Arrivals must come after the view's time and have ids of their own; the error names the
// arrival and what is wrong, and nothing runs.
TEST(SimulateFrom, RefusesArrivalsAtOrBeforeTheViewOrWithATakenId) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(1000).Build(),
                JobBuilder(1).Submit(100).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
  EventBatch batch;
  ASSERT_TRUE(FirstDecisionThenNextPoint(&sim, fifo->get(), &batch));
  ASSERT_EQ(sim.view().Now(), 100);
  auto error = [&](std::vector<JobSpec> arrivals) {
    Result<std::unique_ptr<Policy>> fresh = MakePolicy(Request("fifo"));
    Result<std::vector<PredictedFinish>> r =
        SimulateFrom(sim.view(), fresh->get(), SimulatorOptions(), std::move(arrivals));
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(error({JobBuilder(7).Submit(100).Duration(5).Build()}),
            "arrival job 7: submit_s 100 is not after the view's time 100");
  EXPECT_EQ(error({JobBuilder(1).Submit(200).Duration(5).Build()}),
            "arrival job 1: id of a job in the system");
  EXPECT_EQ(error({JobBuilder(7).Submit(200).Duration(5).Build(),
                   JobBuilder(7).Submit(300).Duration(5).Build()}),
            "arrival job 7: id given twice");
  EXPECT_EQ(error({JobBuilder(7).Submit(200).Duration(5).Build()}), "ok");
}

}  // namespace
}  // namespace schedkit::testing
