// LAS: least attained service first, with 2D attained service (GPU-seconds), as in
// Tiresias' continuous 2D-LAS; under PolicyKnobs::las_attained = kWallSeconds, wall
// seconds run, as in Blox's LAS. Running jobs' service grows while pending jobs' does
// not, so each running job's place is re-examined every `quantum_s` seconds after it
// starts (like Blox's 300-s rounds, but per job rather than global); quantum_s=0
// re-examines the order only at arrivals and completions.
#include "schedkit/ordering_policy.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class LasOrder final : public CopyableModule<LasOrder, SchedulingModule> {
 public:
  LasOrder(double quantum_s, AttainedService attained) : quantum_s_(quantum_s), attained_(attained) {}
  std::string_view Name() const override { return "las"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    return {attained_ == AttainedService::kWallSeconds ? job.executed_s : job.attained_gpu_s, 0, 0};
  }
  Time NextKeyChange(const JobStatus&, Time now) const override {
    return quantum_s_ > 0 ? now + quantum_s_ : kNever;
  }

 private:
  double quantum_s_;
  AttainedService attained_;  // PolicyKnobs::las_attained.
};

}  // namespace

Status RegisterLas(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "las",
       .description = "Least attained GPU-time first (continuous 2D-LAS); preemptive",
       .options = {{"quantum_s", OptionSpec::Type::kDouble, "300",
                    "re-examine the order this often while jobs run (0: only on arrivals/ends)"}},
       .default_placement = "best-fit",
       .default_preemption = PreemptionMode::kPriority,
       .periodic_key_changes = true,  // now + quantum_s, whatever the job.
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         const double q = ctx.options.Double("quantum_s");
         if (q < 0) return Status::InvalidArgument("las: option 'quantum_s' must be >= 0");
         return std::unique_ptr<SchedulingModule>(std::make_unique<LasOrder>(q, ctx.knobs.las_attained));
       }},
      r);
}

}  // namespace schedkit
