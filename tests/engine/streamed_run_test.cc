// Streamed runs (Simulator's JobSource constructor, RunSimulation over a JobSource,
// GenerateJobs): the same outputs as a run over the Trace, finished jobs freed, bad
// streams refused with one clear error.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "schedkit/job_source.h"
#include "schedkit/metrics.h"
#include "schedkit/run.h"
#include "schedkit/simulator.h"
#include "schedkit/trace.h"
#include "test_files.h"

namespace schedkit::testing {
namespace {

// jobs.csv, timeseries.csv and the run's counts, as text.
std::string Outputs(const RunOutput& run, const std::string& name) {
  const std::string jobs = TestTempPath(name + "_jobs.csv");
  const std::string series = TestTempPath(name + "_series.csv");
  EXPECT_TRUE(WriteJobsCsv(*run.recorder, jobs).ok());
  EXPECT_TRUE(WriteTimeSeriesCsv(*run.recorder, series).ok());
  char summary[256];
  std::snprintf(summary, sizeof(summary),
                "events=%lld decisions=%lld preemptions=%lld unfinished=%lld end=%.17g "
                "util=%.17g avg_jct=%.17g",
                static_cast<long long>(run.stats.events), static_cast<long long>(run.stats.decisions),
                static_cast<long long>(run.stats.preemptions),
                static_cast<long long>(run.stats.unfinished), run.stats.end_time,
                run.summary.gpu_utilization, run.summary.avg_jct_s);
  return ReadFile(jobs) + ReadFile(series) + summary;
}

GeneratorConfig Busy(int64_t jobs) {
  GeneratorConfig g;
  g.num_jobs = jobs;
  g.jobs_per_hour = 1.8;  // ~90 % of the 64 GPUs below: queues and preemptions.
  g.seed = 3;
  return g;
}

SimulatorOptions Options() {
  SimulatorOptions o;
  o.overheads = RestartOverheads(10);
  return o;
}

PolicyRequest Request(const std::string& policy) {
  PolicyRequest r;
  r.policy = policy;
  return r;
}

// 2,500 jobs: the first chunks of the engine's store (1,024 jobs each) are freed during
// each run, and the last ones are counted at the end with retired jobs in them (the
// work-conservation invariant and `unfinished` would catch a job counted twice).
TEST(StreamedRun, SameOutputsAsTheTrace) {
  const GeneratorConfig g = Busy(2500);
  Result<Trace> trace = GenerateTrace(g);
  ASSERT_TRUE(trace.ok());
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 8, 8, 0, 0);
  for (const char* policy : {"fifo", "srtf", "tiresias", "las"}) {
    Result<RunOutput> loaded = RunSimulation(*trace, cluster, Request(policy), Options());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    Result<std::unique_ptr<JobSource>> jobs = GenerateJobs(g);
    ASSERT_TRUE(jobs.ok());
    Result<RunOutput> streamed = RunSimulation(**jobs, cluster, Request(policy), Options());
    ASSERT_TRUE(streamed.ok()) << streamed.status().message();
    EXPECT_GT(loaded->stats.preemptions + loaded->stats.decisions, 2500) << policy;
    EXPECT_EQ(Outputs(*loaded, std::string(policy) + "_loaded"),
              Outputs(*streamed, std::string(policy) + "_streamed"))
        << policy;
  }
}

// GenerateJobs draws exactly GenerateTrace's jobs, for every kind of durations.
TEST(StreamedRun, GenerateJobsIsGenerateTrace) {
  for (const char* kind : {"blox", "philly", "gavel-multi", "blox-philly", "dual-load"}) {
    GeneratorConfig g = Busy(500);
    g.max_gpus = 8;
    ASSERT_TRUE(SetGeneratorDurations(kind, DataDir(), &g).ok());
    Result<Trace> trace = GenerateTrace(g);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    Result<std::unique_ptr<JobSource>> jobs = GenerateJobs(g);
    ASSERT_TRUE(jobs.ok());
    Trace streamed;
    JobSpec job;
    while ((*jobs)->Next(&job)) streamed.jobs.push_back(job);
    ASSERT_TRUE((*jobs)->status().ok());
    ASSERT_EQ(streamed.jobs.size(), trace->jobs.size()) << kind;
    for (size_t i = 0; i < streamed.jobs.size(); ++i) {
      const JobSpec& a = trace->jobs[i];
      const JobSpec& b = streamed.jobs[i];
      ASSERT_TRUE(a.id == b.id && a.submit_s == b.submit_s && a.gpus == b.gpus &&
                  a.max_gpus == b.max_gpus && a.duration_s == b.duration_s &&
                  a.iterations == b.iterations && a.iteration_time_s == b.iteration_time_s &&
                  a.profile.model == b.profile.model && a.profile.type_speeds == b.profile.type_speeds)
          << kind << " job " << i;
    }
  }
  GeneratorConfig bad = Busy(10);
  bad.jobs_per_hour = -1;  // 0 is a static trace (every job at 0).
  EXPECT_FALSE(GenerateJobs(bad).ok());
}

// A job finished before the current decision point is gone: reading it aborts loudly
// (never reads freed memory). Its chunk (1,024 jobs) must be wholly done first.
TEST(StreamedRunDeathTest, FinishedJobsAreFreed) {
  GeneratorConfig g;
  g.num_jobs = 3000;
  g.jobs_per_hour = 0.5;  // Far below capacity: jobs finish in arrival order, roughly.
  g.seed = 1;
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 8, 8, 0, 0);
  auto run_until_first_chunk_gone = [&]() {
    Result<std::unique_ptr<JobSource>> jobs = GenerateJobs(g);
    Simulator sim(jobs->get(), &cluster, Options());
    Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
    EventBatch batch;
    Decisions d;
    std::vector<bool> finished(g.num_jobs, false);
    int64_t done_in_chunk = 0;
    while (sim.NextDecisionPoint(&batch)) {
      if (done_in_chunk == 1024) break;  // The first chunk was retired by this point.
      for (JobId id : batch.finished) {
        if (id < 1024) ++done_in_chunk;
      }
      d.Clear();
      (*fifo)->Decide(sim.view(), batch, &d);
      if (!sim.Apply(d).ok()) return;
    }
    std::fprintf(stderr, "spec of job 0: %d GPUs\n", sim.view().Spec(0).gpus);
  };
  EXPECT_DEATH(run_until_first_chunk_gone(), "job index 0 was retired");
}

class VectorSource final : public JobSource {
 public:
  explicit VectorSource(std::vector<JobSpec> jobs, Status end = Status::Ok())
      : jobs_(std::move(jobs)), end_(std::move(end)) {}
  bool Next(JobSpec* job) override {
    if (next_ == jobs_.size()) return false;
    *job = jobs_[next_++];
    return true;
  }
  Status status() const override { return next_ == jobs_.size() ? end_ : Status::Ok(); }

 private:
  std::vector<JobSpec> jobs_;
  Status end_;
  size_t next_ = 0;
};

TEST(StreamedRun, BadStreamsEndTheRunWithOneError) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 8, 0, 0);
  auto run = [&](std::vector<JobSpec> jobs, Status end = Status::Ok()) {
    VectorSource source(std::move(jobs), std::move(end));
    Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
    Simulator sim(&source, &cluster, Options());
    return sim.Run(fifo->get());
  };
  const JobSpec a = JobBuilder(1).Submit(0).Duration(10).Build();
  const JobSpec b = JobBuilder(2).Submit(5).Duration(10).Build();
  const JobSpec early = JobBuilder(3).Submit(1).Duration(10).Build();
  EXPECT_TRUE(run({a, b}).ok());
  Status s = run({a, b, early});
  EXPECT_EQ(s.message(), "job 3: out of (submit time, id) order in the job stream");
  s = run({a, JobBuilder(1).Submit(5).Duration(10).Build()});
  EXPECT_EQ(s.message(), "job 1: id given twice");
  s = run({a, JobBuilder(4).Submit(6).Gpus(4).MaxGpus(2).Duration(10).Build()});
  EXPECT_EQ(s.message(), "job 4: max_gpus 2 is below its gpus 4 (0 = rigid)");
  s = run({a, b}, Status::InvalidArgument("jobs.csv:3: field 'gpus': 'x' is not an integer"));
  EXPECT_EQ(s.message(), "jobs.csv:3: field 'gpus': 'x' is not an integer");
}

TEST(StreamedRun, ForkIsRefused) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 8, 0, 0);
  VectorSource source({JobBuilder(1).Submit(0).Duration(10).Build()});
  Simulator sim(&source, &cluster, Options());
  Result<std::unique_ptr<Policy>> fifo = MakePolicy(Request("fifo"));
  Result<SimulationFork> fork = sim.Fork(**fifo);
  ASSERT_FALSE(fork.ok());
  EXPECT_EQ(fork.status().message(), "cannot fork a streamed run (its job source cannot be copied)");
}

}  // namespace
}  // namespace schedkit::testing
