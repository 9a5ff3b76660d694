// JobQueue: a policy's pending jobs in priority order, (key, submit time, id), each also
// found by its id. The one removal mechanism for policies that keep their own queue: the
// runtime ends jobs while they wait (a cancel is reported in EventBatch::finished), and
// Remove drops such a job wherever it stands, in O(log n).
#ifndef SCHEDKIT_MECHANISMS_JOB_QUEUE_H_
#define SCHEDKIT_MECHANISMS_JOB_QUEUE_H_

#include <cstddef>
#include <optional>
#include <set>

#include "mechanisms/flat_map.h"
#include "mechanisms/spare_nodes.h"
#include "schedkit/policy.h"

namespace schedkit {

// A queued job's place: lower key first, then earlier submit, then lower id.
struct QueuedJob {
  PriorityKey key;
  Time submit;
  JobId id;
  // The job's GPU request (JobSpec::gpus, fixed for its life): not part of the order. A
  // walk that sums the GPUs of the jobs it passes reads it here, beside the key it
  // compares, instead of asking the view for each job's spec (two look-ups in memory
  // that no other part of the walk touches).
  int gpus = 0;
  // The key compares as `key != o.key ? key < o.key : ...` would (C++20: the first element
  // that is not equal decides, and one that is unordered, a NaN, makes it false), in one pass.
  bool operator<(const QueuedJob& o) const {
    for (size_t i = 0; i < key.size(); ++i) {
      if (key[i] < o.key[i]) return true;
      if (!(key[i] == o.key[i])) return false;
    }
    if (submit != o.submit) return submit < o.submit;
    return id < o.id;
  }
};

class JobQueue {
 public:
  using const_iterator = std::set<QueuedJob>::const_iterator;

  JobQueue() = default;
  // A copy indexes its own entries (a cloned policy's queue); a move keeps them.
  JobQueue(const JobQueue& other) : order_(other.order_) { Reindex(); }
  JobQueue& operator=(const JobQueue& other);
  JobQueue(JobQueue&&) = default;
  JobQueue& operator=(JobQueue&&) = default;

  // REQUIRES: job.id is not queued.
  void Insert(const QueuedJob& job);
  // Drops `id`; returns its entry if it was queued.
  std::optional<QueuedJob> Remove(JobId id);
  bool Contains(JobId id) const { return by_id_.Find(id) != nullptr; }

  bool empty() const { return order_.empty(); }
  size_t size() const { return order_.size(); }
  const_iterator begin() const { return order_.begin(); }
  const_iterator end() const { return order_.end(); }

 private:
  std::set<QueuedJob> order_;
  FlatMap<std::set<QueuedJob>::iterator> by_id_;  // Where each job stands in order_.
  SpareNodes<std::set<QueuedJob>> spare_;  // order_'s nodes erased, for later inserts.

  void Reindex();
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_JOB_QUEUE_H_
