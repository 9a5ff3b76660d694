// Each sharing policy's choice on a hand-made cluster, and the placement mechanism.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sharing/policy.h"

namespace schedkit::sharing {
namespace {

PodSpec Fractional(int64_t cpu, int milli) { return PodSpec{"f", cpu, 0, 1, milli, ""}; }
PodSpec Whole(int64_t cpu, int gpus) { return PodSpec{"w", cpu, 0, gpus, kMilliPerGpu, ""}; }

// node 0: 2 GPUs, GPU 0 holds a 700 milli fractional pod (300 free), GPU 1 free.
// node 1: 4 free GPUs. Both 32 cores.
class SharingPolicyTest : public ::testing::Test {
 protected:
  SharingPolicyTest() {
    spec_.nodes = {{"n0", 32000, 1 << 20, 2, "T4"}, {"n1", 32000, 1 << 20, 4, "T4"}};
    state_ = std::make_unique<SharingState>(&spec_);
    state_->Allocate(SharingPlacement{0, 0b01, 700, 4000, 0});
    state_->Allocate(SharingPlacement{1, 0, 0, 4000, 0});  // Same CPU left on both.
  }
  // Fills node 1's CPU so that only node 0 fits.
  void FillNode1Cpu() { state_->Allocate(SharingPlacement{1, 0, 0, 27500, 0}); }

  SharingPlacement Place(const std::string& policy, const PodSpec& pod,
                         std::vector<WeightedShape> workload = {}, uint64_t seed = 1,
                         TieBreak ties = TieBreak::kFirstNode, std::vector<int> rank = {}) {
    ModuleContext ctx;
    auto made = BuiltinSharingPolicies().Find(policy)->factory(ctx);
    Fragmentation frag(&spec_, std::move(workload));
    frag.Reset(*state_);
    PortableRng rng(seed);
    SharingView view{*state_, frag};
    view.tie_rank = &rank;
    return PlacePod(**made, view, pod, ties, rng);
  }

  SharingClusterSpec spec_;
  std::unique_ptr<SharingState> state_;
};

TEST_F(SharingPolicyTest, RegistryListsTheSixPolicies) {
  EXPECT_EQ(SharingPolicyNames(), (std::vector<std::string>{"fgd", "best-fit", "dot-product",
                                                            "packing", "clustering", "random"}));
}

TEST_F(SharingPolicyTest, FgdKeepsAGpuThatStillHoldsTheWorkload) {
  FillNode1Cpu();
  // Workload: 300 milli pods. On GPU 0 a 200 pod strands 100 (score 47); on GPU 1 it
  // strands nothing (score 50).
  const SharingPlacement p = Place("fgd", Fractional(1000, 200), {{{1000, 300, 1, ""}, 1.0}});
  EXPECT_EQ(p.node, 0);
  EXPECT_EQ(p.gpu_mask, 0b10u);
}

TEST_F(SharingPolicyTest, BestFitTakesTheTightestNodeAndGpu) {
  // Node 0 has 1300 milli-GPU free, node 1 4000: node 0, and its 300-free GPU.
  const SharingPlacement p = Place("best-fit", Fractional(1000, 200));
  EXPECT_EQ(p.node, 0);
  EXPECT_EQ(p.gpu_mask, 0b01u);
}

TEST_F(SharingPolicyTest, DotProductPrefersTheSmallerFreeVector) {
  // One whole GPU (1/8 of the largest node): node 0 has 1300 milli-GPU free, 0.1625 of the
  // largest node, node 1 4000 (0.5). CPU (28 of 128 cores) and demand (1 core) are equal:
  // 1 - (0.21875 x 0.0078125 + 0.1625 x 0.125) / 2 = 0.9890 -> 98 against 0.9679 -> 96.
  const SharingPlacement p = Place("dot-product", Whole(1000, 1));
  EXPECT_EQ(p.node, 0);
  EXPECT_EQ(p.gpu_mask, 0b10u);
}

TEST_F(SharingPolicyTest, PackingUsesFreeGpusOfAUsedNodeBeforeAnIdleNode) {
  // Node 0: one fully free GPU taken (49); node 1 entirely free (max(33 - 4, 4) = 29).
  const SharingPlacement p = Place("packing", Whole(1000, 1));
  EXPECT_EQ(p.node, 0);
  EXPECT_EQ(p.gpu_mask, 0b10u);
  // A fractional pod that fits the shared GPU: 100 - 30 / 10 = 97 on node 0.
  EXPECT_EQ(Place("packing", Fractional(1000, 300)).gpu_mask, 0b01u);
}

TEST_F(SharingPolicyTest, ClusteringGroupsPodsOfOneKind) {
  // Fractional: node 0 holds only fractional pods (75 + 20) vs idle node 1 (25 + 12).
  EXPECT_EQ(Place("clustering", Fractional(1000, 200)).node, 0);
  // One whole GPU: node 0 holds another kind (0 + 20) vs idle node 1 (25 + 12).
  const SharingPlacement p = Place("clustering", Whole(1000, 1));
  EXPECT_EQ(p.node, 1);
  EXPECT_EQ(p.gpu_mask, 0b0001u);
}

TEST_F(SharingPolicyTest, RandomReachesEveryNodeThatFitsAndOnlyThose) {
  std::set<int> nodes;
  for (uint64_t seed = 0; seed < 50; ++seed) nodes.insert(Place("random", Whole(1000, 2), {}, seed).node);
  EXPECT_EQ(nodes, (std::set<int>{1}));  // Node 0 has one free GPU only.
  nodes.clear();
  for (uint64_t seed = 0; seed < 50; ++seed) nodes.insert(Place("random", Whole(1000, 1), {}, seed).node);
  EXPECT_EQ(nodes, (std::set<int>{0, 1}));
}

TEST_F(SharingPolicyTest, TiesGoToTheFirstNodeOrToARandomOne) {
  const PodSpec cpu_only{"c", 1000, 0, 0, 0, ""};  // Packing scores it 0 on every node.
  std::set<int> first, random;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    first.insert(Place("packing", cpu_only, {}, seed, TieBreak::kFirstNode).node);
    random.insert(Place("packing", cpu_only, {}, seed, TieBreak::kRandomNode).node);
  }
  EXPECT_EQ(first, (std::set<int>{0}));
  EXPECT_EQ(random, (std::set<int>{0, 1}));
}

TEST_F(SharingPolicyTest, RankedTiesGoToTheLowestRankedNodeAndLeaveOtherChoicesAlone) {
  const PodSpec cpu_only{"c", 1000, 0, 0, 0, ""};  // Packing scores it 0 on both nodes.
  EXPECT_EQ(Place("packing", cpu_only, {}, 1, TieBreak::kRankedNode, {1, 0}).node, 1);
  EXPECT_EQ(Place("packing", cpu_only, {}, 1, TieBreak::kRankedNode, {0, 1}).node, 0);
  // No tie: one whole GPU scores 49 on node 0 and 29 on node 1 (see above), whatever the
  // ranks say.
  EXPECT_EQ(Place("packing", Whole(1000, 1), {}, 1, TieBreak::kRankedNode, {1, 0}).node, 0);
}

TEST(RandomNodeRanks, IsAPermutationThatDependsOnTheGenerator) {
  std::set<std::vector<int>> seen;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    PortableRng rng(seed);
    std::vector<int> rank = RandomNodeRanks(5, rng);
    seen.insert(rank);
    std::sort(rank.begin(), rank.end());
    EXPECT_EQ(rank, (std::vector<int>{0, 1, 2, 3, 4}));
  }
  EXPECT_GT(seen.size(), 10u);  // 120 orders; 20 seeds give many of them.
}

TEST(TieBreakNames, ParseTheThreeNamesAndRefuseOthers) {
  TieBreak t = TieBreak::kFirstNode;
  EXPECT_TRUE(ParseTieBreak("ranked", &t));
  EXPECT_EQ(t, TieBreak::kRankedNode);
  EXPECT_TRUE(ParseTieBreak("random", &t));
  EXPECT_EQ(t, TieBreak::kRandomNode);
  EXPECT_TRUE(ParseTieBreak("first", &t));
  EXPECT_EQ(t, TieBreak::kFirstNode);
  EXPECT_FALSE(ParseTieBreak("last", &t));
  EXPECT_EQ(t, TieBreak::kFirstNode);
}

TEST_F(SharingPolicyTest, NothingFitsGivesAnEmptyPlacement) {
  for (const std::string& name : SharingPolicyNames()) {
    EXPECT_TRUE(Place(name, Whole(1000, 8)).empty()) << name;
  }
}

TEST_F(SharingPolicyTest, EveryPolicyPlacesOnlyWhereTheStateAccepts) {
  for (const std::string& name : SharingPolicyNames()) {
    for (const PodSpec& pod : {Fractional(500, 250), Whole(2000, 2), PodSpec{"c", 1000, 0, 0, 0, ""}}) {
      const SharingPlacement p = Place(name, pod);
      ASSERT_FALSE(p.empty()) << name;
      EXPECT_TRUE(state_->CanAllocate(p)) << name;
      EXPECT_EQ(p.gpus(), pod.gpus) << name;
    }
  }
}

}  // namespace
}  // namespace schedkit::sharing
