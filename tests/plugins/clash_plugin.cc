// A plugin that registers a policy under a built-in's name (`fifo`): `--plugin` must
// refuse it and name the built-in (test_plugins.py).
#include "schedkit/ordering_policy.h"
#include "schedkit/plugin.h"

namespace {

struct SubmitOrder final : schedkit::SchedulingModule {
  std::string_view Name() const override { return "fifo"; }
  schedkit::PriorityKey Key(const schedkit::JobStatus& job, schedkit::Time) const override {
    return {job.spec->submit_s, 0, 0};
  }
};

}  // namespace

SCHEDKIT_PLUGIN(registries) {
  return schedkit::RegisterOrderingPolicy(
      {.name = "fifo",
       .description = "First come, first served (a second one)",
       .options = {},
       .default_placement = "best-fit",
       .make = [](const schedkit::PolicyContext&)
           -> schedkit::Result<std::unique_ptr<schedkit::SchedulingModule>> {
         return std::unique_ptr<schedkit::SchedulingModule>(std::make_unique<SubmitOrder>());
       }},
      registries);
}
