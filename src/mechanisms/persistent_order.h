// PersistentOrder: the job list of the Muri/Tiresias simulators ("runnable"), a shared
// mechanism for policies that rebuild their schedule from scratch at every decision.
//
// Jobs keep one persistent order. At each decision the list is stable-sorted by key, so
// ties keep their previous order and newcomers (appended at the back) stay behind
// earlier jobs of equal key. With multi-level queues a job whose level (key[0]) changed
// goes to the back of its new level first.
//
// Contract with the caller: a pending job's key does not change while it stays pending
// (the same rule as SchedulingModule::Key). Sort() relies on it and re-keys only running
// jobs and jobs appended since the last sort: O(n) per decision plus O(r log r) for r
// re-keyed jobs, instead of O(n log n) with a key lookup per job.
#ifndef SCHEDKIT_MECHANISMS_PERSISTENT_ORDER_H_
#define SCHEDKIT_MECHANISMS_PERSISTENT_ORDER_H_

#include <functional>
#include <utility>
#include <vector>

#include "mechanisms/flat_map.h"
#include "schedkit/policy.h"

namespace schedkit {

class PersistentOrder {
 public:
  using Entry = std::pair<JobId, PriorityKey>;

  // Appends a newcomer (or any job that is not in the list) at the back.
  void Append(JobId id, PriorityKey key) { list_.emplace_back(id, key); }
  // Removes these jobs (e.g. finished ones); the rest keep their order.
  void Remove(const std::vector<JobId>& gone);
  // Re-keys `running` jobs (in any order) and newcomers with `key`; with `multi_level`,
  // moves jobs whose key[0] changed to the back; then stable-sorts by key.
  void Sort(const std::vector<JobId>& running, const std::function<PriorityKey(JobId)>& key,
            bool multi_level);
  // Within each level (key[0]), jobs in `running_after` (sorted ids) move ahead of the
  // others, both keeping their order: Tiresias' discipline after each schedule.
  void RunningAheadInLevel(const std::vector<JobId>& running_after);

  // The jobs in order, with the keys they had at the last Sort (or Append).
  const std::vector<Entry>& entries() const { return list_; }
  // `running` as given to the last Sort, sorted by id.
  const std::vector<JobId>& last_running() const { return scratch_.running; }

 private:
  struct Changed {
    PriorityKey key;
    size_t order;  // Old position, or past the end for a job moved to the back.
    JobId id;
    bool operator<(const Changed& o) const { return key != o.key ? key < o.key : order < o.order; }
  };

  static void SortNearlySorted(std::vector<Changed>* v);

  std::vector<Entry> list_;
  size_t sorted_size_ = 0;  // list_[0, sorted_size_) was in key order after the last Sort.
  struct Scratch {           // Reused buffers: Sort runs at every decision.
    std::vector<JobId> running;
    FlatMap<char> is_running;  // `running`'s ids.
    FlatMap<char> gone;        // Remove's ids.
    std::vector<Changed> changed;
    std::vector<char> is_changed;
    std::vector<Entry> merged;
  } scratch_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_PERSISTENT_ORDER_H_
