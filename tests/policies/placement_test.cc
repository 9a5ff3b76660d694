#include <gtest/gtest.h>

#include "mechanisms/placement_walk.h"
#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

// Node n holds `busy[n]` GPUs already (the lowest ones).
ClusterState StateWithBusy(const ClusterSpec& spec, std::vector<int> busy) {
  ClusterState state(&spec);
  for (size_t n = 0; n < busy.size(); ++n) {
    if (busy[n] == 0) continue;
    Placement p;
    p.shares.push_back(NodeShare{.node = static_cast<int>(n), .gpu_mask = LowestBits(state.free_gpu_mask(n), busy[n])});
    state.Allocate(p);
  }
  return state;
}

const ClusterSpec kThreeNodes = ClusterSpec::Uniform(1, 3, 4, 0, 0);

TEST(Placement, YarnPutsASmallJobOnTheFirstNodeThatHoldsItWhole) {
  const ClusterState free = StateWithBusy(kThreeNodes, {3, 1, 0});
  const Placement p = testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(2).Build(), free);
  EXPECT_EQ(p.ToString(), "n1:1-2");
}

TEST(Placement, YarnGivesLargeJobsWholeFreeNodes) {
  const ClusterState free = StateWithBusy(kThreeNodes, {1, 0, 0});
  EXPECT_EQ(testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(8).Build(), free).ToString(), "n1:0-3;n2:0-3");
  // 6 GPUs: one whole node plus the remainder on another node.
  EXPECT_EQ(testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(6).Build(), free).ToString(), "n0:1-2;n1:0-3");
  // 12 GPUs do not fit while node 0 is partly busy.
  EXPECT_TRUE(testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(12).Build(), free).empty());
}

// Switch 0 holds nodes of 8, 8 and 4 GPUs, switch 1 one of 4. Whole nodes are taken in id
// order while they fit what is still needed; a whole node passed over then may take the
// remainder, and a job too large for switch 0 goes whole to no other switch.
TEST(Placement, YarnOnNodesOfMixedSizes) {
  ClusterSpec spec = ClusterSpec::Uniform(1, 4, 8, 0, 0);
  spec.nodes[2].gpus = 4;
  spec.nodes[3].gpus = 4;
  spec.nodes[3].switch_id = 1;
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  const ClusterState idle(&spec);
  // 12: n0 whole (4 still needed), n1 passed over (8 > 4), n2 whole.
  EXPECT_EQ(yarn->Place(JobBuilder(1).Gpus(12).Build(), idle).ToString(), "n0:0-7;n2:0-3");
  // 10 with n2 half busy: n0 whole, then the first node not taken that holds 2 is n1.
  const ClusterState n2_busy = StateWithBusy(spec, {0, 0, 2, 0});
  EXPECT_EQ(yarn->Place(JobBuilder(1).Gpus(10).Build(), n2_busy).ToString(), "n0:0-7;n1:0-1");
  // 10 with n0 partly busy: n1 whole, the remainder on n0, listed in node order.
  const ClusterState n0_busy = StateWithBusy(spec, {3, 0, 0, 0});
  EXPECT_EQ(yarn->Place(JobBuilder(1).Gpus(10).Build(), n0_busy).ToString(), "n0:3-4;n1:0-7");
  // 21 does not fit switch 0 (20 GPUs), and switch 1 has 4.
  EXPECT_TRUE(yarn->Place(JobBuilder(1).Gpus(21).Build(), idle).empty());
}

TEST(Placement, YarnChecksCpusWhenNodesDeclareThem) {
  const ClusterSpec spec = ClusterSpec::Uniform(1, 2, 4, 10, 100);
  ClusterState free(&spec);
  // Muri's default: 6 CPUs per GPU, so 2 GPUs need 12 CPUs > 10 on any node.
  EXPECT_TRUE(testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(2).Build(), free).empty());
  EXPECT_FALSE(testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(1).Build(), free).empty());  // 2 CPUs.
  EXPECT_FALSE(testing::MakeBuiltinPlacement("yarn")->Place(JobBuilder(1).Gpus(2).Cpus(8).Build(), free).empty());
}

TEST(Placement, BestFitChoosesTheTightestNode) {
  const ClusterState free = StateWithBusy(kThreeNodes, {1, 2, 0});
  EXPECT_EQ(testing::MakeBuiltinPlacement("best-fit")->Place(JobBuilder(1).Gpus(2).Build(), free).ToString(), "n1:2-3");
  EXPECT_EQ(testing::MakeBuiltinPlacement("best-fit")->Place(JobBuilder(1).Gpus(3).Build(), free).ToString(), "n0:1-3");
}

TEST(Placement, FirstFitScattersInNodeOrder) {
  const ClusterState free = StateWithBusy(kThreeNodes, {3, 2, 0});
  EXPECT_EQ(testing::MakeBuiltinPlacement("first-fit")->Place(JobBuilder(1).Gpus(4).Build(), free).ToString(),
            "n0:3;n1:2-3;n2:0");
}

TEST(Placement, GpuCountNeedsOnlyEnoughFreeGpus) {
  const ClusterState free = StateWithBusy(kThreeNodes, {3, 2, 1});
  const Placement p = testing::MakeBuiltinPlacement("gpu-count")->Place(JobBuilder(1).Gpus(6).Build(), free);
  EXPECT_EQ(p.gpus(), 6);
  EXPECT_EQ(p.ToString(), "n0:3;n1:2-3;n2:1-3");
  EXPECT_TRUE(testing::MakeBuiltinPlacement("gpu-count")->Place(JobBuilder(1).Gpus(7).Build(), free).empty());
}

TEST(ClusterState, AllocateAndReleaseTrackFreeResources) {
  const ClusterSpec spec = ClusterSpec::Uniform(1, 2, 4, 8, 64);
  ClusterState state(&spec);
  Placement p{{NodeShare{.node = 1, .cpus = 4, .gpu_mask = 0b0110, .mem_gb = 10}}};
  ASSERT_TRUE(state.CanAllocate(p));
  state.Allocate(p);
  EXPECT_EQ(state.total_free_gpus(), 6);
  EXPECT_EQ(state.free_cpus(1), 4);
  EXPECT_FALSE(state.CanAllocate(Placement{{NodeShare{.node = 1, .gpu_mask = 0b0010}}}));
  // A node named twice could count a GPU twice: refused.
  EXPECT_FALSE(state.CanAllocate(Placement{{NodeShare{.node = 0, .gpu_mask = 0b1}, NodeShare{.node = 0, .gpu_mask = 0b1}}}));
  EXPECT_FALSE(state.CanAllocate(Placement{{NodeShare{.node = 1, .gpu_mask = 0b1}, NodeShare{.node = 0, .gpu_mask = 0b1}}}));
  state.Release(p);
  EXPECT_EQ(state.total_free_gpus(), 8);
  EXPECT_EQ(state.free_mem_gb(1), 64);
}

TEST(ClusterStateDeathTest, DoubleBookingAborts) {
  const ClusterSpec spec = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  ClusterState state(&spec);
  Placement p{{NodeShare{.node = 0, .gpu_mask = 0b01}}};
  state.Allocate(p);
  EXPECT_DEATH(state.Allocate(p), "double booking");
}

// PlacementWalk (src/mechanisms/placement_walk.h): shapes that did not fit are remembered
// only while the free state is unchanged, and only for modules that answer by shape.

// Counts its calls; answers like yarn but does not declare that it answers by shape.
class CountingPlacement final : public PlacementModule {
 public:
  std::string_view Name() const override { return "counting"; }
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    ++calls;
    return yarn->Place(job, free);
  }
  std::unique_ptr<PlacementModule> yarn = testing::MakeBuiltinPlacement("yarn");
  mutable int calls = 0;
};

// Two 4-GPU nodes with 3 GPUs of each busy: 2 GPUs free, but no node holds 2.
const ClusterSpec kTwoNodes = ClusterSpec::Uniform(1, 2, 4, 0, 0);

TEST(PlacementWalk, SkipsAShapeThatFailedUntilTheStateChanges) {
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  ASSERT_TRUE(yarn->PlacesByShape());
  PlacementWalk walk(*yarn, StateWithBusy(kTwoNodes, {3, 3}));
  EXPECT_TRUE(walk.Place(JobBuilder(1).Gpus(2).Build()).empty());  // Asked: no node has 2.
  EXPECT_EQ(walk.skipped(), 0);
  EXPECT_TRUE(walk.Place(JobBuilder(2).Gpus(2).Build()).empty());  // Same shape: not asked.
  EXPECT_EQ(walk.skipped(), 1);
  // Another shape is asked (and fits: node 0's free GPU).
  const Placement one = walk.Place(JobBuilder(3).Gpus(1).Build());
  EXPECT_EQ(one.ToString(), "n0:3");
  EXPECT_EQ(walk.skipped(), 1);
  // A change of the state forgets the failures: the 2-GPU shape is asked again.
  walk.Allocate(one);
  EXPECT_TRUE(walk.Place(JobBuilder(4).Gpus(2).Build()).empty());
  EXPECT_EQ(walk.skipped(), 1);
}

// A walk over a borrowed state leaves it untouched, answers MayFit as the state with its
// allocations would (whole GPUs counted without a copy; a fractional share read from the
// copy), and places later jobs on the state with every allocation so far.
TEST(PlacementWalk, BorrowedStateIsReadWithTheAllocationsAndNeverChanged) {
  const ClusterState base = StateWithBusy(kTwoNodes, {1, 0});  // 3 + 4 GPUs free.
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  PlacementWalk walk(*yarn, &base);
  const Placement first = walk.Place(JobBuilder(1).Gpus(4).Build());
  ASSERT_EQ(first.ToString(), "n1:0-3");
  walk.Allocate(first);
  EXPECT_TRUE(walk.MayFit(3, kMilliPerGpu));
  EXPECT_FALSE(walk.MayFit(4, kMilliPerGpu));
  EXPECT_EQ(base.total_free_gpus(), 7);  // The borrowed state did not change.
  const Placement second = walk.Place(JobBuilder(2).Gpus(2).Build());
  EXPECT_EQ(second.ToString(), "n0:1-2");  // Placed beside the first allocation.
  walk.Allocate(second);
  EXPECT_EQ(walk.free().total_free_gpus(), 1);
  EXPECT_EQ(base.total_free_gpus(), 7);
  // A fractional share on the borrowed state: MayFit reads the shares from the copy.
  PlacementWalk shares(*yarn, &base);
  NodeShare fraction{.node = 0, .gpu_mask = uint64_t{1} << 3};
  fraction.gpu_milli = 500;
  shares.Allocate(Placement{{fraction}});
  EXPECT_FALSE(shares.MayFit(7, kMilliPerGpu));  // One GPU went to the fraction.
  EXPECT_TRUE(shares.MayFit(6, kMilliPerGpu));
  EXPECT_TRUE(shares.MayFit(7, 500));  // The shared GPU has 500 milli-GPU left.
  EXPECT_EQ(base.total_free_gpus(), 7);
}

// A borrowed walk with scratch storage copies into the scratch state (whatever it held
// before; made if it held none), starts with none of the scratch's old allocations, and
// leaves the borrowed state alone; an in-place walk books on the state it is given.
TEST(PlacementWalk, ScratchAndInPlaceStates) {
  const ClusterState base = StateWithBusy(kTwoNodes, {1, 0});  // 3 + 4 GPUs free.
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  PlacementWalk::Scratch scratch;
  scratch.state = StateWithBusy(kTwoNodes, {4, 4});  // Stale: nothing free.
  scratch.allocated.resize(3);                       // Stale too.
  {
    PlacementWalk walk(*yarn, &base, &scratch);
    const Placement first = walk.Place(JobBuilder(1).Gpus(4).Build());
    ASSERT_EQ(first.ToString(), "n1:0-3");
    walk.Allocate(first);
    EXPECT_EQ(scratch.state->total_free_gpus(), 0);  // Not copied until the state is read.
    const Placement second = walk.Place(JobBuilder(2).Gpus(2).Build());
    EXPECT_EQ(second.ToString(), "n0:1-2");
    walk.Allocate(second);
    EXPECT_EQ(&walk.free(), &*scratch.state);
    EXPECT_EQ(scratch.state->total_free_gpus(), 1);
    EXPECT_EQ(base.total_free_gpus(), 7);
  }
  {
    PlacementWalk::Scratch empty;
    PlacementWalk walk(*yarn, &base, &empty);
    walk.Allocate(walk.Place(JobBuilder(5).Gpus(4).Build()));
    EXPECT_EQ(walk.free().total_free_gpus(), 3);
    EXPECT_EQ(&walk.free(), &*empty.state);
  }
  ClusterState mine = base;
  PlacementWalk in_place(*yarn, &mine, PlacementWalk::InPlace());
  const Placement p = in_place.Place(JobBuilder(3).Gpus(3).Build());
  ASSERT_EQ(p.ToString(), "n0:1-3");
  in_place.Allocate(p);
  EXPECT_EQ(mine.total_free_gpus(), 4);  // Booked at once.
  EXPECT_EQ(&in_place.free(), &mine);
  EXPECT_TRUE(in_place.Place(JobBuilder(4).Gpus(5).Build()).empty());
  EXPECT_EQ(base.total_free_gpus(), 7);
}

TEST(PlacementWalk, ShapeIncludesCpusAndMemory) {
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  PlacementWalk walk(*yarn, StateWithBusy(kTwoNodes, {3, 3}));
  EXPECT_TRUE(walk.Place(JobBuilder(1).Gpus(2).Build()).empty());
  JobSpec with_cpus = JobBuilder(2).Gpus(2).Build();
  with_cpus.cpus = 4;
  EXPECT_TRUE(walk.Place(with_cpus).empty());
  JobSpec with_mem = JobBuilder(3).Gpus(2).Build();
  with_mem.mem_gb = 8;
  EXPECT_TRUE(walk.Place(with_mem).empty());
  EXPECT_EQ(walk.skipped(), 0);  // Three shapes, each asked once.
}

TEST(PlacementWalk, AsksEveryTimeWhenTheModuleDoesNotAnswerByShape) {
  CountingPlacement counting;
  ASSERT_FALSE(counting.PlacesByShape());
  PlacementWalk walk(counting, StateWithBusy(kTwoNodes, {3, 3}));
  for (JobId id = 1; id <= 3; ++id) EXPECT_TRUE(walk.Place(JobBuilder(id).Gpus(2).Build()).empty());
  EXPECT_EQ(counting.calls, 3);
  EXPECT_EQ(walk.skipped(), 0);
}

TEST(PlacementWalk, AsksEveryTimeOnSeveralGpuTypes) {
  // By shape only on one GPU type: elsewhere the job's speeds choose the type.
  ClusterSpec spec = kTwoNodes;
  spec.nodes[1].gpu_type = "k80";
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  PlacementWalk walk(*yarn, StateWithBusy(spec, {3, 3}));
  EXPECT_TRUE(walk.Place(JobBuilder(1).Gpus(2).Build()).empty());
  EXPECT_TRUE(walk.Place(JobBuilder(2).Gpus(2).Build()).empty());
  EXPECT_EQ(walk.skipped(), 0);
}

}  // namespace
}  // namespace schedkit
