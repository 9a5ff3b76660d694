#include "schedkit/ordering_policy.h"

#include "schedkit/modular_policy.h"

namespace schedkit {

Status RegisterOrderingPolicy(OrderingPolicyInfo info, Registries* r) {
  PolicyRegistry::Entry entry;
  entry.name = info.name;
  entry.description = info.description;
  entry.default_placement = info.default_placement;
  entry.options = info.options;
  entry.options.push_back(
      {"preemption", OptionSpec::Type::kString,
       info.default_preemption == PreemptionMode::kNever ? "never" : "priority",
       "never: running jobs keep their GPUs; priority: a better-keyed job may preempt"});
  entry.options.push_back({"backfill", OptionSpec::Type::kBool, "true",
                           "false: stop at the first job that does not fit (head-of-line blocking)"});
  entry.factory = [info](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    const std::string& preemption = ctx.options.String("preemption");
    if (preemption != "never" && preemption != "priority") {
      return Status::InvalidArgument(info.name + ": option 'preemption': '" + preemption +
                                     "' is not one of never, priority");
    }
    Result<std::unique_ptr<SchedulingModule>> ordering = info.make(ctx);
    if (!ordering.ok()) return ordering.status();
    ModularPolicyConfig config;
    config.name = info.name;
    config.admission = std::move(ctx.admission);
    config.placement = std::move(ctx.placement);
    config.scheduling = std::move(ordering).value();
    config.preemption = preemption == "never" ? PreemptionMode::kNever : PreemptionMode::kPriority;
    config.backfill = ctx.options.Bool("backfill");
    // The Muri simulator rebuilds preemptive schedules from scratch at every event; a
    // non-preemptive policy keeps its running jobs in compat mode too.
    config.replace_all =
        ctx.knobs.list_ordered_replacement && config.preemption == PreemptionMode::kPriority;
    config.tail_preemption = ctx.knobs.tail_preemption;
    config.queue_discipline = info.queue_discipline;
    config.periodic_key_changes = info.periodic_key_changes;
    config.running_keys_never_grow = info.running_keys_never_grow;
    config.running_keys_change_at_wakeups = info.running_keys_change_at_wakeups;
    config.running_key_fall = info.running_key_fall;
    if (info.running_key_rate && ctx.knobs.engine_round_s == 0) {
      config.running_key_rate = info.running_key_rate(ctx);
    }
    return MakeModularPolicy(std::move(config));
  };
  return r->policies.Register(std::move(entry));
}

}  // namespace schedkit
