// Themis (Mahajan et al., NSDI'20) as Muri's simulator models it (themis_sim_jobs):
// finish-time fairness without leases or auctions. At every decision (arrival or
// completion) the shares x that minimise the worst finish-time ratio are re-solved
// (mechanisms/finish_time_fairness.h: exactly, by a search in O(jobs) per step), then jobs are ranked by rounds
// received, x / executed time (never-run jobs first, by x), then by deficit and share,
// and placed greedily from an empty cluster. docs/policies.md has the details.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mechanisms/finish_time_fairness.h"
#include "registry/builtins.h"
#include "workload/csv.h"

namespace schedkit {
namespace {

constexpr double kNeverRunScale = 1e9;        // Muri: sort value x * 1e9 before a first run.

// The unit of a job's isolated finish time I = done + remaining work / isolated throughput
// (IsolatedTimeUnit, schedkit/compat.h). kIterations is Muri's themis_sim_jobs: work in
// iterations, the isolated throughput is the fair share itself, so I is in iterations per
// share (its get_isolated_throughputs computes the throughput and returns the share).
// kSeconds is Themis / Gavel: work in solo seconds, throughput the share of solo speed, I
// in seconds.

struct JobBook {
  double isolated_done_s = 0;  // Muri's cumulative_isolated_time (in IsolatedTimeUnit).
  double prev_remaining = 0;   // Remaining work at the previous solve.
  double prev_isolated = 0;    // Isolated throughput (share) at the previous solve.
  bool solved_before = false;
  double time_owed_s = 0;      // Muri's time_should_received.
  double sort_value = 0, deficit = 0, share = 0;
};

class ThemisPolicy final : public ClonablePolicy<ThemisPolicy> {
 public:
  ThemisPolicy(FtfSelection selection, IsolatedTimeUnit units, double runtime_factor,
               std::unique_ptr<PlacementModule> placement)
      : selection_(selection),
        units_(units),
        runtime_factor_(runtime_factor),
        placement_(std::move(placement)) {}

  std::string_view Name() const override { return "themis"; }

  Status ModulesCloned() const override { return placement_.Check("placement"); }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    const Time now = view.Now();
    RecordFinishTimeFairness(view, events.finished);
    Forget(events.finished);
    for (JobId id : events.interrupted) current_.erase(id);  // Placed again like any other.
    const int total_gpus = view.Cluster().TotalGpus();
    for (JobId id : events.arrived) {
      list_.push_back(id);
      book_[id] = JobBook();
    }
    if (!list_.empty()) {
      Allocate(view, total_gpus);
      Rank(view, now);
      Place(view, out);
    }
    last_decision_ = now;
  }

 private:
  void Forget(const std::vector<JobId>& finished) {
    if (finished.empty()) return;
    std::unordered_set<JobId> gone(finished.begin(), finished.end());
    list_.erase(std::remove_if(list_.begin(), list_.end(), [&](JobId id) { return gone.count(id); }),
                list_.end());
    for (JobId id : finished) {
      book_.erase(id);
      current_.erase(id);
    }
  }

  // ftf.csv (docs/outputs.md): each finished job's finish-time fairness rho = JCT / its
  // isolated finish time, Themis' own measure. Only when the isolated time is in seconds:
  // Muri's iteration units make rho a ratio of unlike quantities.
  Status WriteOutputs(const std::string& dir) const override {
    if (units_ != IsolatedTimeUnit::kSeconds) return Status::Ok();
    std::string text = "job_id,jct_s,isolated_s,rho\n";
    for (const FinishedJob& f : finished_) {
      text += std::to_string(f.id) + "," + workload::FormatDouble(f.jct_s) + "," +
              workload::FormatDouble(f.isolated_s) + "," +
              workload::FormatDouble(f.jct_s / f.isolated_s) + "\n";
    }
    std::ofstream out(dir + "/ftf.csv", std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return Status::InvalidArgument(dir + "/ftf.csv: cannot write");
    return Status::Ok();
  }

  // A job's isolated finish time is summed at each solve from the work done since the one
  // before; at its end the work since the last solve is added, at that solve's share.
  void RecordFinishTimeFairness(const ClusterView& view, const std::vector<JobId>& finished) {
    for (JobId id : finished) {
      auto it = book_.find(id);
      if (it == book_.end() || !it->second.solved_before) continue;
      const JobBook& b = it->second;
      const double isolated_s = b.isolated_done_s + b.prev_remaining / b.prev_isolated;
      if (!(isolated_s > 0)) continue;
      finished_.push_back({id, view.Now() - view.Spec(id).submit_s, isolated_s});
    }
  }

  // Solo seconds per iteration as the engine counts work (x the run's runtime factor); a
  // job without iterations counts seconds. Only kIterations uses it, and there a factor
  // common to all jobs scales every I and so every ratio alike: the optimal shares do not
  // depend on it.
  double IterationTime(const JobSpec& spec) const {
    if (spec.iterations <= 0 || spec.iteration_time_s <= 0) return 1.0;
    return spec.iteration_time_s * runtime_factor_;
  }

  // Builds the finish-time-fairness problem (the isolated time in units_) and stores
  // each job's share.
  void Allocate(const ClusterView& view, int total_gpus) {
    const Time now = view.Now();
    const int n = static_cast<int>(list_.size());
    const double fair_gpus = std::ceil(static_cast<double>(total_gpus) / n);
    std::vector<FtfJob> problem;
    problem.reserve(list_.size());
    for (JobId id : list_) {
      const JobStatus s = view.Status(id);
      const JobSpec& spec = *s.spec;
      JobBook& b = book_[id];
      const double remaining_s = std::isnan(s.remaining_s) ? 0.0 : std::max(0.0, s.remaining_s);
      const double remaining =
          units_ == IsolatedTimeUnit::kSeconds ? remaining_s : remaining_s / IterationTime(spec);
      const double isolated = std::min(fair_gpus / spec.gpus, 1.0);
      if (b.solved_before) b.isolated_done_s += (b.prev_remaining - remaining) / b.prev_isolated;
      b.prev_remaining = remaining;
      b.prev_isolated = isolated;
      b.solved_before = true;
      FtfJob j;
      j.elapsed_s = now - spec.submit_s;
      j.solo_remaining_s = remaining_s;
      j.isolated_s = b.isolated_done_s + remaining / isolated;
      j.gpus = spec.gpus;
      problem.push_back(j);
    }
    const FtfAllocation alloc = SolveFinishTimeFairness(problem, total_gpus, selection_);
    for (size_t i = 0; i < list_.size(); ++i) book_[list_[i]].share = alloc.share[i];
  }

  void Rank(const ClusterView& view, Time now) {
    struct Ranked {
      JobId id;
      double sort_value, deficit, share;
    };
    std::vector<Ranked> ranked;
    ranked.reserve(list_.size());
    for (JobId id : list_) {
      JobBook& b = book_[id];
      const double executed = view.Status(id).executed_s;
      b.sort_value = executed == 0 ? b.share * kNeverRunScale : b.share / executed;
      b.deficit = b.time_owed_s - executed;
      b.time_owed_s += b.share * (now - last_decision_);
      ranked.push_back({id, b.sort_value, b.deficit, b.share});
    }
    // Descending (sort value, deficit, share); ties keep the list's previous order. (The
    // keys are copied out: looking them up in book_ inside the sort was 13 % of a run.)
    std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& x, const Ranked& y) {
      if (x.sort_value != y.sort_value) return x.sort_value > y.sort_value;
      if (x.deficit != y.deficit) return x.deficit > y.deficit;
      return x.share > y.share;
    });
    for (size_t i = 0; i < ranked.size(); ++i) list_[i] = ranked[i].id;
  }

  // Chooses greedily in rank order (skipping what does not fit), then places the chosen
  // jobs largest first on an empty cluster, as Muri does. The list keeps that order.
  void Place(const ClusterView& view, Decisions* out) {
    std::unordered_set<JobId> chosen;
    {
      ClusterState free = view.Capacity();
      for (JobId id : list_) {
        const Placement p = placement_->Place(view.Spec(id), free);
        if (p.empty()) continue;
        free.Allocate(p);
        chosen.insert(id);
      }
    }
    {
      std::vector<std::pair<int, JobId>> by_gpus;  // (GPUs, job), in list order.
      by_gpus.reserve(list_.size());
      for (JobId id : list_) by_gpus.emplace_back(view.Spec(id).gpus, id);
      std::stable_sort(by_gpus.begin(), by_gpus.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (size_t i = 0; i < by_gpus.size(); ++i) list_[i] = by_gpus[i].second;
    }
    ClusterState free = view.Capacity();
    std::unordered_map<JobId, Placement> next;
    for (JobId id : list_) {
      if (!chosen.count(id)) continue;
      Placement p = placement_->Place(view.Spec(id), free);
      if (p.empty()) continue;
      free.Allocate(p);
      const JobStatus s = view.Status(id);
      auto it = current_.find(id);
      if (!s.running() || it == current_.end() || !(it->second == p)) {
        out->start.push_back(StartDecision{id, p});
      }
      next.emplace(id, std::move(p));
    }
    for (JobId id : view.RunningJobs()) {
      if (!next.count(id)) out->preempt.push_back(id);
    }
    std::sort(out->preempt.begin(), out->preempt.end());
    current_ = std::move(next);
  }

  FtfSelection selection_;
  IsolatedTimeUnit units_;
  double runtime_factor_;
  ModulePtr<PlacementModule> placement_;
  std::vector<JobId> list_;  // Unfinished jobs; the order persists between decisions.
  std::unordered_map<JobId, JobBook> book_;
  std::unordered_map<JobId, Placement> current_;  // Where each running job was placed.
  Time last_decision_ = 0;
  struct FinishedJob {
    JobId id;
    double jct_s, isolated_s;
  };
  std::vector<FinishedJob> finished_;  // In finishing order; ftf.csv.
};

}  // namespace

Status RegisterThemis(Registries* r) {
  PolicyRegistry::Entry entry;
  entry.name = "themis";
  entry.description =
      "Themis: finish-time fairness, optimal shares re-solved at every arrival and "
      "completion (oracle: uses remaining work)";
  entry.default_placement = "yarn";
  entry.default_admission = "";
  entry.takes_admission = false;
  entry.options = {{"shares", OptionSpec::Type::kString, "centre",
                    "which optimal shares when the optimum is not unique: centre (the "
                    "interior point cvxpy/ECOS returns in Muri) or least (each job the least "
                    "share that keeps its ratio at the optimum)"},
                   {"isolated_time", OptionSpec::Type::kString, "auto",
                    "unit of the isolated finish time a job's ratio divides by: seconds "
                    "(Themis: solo seconds at the fair share), iterations (Muri's code: "
                    "iterations per fair share), auto (the profile's: iterations under --compat "
                    "muri, else seconds)"}};
  entry.factory = [](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    if (!ctx.placement) return Status::InvalidArgument("themis: no placement module");
    const std::string& shares = ctx.options.String("shares");
    FtfSelection selection;
    if (shares == "centre") {
      selection = FtfSelection::kCentre;
    } else if (shares == "least") {
      selection = FtfSelection::kLeast;
    } else {
      return Status::InvalidArgument("themis: option shares='" + shares +
                                     "': expected centre or least");
    }
    const std::string& unit = ctx.options.String("isolated_time");
    IsolatedTimeUnit units;
    if (unit == "auto") {
      units = ctx.knobs.default_isolated_time;
    } else if (unit == "seconds") {
      units = IsolatedTimeUnit::kSeconds;
    } else if (unit == "iterations") {
      units = IsolatedTimeUnit::kIterations;
    } else {
      return Status::InvalidArgument("themis: option isolated_time='" + unit +
                                     "': expected auto, seconds or iterations");
    }
    return std::unique_ptr<Policy>(std::make_unique<ThemisPolicy>(
        selection, units, ctx.knobs.runtime_factor, std::move(ctx.placement)));
  };
  return r->policies.Register(std::move(entry));
}

}  // namespace schedkit
