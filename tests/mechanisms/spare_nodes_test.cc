// SpareNodes (src/mechanisms/spare_nodes.h): sets that insert and erase through it hold
// what plain insert and erase give them, in the same order, and an erased node holds the
// next insertion (no allocation) until more are kept than the bound.
#include "mechanisms/spare_nodes.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace schedkit {
namespace {

using Set = std::set<std::pair<double, int>>;

// Random inserts (many of them repeats; some near a hint) and erasures, by value and by
// place, applied to a set through SpareNodes and to a plain one: the same contents after
// every step, and the same answers.
TEST(SpareNodes, SetsHoldWhatPlainInsertAndEraseGive) {
  Set plain, spared;
  SpareNodes<Set> spare;
  std::mt19937 rng(5);
  for (int step = 0; step < 20000; ++step) {
    const std::pair<double, int> v{static_cast<double>(rng() % 50) / 4,
                                   static_cast<int>(rng() % 7)};
    switch (rng() % 4) {
      case 0: {
        const auto [place, inserted] = spare.Insert(&spared, v);
        EXPECT_EQ(inserted, plain.insert(v).second);
        EXPECT_EQ(*place, v);
        break;
      }
      case 3: {  // Near a hint: the end (right for the greatest values), or anywhere.
        auto hint = spared.end();
        if (!spared.empty() && rng() % 2 == 0) {
          hint = spared.begin();
          std::advance(hint, rng() % spared.size());
        }
        EXPECT_EQ(*spare.InsertNear(&spared, hint, v), v);
        plain.insert(v);
        break;
      }
      case 1:
        EXPECT_EQ(spare.Erase(&spared, v), plain.erase(v) == 1);
        break;
      default:
        if (!spared.empty()) {
          auto at = spared.begin();
          std::advance(at, rng() % spared.size());
          plain.erase(*at);
          spare.Erase(&spared, at);
        }
    }
    ASSERT_EQ(spared, plain) << "step " << step;
  }
}

// The node an erasure took holds the next insertion: its address is the erased
// element's. A repeated value is refused and its node kept for the next one. A copy of
// the spares keeps none (an insertion through it takes a fresh node).
TEST(SpareNodes, AnErasedNodeHoldsTheNextInsertion) {
  Set set;
  SpareNodes<Set> spare;
  spare.Insert(&set, {1, 1});
  const auto [at, fresh] = spare.Insert(&set, {2, 2});
  ASSERT_TRUE(fresh);
  const void* node = &*at;
  spare.Erase(&set, at);
  // Allocations of a node's size meanwhile: had the node been freed, one of them would
  // have taken its memory (malloc hands a freed block of a size back first).
  std::vector<std::unique_ptr<char[]>> others;
  for (int i = 0; i < 16; ++i) others.push_back(std::make_unique<char[]>(sizeof(*at) + 32));
  const SpareNodes<Set> copy = spare;
  EXPECT_FALSE(spare.Insert(&set, {1, 1}).second);  // Already there: the node stays spare.
  const auto [again, inserted] = spare.Insert(&set, {3, 3});
  ASSERT_TRUE(inserted);
  EXPECT_EQ(static_cast<const void*>(&*again), node);
  SpareNodes<Set> copied = copy;
  spare.Erase(&set, set.find({3, 3}));  // The node is spare again, in `spare` only.
  const auto [fresh_node, ok] = copied.Insert(&set, {4, 4});
  ASSERT_TRUE(ok);
  EXPECT_NE(static_cast<const void*>(&*fresh_node), node);
  EXPECT_EQ(set, (Set{{1, 1}, {4, 4}}));
}

}  // namespace
}  // namespace schedkit
