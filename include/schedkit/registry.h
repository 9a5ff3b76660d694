// Registries: every policy, placement and admission module, by name, with typed options.
//
// Built-ins are registered in one explicit function (RegisterBuiltins, in
// src/registry/builtins.cc) that lists them all: static self-registration would be
// silently dropped by static linking. A name can be registered once; a second
// registration is refused.
#ifndef SCHEDKIT_REGISTRY_H_
#define SCHEDKIT_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/compat.h"
#include "schedkit/policy.h"
#include "schedkit/status.h"

namespace schedkit {

struct OptionSpec {
  enum class Type { kInt, kDouble, kBool, kString, kDoubleList };
  std::string name;
  Type type = Type::kString;
  std::string default_value;  // Text form, parsed like a user value.
  std::string help;

  static const char* TypeName(Type t);
};

// Option values after validation against their specs: every declared option has a
// value (the user's or the default), and each is known to parse as its type.
class OptionValues {
 public:
  OptionValues() = default;
  // Fails with a message naming `owner` and the option if `raw` holds an unknown key or
  // a value that does not parse as the option's type.
  static Result<OptionValues> Parse(const std::string& owner, const std::vector<OptionSpec>& specs,
                                    const std::map<std::string, std::string>& raw);

  // REQUIRES: `name` was declared with the matching type.
  int64_t Int(const std::string& name) const;
  double Double(const std::string& name) const;
  bool Bool(const std::string& name) const;
  const std::string& String(const std::string& name) const;
  std::vector<double> DoubleList(const std::string& name) const;  // "a:b:c" or "a,b,c".

 private:
  const std::string& Raw(const std::string& name) const;
  std::map<std::string, std::string> values_;
};

struct ModuleContext {
  OptionValues options;
  // The run's workload when the engine knows it up front (the simulator), else null.
  // Placement modules that plan for the expected workload (FGD's target workload,
  // docs/fgd.md) read it; they fail to build without it.
  const Trace* trace = nullptr;
};

struct PolicyContext {
  OptionValues options;
  // The placement and admission modules chosen by the user, or null for the policy's own
  // defaults (PolicyEntry::default_placement / default_admission).
  std::unique_ptr<PlacementModule> placement;
  std::unique_ptr<AdmissionModule> admission;
  uint64_t seed = 0;
  // The run's compatibility profile, as explicit choices (schedkit/compat.h). Policies read
  // these knobs, never the mode.
  PolicyKnobs knobs;
};

template <typename T, typename Context>
struct RegistryEntry {
  std::string name;
  std::string description;  // One line, for `schedkit policies`.
  std::vector<OptionSpec> options;
  std::function<Result<std::unique_ptr<T>>(Context& ctx)> factory;
  // Policies only: what is used when the user names no placement / admission module.
  std::string default_placement;
  std::string default_admission = "accept-all";
  // Policies only: whether the policy builds on a placement / admission module. A policy
  // that does not (it places or admits jobs itself) has an empty default, and a request
  // naming such a module or its options is refused (CheckModulesTaken): it would be ignored.
  bool takes_placement = true;
  bool takes_admission = true;
  // Modules only: the module plans for the run's whole workload (ModuleContext::trace, as
  // FGD's target workload does). A simulation that does not hold its trace up front (a
  // streamed run) refuses such a module rather than run it without that plan.
  bool reads_workload = false;
};

template <typename T, typename Context>
class Registry {
 public:
  using Entry = RegistryEntry<T, Context>;

  Status Register(Entry entry) {
    if (Find(entry.name) != nullptr) {
      return Status::AlreadyExists("'" + entry.name + "' is registered twice");
    }
    entries_.push_back(std::move(entry));
    return Status::Ok();
  }
  // Returns nullptr iff no entry has that name.
  const Entry* Find(const std::string& name) const {
    for (const Entry& e : entries_) {
      if (e.name == name) return &e;
    }
    return nullptr;
  }
  // In registration order.
  const std::vector<Entry>& entries() const { return entries_; }
  std::string Names() const {
    std::string s;
    for (const Entry& e : entries_) s += (s.empty() ? "" : ", ") + e.name;
    return s;
  }

 private:
  std::vector<Entry> entries_;
};

using PolicyRegistry = Registry<Policy, PolicyContext>;
using PlacementRegistry = Registry<PlacementModule, ModuleContext>;
using AdmissionRegistry = Registry<AdmissionModule, ModuleContext>;

struct Registries {
  PolicyRegistry policies;
  PlacementRegistry placements;
  AdmissionRegistry admissions;
};

// Registers every built-in into `r`. Fails only on a duplicate name (a bug).
Status RegisterBuiltins(Registries* r);
// The registries holding every built-in, built once, then what plugins add (plugin.h).
const Registries& BuiltinRegistries();

// What a user asks for on the command line or from Python.
struct PolicyRequest {
  std::string policy;
  std::string placement;  // Empty: the policy's default.
  std::string admission;  // Empty: the policy's default.
  // key=value options. Keys "placement.K" go to the placement module, "admission.K"
  // to the admission module, all others to the policy.
  std::map<std::string, std::string> options;
  uint64_t seed = 0;
  // Its profile's knobs reach the policy (ProfileFor(compat).knobs). kLucid is refused: it
  // runs on its own engine (schedkit/lucid.h).
  CompatMode compat = CompatMode::kNone;
  // The run's workload, for ModuleContext::trace; null when unknown. RunSimulation sets it.
  const Trace* trace = nullptr;
};

// Fails iff `request` names a placement or admission module, or gives a "placement.K" /
// "admission.K" option, that its policy does not take (RegistryEntry::takes_placement,
// takes_admission); the message names the policy and what it would ignore. On failure
// `*field`, if not null, is set to the request's offending field: "placement",
// "admission" or the option's key. REQUIRES: `entry` is request.policy's entry.
Status CheckModulesTaken(const PolicyRegistry::Entry& entry, const PolicyRequest& request,
                         std::string* field = nullptr);

// The placement module `request` runs with: request.placement, else its compat profile's
// default, else the policy's; empty for a policy that places jobs itself or is not in
// `registries`.
std::string PlacementOf(const PolicyRequest& request,
                        const Registries& registries = BuiltinRegistries());

// Builds a fresh policy (one per run) with the knobs of request.compat's profile. Errors
// name the unknown module or bad option, or a module the policy does not take
// (CheckModulesTaken).
Result<std::unique_ptr<Policy>> MakePolicy(const PolicyRequest& request,
                                           const Registries& registries = BuiltinRegistries());
// The same with the knobs of a resolved profile (ResolveProfile: e.g. the user's
// --runtime-factor), as RunSimulation does.
Result<std::unique_ptr<Policy>> MakePolicy(const PolicyRequest& request, const PolicyKnobs& knobs,
                                           const Registries& registries = BuiltinRegistries());

}  // namespace schedkit

#endif  // SCHEDKIT_REGISTRY_H_
