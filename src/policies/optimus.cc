// Optimus as Blox runs it (Peng et al., EuroSys'18; msr-fiddle/blox): jobs in SRTF order
// by (priority, remaining solo time) each get the GPUs they ask for, walking the order
// while the cluster's GPU count allows (no backfill by default: the walk stops at the
// first job that does not fit); the GPUs left over are then handed out one at a time,
// round-robin in that same order, to the elastic jobs chosen (JobSpec::max_gpus), each up
// to its max_gpus. A rigid job only ever gets what it asks for. The engine runs a grown job
// at the speed the run's scaling model gives (schedkit/scaling.h); the shipped model never
// makes a job slower with more GPUs, so the policy need not ask it.
//
// The allocation is rebuilt from the view at every decision (arrivals, completions,
// interrupted jobs, wake-ups): the policy keeps no state. A running job whose GPU count
// stays keeps its GPUs; one whose count changes restarts on a fresh placement (paying its
// restart overhead, as Blox relaunches it), one not chosen is preempted. Placement goes
// job by job in order through the placement module; a grown job that the module cannot
// place on its share (fragmentation) tries one GPU fewer down to what it asks for, so
// GPUs may stay idle.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "policies/remaining_work.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class OptimusPolicy final : public ClonablePolicy<OptimusPolicy> {
 public:
  OptimusPolicy(bool use_priority, bool backfill, std::unique_ptr<PlacementModule> placement)
      : order_(MakeRemainingWorkOrder(/*gpu_weighted=*/false, use_priority)),
        backfill_(backfill),
        placement_(std::move(placement)) {}

  std::string_view Name() const override { return "optimus"; }

  Status ModulesCloned() const override {
    SCHEDKIT_RETURN_IF_ERROR(order_.Check("scheduling"));
    return placement_.Check("placement");
  }

  void Decide(const ClusterView& view, const EventBatch&, Decisions* out) override {
    std::vector<Share> jobs = Ordered(view);
    Allocate(view.Capacity().total_free_gpus(), &jobs);
    Realise(view, jobs, out);
  }

 private:
  struct Share {
    JobId id = 0;
    PriorityKey key{};
    Time submit = 0;
    const JobSpec* spec = nullptr;
    const Placement* running_on = nullptr;  // Null when pending.
    int gpus = 0;                           // Allocated; 0 = not chosen.
  };

  // Every unfinished job, in (key, submit, id) order.
  std::vector<Share> Ordered(const ClusterView& view) const {
    std::vector<Share> jobs;
    auto add = [&](JobId id) {
      const JobStatus s = view.Status(id);
      jobs.push_back({id, order_->Key(s, view.Now()), s.spec->submit_s, s.spec, s.placement, 0});
    };
    for (JobId id : view.RunningJobs()) add(id);
    for (JobId id : view.PendingJobs()) add(id);
    std::sort(jobs.begin(), jobs.end(), [](const Share& a, const Share& b) {
      if (a.key != b.key) return a.key < b.key;
      if (a.submit != b.submit) return a.submit < b.submit;
      return a.id < b.id;
    });
    return jobs;
  }

  // Requested GPUs in order while they fit `total`, then the rest round-robin.
  void Allocate(int total, std::vector<Share>* jobs) const {
    int left = total;
    for (Share& j : *jobs) {
      if (j.spec->gpus <= left) {
        j.gpus = j.spec->gpus;
        left -= j.gpus;
      } else if (!backfill_) {
        break;
      }
    }
    for (bool gave = true; left > 0 && gave;) {
      gave = false;
      for (Share& j : *jobs) {
        if (left == 0) break;
        if (j.gpus == 0 || j.gpus >= j.spec->MaxGpus()) continue;
        ++j.gpus;
        --left;
        gave = true;
      }
    }
  }

  void Realise(const ClusterView& view, const std::vector<Share>& jobs, Decisions* out) const {
    ClusterState free = view.Resources();
    // Running jobs that lose their place or change size give their GPUs back first.
    for (const Share& j : jobs) {
      if (j.running_on == nullptr || j.running_on->gpus() == j.gpus) continue;
      free.Release(*j.running_on);
      if (j.gpus == 0) out->preempt.push_back(j.id);
    }
    for (const Share& j : jobs) {
      if (j.gpus == 0 || (j.running_on != nullptr && j.running_on->gpus() == j.gpus)) continue;
      Placement p;
      JobSpec sized = *j.spec;
      for (sized.gpus = j.gpus; sized.gpus >= j.spec->gpus && p.empty(); --sized.gpus) {
        p = placement_->Place(sized, free);
      }
      if (p.empty()) {
        if (j.running_on != nullptr) out->preempt.push_back(j.id);
        continue;  // A pending job waits.
      }
      free.Allocate(p);
      out->start.push_back({.job = j.id, .placement = std::move(p)});
    }
  }

  ModulePtr<SchedulingModule> order_;
  bool backfill_;
  ModulePtr<PlacementModule> placement_;
};

}  // namespace

Status RegisterOptimus(Registries* r) {
  PolicyRegistry::Entry entry;
  entry.name = "optimus";
  entry.description =
      "Optimus (Blox): SRTF order gets requested GPUs, leftover GPUs round-robin to elastic "
      "jobs (oracle: uses remaining work)";
  entry.default_placement = "first-fit";
  entry.default_admission = "";
  entry.takes_admission = false;
  entry.options = {
      {"use_priority", OptionSpec::Type::kBool, "true",
       "order by the trace's priority (higher first) before remaining time, as Blox does"},
      {"backfill", OptionSpec::Type::kBool, "false",
       "let later jobs take GPUs an earlier job that does not fit leaves (Blox: no)"}};
  entry.factory = [](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    if (!ctx.placement) return Status::InvalidArgument("optimus: no placement module");
    return std::unique_ptr<Policy>(std::make_unique<OptimusPolicy>(
        ctx.options.Bool("use_priority"), ctx.options.Bool("backfill"), std::move(ctx.placement)));
  };
  return r->policies.Register(std::move(entry));
}

}  // namespace schedkit
