// Lucid's profiling pool on small hand-made scenarios: scale-up when the queue grows,
// scale-down when it drains, least-GPU-first order, short jobs finishing inside it; and
// the pool in the clean model (lucid::RunVirtualClusters with the lucid policy). Every
// expected number is worked out in the comments.
#include "lucid/profiler.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "schedkit/lucid.h"
#include "schedkit/run.h"

namespace schedkit::lucid {
namespace {

JobSpec Job(JobId id, const std::string& vc, int gpus, double submit, double duration) {
  return JobBuilder(id).Vc(vc).Gpus(gpus).Submit(submit).Duration(duration).Build();
}

Trace MakeTrace(std::vector<JobSpec> jobs) {
  Trace t;
  t.source = "hand-made";
  t.jobs = std::move(jobs);
  return t;
}

// Forecast rows every 10 minutes from t = 0, all with the given pred_gpu_num.
ThroughputForecast GpuForecast(double gpus, int rows) {
  ThroughputForecast f;
  for (int i = 0; i < rows; ++i) {
    f.time_s.push_back(600 * static_cast<int64_t>(i));
    f.pred_gpu_job.push_back(10);
    f.pred_gpu_num.push_back(gpus);
  }
  return f;
}

// Thirteen 8-GPU jobs of 1000 s at t = 0 on a 2-node pool.
Trace Burst() {
  std::vector<JobSpec> jobs;
  for (int i = 1; i <= 13; ++i) jobs.push_back(Job(i, "c", 8, 0, 1000));
  return MakeTrace(std::move(jobs));
}

TEST(LucidProfilerTest, GrowsWhenTheQueueGrowsAndShrinksWhenItDrains) {
  // At 0 two jobs start and 11 wait (> 10): a node is added and, in the clean model, used
  // at once. Every job runs 200 s, so three start at 0, 200, 400 and 600 and the last at
  // 800 (best fit puts it on the first node). The added node is idle from 800, fewer
  // than 5 wait and there is no forecast, so the check at 800 removes it.
  ProfilerConfig cfg;
  Result<ProfilerRun> r = RunProfiler(Burst(), cfg, ThroughputForecast{}, ProfilerClock::kEvents);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<std::pair<Time, int>> changes = {{0, +1}, {800, -1}};
  EXPECT_EQ(r->pool_changes, changes);
  const Time starts[] = {0, 0, 0, 200, 200, 200, 400, 400, 400, 600, 600, 600, 800};
  for (int i = 0; i < 13; ++i) {
    SCOPED_TRACE(i + 1);
    EXPECT_TRUE(r->jobs[i].profiled);
    EXPECT_FALSE(r->jobs[i].finished);
    EXPECT_EQ(r->jobs[i].start_s, starts[i]);
    EXPECT_EQ(r->jobs[i].end_s, starts[i] + 200);
  }

  // Lucid's ticks: the added node is first used at t = 1, and the idle node is given
  // back at the next 100-s check after 801, 900.
  r = RunProfiler(Burst(), cfg, ThroughputForecast{}, ProfilerClock::kLucidTicks);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->jobs[2].start_s, 1);
  const std::vector<std::pair<Time, int>> ticks = {{0, +1}, {900, -1}};
  EXPECT_EQ(r->pool_changes, ticks);

  // A forecast of many GPUs to come keeps the node.
  r = RunProfiler(Burst(), cfg, GpuForecast(100, 20), ProfilerClock::kEvents);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<std::pair<Time, int>> kept = {{0, +1}};
  EXPECT_EQ(r->pool_changes, kept);

  // Ten waiting jobs are not more than ten: no growth.
  Trace twelve = Burst();
  twelve.jobs.pop_back();
  r = RunProfiler(twelve, cfg, ThroughputForecast{}, ProfilerClock::kEvents);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->pool_changes.empty());
  EXPECT_EQ(r->jobs[2].start_s, 200);
}

TEST(LucidProfilerTest, LeastGpusFirstWithHeadOfLineBlocking) {
  // A 1-node pool, busy with job 1 until 200. Waiting then: 2 (8 GPUs, arrived first),
  // 3 (4), 4 (2), 5 (1), 6 (2). At 200 they go 5, 4, 6 (2 GPUs, stable: 4 arrived
  // first), then 3 needs 4 of the 3 GPUs left and blocks 2 behind it.
  ProfilerConfig cfg;
  cfg.nodes = 1;
  Trace trace =
      MakeTrace({Job(1, "c", 8, 0, 1000), Job(2, "c", 8, 10, 1000), Job(3, "c", 4, 20, 1000),
                 Job(4, "c", 2, 30, 1000), Job(5, "c", 1, 30, 1000), Job(6, "c", 2, 40, 1000)});
  Result<ProfilerRun> r = RunProfiler(trace, cfg, ThroughputForecast{}, ProfilerClock::kEvents);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->jobs[4].start_s, 200);
  EXPECT_EQ(r->jobs[3].start_s, 200);
  EXPECT_EQ(r->jobs[5].start_s, 200);
  EXPECT_EQ(r->jobs[2].start_s, 400);  // All of 4, 5, 6 leave at 400.
  EXPECT_EQ(r->jobs[1].start_s, 600);  // Job 3 holds 4 GPUs until 600.
}

TEST(LucidProfilerTest, ShortJobsFinishInsideTheProfiler) {
  ProfilerConfig cfg;
  Trace trace = MakeTrace({Job(1, "c", 1, 0, 150), Job(2, "c", 1, 0, 200), Job(3, "c", 1, 0, 201),
                           Job(4, "c", 16, 0, 50)});
  Result<ProfilerRun> r = RunProfiler(trace, cfg, ThroughputForecast{}, ProfilerClock::kEvents);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->jobs[0].finished);
  EXPECT_EQ(r->jobs[0].end_s, 150);
  EXPECT_TRUE(r->jobs[1].finished);  // Exactly the limit.
  EXPECT_FALSE(r->jobs[2].finished);
  EXPECT_EQ(r->jobs[2].end_s, 200);
  EXPECT_FALSE(r->jobs[3].profiled);  // More GPUs than the pool profiles.
}

const VcRun& Vc(const VirtualClusterRun& r, const std::string& name) {
  for (const VcRun& v : r.per_vc) {
    if (v.vc == name) return v;
  }
  ADD_FAILURE() << "no VC " << name;
  return r.per_vc.front();
}

TEST(LucidProfilerTest, CleanModelRunsThePoolBeforeTheVirtualClusters) {
  // VCs a and b give the pool a node each. In VC c (1 node): job 1 (100 s) finishes in
  // the pool. Job 2 is profiled 0-200, enters c at 200 and runs 200-1200. Job 3 waits
  // for the pool until 100, is profiled 100-300, then waits in c until 1200 and ends at
  // 1700: queueing delay 100 + 900, JCT 1700.
  Trace trace =
      MakeTrace({Job(1, "c", 8, 0, 100), Job(2, "c", 8, 0, 1000), Job(3, "c", 8, 0, 500)});
  const std::vector<VirtualCluster> vcs = {{"a", 2}, {"b", 2}, {"c", 1}};
  PolicyRequest lucid;
  lucid.policy = "lucid";
  lucid.options["profiler_donors"] = "a,b";
  Result<VirtualClusterRun> r = RunVirtualClusters(trace, vcs, lucid, SimulatorOptions(), 2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Vc(*r, "a").cluster.TotalGpus(), 8);
  EXPECT_EQ(Vc(*r, "c").cluster.TotalGpus(), 8);
  ASSERT_EQ(r->profiled.size(), 3u);
  EXPECT_TRUE(r->profiled[0].finished);
  EXPECT_FALSE(r->profiled[1].finished);
  EXPECT_EQ(r->profiled[2].start_s, 100);
  EXPECT_EQ(Vc(*r, "c").trace.jobs.size(), 2u);  // Job 1 never reaches its VC.
  EXPECT_EQ(Vc(*r, "c").summary.jobs, 3);
  EXPECT_DOUBLE_EQ(Vc(*r, "c").summary.avg_jct_s, (100 + 1200 + 1700) / 3.0);
  EXPECT_DOUBLE_EQ(Vc(*r, "c").summary.avg_queue_s, 1000 / 3.0);
  EXPECT_EQ(r->all.jobs, 3);
  EXPECT_DOUBLE_EQ(r->all.avg_jct_s, 1000);

  // profiler=false: no pool, the donors keep their nodes, c runs the jobs one by one.
  lucid.options["profiler"] = "false";
  r = RunVirtualClusters(trace, vcs, lucid, SimulatorOptions(), 1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->profiled.empty());
  EXPECT_EQ(Vc(*r, "a").cluster.TotalGpus(), 16);
  EXPECT_DOUBLE_EQ(r->all.avg_jct_s, (100 + 1100 + 1600) / 3.0);

  lucid.options["profiler"] = "true";
  lucid.options["profiler_donors"] = "a,zz";
  r = RunVirtualClusters(trace, vcs, lucid, SimulatorOptions(), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "lucid profiler: donor VC 'zz' is not configured or has no node");
}

}  // namespace
}  // namespace schedkit::lucid
