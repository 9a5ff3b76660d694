// The LP-based allocation policies (docs/gavel.md has their formulations). Internal:
// src/gavel/registry.cc registers them by name.
#ifndef SCHEDKIT_GAVEL_LP_POLICIES_H_
#define SCHEDKIT_GAVEL_LP_POLICIES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>

#include "schedkit/gavel.h"

namespace schedkit::gavel {

// `perf` false: the heterogeneity-agnostic variant, every usable throughput read as 1.
// `centre`: return the analytic centre of the near-optimal allocations (docs/gavel.md, "The
// agnostic optimum") instead of the simplex's vertex.
std::unique_ptr<AllocationPolicy> MakeMaxMinFairness(bool perf, bool centre);
// Max-min fairness raised level by level (water filling; `perf` as above), each entity's
// weight split among its jobs not yet held. `packed` (perf only): the problem's pairs may
// also share GPUs.
std::unique_ptr<AllocationPolicy> MakeWaterFilling(bool perf, bool packed = false);
// Heterogeneity-aware max-min fairness that may also co-locate the problem's pairs.
std::unique_ptr<AllocationPolicy> MakeMaxMinFairnessPacked();
// `packed` (perf only): a job's throughput also counts its time in the problem's pairs.
std::unique_ptr<AllocationPolicy> MakeFinishTimeFairness(bool perf, bool packed = false);
std::unique_ptr<AllocationPolicy> MakeMinMakespan(bool packed = false);
// `per_cost` false: maximise sum T_jk x_jk; true: sum T_jk x_jk / cost_k. `packed`: pairs
// add their two jobs' co-located throughputs.
std::unique_ptr<AllocationPolicy> MakeMaxThroughput(bool per_cost, bool packed = false);
// kBase: a seeded random type among those with room; kPerf: the fastest; kPacked: the
// fastest, then the jobs left in the queue join placed jobs whose pair gains more than
// `packing_threshold` (src/gavel/fifo.cc).
enum class FifoMode { kBase, kPerf, kPacked };
std::unique_ptr<AllocationPolicy> MakeFifo(FifoMode mode, uint64_t seed,
                                           double packing_threshold = 0);
// Gandiva's random pairing and equal time split (src/gavel/gandiva.cc).
std::unique_ptr<AllocationPolicy> MakeGandiva(uint64_t seed);
// AlloX over the oldest max(N, alpha x jobs) jobs (src/gavel/allox.cc).
std::unique_ptr<AllocationPolicy> MakeAllox(double alpha);

// The problem's pairs by (job, job, type), either job order.
class PairIndex {
 public:
  explicit PairIndex(const AllocationProblem& p);
  // The index in p.pairs of the pair of jobs a and b on type k, or -1.
  int Find(int a, int b, int k) const;
  // Returns true iff a and b are listed as a pair on some type.
  bool Listed(int a, int b) const;

 private:
  std::map<std::tuple<int, int, int>, int> index_;
};

// A pair's throughput on its type against its jobs' throughputs alone there, summed over the
// two jobs: throughput_a / T_a,k + throughput_b / T_b,k (a job that cannot run there alone
// adds 0). Above 1 the pair does more work than time-sharing the GPUs.
double NormalisedThroughput(const AllocationProblem& p, const JobPair& pair);

// A seed for the draws of one job (or group of jobs) from the policy's seed and its id,
// so that calls of one run with different jobs draw independently.
uint64_t SeedFor(uint64_t seed, std::string_view id);

// The agnostic view of a problem: every throughput > 0 becomes 1 (0 stays: cannot run).
AllocationProblem Agnostic(const AllocationProblem& problem);

}  // namespace schedkit::gavel

#endif  // SCHEDKIT_GAVEL_LP_POLICIES_H_
