// A plugin whose registration fails (it registers one name twice): `--plugin` must refuse
// it with the registry's message and add nothing (test_plugins.py).
#include "schedkit/ordering_policy.h"
#include "schedkit/plugin.h"

namespace {

struct SubmitOrder final : schedkit::SchedulingModule {
  std::string_view Name() const override { return "twice"; }
  schedkit::PriorityKey Key(const schedkit::JobStatus& job, schedkit::Time) const override {
    return {job.spec->submit_s, 0, 0};
  }
};

schedkit::OrderingPolicyInfo Twice() {
  return {.name = "twice",
          .description = "First come, first served",
          .options = {},
          .default_placement = "best-fit",
          .make = [](const schedkit::PolicyContext&)
              -> schedkit::Result<std::unique_ptr<schedkit::SchedulingModule>> {
            return std::unique_ptr<schedkit::SchedulingModule>(std::make_unique<SubmitOrder>());
          }};
}

}  // namespace

SCHEDKIT_PLUGIN(registries) {
  SCHEDKIT_RETURN_IF_ERROR(schedkit::RegisterOrderingPolicy(Twice(), registries));
  return schedkit::RegisterOrderingPolicy(Twice(), registries);
}
