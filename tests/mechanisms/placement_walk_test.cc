// PlacementWalk: shapes that did not fit are remembered only while the free state is
// unchanged, and only for placement modules that declare they answer by shape.
#include <gtest/gtest.h>

#include "mechanisms/placement_walk.h"
#include "schedkit/registry.h"

namespace schedkit {
namespace {

std::unique_ptr<PlacementModule> Make(const std::string& name) {
  const auto* entry = BuiltinRegistries().placements.Find(name);
  EXPECT_NE(entry, nullptr) << name;
  ModuleContext ctx;
  return std::move(entry->factory(ctx)).value();
}

// Two 4-GPU nodes with 3 GPUs of each busy: 2 GPUs free, but no node holds 2.
ClusterState Fragmented(const ClusterSpec& spec) {
  ClusterState state(&spec);
  for (int n = 0; n < 2; ++n) state.Allocate(Placement{{NodeShare{n, 0b0111, 0, 0}}});
  return state;
}

// Counts its calls; answers like yarn but does not declare that it answers by shape.
class CountingPlacement final : public PlacementModule {
 public:
  std::string_view Name() const override { return "counting"; }
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    ++calls;
    return yarn->Place(job, free);
  }
  std::unique_ptr<PlacementModule> yarn = Make("yarn");
  mutable int calls = 0;
};

const ClusterSpec kTwoNodes = ClusterSpec::Uniform(1, 2, 4, 0, 0);

TEST(PlacementWalk, SkipsAShapeThatFailedUntilTheStateChanges) {
  auto yarn = Make("yarn");
  ASSERT_TRUE(yarn->PlacesByShape());
  PlacementWalk walk(*yarn, Fragmented(kTwoNodes));
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

TEST(PlacementWalk, ShapeIncludesCpusAndMemory) {
  auto yarn = Make("yarn");
  PlacementWalk walk(*yarn, Fragmented(kTwoNodes));
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
  PlacementWalk walk(counting, Fragmented(kTwoNodes));
  for (JobId id = 1; id <= 3; ++id) EXPECT_TRUE(walk.Place(JobBuilder(id).Gpus(2).Build()).empty());
  EXPECT_EQ(counting.calls, 3);
  EXPECT_EQ(walk.skipped(), 0);
}

TEST(PlacementWalk, AsksEveryTimeOnSeveralGpuTypes) {
  // By shape only on one GPU type: elsewhere the job's speeds choose the type.
  ClusterSpec spec = kTwoNodes;
  spec.nodes[1].gpu_type = "k80";
  auto yarn = Make("yarn");
  PlacementWalk walk(*yarn, Fragmented(spec));
  EXPECT_TRUE(walk.Place(JobBuilder(1).Gpus(2).Build()).empty());
  EXPECT_TRUE(walk.Place(JobBuilder(2).Gpus(2).Build()).empty());
  EXPECT_EQ(walk.skipped(), 0);
}

}  // namespace
}  // namespace schedkit
