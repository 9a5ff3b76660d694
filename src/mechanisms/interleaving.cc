#include "mechanisms/interleaving.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "schedkit/compat.h"

namespace schedkit {
namespace {

// Muri's profiled solo time is the iteration time x 1.015 (the same factor its jobs.py
// puts on runtimes). Here it is a constant of the interleaving model's table, which every
// profile shares, not the run's --runtime-factor: group rates are relative to it.
constexpr double kSoloFactor = kMuriRuntimeFactor;

// Python's math.isclose with only a relative tolerance.
bool IsClose(double a, double b, double rel) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "schedkit: interleaving: %s\n", what);
    std::abort();
  }
}

}  // namespace

double GroupSizeFactor(int n) {
  Check(n >= 1 && n <= kMaxGroupSize, "group size out of range");
  static constexpr double kFactors[kMaxGroupSize] = {kSoloFactor, 1.33 / kSoloFactor,
                                                     1.5 / kSoloFactor, 1.37 / kSoloFactor};
  return kFactors[n - 1];
}

double OrderedGroupPeriod(const std::vector<StageTimes>& order) {
  const int n = static_cast<int>(order.size());
  Check(n >= 1 && n <= kMaxGroupSize, "group size out of range");
  constexpr int kRounds = 2;
  double f[4 * kRounds + 1] = {};
  for (int i = 0; i < 4 * kRounds; ++i) {
    if ((i + 1) % 4 < n) f[i + 1] = std::max(f[i + 1], f[i] + order[(i + 1) % 4][2]);
    if ((i + 2) % 4 < n) f[i + 1] = std::max(f[i + 1], f[i] + order[(i + 2) % 4][1]);
    if (i > 0 && (i + 3) % 4 < n) f[i + 1] = std::max(f[i + 1], f[i - 1] + order[(i + 3) % 4][0]);
    // Muri's early exit: the period has settled once two consecutive windows agree.
    if (i >= 4 && IsClose(f[i + 1] - f[i - 3], f[i] - f[i - 4], 1e-3)) {
      const double period = f[i + 1] - f[i - 3];
      if (period > 0) return period;
      break;  // Muri falls back to the last window when the settled period is not > 0.
    }
  }
  return f[4 * kRounds] - f[4 * kRounds - 4];
}

double MinGroupPeriod(const std::vector<StageTimes>& stages) {
  const int n = static_cast<int>(stages.size());
  Check(n >= 2 && n <= kMaxGroupSize, "group size out of range");
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<StageTimes> order(n);
  double best = std::numeric_limits<double>::max();
  do {  // Lexicographic permutations, as itertools.permutations; only the min matters.
    for (int i = 0; i < n; ++i) order[i] = stages[perm[i]];
    best = std::min(best, OrderedGroupPeriod(order));
  } while (std::next_permutation(perm.begin(), perm.end()));
  if (n == 2) {
    const StageTimes& a = stages[0];
    const StageTimes& b = stages[1];
    best = std::min(best, std::max(a[0], b[1] + b[2]) + std::max(b[0], a[1] + a[2]));
  }
  return best;
}

double GroupIterationTime(const std::vector<const JobSpec*>& jobs) {
  const int n = static_cast<int>(jobs.size());
  Check(n >= 1 && n <= kMaxGroupSize, "group size out of range");
  if (n == 1) return jobs[0]->iteration_time_s * kSoloFactor;
  std::vector<StageTimes> stages;
  stages.reserve(n);
  for (const JobSpec* j : jobs) stages.push_back(j->profile.stage_times_s);
  return MinGroupPeriod(stages) * GroupSizeFactor(n);
}

double InterleavingEfficiency(const std::vector<const JobSpec*>& jobs) {
  return InterleavingEfficiency(jobs, GroupIterationTime(jobs));
}

double StageTotal(const JobSpec& job) {
  double own = 0;
  for (double t : job.profile.stage_times_s) own += t;
  return own;
}

double InterleavingEfficiency(const std::vector<const JobSpec*>& jobs, double group_tt) {
  // Per-job sums first, then their sum, in member order (Muri's rounding).
  double total = 0;
  for (const JobSpec* j : jobs) total += StageTotal(*j);
  return InterleavingEfficiency(total, group_tt);
}

double InterleavingEfficiency(double stage_total, double group_tt) {
  return group_tt > 0 ? stage_total / (group_tt * 4) : 0;
}

double GroupRate(const JobSpec& job, double group_tt) {
  if (job.iteration_time_s <= 0 || !(group_tt > 0)) return 1.0;
  return job.iteration_time_s * kSoloFactor / group_tt;
}

}  // namespace schedkit
