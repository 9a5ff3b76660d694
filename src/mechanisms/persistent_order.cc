#include "mechanisms/persistent_order.h"

#include <algorithm>

namespace schedkit {

void PersistentOrder::Remove(const std::vector<JobId>& gone) {
  if (gone.empty()) return;
  FlatMap<char>& drop = scratch_.gone;
  drop.Clear();
  for (JobId id : gone) drop.Insert(id, 1);
  size_t kept = 0;  // One pass: the kept entries move up in order.
  size_t kept_sorted = 0;
  for (size_t i = 0; i < list_.size(); ++i) {
    if (drop.Find(list_[i].first) != nullptr) continue;
    if (i < sorted_size_) ++kept_sorted;
    if (kept != i) list_[kept] = list_[i];
    ++kept;
  }
  list_.resize(kept);
  sorted_size_ = kept_sorted;
}

// Sorts `v`, which is expected to be nearly in order. The re-keyed jobs are collected in
// list order, which was their key order at the last sort: between two decisions only a few
// swap places (trace2 Muri-S: ~90 re-keyed jobs, ~4 out of place), so an insertion sort
// does linear work where std::sort did O(r log r) comparisons of three-double keys. Past a
// budget of moves it hands over to std::sort. Changed's order is total (positions are
// distinct), so both give the same result.
void PersistentOrder::SortNearlySorted(std::vector<Changed>* v) {
  const size_t budget = 8 * v->size();
  size_t moves = 0;
  for (size_t k = 1; k < v->size(); ++k) {
    if (!((*v)[k] < (*v)[k - 1])) continue;
    Changed x = (*v)[k];
    size_t j = k;
    do {
      (*v)[j] = (*v)[j - 1];
      --j;
    } while (j > 0 && x < (*v)[j - 1]);
    (*v)[j] = x;
    moves += k - j;
    if (moves > budget) {
      std::sort(v->begin(), v->end());
      return;
    }
  }
}

// Equivalent to: re-key every job, move jobs whose level changed to the back, stable
// sort by key. Only running jobs and jobs appended since the last sort can have new keys
// or positions, so those are re-keyed, sorted among themselves and merged into the rest,
// which is still in order. The sorted part is searched only until every running job is
// found (on trace2 Muri-S, ~130 of ~375 entries), and what follows the last re-keyed job
// is copied as one block.
void PersistentOrder::Sort(const std::vector<JobId>& running,
                           const std::function<PriorityKey(JobId)>& key, bool multi_level) {
  scratch_.running.assign(running.begin(), running.end());
  std::sort(scratch_.running.begin(), scratch_.running.end());
  const std::vector<JobId>& run = scratch_.running;
  const size_t n = list_.size();
  std::vector<Changed>& changed = scratch_.changed;
  std::vector<char>& is_changed = scratch_.is_changed;
  changed.clear();
  is_changed.assign(n, 0);
  FlatMap<char>& is_running = scratch_.is_running;
  is_running.Clear();
  for (JobId id : run) is_running.Insert(id, 1);
  size_t moved = 0;
  size_t last_changed = 0;
  auto rekey = [&](size_t i) {
    const auto& [id, old_key] = list_[i];
    const PriorityKey now_key = key(id);
    const bool level_changed = multi_level && now_key[0] != old_key[0];
    changed.push_back(Changed{now_key, level_changed ? n + moved++ : i, id});
    is_changed[i] = 1;
    last_changed = i;
  };
  // The sorted part up to its last running job (past it nobody is re-keyed), then the
  // jobs appended since.
  size_t found = 0;
  for (size_t i = 0; i < sorted_size_ && found < run.size(); ++i) {
    if (is_running.Find(list_[i].first) == nullptr) continue;
    ++found;
    rekey(i);
  }
  for (size_t i = sorted_size_; i < n; ++i) rekey(i);
  sorted_size_ = n;
  if (changed.empty()) return;
  SortNearlySorted(&changed);
  std::vector<Entry>& merged = scratch_.merged;
  merged.clear();
  merged.reserve(n);
  size_t i = 0;
  auto next_unchanged = [&] {
    while (i < n && is_changed[i]) ++i;
  };
  next_unchanged();
  for (const Changed& c : changed) {
    while (i < n && Changed{list_[i].second, i, 0} < c) {
      merged.push_back(list_[i++]);
      next_unchanged();
    }
    merged.emplace_back(c.id, c.key);
  }
  for (; i <= last_changed; ++i) {
    if (!is_changed[i]) merged.push_back(list_[i]);
  }
  merged.insert(merged.end(), list_.begin() + static_cast<std::ptrdiff_t>(i), list_.end());
  list_.swap(merged);
}

void PersistentOrder::RunningAheadInLevel(const std::vector<JobId>& running_after) {
  auto runs = [&](JobId id) {
    return std::binary_search(running_after.begin(), running_after.end(), id);
  };
  std::stable_sort(list_.begin(), list_.end(), [&](const Entry& a, const Entry& b) {
    if (a.second[0] != b.second[0]) return a.second[0] < b.second[0];
    return runs(a.first) && !runs(b.first);
  });
}

}  // namespace schedkit
