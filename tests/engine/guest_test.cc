// StartDecision::guest: opportunistic co-location without booking GPUs (AntMan).
#include <gtest/gtest.h>

#include "schedkit/simulator.h"

namespace schedkit {
namespace {

Placement Gpu0() { return Placement{{NodeShare{.node = 0, .gpu_mask = 0b1}}}; }

StartDecision Guest(JobId id, Placement p, double rate) {
  StartDecision s{id, std::move(p), rate};
  s.guest = true;
  return s;
}

// Host 1 (100 s) books GPU 0; guest 2 (50 s of work) shares it at half speed: both end at
// t = 100. The GPU stays booked by the host only; a third job cannot book it meanwhile,
// and starts once the host is gone.
TEST(GuestStart, SharesABookedGpuWithoutBookingIt) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Duration(100).Build(), JobBuilder(2).Duration(50).Build(),
                JobBuilder(3).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  EventBatch batch;
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  Decisions d;
  d.start = {StartDecision{1, Gpu0()}, Guest(2, Gpu0(), 0.5)};
  ASSERT_TRUE(sim.Apply(d).ok());
  EXPECT_EQ(sim.view().Resources().total_free_gpus(), 0);
  Decisions third;
  third.start = {StartDecision{3, Gpu0()}};
  EXPECT_FALSE(sim.Apply(third).ok());  // Booked by the host.
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  EXPECT_DOUBLE_EQ(sim.view().Now(), 100);
  EXPECT_EQ(batch.finished, (std::vector<JobId>{1, 2}));
  ASSERT_TRUE(sim.Apply(third).ok());
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  EXPECT_DOUBLE_EQ(sim.view().Now(), 110);
  EXPECT_FALSE(sim.NextDecisionPoint(&batch));
  EXPECT_EQ(sim.stats().unfinished, 0);
}

// A guest alone leaves its GPU free: a normal start may book it while the guest runs.
TEST(GuestStart, LeavesItsGpusFree) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Duration(30).Build(), JobBuilder(2).Submit(10).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  EventBatch batch;
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  Decisions d;
  d.start = {Guest(1, Gpu0(), 1.0)};
  ASSERT_TRUE(sim.Apply(d).ok());
  EXPECT_EQ(sim.view().Resources().total_free_gpus(), 1);
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));  // t = 10: job 2 arrives.
  Decisions host;
  host.start = {StartDecision{2, Gpu0()}};
  ASSERT_TRUE(sim.Apply(host).ok());
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  EXPECT_DOUBLE_EQ(sim.view().Now(), 20);
  EXPECT_EQ(batch.finished, std::vector<JobId>{2});
  ASSERT_TRUE(sim.Apply(Decisions()).ok());
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  EXPECT_DOUBLE_EQ(sim.view().Now(), 30);
  EXPECT_EQ(batch.finished, std::vector<JobId>{1});
}

TEST(GuestStart, RefusesBadGuestPlacements) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Duration(30).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  EventBatch batch;
  ASSERT_TRUE(sim.NextDecisionPoint(&batch));
  Decisions two_gpus;
  two_gpus.start = {Guest(1, Placement{{NodeShare{.node = 0, .gpu_mask = 0b11}}}, 1)};
  EXPECT_FALSE(sim.Apply(two_gpus).ok());
  Decisions missing_gpu;
  missing_gpu.start = {Guest(1, Placement{{NodeShare{.node = 0, .gpu_mask = 0b100}}}, 1)};
  EXPECT_FALSE(sim.Apply(missing_gpu).ok());
  Decisions missing_node;
  missing_node.start = {Guest(1, Placement{{NodeShare{.node = 1, .gpu_mask = 0b1}}}, 1)};
  EXPECT_FALSE(sim.Apply(missing_node).ok());
  Decisions in_group;
  in_group.start = {Guest(1, Gpu0(), 1)};
  in_group.start[0].group = 7;
  EXPECT_FALSE(sim.Apply(in_group).ok());
  EXPECT_TRUE(sim.view().RunningJobs().empty());
}

}  // namespace
}  // namespace schedkit
