// JobQueue: a policy's pending jobs in priority order, (key, submit time, id), each also
// found by its id. The one removal mechanism for policies that keep their own queue: the
// runtime ends jobs while they wait (a cancel is reported in EventBatch::finished), and
// Remove drops such a job wherever it stands, in O(log n).
#ifndef SCHEDKIT_MECHANISMS_JOB_QUEUE_H_
#define SCHEDKIT_MECHANISMS_JOB_QUEUE_H_

#include <cstddef>
#include <set>
#include <unordered_map>

#include "schedkit/policy.h"

namespace schedkit {

// A queued job's place: lower key first, then earlier submit, then lower id.
struct QueuedJob {
  PriorityKey key;
  Time submit;
  JobId id;
  bool operator<(const QueuedJob& o) const {
    if (key != o.key) return key < o.key;
    if (submit != o.submit) return submit < o.submit;
    return id < o.id;
  }
};

class JobQueue {
 public:
  using const_iterator = std::set<QueuedJob>::const_iterator;

  // REQUIRES: job.id is not queued.
  void Insert(const QueuedJob& job);
  // Drops `id`; returns true iff it was queued.
  bool Remove(JobId id);
  bool Contains(JobId id) const { return by_id_.count(id) > 0; }

  bool empty() const { return order_.empty(); }
  size_t size() const { return order_.size(); }
  const_iterator begin() const { return order_.begin(); }
  const_iterator end() const { return order_.end(); }

 private:
  std::set<QueuedJob> order_;
  std::unordered_map<JobId, QueuedJob> by_id_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_JOB_QUEUE_H_
