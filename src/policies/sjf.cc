// SJF: shortest job first by the job's total solo runtime. An oracle policy in the
// simulator (it reads the true duration); in the runtime it uses the user's estimate.
#include "schedkit/ordering_policy.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class SjfOrder final : public CopyableModule<SjfOrder, SchedulingModule> {
 public:
  std::string_view Name() const override { return "sjf"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    return {job.spec->SoloRuntime(), 0, 0};
  }
};

}  // namespace

Status RegisterSjf(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "sjf",
       .description = "Shortest job first by total solo runtime (oracle); non-preemptive by default",
       .options = {},
       .default_placement = "best-fit",
       .default_preemption = PreemptionMode::kNever,
       .make = [](const PolicyContext&) -> Result<std::unique_ptr<SchedulingModule>> {
         return std::unique_ptr<SchedulingModule>(std::make_unique<SjfOrder>());
       }},
      r);
}

}  // namespace schedkit
