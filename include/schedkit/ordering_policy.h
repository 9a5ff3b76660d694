// The one registration helper that turns a SchedulingModule (a priority key) into a
// registered ModularPolicy: how the built-in queue policies (fifo, sjf, las, ...) and
// plugins (schedkit/plugin.h) that only supply a key are registered.
#ifndef SCHEDKIT_ORDERING_POLICY_H_
#define SCHEDKIT_ORDERING_POLICY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/modular_policy.h"
#include "schedkit/registry.h"

namespace schedkit {

struct OrderingPolicyInfo {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;  // Policy-specific; common ones are added.
  std::string default_placement;
  PreemptionMode default_preemption = PreemptionMode::kPriority;
  // Order among tied keys in replace_all mode (ModularPolicyConfig::queue_discipline).
  QueueDiscipline queue_discipline = QueueDiscipline::kStableByKey;
  // What the module's keys promise (ModularPolicyConfig, same names).
  bool periodic_key_changes = false;
  bool running_keys_never_grow = false;
  bool running_keys_change_at_wakeups = false;
  KeyRate running_key_fall = nullptr;
  // ModularPolicyConfig::running_key_rate for a run's context (options and knobs): an
  // empty KeyRate makes no promise. Left empty when the engine rounds decision times
  // (PolicyKnobs::engine_round_s): decisions then do not fall on the wake-up times.
  std::function<KeyRate(const PolicyContext&)> running_key_rate = nullptr;
  // Builds the ordering module from validated options.
  std::function<Result<std::unique_ptr<SchedulingModule>>(const PolicyContext&)> make;
};

// Registers `info` as a ModularPolicy. Adds the options every such policy has:
// preemption=never|priority and backfill=true|false. With the knob
// list_ordered_replacement (the Muri profile) a preemptive policy rebuilds its schedule
// from an empty cluster at every decision (replace_all), as the Muri simulator does.
Status RegisterOrderingPolicy(OrderingPolicyInfo info, Registries* r);

}  // namespace schedkit

#endif  // SCHEDKIT_ORDERING_POLICY_H_
