// The selection step of Gavel's round-based mechanism (priorities = allocation / share of
// time received), with no engine: the simulated policy built on it wraps this.
#include <algorithm>
#include <tuple>

#include "schedkit/gavel.h"

namespace schedkit::gavel {

std::vector<int> SelectRound(const RoundInput& in) {
  struct Candidate {
    double priority;
    int sf;
    double x;
    int job;
    int type;
  };
  std::vector<Candidate> candidates;
  for (int j = 0; j < static_cast<int>(in.x.size()); ++j) {
    double total = 0;
    for (double r : in.received[j]) total += r;
    for (int k = 0; k < static_cast<int>(in.x[j].size()); ++k) {
      const double x = in.x[j][k];
      if (x <= 0) continue;
      // A pair never run yet would divide by zero: it goes first, ordered by its allocation.
      const double received = in.received[j][k];
      const double priority = received > 0 ? x / (received / total) : x * kNewJobPriority;
      candidates.push_back({priority, in.scale_factors[j], x, j, k});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(b.priority, b.sf, b.x, a.job, a.type) <
           std::tie(a.priority, a.sf, a.x, b.job, b.type);
  });
  std::vector<int> free = in.gpus;
  std::vector<int> chosen(in.x.size(), -1);
  for (const Candidate& c : candidates) {
    if (chosen[c.job] >= 0 || free[c.type] < c.sf) continue;
    chosen[c.job] = c.type;
    free[c.type] -= c.sf;
  }
  return chosen;
}

}  // namespace schedkit::gavel
