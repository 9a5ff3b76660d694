#include "schedkit/inline_vector.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>
#include <vector>

#include "schedkit/cluster.h"

namespace schedkit {
namespace {

using Shares = InlineVector<NodeShare, 1>;

NodeShare On(int node) { return NodeShare{.node = node, .gpu_mask = uint64_t{1} << node}; }

std::vector<int> Nodes(const Shares& v) {
  std::vector<int> out;
  for (const NodeShare& s : v) out.push_back(s.node);
  return out;
}

TEST(InlineVector, OneValueStaysInline) {
  Shares v;
  EXPECT_TRUE(v.empty());
  v.push_back(On(3));
  EXPECT_EQ(v.capacity(), 1u);  // No heap storage.
  EXPECT_EQ(v.size(), 1u);
  EXPECT_EQ(v.front().node, 3);
  EXPECT_EQ(v.back().gpu_mask, 0b1000u);
  const Shares copy = v;
  EXPECT_EQ(copy.capacity(), 1u);
  EXPECT_EQ(copy, v);
}

TEST(InlineVector, GrowsOntoTheHeapKeepingItsValuesInOrder) {
  Shares v;
  for (int n = 0; n < 9; ++n) v.push_back(On(n));
  EXPECT_GT(v.capacity(), 1u);
  EXPECT_EQ(Nodes(v), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  // A value of its own, pushed while it grows: read before the storage moves.
  Shares w{On(5)};
  w.push_back(w[0]);
  w.push_back(w[1]);
  EXPECT_EQ(Nodes(w), (std::vector<int>{5, 5, 5}));
}

TEST(InlineVector, CopiesMovesAndAssignsInlineAndHeapValues) {
  const Shares heap{On(1), On(2), On(4)};
  const Shares one{On(7)};
  Shares a = heap;
  EXPECT_EQ(Nodes(a), Nodes(heap));
  a = one;  // Heap storage kept, one value.
  EXPECT_EQ(Nodes(a), std::vector<int>{7});
  EXPECT_GT(a.capacity(), 1u);
  Shares b = std::move(a);
  EXPECT_EQ(Nodes(b), std::vector<int>{7});
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty.
  EXPECT_EQ(a.capacity(), 1u);
  b = std::move(Shares(heap));
  EXPECT_EQ(Nodes(b), Nodes(heap));
  b = {On(0), On(6)};
  EXPECT_EQ(Nodes(b), (std::vector<int>{0, 6}));
  b = b;  // Self-assignment keeps the values.
  EXPECT_EQ(Nodes(b), (std::vector<int>{0, 6}));
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_NE(b, one);
  EXPECT_THROW(b.at(0), std::out_of_range);
}

TEST(InlineVector, ComparesEveryFieldOfEveryValue) {
  Shares a{On(1)};
  Shares b{On(1)};
  EXPECT_EQ(a, b);
  b[0].mem_gb = 1;
  EXPECT_NE(a, b);
  b = a;
  b.push_back(On(2));
  EXPECT_NE(a, b);
}

TEST(InlineVector, APlacementOnOneNodeFitsTheEnginesJobLine) {
  // The engine keeps a job's placement in its three-cache-line record.
  EXPECT_EQ(sizeof(NodeShare), 32u);
  EXPECT_EQ(sizeof(Placement), 40u);
}

// A NodeShare is built by naming its fields: a list of values by position does not compile
// (checked here at compile time), and the member that refuses it takes no room.
template <class T>
concept BuiltByPosition = requires { T{1, 2}; };
static_assert(!BuiltByPosition<NodeShare>);
static_assert(std::is_trivially_copyable_v<NodeShare>);

TEST(NodeShare, NamedFieldsOnlyTakesNoRoom) {
  EXPECT_EQ(offsetof(NodeShare, node), 0u);
  const NodeShare s{.node = 2, .gpu_mask = 0b101};
  EXPECT_EQ(s.node, 2);
  EXPECT_EQ(s.cpus, 0);
  EXPECT_EQ(s.gpus(), 2);
  EXPECT_EQ(s.gpu_milli, kMilliPerGpu);
  EXPECT_EQ(s, (NodeShare{.node = 2, .gpu_mask = 0b101}));
  EXPECT_NE(s, (NodeShare{.node = 2, .gpu_mask = 0b100}));
}

}  // namespace
}  // namespace schedkit
