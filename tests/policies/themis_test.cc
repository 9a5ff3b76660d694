// Themis: finish-time-fair shares decide who runs.
#include <gtest/gtest.h>

#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

using testing::Request;
using testing::RunScenario;

const ClusterSpec kOneGpu = ClusterSpec::Uniform(1, 1, 1, 16, 100);

// A (1000 s) runs alone from 0. B (10 s) arrives at 100. The LP (see
// FinishTimeFairness.TwoJobsWithElapsedTimeByHand: these are the same numbers, as a job
// without iterations counts seconds) gives B 1/rho = 0.513 and A 0.487; B has never run,
// so it ranks first (x * 1e9) and preempts A. B ends at 110, A at 1010.
TEST(Themis, NewShortJobPreemptsByFinishTimeFairness) {
  const JobSpec a = JobBuilder(1).Gpus(1).Duration(1000).Build();
  const JobSpec b = JobBuilder(2).Gpus(1).Submit(100).Duration(10).Build();
  for (const char* shares : {"centre", "least"}) {
    auto r = RunScenario({a, b}, kOneGpu, Request("themis", {{"shares", shares}}));
    EXPECT_NEAR(r.Jct(2), 10, 1e-9) << shares;
    EXPECT_NEAR(r.Jct(1), 1010, 1e-9) << shares;
    EXPECT_EQ(r.jobs.at(1).preemptions, 1) << shares;
  }
}

// Two equal jobs at 0 on one GPU: the LP gives both 1/2, so the ranks (x * 1e9, deficit,
// share) tie and the list's order, arrival order, decides: job 1 runs first.
TEST(Themis, TiesKeepArrivalOrder) {
  const JobSpec a = JobBuilder(1).Gpus(1).Duration(100).Build();
  const JobSpec b = JobBuilder(2).Gpus(1).Duration(100).Build();
  auto r = RunScenario({a, b}, kOneGpu, Request("themis"));
  EXPECT_NEAR(r.Jct(1), 100, 1e-9);
  EXPECT_NEAR(r.Jct(2), 200, 1e-9);
}

// Two nodes of 2 GPUs. Fair share ceil(4/2) = 2 GPUs: the 4-GPU job's isolated time is
// 100 / 0.5 = 200 (ratio 0.5 at x = 1), the 1-GPU job's 50 (ratio 1): the small job
// binds rho* = 1 with x = 1, the big one gets less, so the small one ranks first. Yarn
// then cannot give the big job two whole free nodes: it waits until 50.
TEST(Themis, RanksBySharesThenPlacesGreedily) {
  const ClusterSpec two_nodes = ClusterSpec::Uniform(1, 2, 2, 16, 100);
  const JobSpec big = JobBuilder(1).Gpus(4).Duration(100).Build();
  const JobSpec small = JobBuilder(2).Gpus(1).Duration(50).Build();
  auto r = RunScenario({big, small}, two_nodes, Request("themis"));
  EXPECT_EQ(r.Start(2), 0);
  EXPECT_NEAR(r.Jct(2), 50, 1e-9);
  EXPECT_NEAR(r.Start(1), 50, 1e-9);
  EXPECT_NEAR(r.Jct(1), 150, 1e-9);
}

TEST(Themis, RejectsAnUnknownSharesOption) {
  PolicyRequest req = Request("themis", {{"shares", "middle"}});
  auto p = MakePolicy(req);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("shares"), std::string::npos);
}

}  // namespace
}  // namespace schedkit
