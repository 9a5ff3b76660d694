// JobSlots<V>: one V per job, indexed by JobId, for per-job state that lives as long as
// the run (a module's history of every job it saw). Job ids are 0..N-1 in practice
// (traces number their jobs densely), so the values sit in pages of kPageSize slots,
// allocated when a slot of the page is first touched: no hashing and no node per job,
// unlike std::unordered_map. Any id works: one outside [0, kDenseLimit) (negative, or so
// large that its page table would be big) falls back to a hash map.
// Copyable: a copy holds its own values (a cloned policy's module).
#ifndef SCHEDKIT_MECHANISMS_JOB_SLOTS_H_
#define SCHEDKIT_MECHANISMS_JOB_SLOTS_H_

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "schedkit/job.h"

namespace schedkit {

template <class V>
class JobSlots {
 public:
  static constexpr JobId kPageSize = 4096;
  // Ids below this take a dense slot; the page table is then at most
  // kDenseLimit / kPageSize entries (2^19, 12 MiB), reached only by ids that large.
  static constexpr JobId kDenseLimit = JobId{1} << 31;

  // The value of `id`, value-initialised (V()) when first touched.
  // Inline for a slot of a page already touched (nearly every call); the rest out of line.
  V& operator[](JobId id) {
    if (id >= 0 && id < kDenseLimit) [[likely]] {
      const size_t page = static_cast<size_t>(id / kPageSize);
      if (page < pages_.size() && !pages_[page].empty()) [[likely]] {
        return pages_[page][static_cast<size_t>(id % kPageSize)];
      }
    }
    return Touch(id);
  }

  // Pages allocated (for tests and memory accounting).
  size_t pages() const {
    size_t n = 0;
    for (const std::vector<V>& p : pages_) n += p.empty() ? 0 : 1;
    return n;
  }

 private:
  // operator[] for an id outside the dense range or in a page not yet allocated.
  [[gnu::noinline]] V& Touch(JobId id) {
    if (id < 0 || id >= kDenseLimit) return sparse_[id];
    const size_t page = static_cast<size_t>(id / kPageSize);
    if (page >= pages_.size()) pages_.resize(page + 1);
    std::vector<V>& slots = pages_[page];
    if (slots.empty()) slots.resize(kPageSize);
    return slots[static_cast<size_t>(id % kPageSize)];
  }

  std::vector<std::vector<V>> pages_;  // An empty page: none of its slots touched yet.
  std::unordered_map<JobId, V> sparse_;  // Ids outside [0, kDenseLimit).
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_JOB_SLOTS_H_
