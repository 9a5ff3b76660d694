// --compat lucid on small hand-made scenarios: VC partitioning and per-VC metrics, QSSF's
// lazy priorities, Lucid's Tiresias, co-location rates, the packing switch, the profiler's
// scale-up/down and the lending VC. Every expected number is worked out in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedkit/lucid.h"
#include "schedkit/trace.h"
#include "test_files.h"

namespace schedkit::lucid {
namespace {

JobSpec Job(JobId id, const std::string& vc, int gpus, double submit, double duration,
            const std::string& model = "A") {
  JobSpec j = JobBuilder(id).Vc(vc).Gpus(gpus).Submit(submit).Duration(duration).Build();
  j.profile.model = model;
  j.profile.dataset = "D";
  j.profile.batch_size = 32;
  j.profile.gmem_mb = 1000;
  return j;
}

Trace MakeTrace(std::vector<JobSpec> jobs) {
  Trace t;
  t.source = "hand-made";
  t.jobs = std::move(jobs);
  return t;
}

const JobResult& Of(const RunResult& r, JobId id) {
  for (const JobResult& j : r.jobs) {
    if (j.id == id) return j;
  }
  ADD_FAILURE() << "no job " << id;
  return r.jobs.front();
}

// Forecast rows every 10 minutes from t = 0 with the given pred_gpu_job values (and
// pred_gpu_num = 10).
ThroughputForecast Forecast(std::vector<double> gpu_jobs) {
  ThroughputForecast f;
  for (size_t i = 0; i < gpu_jobs.size(); ++i) {
    f.time_s.push_back(600 * static_cast<int64_t>(i));
    f.pred_gpu_job.push_back(gpu_jobs[i]);
    f.pred_gpu_num.push_back(10);
  }
  return f;
}

WorkloadKey Key(const std::string& model) { return {model, "D", 32, false}; }

// A Lucid config on the given VCs: every job estimated at 100 s, models A and B with
// share score 1, and the pair (guest B, host A) measured at 0.5 / 0.8.
Config LucidConfig(std::vector<VirtualCluster> vcs, std::vector<double> forecast,
                   const std::vector<JobId>& ids) {
  Config c;
  c.policy = CompatPolicy::kLucid;
  c.vcs = std::move(vcs);
  for (JobId id : ids) c.estimates[id] = 100;
  c.share_scores = {{Key("A"), 1}, {Key("B"), 1}, {Key("C"), 2}};
  c.colocate_speeds[{Key("B"), Key("A")}] = {0.5, 0.8};
  c.forecast = Forecast(std::move(forecast));
  c.profiler.enabled = false;
  return c;
}

TEST(LucidCompatTest, VirtualClustersAreSimulatedApartWithPerVcMetrics) {
  // VC a: job 1 (8 GPUs, 0..100) holds the node; job 2 (8 GPUs, submit 10) waits until 100
  // although VC b's node is free. VC b: job 3 runs at once.
  Config c;
  c.policy = CompatPolicy::kFifo;
  c.vcs = {{"a", 1}, {"b", 1}};
  c.threads = 2;
  Result<RunResult> r = RunCompat(
      MakeTrace({Job(1, "a", 8, 0, 100), Job(2, "a", 8, 10, 50), Job(3, "b", 8, 10, 30)}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 100);
  EXPECT_EQ(Of(*r, 2).end_s, 150);  // Non-preemptive policies end at start + duration.
  EXPECT_EQ(Of(*r, 3).start_s, 10);
  ASSERT_EQ(r->per_vc.size(), 2u);
  EXPECT_EQ(r->per_vc[0].first, "a");
  EXPECT_EQ(r->per_vc[0].second.jobs, 2);
  EXPECT_DOUBLE_EQ(r->per_vc[0].second.avg_jct_s, (100 + 140) / 2.0);
  EXPECT_DOUBLE_EQ(r->per_vc[0].second.avg_queue_s, 45);
  EXPECT_DOUBLE_EQ(r->per_vc[0].second.p999_queue_s, 90 * 0.999);  // Linear interpolation.
  EXPECT_DOUBLE_EQ(r->per_vc[1].second.avg_jct_s, 30);
  EXPECT_DOUBLE_EQ(r->all.avg_jct_s, (100 + 140 + 30) / 3.0);
  EXPECT_DOUBLE_EQ(r->all.avg_queue_s, 30);

  Result<RunResult> stray = RunCompat(MakeTrace({Job(9, "z", 1, 0, 10)}), c);
  ASSERT_FALSE(stray.ok());
  EXPECT_EQ(stray.status().message(), "job 9: VC 'z' is not in the VC configuration");
}

TEST(LucidCompatTest, QssfOrdersOnlyNewArrivalsByGpusThenByEstimate) {
  // Job 1 (6 GPUs) runs 0..100 on the one node. Jobs 2 (2 GPUs, estimate 1000 -> 2000)
  // and 3 (4 GPUs, estimate 10 -> 40).
  Config c;
  c.policy = CompatPolicy::kQssf;
  c.vcs = {{"a", 1}};
  c.estimates = {{1, 1}, {2, 1000}, {3, 10}};
  // Both arrive at 50: the queue holds only new arrivals, ordered by GPUs, so job 2 fits
  // the 2 free GPUs at once.
  Result<RunResult> r = RunCompat(
      MakeTrace({Job(1, "a", 6, 0, 100), Job(2, "a", 2, 50, 10), Job(3, "a", 4, 50, 10)}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 50);
  EXPECT_EQ(Of(*r, 3).start_s, 100);
  // Job 3 arrives first (49): at 50 the queue holds an older job, so priorities decide:
  // job 3 (40) heads the queue, does not fit, and blocks job 2 until 100.
  r = RunCompat(MakeTrace({Job(1, "a", 6, 0, 100), Job(3, "a", 4, 49, 10), Job(2, "a", 2, 50, 10)}),
                c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 3).start_s, 100);
  EXPECT_EQ(Of(*r, 2).start_s, 100);
  EXPECT_EQ(Of(*r, 2).queue_s, 50);
}

TEST(LucidCompatTest, TiresiasDemotesAtEighteenThousandGpuSecondsAndPreempts) {
  // Job 1 (8 GPUs, 3000 s) starts at 0; its attained service 8 x t passes 18,000 at
  // t = 2251, so at the 60-s tick 2280 it drops to the low queue and job 2 (8 GPUs,
  // submitted at 100) takes its place. Job 1 pays 40 s: 3000 - 2280 + 40 = 760 s left.
  Config c;
  c.policy = CompatPolicy::kTiresias;
  c.vcs = {{"a", 1}};
  Result<RunResult> r =
      RunCompat(MakeTrace({Job(1, "a", 8, 0, 3000), Job(2, "a", 8, 100, 100)}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobResult& j2 = Of(*r, 2);
  EXPECT_EQ(j2.start_s, 2280);
  EXPECT_EQ(j2.end_s, 2280 + 100 + 1);  // Preemptive policies end at start + remaining + 1.
  EXPECT_EQ(j2.queue_s, 2180);
  const JobResult& j1 = Of(*r, 1);
  EXPECT_EQ(j1.start_s, 0);
  EXPECT_EQ(j1.preemptions, 1);
  EXPECT_EQ(j1.queue_s, 2400 - 2280);  // Resumed at the tick after job 2 ended.
  EXPECT_EQ(j1.end_s, 2400 + 760 + 1);
}

TEST(LucidCompatTest, CoLocationRunsAtMeasuredSpeedsAndTheHostRecovers) {
  // Packing on (forecast 10 GPU jobs per bin). Job 1 (A, 8 GPUs, 1000 s) starts at 0 and
  // has 990 s left at tick 11. Job 2 (B, 8 GPUs, 500 s) arrives at 10 and shares job 1's
  // GPUs: job 2 runs at 0.5 (500 / 0.5 = 1000 ticks: ends at 11 + 1000), job 1 at 0.8.
  // When job 2 ends job 1 has 990 - 0.8 x 1001 = 189.2 left at tick 1012, at full speed
  // again: it ends at 1012 + 190.
  Config c = LucidConfig({{"a", 1}}, std::vector<double>(40, 10.0), {1, 2});
  Result<RunResult> r =
      RunCompat(MakeTrace({Job(1, "a", 8, 0, 1000, "A"), Job(2, "a", 8, 10, 500, "B")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 10);
  EXPECT_EQ(Of(*r, 2).end_s, 1011);
  EXPECT_EQ(Of(*r, 1).end_s, 1202);
  EXPECT_TRUE(Of(*r, 1).colocated);
  EXPECT_EQ(r->colocated_jobs, 2);

  // Share scores 1 + 2 > 2: job 2 (C) waits for the node.
  r = RunCompat(MakeTrace({Job(1, "a", 8, 0, 1000, "A"), Job(2, "a", 8, 10, 500, "C")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 1001);
  EXPECT_EQ(r->colocated_jobs, 0);

  // A guest may not be more than twice the host's priority: job 2's estimate 300 -> 2400
  // > 2 x 800.
  c.estimates[2] = 300;
  r = RunCompat(MakeTrace({Job(1, "a", 8, 0, 1000, "A"), Job(2, "a", 8, 10, 500, "B")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 1001);
}

TEST(LucidCompatTest, WhenTheHostEndsFirstTheGuestKeepsItsSharedSpeed) {
  // Job 1 (A, 100 s) hosts job 2 (B, 500 s) from tick 10: job 1 has 90 s left at 0.8,
  // so it ends at 11 + ceil(90 / 0.8) = 11 + 113 = 124. Lucid's lookup then finds job 1
  // itself, and job 2 keeps running at 0.5: 500 / 0.5 = 1000 ticks from 11.
  Config c = LucidConfig({{"a", 1}}, std::vector<double>(40, 10.0), {1, 2});
  Result<RunResult> r =
      RunCompat(MakeTrace({Job(1, "a", 8, 0, 100, "A"), Job(2, "a", 8, 10, 500, "B")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 1).end_s, 124);
  EXPECT_EQ(Of(*r, 2).end_s, 1011);
}

TEST(LucidCompatTest, PackingSwitchFollowsTheForecastEveryHundredSeconds) {
  // Forecast rows at 600 s steps: 0 GPU jobs up to row 5, 10 from row 6. At a check time
  // m the next five rows after m average <= 2 while m < 1200, so packing is off until the
  // check at 1200. Job 2 waits behind job 1 (5000 s) and co-locates at 1200.
  std::vector<double> f(40, 10.0);
  for (int i = 0; i <= 5; ++i) f[i] = 0;
  Config c = LucidConfig({{"a", 1}}, f, {1, 2});
  Result<RunResult> r =
      RunCompat(MakeTrace({Job(1, "a", 8, 0, 5000, "A"), Job(2, "a", 8, 10, 500, "B")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 1200);
  EXPECT_EQ(Of(*r, 2).queue_s, 1190);
  EXPECT_TRUE(Of(*r, 2).colocated);

  // Forecast always low: strict priority order with head-of-line blocking, no sharing.
  c = LucidConfig({{"a", 1}}, std::vector<double>(40, 1.0), {1, 2});
  r = RunCompat(MakeTrace({Job(1, "a", 8, 0, 1000, "A"), Job(2, "a", 8, 10, 500, "B")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 1001);  // Lucid ends jobs at start + duration + 1.
  EXPECT_EQ(Of(*r, 2).end_s, 1001 + 500 + 1);
  EXPECT_FALSE(Of(*r, 2).colocated);
}

TEST(LucidCompatTest, ProfilerBorrowsANodeWhenBusyAndReturnsItWhenIdle) {
  // Thirteen 8-GPU jobs of 1000 s arrive at 0 in VC c; the pool has 2 nodes (one each
  // from VCs a and b) and runs each job 200 s. At 0: two start, 11 wait (> 10), a node is
  // borrowed and used from tick 1. Jobs start at 0,0,1,200,200,201,400,400,401,600,600,
  // 601,800. The borrowed node is idle from 801; the check at 900 sees fewer than 5
  // waiting and a low forecast and returns it. A 1-GPU job of 50 s at 2000 finishes in
  // the profiler; a 16-GPU job is not profiled.
  std::vector<JobSpec> jobs;
  std::vector<JobId> ids;
  for (int i = 1; i <= 13; ++i) {
    jobs.push_back(Job(i, "c", 8, 0, 1000));
    ids.push_back(i);
  }
  jobs.push_back(Job(14, "c", 1, 2000, 50));
  jobs.push_back(Job(15, "c", 16, 3000, 10));
  ids.push_back(14);
  ids.push_back(15);
  Config c = LucidConfig({{"a", 1}, {"b", 1}, {"c", 2}}, std::vector<double>(40, 0.0), ids);
  c.profiler.enabled = true;
  c.profiler.donor_vcs = {"a", "b"};
  c.profiler.lender_vc = "c";
  Result<RunResult> r = RunCompat(MakeTrace(jobs), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->profiler_scale_events, 2);  // +1 at 0, -1 at 900.
  const int64_t profiler_queue[] = {0, 0, 1, 200, 200, 201, 400, 400, 401, 600, 600, 601, 800};
  // In VC c (2 nodes): jobs 1 and 2 start at 0 and end at 1001; job 3 heads the queue.
  // VC c lends a node at 0 (none idle: nothing happens) and gets one back at 900 (a new
  // node is added), which job 3 uses from tick 901.
  EXPECT_EQ(Of(*r, 3).start_s, 901);
  EXPECT_EQ(Of(*r, 3).queue_s, profiler_queue[2] + 901);
  for (int i = 1; i <= 13; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(Of(*r, i).profiled);
    EXPECT_FALSE(Of(*r, i).finished_in_profiler);
    EXPECT_GE(Of(*r, i).queue_s, profiler_queue[i - 1]);
  }
  EXPECT_EQ(Of(*r, 1).queue_s, 0);
  EXPECT_EQ(Of(*r, 4).queue_s, 200 + 1001);  // Profiler 200, then VC c from 1001.
  const JobResult& small = Of(*r, 14);
  EXPECT_TRUE(small.finished_in_profiler);
  EXPECT_EQ(small.start_s, 2000);
  EXPECT_EQ(small.end_s, 2050);  // JCT 50: the profiler run is the whole job.
  EXPECT_FALSE(Of(*r, 15).profiled);
}

}  // namespace
}  // namespace schedkit::lucid

namespace schedkit::lucid {
namespace {

TEST(LucidCompatTest, ResultsDoNotDependOnTheThreadCount) {
  std::vector<JobSpec> jobs;
  std::vector<JobId> ids;
  for (int i = 1; i <= 60; ++i) {
    const char* vc = i % 3 == 0 ? "a" : (i % 3 == 1 ? "b" : "c");
    jobs.push_back(
        Job(i, vc, 1 << (i % 4), i * 37 % 500, 100 + (i * 7919) % 2000, i % 2 ? "A" : "B"));
    ids.push_back(i);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& x, const JobSpec& y) {
    return x.submit_s != y.submit_s ? x.submit_s < y.submit_s : x.id < y.id;
  });
  Config c = LucidConfig({{"a", 2}, {"b", 2}, {"c", 1}}, std::vector<double>(40, 10.0), ids);
  c.profiler.enabled = true;
  c.profiler.donor_vcs = {"a", "b"};
  c.profiler.lender_vc = "c";
  c.colocate_speeds[{Key("A"), Key("A")}] = {0.7, 0.7};
  c.colocate_speeds[{Key("B"), Key("B")}] = {0.9, 0.6};
  c.threads = 1;
  Result<RunResult> one = RunCompat(MakeTrace(jobs), c);
  c.threads = 3;
  Result<RunResult> three = RunCompat(MakeTrace(jobs), c);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(one->jobs.size(), three->jobs.size());
  for (size_t i = 0; i < one->jobs.size(); ++i) {
    EXPECT_EQ(one->jobs[i].end_s, three->jobs[i].end_s);
    EXPECT_EQ(one->jobs[i].queue_s, three->jobs[i].queue_s);
  }
  EXPECT_GT(one->colocated_jobs, 0);  // The scenario exercises sharing.
}

}  // namespace
}  // namespace schedkit::lucid

namespace schedkit::lucid {
namespace {

// docs/fidelity.md (issue 13): Lucid's unstable pandas sort decides the order of jobs of
// one VC submitted in the same second; schedkit decides it by job id, from the loader on.
TEST(LucidCompatTest, SameSecondJobsEnterTheQueueInIdOrder) {
  Config c;
  c.policy = CompatPolicy::kFifo;
  c.vcs = {{"a", 1}};
  // Two 8-GPU jobs submitted at 0 compete for the one node: the first in queue order
  // runs 0..T, the other waits until T.
  Result<RunResult> r = RunCompat(MakeTrace({Job(1, "a", 8, 0, 100), Job(2, "a", 8, 0, 50)}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 1).start_s, 0);
  EXPECT_EQ(Of(*r, 2).start_s, 100);
  // The same two jobs with their ids swapped (the order Lucid's sort might give):
  // the 50-s job goes first, and both jobs' results swap.
  r = RunCompat(MakeTrace({Job(1, "a", 8, 0, 50), Job(2, "a", 8, 0, 100)}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Of(*r, 2).start_s, 50);
  EXPECT_EQ(Of(*r, 2).queue_s, 50);

  // The loader orders same-second jobs by id whatever the file's order.
  const std::string log =
      schedkit::testing::WriteTempFile("same_second_log.csv",
                                       "job_id,vc,gpu_num,submit_time,duration\n"
                                       "7,a,8,2020-04-01 00:00:00,100\n"
                                       "9,a,8,2020-04-01 00:00:05,100\n"
                                       "8,a,8,2020-04-01 00:00:05,50\n");
  TraceOptions options;
  options.format = TraceFormat::kLucid;
  Result<Trace> trace = LoadTrace(log, options);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 3u);
  EXPECT_EQ(trace->jobs[1].id, 8);
  EXPECT_EQ(trace->jobs[2].id, 9);
  EXPECT_EQ(trace->jobs[1].submit_s, trace->jobs[2].submit_s);
}

TEST(LucidCompatTest, SummaryCountsBusyGpuSecondsOnceForACoLocatedPair) {
  // FIFO: job 1 (8 GPUs) runs 0..100, job 2 (8 GPUs, submit 10) 100..150, job 3 (4 GPUs)
  // 150..250. Busy 8x100 + 8x50 + 4x100 = 1600 GPU-s over 8 GPUs x 250 s.
  Config c;
  c.policy = CompatPolicy::kFifo;
  c.vcs = {{"a", 1}};
  Result<RunResult> r = RunCompat(
      MakeTrace({Job(1, "a", 8, 0, 100), Job(2, "a", 8, 10, 50), Job(3, "a", 4, 10, 100)}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  Summary s = SummarizeRun(*r, 0.5);
  EXPECT_EQ(s.jobs, 3);
  EXPECT_EQ(s.makespan_s, 250);
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 1600.0 / (8 * 250));
  EXPECT_DOUBLE_EQ(s.avg_jct_s, r->all.avg_jct_s);
  EXPECT_DOUBLE_EQ(s.p999_queue_s, r->all.p999_queue_s);
  EXPECT_EQ(s.p50_jct_s, 140);  // JCTs 100, 140, 240: nearest rank.
  EXPECT_EQ(s.events, 6);
  EXPECT_EQ(s.wall_s, 0.5);

  // Lucid, packing on: job 2 (B) shares job 1's (A) GPUs from 10, as in
  // CoLocationRunsAtMeasuredSpeedsAndTheHostRecovers: one allocation of 8 GPUs held
  // from 0 until the later of the pair ends.
  c = LucidConfig({{"a", 1}}, std::vector<double>(40, 10.0), {1, 2});
  r = RunCompat(MakeTrace({Job(1, "a", 8, 0, 1000, "A"), Job(2, "a", 8, 10, 500, "B")}), c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(Of(*r, 2).colocated);
  const int64_t last_end = std::max(Of(*r, 1).end_s, Of(*r, 2).end_s);
  EXPECT_EQ(r->busy_gpu_s, 8 * last_end);
  s = SummarizeRun(*r, 0);
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 1.0);
}

}  // namespace
}  // namespace schedkit::lucid
