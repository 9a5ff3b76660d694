// FIFO: first come, first served (by submit time, then job id).
#include "schedkit/ordering_policy.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class FifoOrder final : public CopyableModule<FifoOrder, SchedulingModule> {
 public:
  explicit FifoOrder(bool use_priority) : use_priority_(use_priority) {}
  std::string_view Name() const override { return "fifo"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    // Blox orders by (priority, submit); higher priority first.
    return {use_priority_ ? -static_cast<double>(job.spec->priority) : 0.0, 0, 0};
  }

 private:
  bool use_priority_;
};

}  // namespace

Status RegisterFifo(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "fifo",
       .description = "First come, first served by submit time; non-preemptive by default",
       .options = {{"use_priority", OptionSpec::Type::kBool, "false",
                    "order by the trace's priority (higher first) before submit time"}},
       .default_placement = "best-fit",
       .default_preemption = PreemptionMode::kNever,
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         return std::unique_ptr<SchedulingModule>(
             std::make_unique<FifoOrder>(ctx.options.Bool("use_priority")));
       }},
      r);
}

}  // namespace schedkit
