// JobQueue (src/mechanisms/job_queue.h): priority order, removal by id, and copies that
// index their own entries (a cloned policy's queue must not point into the original's).
#include "mechanisms/job_queue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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

}  // namespace
}  // namespace schedkit
