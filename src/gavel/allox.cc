// AlloX (Le et al., EuroSys'20) as Gavel runs it for one call (allox.py): the oldest jobs
// (a share alpha of those waiting, at least one per GPU) are matched to (GPU, position)
// slots at minimum total completion time, where position p counts from the end of a GPU's
// queue and costs p x (steps / throughput). Jobs at the front of a queue run now (x = 1).
//
// Gavel solves the matching with the Hungarian method over every GPU. GPUs of one type are
// interchangeable, so here the slots are (type, position) with room for n_k jobs: a
// transportation problem, whose LP has an integral optimum (totally unimodular), solved by
// CLP's simplex. An optimum fills positions 1, 2, ... of a type in turn (moving a job to a
// free lower position lowers the cost), so positions stop at ceil(m / n_k).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "gavel/lp_policies.h"
#include "mechanisms/lp.h"

namespace schedkit::gavel {
namespace {

class Allox : public AllocationPolicy {
 public:
  explicit Allox(double alpha) : alpha_(alpha) {}
  std::string_view Name() const override { return "allox"; }

  // Objective: the candidates' summed completion times (s), counted from now.
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    for (const AllocJob& job : p.jobs) {
      if (job.scale_factor != 1) {
        return Status::InvalidArgument("allox: job " + Quoted(job.id) +
                                       ": AlloX takes single-GPU jobs only (scale_factor 1)");
      }
      if (!(job.steps_left > 0)) {
        return Status::InvalidArgument("allox: job " + Quoted(job.id) + ": steps_left must be > 0");
      }
    }
    Allocation a;
    a.x.assign(p.jobs.size(), std::vector<double>(p.types.size(), 0.0));
    if (p.jobs.empty()) return a;
    // Oldest first (arrival order on ties).
    std::vector<int> order(p.jobs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      return p.jobs[x].time_since_arrival > p.jobs[y].time_since_arrival;
    });
    const int total = static_cast<int>(p.jobs.size());
    const int m = std::min(total, std::max(p.total_gpus(), static_cast<int>(alpha_ * total)));
    order.resize(m);

    LinearProgram lp;
    struct Slot {
      int job, type, position, var;
    };
    std::vector<Slot> slots;
    std::vector<std::vector<LpTerm>> job_rows(m);
    for (int k = 0; k < static_cast<int>(p.types.size()); ++k) {
      const int positions = (m + p.types[k].gpus - 1) / p.types[k].gpus;
      for (int pos = 1; pos <= positions; ++pos) {
        std::vector<LpTerm> slot_row;
        for (int i = 0; i < m; ++i) {
          const int j = order[i];
          if (!p.Runs(j, k)) continue;
          const double q = p.jobs[j].steps_left / p.jobs[j].throughput[k];
          const int var = lp.AddVariable(0, 1, pos * q);
          slots.push_back({i, k, pos, var});
          slot_row.push_back({var, 1.0});
          job_rows[i].push_back({var, 1.0});
        }
        if (!slot_row.empty()) lp.AddRow(slot_row, 0, p.types[k].gpus);
      }
    }
    for (const std::vector<LpTerm>& row : job_rows) lp.AddRow(row, 1, 1);
    const LpStatus st = lp.Solve();
    if (st != LpStatus::kOptimal) {
      return Status::Internal("allox: the matching LP did not reach an optimum");
    }
    a.objective = lp.Objective();
    a.lp_solves = 1;
    // Per type, the jobs at each position (candidate order). A queue of length L runs its
    // position-L job first: with c_p jobs at position p, c_p - c_{p+1} of them head a queue.
    for (int k = 0; k < static_cast<int>(p.types.size()); ++k) {
      std::vector<std::vector<int>> at;  // at[pos - 1] = candidates there.
      for (const Slot& s : slots) {
        if (s.type != k || lp.Value(s.var) < 0.5) continue;
        if (static_cast<int>(at.size()) < s.position) at.resize(s.position);
        at[s.position - 1].push_back(s.job);
      }
      for (size_t pos = 0; pos < at.size(); ++pos) {
        std::sort(at[pos].begin(), at[pos].end());
        const size_t next = pos + 1 < at.size() ? at[pos + 1].size() : 0;
        const size_t heads = at[pos].size() > next ? at[pos].size() - next : 0;
        for (size_t h = 0; h < heads; ++h) a.x[order[at[pos][h]]][k] = 1.0;
      }
    }
    return a;
  }

 private:
  double alpha_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> MakeAllox(double alpha) { return std::make_unique<Allox>(alpha); }

}  // namespace schedkit::gavel
