// Fractional GPU shares in the core model: ClusterState books milli-GPU per GPU without
// over-committing, keeps the free mask for whole GPUs, and the placement text names shares.
#include <gtest/gtest.h>

#include "schedkit/cluster.h"

namespace schedkit {
namespace {

NodeShare Frac(int node, int gpu, int milli) {
  NodeShare s;
  s.node = node;
  s.gpu_mask = uint64_t{1} << gpu;
  s.gpu_milli = milli;
  return s;
}

class FractionalSharesTest : public ::testing::Test {
 protected:
  FractionalSharesTest() : spec_(ClusterSpec::Uniform(1, 2, 2, 0, 0)), state_(&spec_) {}
  ClusterSpec spec_;  // 2 nodes x 2 GPUs.
  ClusterState state_;
};

TEST_F(FractionalSharesTest, SharesAddUpOnOneGpuAndNeverPastIt) {
  const Placement a{{Frac(0, 1, 600)}}, b{{Frac(0, 1, 400)}}, c{{Frac(0, 1, 1)}};
  ASSERT_TRUE(state_.CanAllocate(a));
  state_.Allocate(a);
  // GPU 1 of node 0 left the free mask: a whole-GPU job cannot take it.
  EXPECT_EQ(state_.free_gpu_mask(0), 0b01u);
  EXPECT_EQ(state_.total_free_gpus(), 3);
  EXPECT_EQ(state_.shared_gpu_mask(0), 0b10u);
  EXPECT_EQ(state_.free_gpu_milli(0, 1), 400);
  EXPECT_FALSE(state_.CanAllocate(Placement{{NodeShare{.node = 0, .gpu_mask = 0b10}}}));
  EXPECT_FALSE(state_.CanAllocate(Placement{{Frac(0, 1, 401)}}));
  ASSERT_TRUE(state_.CanAllocate(b));
  state_.Allocate(b);
  // Exactly full: no share left, not shared any more, and nothing more fits.
  EXPECT_EQ(state_.free_gpu_milli(0, 1), 0);
  EXPECT_EQ(state_.shared_gpu_mask(0), 0u);
  EXPECT_EQ(state_.total_shared_gpus(), 0);
  EXPECT_FALSE(state_.CanAllocate(c));
  EXPECT_EQ(state_.CheckShares(), "");
  state_.Release(a);
  EXPECT_EQ(state_.free_gpu_milli(0, 1), 600);
  EXPECT_EQ(state_.total_shared_gpus(), 1);
  state_.Release(b);
  // Every share released: the GPU is whole and free again.
  EXPECT_EQ(state_.free_gpu_mask(0), 0b11u);
  EXPECT_EQ(state_.total_free_gpus(), 4);
  EXPECT_EQ(state_.free_gpu_milli(0, 1), 1000);
  EXPECT_EQ(state_.CheckShares(), "");
}

TEST_F(FractionalSharesTest, AWholeGpuBookingLeavesNoShare) {
  state_.Allocate(Placement{{NodeShare{.node = 1, .gpu_mask = 0b01}}});
  EXPECT_EQ(state_.free_gpu_milli(1, 0), 0);
  EXPECT_FALSE(state_.CanAllocate(Placement{{Frac(1, 0, 100)}}));
  EXPECT_TRUE(state_.CanAllocate(Placement{{Frac(1, 1, 100)}}));
}

TEST_F(FractionalSharesTest, RefusesMalformedFractionalShares) {
  NodeShare two = Frac(0, 0, 500);
  two.gpu_mask = 0b11;  // A fraction of two GPUs.
  EXPECT_FALSE(state_.CanAllocate(Placement{{two}}));
  EXPECT_FALSE(state_.CanAllocate(Placement{{Frac(0, 2, 500)}}));  // No GPU 2.
  EXPECT_FALSE(state_.CanAllocate(Placement{{Frac(0, 0, 0)}}));
}

TEST_F(FractionalSharesTest, HeldNodesOfferNoShareAndKeepAGpuFreedUnderTheHold) {
  const Placement a{{Frac(0, 0, 300)}};
  state_.Allocate(a);
  state_.SetHeld(0, true);
  EXPECT_EQ(state_.shared_gpu_mask(0), 0u);
  EXPECT_EQ(state_.free_gpu_milli(0, 0), 0);
  EXPECT_FALSE(state_.CanAllocate(Placement{{Frac(0, 0, 100)}}));
  state_.Release(a);
  EXPECT_EQ(state_.free_gpu_mask(0), 0u);  // The hold keeps both GPUs.
  state_.SetHeld(0, false);
  EXPECT_EQ(state_.free_gpu_mask(0), 0b11u);
  EXPECT_EQ(state_.CheckShares(), "");
}

TEST_F(FractionalSharesTest, MayFitCountsSharedGpusForFractionalJobsOnly) {
  for (int node = 0; node < 2; ++node) {
    for (int gpu = 0; gpu < 2; ++gpu) state_.Allocate(Placement{{Frac(node, gpu, 500)}});
  }
  EXPECT_EQ(state_.total_free_gpus(), 0);
  EXPECT_TRUE(state_.MayFit(1, 500));
  EXPECT_FALSE(state_.MayFit(1, kMilliPerGpu));
}

TEST(FractionalPlacementText, NamesSharesBelowAWholeGpuOnly) {
  Placement p{{NodeShare{.node = 0, .gpu_mask = 0b1111}, Frac(2, 3, 300)}};
  EXPECT_EQ(p.ToString(), "n0:0-3;n2:3@300");
  Result<Placement> back = ParsePlacement("n0:0-3;n2:3@300");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(*back == p);
  EXPECT_EQ(ParsePlacement("n0:1@1000").status().message(),
            "placement 'n0:1@1000': share '1000' is not a milli-GPU share from 1 to 999");
  EXPECT_EQ(ParsePlacement("n0:0-1@500").status().message(),
            "placement 'n0:0-1@500': fractional share 'n0:0-1@500' names 2 GPUs, not one");
}

}  // namespace
}  // namespace schedkit
