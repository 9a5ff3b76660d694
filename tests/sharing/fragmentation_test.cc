// Fragmentation of hand-computed nodes, the target workload's cut, and incremental upkeep.
#include <gtest/gtest.h>

#include "schedkit/sharing.h"

namespace schedkit::sharing {
namespace {

SharingNodeSpec Node(int gpus, int64_t cpu_milli, std::string model = "T4") {
  return SharingNodeSpec{"n", cpu_milli, 1 << 20, gpus, gpus > 0 ? std::move(model) : ""};
}

PodShape Fractional(int64_t cpu, int milli, std::string models = "") {
  return PodShape{cpu, milli, 1, std::move(models)};
}
PodShape Whole(int64_t cpu, int gpus) { return PodShape{cpu, kMilliPerGpu, gpus, ""}; }
PodShape CpuOnly(int64_t cpu) { return PodShape{cpu, 0, 0, ""}; }

// One 4-GPU node with 10 cores and GPUs [1000, 1000, 500, 200] free.
class FragmentationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_.nodes = {Node(4, 32000)};
    state_ = std::make_unique<SharingState>(&spec_);
    state_->Allocate(SharingPlacement{0, 0b0100, 500, 12000, 0});
    state_->Allocate(SharingPlacement{0, 0b1000, 800, 10000, 0});
  }
  double F(std::vector<WeightedShape> workload) {
    Fragmentation f(&spec_, std::move(workload));
    return f.Of(0, state_->free(0));
  }
  SharingClusterSpec spec_;
  std::unique_ptr<SharingState> state_;
};

TEST_F(FragmentationTest, FractionalShapeCountsGpusTooSmallForIt) {
  // GPUs 0 and 1 hold 600; 500 + 200 on GPUs 2 and 3 are stranded.
  EXPECT_DOUBLE_EQ(F({{Fractional(4000, 600), 1.0}}), 700);
  // Every GPU holds 200: nothing is stranded.
  EXPECT_DOUBLE_EQ(F({{Fractional(4000, 200), 1.0}}), 0);
}

TEST_F(FragmentationTest, WholeGpuShapeNeedsEnoughFullyFreeGpus) {
  EXPECT_DOUBLE_EQ(F({{Whole(8000, 2), 1.0}}), 700);   // Two free GPUs: fits.
  EXPECT_DOUBLE_EQ(F({{Whole(8000, 4), 1.0}}), 2700);  // Only two: all free GPU is fragment.
  EXPECT_DOUBLE_EQ(F({{Whole(12000, 1), 1.0}}), 2700); // 10 cores free: CPU short.
}

TEST_F(FragmentationTest, CpuOnlyShapeCountsAllFreeGpu) {
  EXPECT_DOUBLE_EQ(F({{CpuOnly(2000), 1.0}}), 2700);
}

TEST_F(FragmentationTest, WrongGpuModelCountsAllFreeGpu) {
  EXPECT_DOUBLE_EQ(F({{Fractional(1000, 100, "V100M16|V100M32"), 1.0}}), 2700);
  EXPECT_DOUBLE_EQ(F({{Fractional(1000, 100, "V100M16|T4"), 1.0}}), 0);
}

TEST_F(FragmentationTest, WeightsByPopularity) {
  // 0.5 x 700 + 0.3 x 700 + 0.2 x 2700.
  EXPECT_DOUBLE_EQ(
      F({{Fractional(4000, 600), 0.5}, {Whole(8000, 2), 0.3}, {CpuOnly(2000), 0.2}}), 1100);
}

TEST(FragmentationNodes, CpuOnlyAndFullNodesHoldNoFragment) {
  SharingClusterSpec spec;
  spec.nodes = {Node(0, 32000), Node(1, 32000)};
  SharingState state(&spec);
  state.Allocate(SharingPlacement{1, 0b1, 1000, 1000, 0});
  Fragmentation f(&spec, {{CpuOnly(1000), 1.0}});
  f.Reset(state);
  EXPECT_EQ(f.node(0), 0);
  EXPECT_EQ(f.node(1), 0);
}

TEST(FragmentationTracking, UpdateMatchesAFullRecompute) {
  SharingClusterSpec spec;
  spec.nodes = {Node(2, 16000), Node(4, 32000), Node(8, 64000)};
  SharingState state(&spec);
  const std::vector<WeightedShape> workload = {
      {Fractional(2000, 500), 0.4}, {Whole(4000, 1), 0.4}, {CpuOnly(1000), 0.2}};
  Fragmentation tracked(&spec, workload);
  tracked.Reset(state);
  const SharingPlacement steps[] = {{1, 0b0001, 300, 2000, 0},
                                    {2, 0b0110, 1000, 8000, 0},
                                    {0, 0b0010, 700, 1000, 0},
                                    {1, 0b0001, 400, 2000, 0}};
  for (const SharingPlacement& p : steps) {
    state.Allocate(p);
    tracked.Update(state, p.node);
    Fragmentation fresh(&spec, workload);
    fresh.Reset(state);
    EXPECT_NEAR(tracked.total(), fresh.total(), 1e-6);
    for (int n = 0; n < 3; ++n) EXPECT_DOUBLE_EQ(tracked.node(n), fresh.node(n));
  }
}

PodSpec Pod(int64_t cpu, int gpus, int milli) { return PodSpec{"p", cpu, 0, gpus, milli, ""}; }

TEST(TargetWorkload, KeepsTheMostPopularShapesUpToTheCoverage) {
  std::vector<PodSpec> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(Pod(1000, 1, 500));
  for (int i = 0; i < 3; ++i) pods.push_back(Pod(2000, 1, 1000));
  pods.push_back(Pod(500, 0, 0));
  pods.push_back(Pod(700, 0, 0));
  const std::vector<WeightedShape> top = TargetWorkload(pods, 0.8);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].shape, (PodShape{1000, 500, 1, ""}));
  EXPECT_DOUBLE_EQ(top[0].weight, 5.0 / 8);
  EXPECT_DOUBLE_EQ(top[1].weight, 3.0 / 8);
  // 90 % < 95 %: both singletons join; of the tie, the larger shape comes first.
  const std::vector<WeightedShape> all = TargetWorkload(pods, 0.95);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].shape.cpu_milli, 700);
  EXPECT_DOUBLE_EQ(all[3].weight, 0.1);
}

}  // namespace
}  // namespace schedkit::sharing
