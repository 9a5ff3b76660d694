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

// Two 100 s jobs at 0 on one GPU; job 1 has 10,000 iterations of 0.01 s, job 2 100 of 1 s.
// Both have fair share 1. In seconds both isolated times are 100: the LP gives 1/2 each,
// the ranks tie and arrival order runs job 1 first. In Muri's iterations per share,
// I1 = 10,000 and I2 = 100, so job 1 tolerates a far smaller share (rho1 = 0.01 / x1,
// rho2 = 1 / x2): job 2 gets the larger share, ranks first and runs first.
TEST(Themis, IsolatedTimeUnitDecidesTheShares) {
  const JobSpec a = JobBuilder(1).Gpus(1).Iterations(10000, 0.01).Build();
  const JobSpec b = JobBuilder(2).Gpus(1).Iterations(100, 1.0).Build();
  auto seconds = RunScenario({a, b}, kOneGpu, Request("themis", {{"isolated_time", "seconds"}}));
  EXPECT_NEAR(seconds.Jct(1), 100, 1e-6);
  EXPECT_NEAR(seconds.Jct(2), 200, 1e-6);
  auto iterations =
      RunScenario({a, b}, kOneGpu, Request("themis", {{"isolated_time", "iterations"}}));
  EXPECT_NEAR(iterations.Jct(2), 100, 1e-6);
  EXPECT_NEAR(iterations.Jct(1), 200, 1e-6);
  // auto is seconds outside --compat muri.
  auto automatic = RunScenario({a, b}, kOneGpu, Request("themis"));
  EXPECT_NEAR(automatic.Jct(1), 100, 1e-6);
}

TEST(Themis, RejectsAnUnknownIsolatedTimeUnit) {
  auto p = MakePolicy(Request("themis", {{"isolated_time", "hours"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("isolated_time='hours'"), std::string::npos);
}

TEST(Themis, RejectsAnUnknownSharesOption) {
  PolicyRequest req = Request("themis", {{"shares", "middle"}});
  auto p = MakePolicy(req);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("shares"), std::string::npos);
}

}  // namespace
}  // namespace schedkit
