// AntMan: guaranteed jobs FIFO with reservations, opportunistic jobs as slowed guests.
#include <gtest/gtest.h>

#include <set>

#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

using testing::Request;
using testing::RunScenario;

// One node of 2 GPUs. G1 (1 GPU, 100 s) starts on GPU 0. G2 (2 GPUs) finds one GPU and
// reserves it; G3 (1 GPU, 10 s, guaranteed) arrives at 1 and finds nothing: GPU 0 is G1's,
// GPU 1 is G2's reservation. At 100 G2 completes its reservation (ends 150), then G3 runs.
TEST(AntMan, GuaranteedJobsReserveGpusFirstComeFirstServed) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 16, 100);
  const JobSpec g1 = JobBuilder(1).Gpus(1).Duration(100).Priority(0).Build();
  const JobSpec g2 = JobBuilder(2).Gpus(2).Duration(50).Priority(0).Build();
  const JobSpec g3 = JobBuilder(3).Gpus(1).Submit(1).Duration(10).Priority(0).Build();
  auto r = RunScenario({g1, g2, g3}, cluster, Request("antman"));
  EXPECT_DOUBLE_EQ(r.Start(1), 0);
  EXPECT_DOUBLE_EQ(r.Start(2), 100);
  EXPECT_DOUBLE_EQ(r.Jct(2), 150);
  EXPECT_DOUBLE_EQ(r.Start(3), 150);
  EXPECT_DOUBLE_EQ(r.Jct(3), 159);
}

// One GPU. Host H (guaranteed, 100 iterations of 1 s, stages 0.2/0.6/0.2) and guest O
// (opportunistic, 80 iterations of 1 s, stages 0.3/0.3/0). O's data stage fits in one of
// H's iterations, its GPU stage needs a second: O runs one iteration per 2 s (rate 0.5)
// until H leaves at 100 (50 iterations done), then alone at full speed: O ends at 130.
// A second guest O2 cannot join while O is there (utilisation 0.9 or 1.0 >= 0.8): it
// starts at 130 and, alone, ends at 135.
TEST(AntMan, OpportunisticJobsRunAsSlowedGuests) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 16, 100);
  const JobSpec h = JobBuilder(1).Iterations(100, 1.0).Stages(0.2, 0.6, 0.2).Priority(0).Build();
  const JobSpec o = JobBuilder(2).Iterations(80, 1.0).Stages(0.3, 0.3, 0).Priority(1).Build();
  const JobSpec o2 = JobBuilder(3).Iterations(5, 1.0).Stages(0.3, 0.3, 0).Priority(1).Build();
  auto r = RunScenario({h, o, o2}, cluster, Request("antman"));
  EXPECT_DOUBLE_EQ(r.Jct(1), 100);
  EXPECT_DOUBLE_EQ(r.Start(2), 0);
  EXPECT_NEAR(r.Jct(2), 130, 1e-9);
  EXPECT_EQ(r.jobs.at(2).preemptions, 1);  // The re-rating at 100 is a restart.
  EXPECT_NEAR(r.Start(3), 130, 1e-9);
  EXPECT_NEAR(r.Jct(3), 135, 1e-9);
}

// With util_cap = 0.05 even a GPU holding a guaranteed job (0.1) is closed to guests.
TEST(AntMan, UtilisationCapKeepsGuestsOff) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 16, 100);
  const JobSpec h = JobBuilder(1).Iterations(100, 1.0).Stages(0.2, 0.6, 0.2).Priority(0).Build();
  const JobSpec o = JobBuilder(2).Iterations(10, 1.0).Stages(0.3, 0.3, 0).Priority(1).Build();
  auto r = RunScenario({h, o}, cluster, Request("antman", {{"util_cap", "0.05"}}));
  EXPECT_NEAR(r.Start(2), 100, 1e-9);
  EXPECT_NEAR(r.Jct(2), 110, 1e-9);
}

// The nodes of a job's recorded placement.
std::set<int> NodesOf(const testing::ScenarioResult& r, JobId id) {
  Result<Placement> p = ParsePlacement(r.jobs.at(id).placement);
  EXPECT_TRUE(p.ok()) << r.jobs.at(id).placement;
  std::set<int> nodes;
  for (const NodeShare& s : p->shares) nodes.insert(s.node);
  return nodes;
}

// Node 0 has 2 k80s, node 1 2 v100s. G1 (guaranteed, 2 GPUs, twice as fast on a v100) takes
// the v100s although node 0 comes first; G2 (guaranteed, 1 GPU, runs only on a k80) takes a
// k80. O3 (opportunistic, 2 GPUs, runs only on a v100) joins G1 as a guest on node 1: the
// least-utilised open GPUs of the cluster are node 0's (G2's at 0.11 and an idle one), which
// would put it on k80s, where it cannot run. Every job stays within one type.
TEST(AntMan, PlacesEachJobWithinTheFastestGpuTypeItCanRunOn) {
  ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 2, 16, 100);
  cluster.nodes[0].gpu_type = "k80";
  cluster.nodes[1].gpu_type = "v100";
  const JobSpec g1 =
      JobBuilder(1).Gpus(2).Duration(100).Speed("k80", 0.5).Speed("v100", 1).Priority(0).Build();
  const JobSpec g2 = JobBuilder(2).Gpus(1).Duration(100).Speed("k80", 1).Priority(0).Build();
  const JobSpec o3 = JobBuilder(3).Gpus(2).Duration(10).Speed("v100", 1).Priority(1).Build();
  auto r = RunScenario({g1, g2, o3}, cluster, Request("antman"));
  EXPECT_EQ(r.summary.unfinished, 0);
  EXPECT_EQ(NodesOf(r, 1), std::set<int>{1});
  EXPECT_DOUBLE_EQ(r.Jct(1), 100);  // At its v100 speed.
  EXPECT_EQ(NodesOf(r, 2), std::set<int>{0});
  EXPECT_EQ(NodesOf(r, 3), std::set<int>{1});
  EXPECT_DOUBLE_EQ(r.Start(3), 0);
}

TEST(AntMan, RejectsABadUtilCap) {
  auto p = MakePolicy(Request("antman", {{"util_cap", "1.5"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("util_cap"), std::string::npos);
}

TEST(AntMan, RefusesAPlacementModule) {
  PolicyRequest req = Request("antman");
  req.placement = "yarn";
  auto p = MakePolicy(req);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("placement"), std::string::npos);
}

}  // namespace
}  // namespace schedkit
