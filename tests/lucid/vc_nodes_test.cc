// Lucid's consolidate placement and node lending on hand-made node states.
#include "lucid/vc_nodes.h"

#include <gtest/gtest.h>

#include <vector>

namespace schedkit::lucid {
namespace {

TEST(VcNodesTest, SmallJobsBestFitLargeJobsWholeNodesThenRemainder) {
  VcNodes vc(3);
  std::vector<NodeShare> a, b, c, d;
  ASSERT_TRUE(vc.Place(3, &a));  // All nodes 8 free: first in list order.
  EXPECT_EQ(a[0].node, 0);
  ASSERT_TRUE(vc.Place(2, &b));  // Best fit: node 0 has 5 free, the fewest that fit.
  EXPECT_EQ(b[0].node, 0);
  EXPECT_EQ(vc.free_gpus(), 19);
  // 16 GPUs need two completely free nodes: nodes 1 and 2.
  ASSERT_TRUE(vc.Place(16, &c));
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].node, 1);
  EXPECT_EQ(c[1].node, 2);
  vc.Release(c);
  // 11 GPUs: one whole node (the first with 8 free) and 3 on the next in free-descending order.
  ASSERT_TRUE(vc.Place(11, &d));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].node, 1);
  EXPECT_EQ(d[0].gpus, 8);
  EXPECT_EQ(d[1].node, 2);
  EXPECT_EQ(d[1].gpus, 3);
  // 16 GPUs no longer fit whole nodes although 8 + 3 + 5 = 16 GPUs are free.
  std::vector<NodeShare> e;
  vc.Release(d);
  ASSERT_TRUE(vc.Place(4, &e));  // Node 0 has 3 free; best fit among 3, 8, 8 -> node 1.
  EXPECT_EQ(e[0].node, 1);
  std::vector<NodeShare> f;
  EXPECT_FALSE(vc.Place(16, &f));
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(vc.free_gpus(), 3 + 4 + 8);
}

TEST(VcNodesTest, LendingAddsATempNodeOnceAndRemovesTheLargestNamedIdleNode) {
  VcNodes vc(2);
  vc.AddTempNode();
  vc.AddTempNode();  // A node with the temporary name exists: nothing happens.
  EXPECT_EQ(vc.node_count(), 3);
  EXPECT_TRUE(vc.NodeIsIdle(VcNodes::kTempNodeName));
  std::vector<NodeShare> s;
  ASSERT_TRUE(vc.Place(8, &s));  // Node 0 (first of equal free counts).
  EXPECT_TRUE(vc.RemoveIdleNode());  // The temp node is the largest idle name.
  EXPECT_EQ(vc.node_count(), 2);
  EXPECT_FALSE(vc.NodeIsIdle(VcNodes::kTempNodeName));
  std::vector<NodeShare> t;
  ASSERT_TRUE(vc.Place(8, &t));
  EXPECT_FALSE(vc.RemoveIdleNode());  // No idle node: nothing is removed.
  EXPECT_EQ(vc.node_count(), 2);
}

TEST(VcNodesTest, RemovingWhileTheTempNodeIsBusySwapsNames) {
  VcNodes vc(2);
  EXPECT_TRUE(vc.RemoveIdleNode());  // Removes node 1 (largest name); a temp node was used.
  vc.AddTempNode();
  std::vector<NodeShare> a, b;
  ASSERT_TRUE(vc.Place(8, &a));  // Node 0.
  vc.Release(a);
  std::vector<NodeShare> busy;
  // Occupy the temp node: fill node 0 first, then 8 more go to the temp node.
  ASSERT_TRUE(vc.Place(8, &a));
  ASSERT_TRUE(vc.Place(8, &busy));
  vc.Release(a);  // Node 0 idle, temp busy.
  EXPECT_TRUE(vc.RemoveIdleNode());
  // The busy node now carries the name 0 and no node is called 9999: a later lending adds one.
  EXPECT_EQ(vc.node_count(), 1);
  EXPECT_FALSE(vc.NodeIsIdle(VcNodes::kTempNodeName));
  vc.AddTempNode();
  EXPECT_EQ(vc.node_count(), 2);
  EXPECT_TRUE(vc.NodeIsIdle(VcNodes::kTempNodeName));
  vc.Release(busy);
  EXPECT_EQ(vc.free_gpus(), 16);
}

}  // namespace
}  // namespace schedkit::lucid
