// JobId -> engine index. Trace ids are usually small and dense (0..n-1), so a flat
// vector serves them; arbitrary ids fall back to a hash map. Every engine lookup of a
// job goes through here, several per job per event.
#ifndef SCHEDKIT_ENGINE_JOB_INDEX_H_
#define SCHEDKIT_ENGINE_JOB_INDEX_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "schedkit/job.h"

namespace schedkit {

class JobIndex {
 public:
  explicit JobIndex(const std::vector<JobSpec>& jobs) {
    JobId max_id = -1;
    bool non_negative = true;
    for (const JobSpec& j : jobs) {
      non_negative = non_negative && j.id >= 0;
      if (j.id > max_id) max_id = j.id;
    }
    dense_ = non_negative && max_id < 4 * static_cast<JobId>(jobs.size()) + 64;
    if (dense_) flat_.assign(max_id + 1, -1);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (dense_) {
        flat_[jobs[i].id] = static_cast<int32_t>(i);
      } else {
        map_.emplace(jobs[i].id, static_cast<int32_t>(i));
      }
    }
  }

  // Empty; jobs come one at a time through Add (streamed runs).
  JobIndex() : dense_(true) {}

  // Maps `id` to `index`. Returns false, changing nothing, if `id` is already mapped.
  // Ids that would make the flat vector sparse (negative, or past 4x the jobs + 64) move
  // every mapping to the hash map.
  bool Add(JobId id, int32_t index) {
    if (Find(id) >= 0) return false;
    ++count_;
    if (dense_ && (id < 0 || id >= 4 * count_ + 64)) {
      for (size_t i = 0; i < flat_.size(); ++i) {
        if (flat_[i] >= 0) map_.emplace(static_cast<JobId>(i), flat_[i]);
      }
      std::vector<int32_t>().swap(flat_);
      dense_ = false;
    }
    if (!dense_) {
      map_.emplace(id, index);
      return true;
    }
    if (id >= static_cast<JobId>(flat_.size())) {
      flat_.resize(std::max<size_t>(static_cast<size_t>(id) + 1, flat_.size() * 3 / 2), -1);
    }
    flat_[id] = index;
    return true;
  }

  // The index of `id`, or -1 if no job has it.
  [[gnu::always_inline]] int32_t Find(JobId id) const {
    if (dense_) [[likely]] {
      return id >= 0 && id < static_cast<JobId>(flat_.size()) ? flat_[id] : -1;
    }
    return FindInMap(id);
  }
  // REQUIRES: a job has `id`; aborts otherwise (an engine bug). Inlined: several calls
  // per job per event.
  [[gnu::always_inline]] int32_t At(JobId id) const {
    const int32_t i = Find(id);
    if (i < 0) [[unlikely]] DieUnknown(id);
    return i;
  }

 private:
  [[gnu::noinline]] int32_t FindInMap(JobId id) const {
    auto it = map_.find(id);
    return it == map_.end() ? -1 : it->second;
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void DieUnknown(JobId id) {
    std::fprintf(stderr, "schedkit: internal error: unknown job %lld\n", static_cast<long long>(id));
    std::abort();
  }

  bool dense_ = false;
  int64_t count_ = 0;  // Jobs added through Add.
  std::vector<int32_t> flat_;
  std::unordered_map<JobId, int32_t> map_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_ENGINE_JOB_INDEX_H_
