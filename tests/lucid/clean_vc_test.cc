// The clean model: virtual clusters as independent simulations, and the qssf policy.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "schedkit/lucid.h"
#include "schedkit/run.h"

namespace schedkit::lucid {
namespace {

RecordedJob Rec(const VirtualClusterRun& r, const std::string& vc, JobId id) {
  for (const VcRun& v : r.per_vc) {
    if (v.vc != vc) continue;
    for (const RecordedJob& j : v.run.recorder->Jobs()) {
      if (j.id == id) return j;
    }
  }
  ADD_FAILURE() << "no job " << id << " in " << vc;
  return r.per_vc.front().run.recorder->job(0);
}

Trace MakeTrace(std::vector<JobSpec> jobs) {
  Trace t;
  t.source = "hand-made";
  t.jobs = std::move(jobs);
  return t;
}

TEST(VirtualClusterRunTest, JobsStayInTheirVcAndMetricsArePerVc) {
  // VC a (1 node): job 2 waits for job 1 although VC b's node is idle.
  Trace trace = MakeTrace({JobBuilder(1).Vc("a").Gpus(8).Submit(0).Duration(100).Build(),
                           JobBuilder(2).Vc("a").Gpus(8).Submit(10).Duration(50).Build(),
                           JobBuilder(3).Vc("b").Gpus(8).Submit(10).Duration(30).Build()});
  PolicyRequest fifo;
  fifo.policy = "fifo";
  Result<VirtualClusterRun> r =
      RunVirtualClusters(trace, {{"a", 1}, {"b", 1}}, fifo, SimulatorOptions(), 2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->per_vc.size(), 2u);
  EXPECT_EQ(r->per_vc[0].cluster.TotalGpus(), 8);
  EXPECT_EQ(Rec(*r, "a", 2).first_start_s, 100);
  EXPECT_EQ(Rec(*r, "b", 3).first_start_s, 10);
  EXPECT_EQ(r->per_vc[0].run.summary.jobs, 2);
  EXPECT_DOUBLE_EQ(r->per_vc[0].run.summary.avg_queue_s, 45);
  EXPECT_DOUBLE_EQ(r->per_vc[1].run.summary.avg_jct_s, 30);
  EXPECT_EQ(r->all.jobs, 3);
  EXPECT_DOUBLE_EQ(r->all.avg_jct_s, (100 + 140 + 30) / 3.0);
  EXPECT_DOUBLE_EQ(r->all.avg_queue_s, 30);

  Result<VirtualClusterRun> stray = RunVirtualClusters(trace, {{"a", 1}}, fifo, SimulatorOptions(), 1);
  ASSERT_FALSE(stray.ok());
  EXPECT_EQ(stray.status().message(), "job 3: VC 'b' is not in the VC configuration");
}

TEST(QssfPolicyTest, OrdersByEstimateTimesGpus) {
  const std::string path = ::testing::TempDir() + "/qssf_estimates.csv";
  std::ofstream(path) << "job_id,estimate_s\n1,5\n2,1000\n3,10\n";
  // Job 1 holds the node until 100; job 2 (8 GPUs x 1000) arrived first, job 3 (8 x 10)
  // has the smaller estimated service and runs first.
  Trace trace = MakeTrace({JobBuilder(1).Gpus(8).Submit(0).Duration(100).Build(),
                           JobBuilder(2).Gpus(8).Submit(5).Duration(10).Build(),
                           JobBuilder(3).Gpus(8).Submit(6).Duration(10).Build()});
  PolicyRequest qssf;
  qssf.policy = "qssf";
  qssf.options["estimates"] = path;
  auto run = RunSimulation(trace, ClusterSpec::Uniform(1, 1, 8, 96, 512), qssf, SimulatorOptions());
  ASSERT_TRUE(run.ok()) << run.status().message();
  const std::vector<RecordedJob> jobs = run->recorder->Jobs();
  EXPECT_EQ(jobs[2].first_start_s, 100);
  EXPECT_EQ(jobs[1].first_start_s, 110);

  // Without a file, jobs go by GPU count: job 3 (4 GPUs) before job 2 (8 GPUs).
  trace.jobs[2].gpus = 4;
  qssf.options["estimates"] = "";
  run = RunSimulation(trace, ClusterSpec::Uniform(1, 1, 8, 96, 512), qssf, SimulatorOptions());
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->recorder->job(2).first_start_s, 100);
  EXPECT_EQ(run->recorder->job(1).first_start_s, 110);

  qssf.options["estimates"] = path + ".missing";
  auto missing = RunSimulation(trace, ClusterSpec::Uniform(1, 1, 8, 96, 512), qssf, SimulatorOptions());
  ASSERT_FALSE(missing.ok());
}

}  // namespace
}  // namespace schedkit::lucid
