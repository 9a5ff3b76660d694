// Two policies written outside schedkit (docs/write-a-policy.md). Each is a priority key;
// schedkit's ModularPolicy does admission, placement, preemption and backfill.
#include "schedkit/ordering_policy.h"
#include "schedkit/plugin.h"

namespace {

using namespace schedkit;

// Fewest GPUs first: narrow jobs go ahead of wide ones (ties: earlier submit, then id).
struct FewestGpusFirst final : SchedulingModule {
  std::string_view Name() const override { return "fewest-gpus"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    return {static_cast<double>(job.spec->gpus), 0, 0};
  }
};

// Shortest job first: the built-in `sjf`'s rule and defaults, so both give the same
// schedule (tests/plugins/test_plugins.py compares their jobs.csv byte for byte).
struct ShortestJobFirst final : SchedulingModule {
  std::string_view Name() const override { return "example-sjf"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    return {job.spec->SoloRuntime(), 0, 0};
  }
};

// A non-preemptive policy (option preemption=priority turns preemption on) on best-fit.
template <typename Order>
OrderingPolicyInfo NonPreemptive(std::string description) {
  return {.name = std::string(Order().Name()),
          .description = std::move(description),
          .options = {},
          .default_placement = "best-fit",
          .default_preemption = PreemptionMode::kNever,
          .make = [](const PolicyContext&) -> Result<std::unique_ptr<SchedulingModule>> {
            return std::unique_ptr<SchedulingModule>(std::make_unique<Order>());
          }};
}

}  // namespace

SCHEDKIT_PLUGIN(registries) {
  SCHEDKIT_RETURN_IF_ERROR(RegisterOrderingPolicy(
      NonPreemptive<FewestGpusFirst>("Fewest GPUs first; non-preemptive by default"), registries));
  return RegisterOrderingPolicy(
      NonPreemptive<ShortestJobFirst>("Shortest job first, as the built-in sjf"), registries);
}
