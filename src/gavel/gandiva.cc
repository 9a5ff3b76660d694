// Gandiva as Gavel runs it for one call (gandiva.py): when the jobs ask for more GPUs than the
// cluster has, jobs are paired at random (seeded; a draw of two jobs that cannot share, for
// a scale-factor mismatch or no measured pair throughput, is skipped, at most one draw per
// job), and the cluster's time is split equally over the resulting combinations (pairs and
// single jobs): x_ck = n_k / (m sf_c) on every type the combination can use, each row scaled
// down to sum to at most 1. When the jobs fit, the same equal split over single jobs.
// Gavel's later calls keep pairs and drop those that lose throughput; one call has none.
#include <map>
#include <numeric>
#include <tuple>

#include "gavel/lp_policies.h"
#include "mechanisms/portable_rng.h"

namespace schedkit::gavel {
namespace {

class Gandiva : public AllocationPolicy {
 public:
  explicit Gandiva(uint64_t seed) : seed_(seed) {}
  std::string_view Name() const override { return "gandiva"; }

  // Objective: the number of pairs formed.
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    const int types = static_cast<int>(p.types.size());
    // (a, b) with a < b -> the pairs entry for each type, -1 where none.
    std::map<std::pair<int, int>, std::vector<int>> pair_entries;
    for (int i = 0; i < static_cast<int>(p.pairs.size()); ++i) {
      const JobPair& pair = p.pairs[i];
      auto& entries = pair_entries[{std::min(pair.a, pair.b), std::max(pair.a, pair.b)}];
      entries.resize(types, -1);
      entries[pair.type] = i;
    }
    int requested = 0;
    for (const AllocJob& job : p.jobs) requested += job.scale_factor;
    std::vector<int> singles(p.jobs.size());
    std::iota(singles.begin(), singles.end(), 0);
    std::vector<std::pair<int, int>> formed;
    if (requested > p.total_gpus()) {
      PortableRng rng(seed_);
      const size_t draws = singles.size();
      for (size_t d = 0; d < draws && singles.size() > 1; ++d) {
        const size_t i = rng.Index(singles.size());
        size_t j = rng.Index(singles.size() - 1);
        if (j >= i) ++j;
        const int a = std::min(singles[i], singles[j]), b = std::max(singles[i], singles[j]);
        if (p.jobs[a].scale_factor != p.jobs[b].scale_factor || !pair_entries.count({a, b})) continue;
        formed.push_back({a, b});
        singles.erase(singles.begin() + std::max(i, j));
        singles.erase(singles.begin() + std::min(i, j));
      }
    }
    const double m = static_cast<double>(singles.size() + formed.size());
    Allocation a;
    a.x.assign(p.jobs.size(), std::vector<double>(types, 0.0));
    a.pair_x.assign(p.pairs.size(), 0.0);
    a.objective = static_cast<double>(formed.size());
    // The equal split of one combination over the types in `usable`, written through `out`.
    auto split = [&](int sf, const std::vector<bool>& usable, auto out) {
      std::vector<double> x(types, 0.0);
      double row = 0;
      for (int k = 0; k < types; ++k) {
        if (usable[k]) row += x[k] = p.types[k].gpus / (m * sf);
      }
      for (int k = 0; k < types; ++k) out(k, x[k] / std::max(1.0, row));
    };
    for (int j : singles) {
      std::vector<bool> usable(types);
      for (int k = 0; k < types; ++k) usable[k] = p.Runs(j, k);
      split(p.jobs[j].scale_factor, usable, [&](int k, double v) { a.x[j][k] = v; });
    }
    for (const auto& [pa, pb] : formed) {
      const std::vector<int>& entries = pair_entries.at({pa, pb});
      std::vector<bool> usable(types);
      for (int k = 0; k < types; ++k) usable[k] = entries[k] >= 0;
      split(p.jobs[pa].scale_factor, usable, [&](int k, double v) {
        if (entries[k] >= 0) a.pair_x[entries[k]] = v;
      });
    }
    return a;
  }

 private:
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> MakeGandiva(uint64_t seed) { return std::make_unique<Gandiva>(seed); }

}  // namespace schedkit::gavel
