// Gandiva as Gavel runs it (gandiva.py). Pairs are kept from call to call (the jobs'
// held_partner, from the last call's Allocation::partner) while the pair gains: co-located on
// every type where both jobs run, with a normalised throughput summed over those types of at
// least 1; a pair whose job has left was not passed on by the caller. When the jobs ask for
// more GPUs than the cluster has, the jobs in no kept pair are paired at random (seeded; a
// draw of two jobs that cannot share, for a scale-factor mismatch or no measured pair
// throughput, is skipped, at most one draw per such job), and the cluster's time is split
// equally over the combinations (pairs and single jobs): x_ck = n_k / (m sf_c) on every type
// the combination can use, each row scaled down to sum to at most 1. When the jobs fit, the
// same equal split over single jobs; kept pairs stay paired for later calls.
#include <numeric>
#include <string>

#include "gavel/lp_policies.h"
#include "mechanisms/portable_rng.h"

namespace schedkit::gavel {
namespace {

// A kept pair's least normalised throughput, summed over the types where both jobs run
// (Gavel's gandiva.py drops combinations below it).
constexpr double kKeepPair = 1.0;

class Gandiva : public AllocationPolicy {
 public:
  explicit Gandiva(uint64_t seed) : seed_(seed) {}
  std::string_view Name() const override { return "gandiva"; }

  // Objective: the number of pairs given time (kept or drawn).
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    const int types = static_cast<int>(p.types.size());
    const int m = static_cast<int>(p.jobs.size());
    const PairIndex index(p);
    Allocation a;
    a.partner.assign(m, -1);
    for (int j = 0; j < m; ++j) {
      const int other = p.jobs[j].held_partner;
      if (other > j && Gains(p, index, j, other)) a.partner[j] = other, a.partner[other] = j;
    }
    int requested = 0;
    for (const AllocJob& job : p.jobs) requested += job.scale_factor;
    const bool packing = requested > p.total_gpus();
    std::vector<int> singles;
    for (int j = 0; j < m; ++j) {
      if (!packing || a.partner[j] < 0) singles.push_back(j);
    }
    if (packing) Draw(p, index, &singles, &a.partner);
    std::vector<std::pair<int, int>> pairs;
    for (int j = 0; j < m && packing; ++j) {
      if (a.partner[j] > j) pairs.push_back({j, a.partner[j]});
    }
    const double combinations = static_cast<double>(singles.size() + pairs.size());
    a.x.assign(m, std::vector<double>(types, 0.0));
    a.pair_x.assign(p.pairs.size(), 0.0);
    a.objective = static_cast<double>(pairs.size());
    // The equal split of one combination over the types in `usable`, written through `out`.
    auto split = [&](int sf, const std::vector<bool>& usable, auto out) {
      std::vector<double> x(types, 0.0);
      double row = 0;
      for (int k = 0; k < types; ++k) {
        if (usable[k]) row += x[k] = p.types[k].gpus / (combinations * sf);
      }
      for (int k = 0; k < types; ++k) out(k, x[k] / std::max(1.0, row));
    };
    for (int j : singles) {
      std::vector<bool> usable(types);
      for (int k = 0; k < types; ++k) usable[k] = p.Runs(j, k);
      split(p.jobs[j].scale_factor, usable, [&](int k, double v) { a.x[j][k] = v; });
    }
    for (const auto& [pa, pb] : pairs) {
      std::vector<int> entries(types);
      std::vector<bool> usable(types);
      for (int k = 0; k < types; ++k) usable[k] = (entries[k] = index.Find(pa, pb, k)) >= 0;
      split(p.jobs[pa].scale_factor, usable, [&](int k, double v) {
        if (entries[k] >= 0) a.pair_x[entries[k]] = v;
      });
    }
    return a;
  }

 private:
  // Returns true iff jobs a and b, paired at the last call, stay paired.
  static bool Gains(const AllocationProblem& p, const PairIndex& index, int a, int b) {
    if (p.jobs[a].scale_factor != p.jobs[b].scale_factor) return false;
    double gain = 0;
    for (int k = 0; k < static_cast<int>(p.types.size()); ++k) {
      if (!p.Runs(a, k) || !p.Runs(b, k)) continue;
      const int i = index.Find(a, b, k);
      if (i < 0 || !(p.pairs[i].throughput_a > 0) || !(p.pairs[i].throughput_b > 0)) return false;
      gain += NormalisedThroughput(p, p.pairs[i]);
    }
    return gain >= kKeepPair;
  }

  // Random pairs among `singles` (in arrival order): as many draws as singles, each of two
  // distinct jobs; a draw forms a pair when the two share a scale factor and are listed.
  // The draws are seeded by the seed and the singles' ids, so that calls of one run with
  // different jobs to pair draw independently.
  void Draw(const AllocationProblem& p, const PairIndex& index, std::vector<int>* singles,
            std::vector<int>* partner) const {
    std::string ids;
    for (int j : *singles) ids += p.jobs[j].id + ",";
    PortableRng rng(SeedFor(seed_, ids));
    const size_t draws = singles->size();
    for (size_t d = 0; d < draws && singles->size() > 1; ++d) {
      const size_t i = rng.Index(singles->size());
      size_t j = rng.Index(singles->size() - 1);
      if (j >= i) ++j;
      const int a = (*singles)[i], b = (*singles)[j];
      if (p.jobs[a].scale_factor != p.jobs[b].scale_factor || !index.Listed(a, b)) continue;
      (*partner)[a] = b;
      (*partner)[b] = a;
      singles->erase(singles->begin() + std::max(i, j));
      singles->erase(singles->begin() + std::min(i, j));
    }
  }

  uint64_t seed_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> MakeGandiva(uint64_t seed) { return std::make_unique<Gandiva>(seed); }

}  // namespace schedkit::gavel
