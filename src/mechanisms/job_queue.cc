#include "mechanisms/job_queue.h"

#include <cassert>

namespace schedkit {

void JobQueue::Insert(const QueuedJob& job) {
  const auto [at, fresh] = spare_.Insert(&order_, job);
  const bool indexed = by_id_.Insert(job.id, at).second;
  assert(fresh && indexed);
  (void)fresh;
  (void)indexed;
}

JobQueue& JobQueue::operator=(const JobQueue& other) {
  if (this != &other) {
    order_ = other.order_;
    Reindex();
  }
  return *this;
}

void JobQueue::Reindex() {
  by_id_ = {};
  for (auto it = order_.begin(); it != order_.end(); ++it) by_id_.Insert(it->id, it);
}

std::optional<QueuedJob> JobQueue::Remove(JobId id) {
  const auto* at = by_id_.Find(id);
  if (at == nullptr) return std::nullopt;
  const QueuedJob removed = **at;
  spare_.Erase(&order_, *at);
  by_id_.Erase(id);
  return removed;
}

}  // namespace schedkit
