#include "mechanisms/job_queue.h"

#include <cassert>

namespace schedkit {

void JobQueue::Insert(const QueuedJob& job) {
  const bool fresh = by_id_.emplace(job.id, job).second;
  assert(fresh);
  (void)fresh;
  order_.insert(job);
}

bool JobQueue::Remove(JobId id) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return false;
  order_.erase(it->second);
  by_id_.erase(it);
  return true;
}

}  // namespace schedkit
