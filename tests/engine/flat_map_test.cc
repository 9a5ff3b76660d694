#include "mechanisms/flat_map.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace schedkit {
namespace {

TEST(FlatMap, InsertFindErase) {
  FlatMap<int64_t> m;
  EXPECT_EQ(m.Find(7), nullptr);
  EXPECT_FALSE(m.Erase(7));
  auto [v, inserted] = m.Insert(7, 70);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(*v, 70);
  auto [again, second] = m.Insert(7, 71);  // Present: unchanged.
  EXPECT_FALSE(second);
  EXPECT_EQ(*again, 70);
  ASSERT_NE(m.Find(7), nullptr);
  EXPECT_EQ(*m.Find(7), 70);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.Erase(7));
  EXPECT_EQ(m.Find(7), nullptr);
  EXPECT_EQ(m.size(), 0u);
}

// Clear empties the map and it works as new afterwards (keys that were there are gone,
// inserting them again gives the new values).
TEST(FlatMap, ClearForgetsEveryKey) {
  FlatMap<int> m;
  m.Clear();  // Empty: nothing to do.
  for (int round = 0; round < 3; ++round) {
    for (int64_t k = 0; k < 100; ++k) EXPECT_TRUE(m.Insert(k * 37 - 500, round).second);
    EXPECT_EQ(m.size(), 100u);
    EXPECT_EQ(*m.Find(37 * 5 - 500), round);
    m.Clear();
    EXPECT_EQ(m.size(), 0u);
    for (int64_t k = 0; k < 100; ++k) EXPECT_EQ(m.Find(k * 37 - 500), nullptr);
  }
}

// Random inserts and erases (negative keys, keys that collide in the low bits, growth)
// against std::unordered_map: the backward-shift deletion must keep every key findable.
TEST(FlatMap, AgreesWithUnorderedMapOnRandomOperations) {
  std::mt19937_64 rng(3);
  FlatMap<int64_t> flat;
  std::unordered_map<int64_t, int64_t> ref;
  for (int op = 0; op < 200000; ++op) {
    const int64_t key = static_cast<int64_t>(rng() % 3000) * ((op % 3 == 0) ? 1024 : 1) -
                        (op % 7 == 0 ? 5000 : 0);
    if (rng() % 3 == 0) {
      EXPECT_EQ(flat.Erase(key), ref.erase(key) == 1) << "op " << op;
    } else {
      const auto [v, inserted] = flat.Insert(key, op);
      const auto [it, ref_inserted] = ref.emplace(key, op);
      ASSERT_EQ(inserted, ref_inserted) << "op " << op;
      EXPECT_EQ(*v, it->second);
    }
    ASSERT_EQ(flat.size(), ref.size());
  }
  for (const auto& [key, value] : ref) {
    ASSERT_NE(flat.Find(key), nullptr) << key;
    EXPECT_EQ(*flat.Find(key), value);
  }
  for (int64_t key = -6000; key < 3000 * 1024; key += 97) {
    EXPECT_EQ(flat.Find(key) != nullptr, ref.count(key) == 1) << key;
  }
}

}  // namespace
}  // namespace schedkit
