// FIFO as an allocation (Gavel's fifo.py, one call): jobs in arrival order each take one GPU
// type for all their time (x = 1) while one has room; the first job that fits nowhere stops
// the queue (no job jumps ahead of it).
#include <vector>

#include "gavel/lp_policies.h"
#include "mechanisms/portable_rng.h"

namespace schedkit::gavel {
namespace {

class Fifo : public AllocationPolicy {
 public:
  Fifo(bool perf, uint64_t seed) : perf_(perf), seed_(seed) {}
  std::string_view Name() const override { return perf_ ? "fifo_perf" : "fifo"; }

  // Objective: the number of jobs given a type.
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    PortableRng rng(seed_);
    Allocation a;
    a.x.assign(p.jobs.size(), std::vector<double>(p.types.size(), 0.0));
    std::vector<int> free(p.types.size());
    for (size_t k = 0; k < p.types.size(); ++k) free[k] = p.types[k].gpus;
    for (int j = 0; j < static_cast<int>(p.jobs.size()); ++j) {
      std::vector<int> room;
      for (int k = 0; k < static_cast<int>(p.types.size()); ++k) {
        if (p.Runs(j, k) && free[k] >= p.jobs[j].scale_factor) room.push_back(k);
      }
      if (room.empty()) break;
      int chosen = room[0];
      if (!perf_) {
        chosen = room[rng.Index(room.size())];
      } else {
        for (int k : room) {
          if (p.jobs[j].throughput[k] > p.jobs[j].throughput[chosen]) chosen = k;
        }
      }
      a.x[j][chosen] = 1.0;
      free[chosen] -= p.jobs[j].scale_factor;
      a.objective += 1;
    }
    return a;
  }

 private:
  bool perf_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> MakeFifo(bool perf, uint64_t seed) {
  return std::make_unique<Fifo>(perf, seed);
}

}  // namespace schedkit::gavel
