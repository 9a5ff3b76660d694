// FIFO as an allocation (Gavel's fifo.py): jobs in arrival order each take one GPU type for
// all their time (x = 1) while one has room; the first job that fits nowhere stops the queue
// (no job jumps ahead of it). The agnostic mode first keeps each job's held_type.
#include <string>
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
    Allocation a;
    a.x.assign(p.jobs.size(), std::vector<double>(p.types.size(), 0.0));
    std::vector<int> free(p.types.size());
    for (size_t k = 0; k < p.types.size(); ++k) free[k] = p.types[k].gpus;
    // The agnostic mode keeps the types of earlier calls; the perf mode chooses afresh.
    std::vector<bool> held(p.jobs.size(), false);
    for (size_t j = 0; j < p.jobs.size() && !perf_; ++j) {
      const int k = p.jobs[j].held_type;
      if (k < 0 || free[k] < p.jobs[j].scale_factor) continue;
      held[j] = true;
      a.x[j][k] = 1.0;
      free[k] -= p.jobs[j].scale_factor;
      a.objective += 1;
    }
    for (int j = 0; j < static_cast<int>(p.jobs.size()); ++j) {
      if (held[j]) continue;
      std::vector<int> room;
      for (int k = 0; k < static_cast<int>(p.types.size()); ++k) {
        if (p.Runs(j, k) && free[k] >= p.jobs[j].scale_factor) room.push_back(k);
      }
      if (room.empty()) break;
      int chosen = room[0];
      if (!perf_) {
        chosen = room[Draw(p.jobs[j].id, room.size())];
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
  // A job's draw depends on the seed and its id only, so that calls of one run (each with
  // its new jobs) draw independently of one another.
  uint64_t Draw(const std::string& id, size_t n) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a of the id.
    for (unsigned char c : id) h = (h ^ c) * 1099511628211ull;
    PortableRng rng(seed_ ^ h);
    return rng.Index(n);
  }

  bool perf_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> MakeFifo(bool perf, uint64_t seed) {
  return std::make_unique<Fifo>(perf, seed);
}

}  // namespace schedkit::gavel
