// The selection step of Gavel's round-based mechanism (priorities = allocation / share of
// the type's time received), with no engine: the simulated policy (src/policies/gavel_policy.cc)
// wraps this.
#include <algorithm>
#include <numeric>
#include <utility>

#include "schedkit/gavel.h"

namespace schedkit::gavel {

std::vector<int> SelectRound(const RoundInput& in) {
  struct Entry {
    double priority, deficit, x;
    int job;
  };
  const int jobs = static_cast<int>(in.x.size());
  const int types = static_cast<int>(in.gpus.size());
  std::vector<int> order = in.type_order;
  if (order.empty()) {
    order.resize(types);
    std::iota(order.begin(), order.end(), 0);
  }
  std::vector<std::pair<int, Entry>> queue;  // (type, entry), walked in order.
  for (int k : order) {
    double type_time = 0;
    if (in.type_time.empty()) {
      for (int j = 0; j < jobs; ++j) type_time += in.received[j][k];
    } else {
      type_time = in.type_time[k];
    }
    std::vector<Entry> entries;
    for (int j = 0; j < jobs; ++j) {
      const double x = in.x[j][k];
      if (!(x > 0) && (in.can_run.empty() || !in.can_run[j][k])) continue;
      const double received = in.received[j][k];
      double priority = 0;
      if (x > 0) {
        priority = received > 0 && type_time > 0 ? x / (received / type_time) : x * kNewJobPriority;
      }
      entries.push_back({priority, in.deficit.empty() ? 0.0 : in.deficit[j][k], x, j});
    }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.deficit != b.deficit) return a.deficit > b.deficit;
      return a.x > b.x;
    });
    for (const Entry& e : entries) queue.emplace_back(k, e);
  }
  std::vector<int> free = in.gpus;
  std::vector<int> chosen(jobs, -1);
  std::vector<char> taken;  // By member id (rows with `members`).
  for (const std::vector<int>& m : in.members) {
    for (int id : m) taken.resize(std::max<size_t>(taken.size(), id + 1), 0);
  }
  auto member_taken = [&](int row) {
    if (in.members.empty()) return false;
    return std::any_of(in.members[row].begin(), in.members[row].end(),
                       [&](int id) { return taken[id] != 0; });
  };
  for (const auto& [k, e] : queue) {
    if (chosen[e.job] >= 0 || free[k] < in.scale_factors[e.job] || member_taken(e.job)) continue;
    chosen[e.job] = k;
    free[k] -= in.scale_factors[e.job];
    if (!in.members.empty()) {
      for (int id : in.members[e.job]) taken[id] = 1;
    }
  }
  return chosen;
}

}  // namespace schedkit::gavel
