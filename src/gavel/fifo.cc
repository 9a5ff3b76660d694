// FIFO as an allocation (Gavel's fifo.py): jobs in arrival order each take one GPU type for
// all their time (x = 1) while one has room; the first job that fits nowhere stops the queue
// (no job jumps ahead of it). The agnostic mode first keeps each job's held_type. The packed
// mode (Gavel's FIFO_Packing) then goes on down the queue: each next job joins the placed
// job (alone, same scale factor, listed as a pair on the placed job's type) whose pair has
// the highest normalised throughput above the threshold, which turns that job's time on its
// type into the pair's; the first job that joins none stops the queue.
#include <algorithm>
#include <string>
#include <vector>

#include "gavel/lp_policies.h"
#include "mechanisms/portable_rng.h"

namespace schedkit::gavel {
namespace {

class Fifo : public AllocationPolicy {
 public:
  Fifo(FifoMode mode, uint64_t seed, double packing_threshold)
      : perf_(mode != FifoMode::kBase),
        packed_(mode == FifoMode::kPacked),
        seed_(seed),
        packing_threshold_(packing_threshold) {}
  std::string_view Name() const override {
    return packed_ ? "fifo_packed" : perf_ ? "fifo_perf" : "fifo";
  }

  // Objective: the number of jobs given a type.
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    Allocation a;
    a.x.assign(p.jobs.size(), std::vector<double>(p.types.size(), 0.0));
    std::vector<int> free(p.types.size());
    for (size_t k = 0; k < p.types.size(); ++k) free[k] = p.types[k].gpus;
    // The agnostic mode keeps the types of earlier calls; the perf mode chooses afresh.
    std::vector<bool> held(p.jobs.size(), false);
    std::vector<int> placed;  // Jobs given a type, in the order they got it.
    for (size_t j = 0; j < p.jobs.size() && !perf_; ++j) {
      const int k = p.jobs[j].held_type;
      if (k < 0 || free[k] < p.jobs[j].scale_factor) continue;
      held[j] = true;
      placed.push_back(static_cast<int>(j));
      a.x[j][k] = 1.0;
      free[k] -= p.jobs[j].scale_factor;
      a.objective += 1;
    }
    int j = 0;
    for (; j < static_cast<int>(p.jobs.size()); ++j) {
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
      placed.push_back(j);
      free[chosen] -= p.jobs[j].scale_factor;
      a.objective += 1;
    }
    if (packed_) Pack(p, j, std::move(placed), &a);
    return a;
  }

 private:
  // A job's draw depends on the seed and its id only, so that calls of one run (each with
  // its new jobs) draw independently of one another.
  uint64_t Draw(const std::string& id, size_t n) const {
    PortableRng rng(SeedFor(seed_, id));
    return rng.Index(n);
  }

  // The packing pass over the queue from job `next` on (perf mode: no held types, so the
  // jobs after `next` are all unplaced). Ties go to the job placed first.
  void Pack(const AllocationProblem& p, int next, std::vector<int> singles, Allocation* a) const {
    const PairIndex index(p);
    a->pair_x.assign(p.pairs.size(), 0.0);
    for (int q = next; q < static_cast<int>(p.jobs.size()); ++q) {
      double best = packing_threshold_;
      int with = -1, entry = -1;
      for (size_t s = 0; s < singles.size(); ++s) {
        const int placed = singles[s];
        if (p.jobs[placed].scale_factor != p.jobs[q].scale_factor) continue;
        const int k = static_cast<int>(std::find(a->x[placed].begin(), a->x[placed].end(), 1.0) -
                                       a->x[placed].begin());
        const int i = index.Find(placed, q, k);
        if (i < 0) continue;
        const double gain = NormalisedThroughput(p, p.pairs[i]);
        if (gain > best) best = gain, with = static_cast<int>(s), entry = i;
      }
      if (with < 0) break;
      const JobPair& pair = p.pairs[entry];
      a->x[singles[with]][pair.type] = 0.0;
      a->pair_x[entry] = 1.0;
      a->objective += 1;
      singles.erase(singles.begin() + with);
    }
  }

  bool perf_;
  bool packed_;
  uint64_t seed_;
  double packing_threshold_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> MakeFifo(FifoMode mode, uint64_t seed, double packing_threshold) {
  return std::make_unique<Fifo>(mode, seed, packing_threshold);
}

}  // namespace schedkit::gavel
