// SRTF and SRSF: shortest remaining time first, and its GPU-weighted variant
// (remaining time x GPUs, "shortest remaining service"). Oracle policies in the
// simulator: they read the engine's remaining work.
#include <cmath>

#include "policies/remaining_work.h"
#include "schedkit/ordering_policy.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class RemainingWorkOrder final : public CopyableModule<RemainingWorkOrder, SchedulingModule> {
 public:
  RemainingWorkOrder(bool gpu_weighted, bool use_priority)
      : gpu_weighted_(gpu_weighted), use_priority_(use_priority) {}
  std::string_view Name() const override { return gpu_weighted_ ? "srsf" : "srtf"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    // Unknown remaining work (NaN) sorts last.
    const double remaining = std::isnan(job.remaining_s) ? INFINITY : job.remaining_s;
    const double work = gpu_weighted_ ? remaining * job.spec->gpus : remaining;
    if (use_priority_) return {-static_cast<double>(job.spec->priority), work, 0};
    return {work, 0, 0};
  }

 private:
  bool gpu_weighted_;
  bool use_priority_;
};

}  // namespace

std::unique_ptr<SchedulingModule> MakeRemainingWorkOrder(bool gpu_weighted, bool use_priority) {
  return std::make_unique<RemainingWorkOrder>(gpu_weighted, use_priority);
}

namespace {

Status RegisterRemainingWork(Registries* r, bool gpu_weighted) {
  return RegisterOrderingPolicy(
      {.name = gpu_weighted ? "srsf" : "srtf",
       .description = gpu_weighted
                          ? "Shortest remaining service (remaining time x GPUs, oracle) first; preemptive"
                          : "Shortest remaining time first (oracle remaining work); preemptive",
       .options = {},
       .default_placement = "yarn",
       .default_preemption = PreemptionMode::kPriority,
       // Remaining work only falls while a job runs (or stands still while it pays its
       // restart overhead).
       .running_keys_never_grow = true,
       // Remaining work falls by the solo work done (times the GPUs for SRSF).
       .running_key_fall = [gpu_weighted](const JobStatus& job) -> double {
         return gpu_weighted ? job.spec->gpus : 1;
       },
       .make = [gpu_weighted](const PolicyContext&) -> Result<std::unique_ptr<SchedulingModule>> {
         return std::unique_ptr<SchedulingModule>(MakeRemainingWorkOrder(gpu_weighted, false));
       }},
      r);
}

}  // namespace

Status RegisterSrtf(Registries* r) { return RegisterRemainingWork(r, false); }
Status RegisterSrsf(Registries* r) { return RegisterRemainingWork(r, true); }

}  // namespace schedkit
