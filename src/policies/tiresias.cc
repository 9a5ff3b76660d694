// Tiresias: discretised 2D-LAS. Jobs sit in queues by attained GPU-time (queue k once
// attained >= thresholds[k-1]); lower queues run first, FIFO by arrival within a queue.
// A running job is demoted the moment it crosses a threshold: the policy asks to be
// woken then. Under compat muri, demotion times are ceil(threshold / GPUs) seconds of
// execution, as in the Muri/Tiresias simulator (docs/fidelity.md).
#include <cmath>

#include "policies/ordering_policies.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class TiresiasOrder final : public SchedulingModule {
 public:
  TiresiasOrder(std::vector<double> thresholds, bool compat_muri)
      : thresholds_(std::move(thresholds)), compat_muri_(compat_muri) {}
  std::string_view Name() const override { return "tiresias"; }

  PriorityKey Key(const JobStatus& job, Time) const override {
    return {static_cast<double>(QueueOf(job)), 0, 0};
  }

  Time NextKeyChange(const JobStatus& job, Time now) const override {
    const size_t q = QueueOf(job);
    if (q >= thresholds_.size()) return kNever;
    const int gpus = job.spec->gpus;
    if (compat_muri_) return (std::ceil(thresholds_[q] / gpus) - job.executed_s) + now;
    return now + (thresholds_[q] - job.attained_gpu_s) / gpus;
  }

  bool MultiLevelFifo() const override { return true; }

 private:
  size_t QueueOf(const JobStatus& job) const {
    size_t q = 0;
    while (q < thresholds_.size() && job.attained_gpu_s >= thresholds_[q]) ++q;
    return q;
  }

  std::vector<double> thresholds_;  // GPU-seconds, ascending.
  bool compat_muri_;
};

}  // namespace

Status RegisterTiresias(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "tiresias",
       .description = "Discretised 2D-LAS: multi-level queues by attained GPU-time, FIFO within a queue",
       .options = {{"thresholds", OptionSpec::Type::kDoubleList, "3250:7200",
                    "queue thresholds in GPU-seconds, ascending (Muri's dlas-gpu: 3250:7200)"}},
       .default_placement = "gpu-count",
       .default_preemption = PreemptionMode::kPriority,
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         std::vector<double> t = ctx.options.DoubleList("thresholds");
         for (size_t i = 0; i < t.size(); ++i) {
           if (t[i] <= 0 || (i > 0 && t[i] <= t[i - 1])) {
             return Status::InvalidArgument(
                 "tiresias: option 'thresholds' must be positive and strictly ascending");
           }
         }
         return std::unique_ptr<SchedulingModule>(
             std::make_unique<TiresiasOrder>(std::move(t), ctx.compat == CompatMode::kMuri));
       }},
      r);
}

}  // namespace schedkit
