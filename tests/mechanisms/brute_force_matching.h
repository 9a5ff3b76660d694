// The reference both matchers are tested against: exhaustive search over matchings.
#ifndef SCHEDKIT_TESTS_MECHANISMS_BRUTE_FORCE_MATCHING_H_
#define SCHEDKIT_TESTS_MECHANISMS_BRUTE_FORCE_MATCHING_H_

#include <algorithm>
#include <vector>

namespace schedkit::testing {

// Best total weight over all matchings of nodes >= `from` not in `used`, using only
// edges of positive weight w[u][v] (u < v).
inline double BruteForceMatchingWeight(int n, const std::vector<std::vector<double>>& w,
                                       std::vector<bool>& used, int from = 0) {
  while (from < n && used[from]) ++from;
  if (from >= n) return 0;
  used[from] = true;
  double best = BruteForceMatchingWeight(n, w, used, from + 1);  // `from` stays single.
  for (int v = from + 1; v < n; ++v) {
    if (used[v] || !(w[from][v] > 0)) continue;
    used[v] = true;
    best = std::max(best, w[from][v] + BruteForceMatchingWeight(n, w, used, from + 1));
    used[v] = false;
  }
  used[from] = false;
  return best;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_MECHANISMS_BRUTE_FORCE_MATCHING_H_
