// JobQueue (src/mechanisms/job_queue.h): priority order, removal by id, and copies that
// index their own entries (a cloned policy's queue must not point into the original's).
// PersistentOrder (src/mechanisms/persistent_order.h) against its definition.
#include "mechanisms/job_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "mechanisms/persistent_order.h"

namespace schedkit {
namespace {

std::vector<JobId> Ids(const JobQueue& q) {
  std::vector<JobId> ids;
  for (const QueuedJob& j : q) ids.push_back(j.id);
  return ids;
}

// QueuedJob's one-pass comparison is the order the queues always had, written as the
// standard's array comparison (C++20: the first element that is not equal decides; an
// unordered one, a NaN, makes it false), on keys with NaN, infinities and signed zeros.
TEST(JobQueue, ComparisonIsTheArrayComparison) {
  auto reference = [](const QueuedJob& a, const QueuedJob& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.submit != b.submit) return a.submit < b.submit;
    return a.id < b.id;
  };
  const double values[] = {-1.0, -0.0, 0.0, 1.0, INFINITY, NAN};
  std::vector<QueuedJob> jobs;
  for (double k0 : values) {
    for (double k1 : values) {
      for (double k2 : values) {
        for (int tail = 0; tail < 2; ++tail) jobs.push_back({{k0, k1, k2}, 1.0 * tail, tail});
      }
    }
  }
  int64_t mismatches = 0;
  for (const QueuedJob& a : jobs) {
    for (const QueuedJob& b : jobs) mismatches += (a < b) != reference(a, b);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(JobQueue, OrdersByKeySubmitIdAndRemovesById) {
  JobQueue q;
  q.Insert({{1, 0, 0}, 10, 3});
  q.Insert({{0, 0, 0}, 20, 2});
  q.Insert({{0, 0, 0}, 20, 1});
  EXPECT_EQ(Ids(q), (std::vector<JobId>{1, 2, 3}));
  EXPECT_TRUE(q.Contains(2));
  EXPECT_TRUE(q.Remove(2));
  EXPECT_FALSE(q.Remove(2));
  EXPECT_FALSE(q.Contains(2));
  EXPECT_EQ(Ids(q), (std::vector<JobId>{1, 3}));
}

TEST(JobQueue, ACopyRemovesFromItselfOnly) {
  JobQueue original;
  for (JobId id = 0; id < 50; ++id) original.Insert({{static_cast<double>(id % 7), 0, 0}, 0, id});
  JobQueue copy(original);
  JobQueue assigned;
  assigned.Insert({{0, 0, 0}, 0, 99});
  assigned = original;
  for (JobId id = 0; id < 50; id += 2) {
    EXPECT_TRUE(copy.Remove(id));
    EXPECT_TRUE(assigned.Remove(id + 1));
  }
  EXPECT_EQ(original.size(), 50u);  // Untouched by the copies' removals.
  EXPECT_EQ(copy.size(), 25u);
  EXPECT_EQ(assigned.size(), 25u);
  EXPECT_FALSE(assigned.Contains(99));
  for (JobId id = 0; id < 50; ++id) {
    EXPECT_TRUE(original.Contains(id));
    EXPECT_EQ(copy.Contains(id), id % 2 == 1);
    EXPECT_EQ(assigned.Contains(id), id % 2 == 0);
  }
  JobQueue moved(std::move(copy));  // A move keeps the entries it indexes.
  EXPECT_TRUE(moved.Remove(1));
  EXPECT_EQ(moved.size(), 24u);
}

// PersistentOrder::Sort re-keys only running and newly appended jobs and merges them into
// the rest; by its contract (a pending job's key stands) that is its definition: re-key
// every job, move those whose level changed to the back (multi_level), stable-sort by key.
// Random decisions with many ties (small integer keys, three levels), appends, removals
// and running sets, against that definition written out. Short lists re-key a few jobs
// (Sort's insertion sort); long ones hundreds in random order (past its budget of moves,
// std::sort takes over).
TEST(PersistentOrder, SortsAsTheWholeListRekeyedAndStableSorted) {
  for (const auto& [multi_level, long_list] :
       {std::pair{false, false}, {true, false}, {false, true}, {true, true}}) {
    std::mt19937 rng((multi_level ? 11 : 5) + (long_list ? 100 : 0));
    std::uniform_int_distribution<int> level(0, 2), tie(0, 4), coin(0, 3);
    const size_t max_gone = long_list ? 1 : 3;
    const int appends_per_coin = long_list ? 3 : 1;
    std::map<JobId, PriorityKey> key;  // Each listed job's key now.
    PersistentOrder order;
    std::vector<PersistentOrder::Entry> reference;
    JobId next_id = 0;
    for (int decision = 0; decision < 300; ++decision) {
      std::vector<JobId> gone;
      for (const auto& [id, k] : key) {
        if (coin(rng) == 0 && gone.size() < max_gone) gone.push_back(id);
      }
      order.Remove(gone);
      for (JobId id : gone) key.erase(id);
      std::erase_if(reference, [&](const auto& e) { return !key.count(e.first); });
      for (int i = coin(rng) * appends_per_coin; i > 0; --i) {
        const JobId id = next_id++;
        key[id] = PriorityKey{double(level(rng)), double(tie(rng)), 0};
        order.Append(id, key[id]);
        reference.emplace_back(id, key[id]);
      }
      std::vector<JobId> running;
      for (auto& [id, k] : key) {
        if (coin(rng) != 0) continue;
        running.push_back(id);
        k = PriorityKey{double(level(rng)), double(tie(rng)), 0};  // Running keys move.
      }
      std::shuffle(running.begin(), running.end(), rng);  // "In any order".
      order.Sort(running, [&](JobId id) { return key.at(id); }, multi_level);
      std::vector<PersistentOrder::Entry> stay, back;
      for (const auto& [id, old_key] : reference) {
        const PriorityKey now = key.at(id);
        (multi_level && now[0] != old_key[0] ? back : stay).emplace_back(id, now);
      }
      stay.insert(stay.end(), back.begin(), back.end());
      std::stable_sort(stay.begin(), stay.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
      reference = stay;
      ASSERT_EQ(order.entries(), reference) << "decision " << decision << " long " << long_list;
    }
  }
}

}  // namespace
}  // namespace schedkit
