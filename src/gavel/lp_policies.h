// The LP-based allocation policies (docs/gavel.md has their formulations). Internal:
// src/gavel/registry.cc registers them by name.
#ifndef SCHEDKIT_GAVEL_LP_POLICIES_H_
#define SCHEDKIT_GAVEL_LP_POLICIES_H_

#include <memory>

#include "schedkit/gavel.h"

namespace schedkit::gavel {

// `perf` false: the heterogeneity-agnostic variant, every usable throughput read as 1.
// `centre`: return the analytic centre of the near-optimal allocations (docs/gavel.md, "The
// agnostic optimum") instead of the simplex's vertex.
std::unique_ptr<AllocationPolicy> MakeMaxMinFairness(bool perf, bool centre);
// Heterogeneity-aware max-min fairness that may also co-locate the problem's pairs.
std::unique_ptr<AllocationPolicy> MakeMaxMinFairnessPacked();
std::unique_ptr<AllocationPolicy> MakeFinishTimeFairness(bool perf);
std::unique_ptr<AllocationPolicy> MakeMinMakespan();
// `per_cost` false: maximise sum T_jk x_jk; true: sum T_jk x_jk / cost_k.
std::unique_ptr<AllocationPolicy> MakeMaxThroughput(bool per_cost);
// `perf` false: a seeded random type among those with room; true: the fastest.
std::unique_ptr<AllocationPolicy> MakeFifo(bool perf, uint64_t seed);
// Gandiva's random pairing and equal time split (src/gavel/gandiva.cc).
std::unique_ptr<AllocationPolicy> MakeGandiva(uint64_t seed);
// AlloX over the oldest max(N, alpha x jobs) jobs (src/gavel/allox.cc).
std::unique_ptr<AllocationPolicy> MakeAllox(double alpha);

// The agnostic view of a problem: every throughput > 0 becomes 1 (0 stays: cannot run).
AllocationProblem Agnostic(const AllocationProblem& problem);

}  // namespace schedkit::gavel

#endif  // SCHEDKIT_GAVEL_LP_POLICIES_H_
