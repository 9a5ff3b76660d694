// Muri-S / Muri-L: co-located groups share GPUs and run at the group's rate.
#include <gtest/gtest.h>

#include "mechanisms/interleaving.h"
#include "schedkit/trace.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

using testing::Request;
using testing::RunScenario;

// Two 1-GPU jobs, one GPU: Muri groups them; both start at 0 on the same GPU and each
// advances one iteration per group iteration time TT.
TEST(Muri, GroupSharesOneGpuAtTheGroupRate) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 16, 100);
  const JobSpec a = JobBuilder(1).Gpus(1).Iterations(100, 1.0).Stages(0.5, 0.4, 0).Build();
  const JobSpec b = JobBuilder(2).Gpus(1).Iterations(100, 1.0).Stages(0.4, 0.5, 0).Build();
  const double tt = GroupIterationTime({&a, &b});
  for (const char* policy : {"muri-s", "muri-l"}) {
    auto r = RunScenario({a, b}, cluster, Request(policy, {{"autopack", "false"}}));
    EXPECT_EQ(r.Start(1), 0) << policy;
    EXPECT_EQ(r.Start(2), 0) << policy;
    EXPECT_NEAR(r.Jct(1), 100 / GroupRate(a, tt), 1e-6) << policy;
    EXPECT_NEAR(r.Jct(2), 100 / GroupRate(b, tt), 1e-6) << policy;
  }
}

// With autopack, a group slower than running its members back to back is split: here
// TT = 0.9 x 1.33/1.015 > 2 x 0.5 x 1.015, so the jobs run one after the other.
TEST(Muri, AutopackSplitsSlowGroups) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 16, 100);
  const JobSpec a = JobBuilder(1).Gpus(1).Iterations(100, 0.5).Stages(0.0, 0.9, 0).Build();
  const JobSpec b = JobBuilder(2).Gpus(1).Iterations(200, 0.5).Stages(0.0, 0.9, 0).Build();
  auto r = RunScenario({a, b}, cluster, Request("muri-s", {{"autopack", "true"}}));
  EXPECT_NEAR(r.Jct(1), 50, 1e-6);
  EXPECT_NEAR(r.Jct(2), 150, 1e-6);
}

}  // namespace
}  // namespace schedkit

namespace schedkit {
namespace {

// Muri's 400-job cluster testbed trace runs on each of its testbed specs.
TEST(MuriTestbed, TestbedTraceRunsOnEveryTestbedSpec) {
  const std::string shared = SCHEDKIT_SHARED_DIR;
  auto trace = LoadTrace(shared + "/data/muri/traces/testbed_cluster_trace.csv");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 400u);
  for (const char* spec : {"testbed_n1g8", "testbed_n2g8", "testbed_n4g8", "testbed_n8g8"}) {
    auto cluster = LoadClusterSpec(shared + "/data/muri/specs/" + spec + ".csv");
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    for (const char* policy : {"muri-s", "muri-l", "srtf"}) {
      PolicyRequest req;
      req.policy = policy;
      req.compat = CompatMode::kMuri;
      SimulatorOptions options;
      options.overheads = RestartOverheads(10);
      auto run = RunSimulation(*trace, *cluster, req, options);
      ASSERT_TRUE(run.ok()) << spec << "/" << policy << ": " << run.status().message();
      // Jobs wider than the spec's GPUs are rejected; every other job finishes.
      int64_t fits = 0;
      for (const JobSpec& j : trace->jobs) fits += j.gpus <= cluster->TotalGpus();
      EXPECT_EQ(run->summary.jobs, fits) << spec << "/" << policy;
      EXPECT_EQ(run->summary.unfinished, 0) << spec << "/" << policy;
    }
  }
}

}  // namespace
}  // namespace schedkit
