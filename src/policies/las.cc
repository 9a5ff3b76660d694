// LAS: least attained service first, with 2D attained service (GPU-seconds), as in
// Tiresias' continuous 2D-LAS; under PolicyKnobs::las_attained = kWallSeconds, wall
// seconds run, as in Blox's LAS. Running jobs' service grows while pending jobs' does
// not, so each running job's place is re-examined every `quantum_s` seconds after it
// starts (like Blox's 300-s rounds, but per job rather than global); quantum_s=0
// re-examines the order only at arrivals and completions. A running job's attained
// service grows linearly (by its GPUs, or 1 on wall-seconds, per second), so the
// mechanism skips the re-examinations at which no comparison can have changed
// (ModularPolicyConfig::running_key_rate); every_quantum=true keeps them all, as a
// reference the skipping is checked against (tests/policies/las_wakeups_test.cc).
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
                    "re-examine the order this often while jobs run (0: only on arrivals/ends)"},
                   {"every_quantum", OptionSpec::Type::kBool, "false",
                    "true: re-examine at every quantum even where no order can have changed "
                    "(same decisions, more wake-ups)"}},
       .default_placement = "best-fit",
       .default_preemption = PreemptionMode::kPriority,
       .periodic_key_changes = true,  // now + quantum_s, whatever the job.
       .running_key_rate = [](const PolicyContext& ctx) -> KeyRate {
         if (ctx.options.Bool("every_quantum")) return {};
         if (ctx.knobs.las_attained == AttainedService::kWallSeconds) {
           return [](const JobStatus&) { return 1.0; };
         }
         // Attained GPU-seconds grow by the GPUs the job holds: those it asked for, or
         // more if an elastic job's run was grown (schedkit/attained.h).
         return [](const JobStatus& s) {
           const JobSpec& spec = *s.spec;
           return static_cast<double>(spec.MaxGpus() > spec.gpus ? s.placement->gpus() : spec.gpus);
         };
       },
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         const double q = ctx.options.Double("quantum_s");
         if (q < 0) return Status::InvalidArgument("las: option 'quantum_s' must be >= 0");
         return std::unique_ptr<SchedulingModule>(std::make_unique<LasOrder>(q, ctx.knobs.las_attained));
       }},
      r);
}

}  // namespace schedkit
