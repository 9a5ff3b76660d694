// Registers every built-in sharing policy, in the order `schedkit fgd policies` lists them.
#include <cstdio>
#include <cstdlib>

#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

using Factory = std::unique_ptr<SharingPolicy> (*)();

SharingPolicyRegistry::Entry EntryFor(std::string name, std::string description, Factory make) {
  SharingPolicyRegistry::Entry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.factory = [make](ModuleContext&) -> Result<std::unique_ptr<SharingPolicy>> { return make(); };
  return e;
}

SharingPolicyRegistry BuildRegistry() {
  SharingPolicyRegistry r;
  const SharingPolicyRegistry::Entry entries[] = {
      EntryFor("fgd", "least growth of the node's expected fragmentation (FGD, ATC'23)",
               MakeFgdPolicy),
      EntryFor("best-fit", "least CPU and GPU left over, weighted 0.5 each", MakeBestFitPolicy),
      EntryFor("dot-product", "alignment of the pod's demand with the node's free vector",
               MakeDotProductPolicy),
      EntryFor("packing", "shared GPUs first, then free GPUs of used nodes, then idle nodes",
               MakePackingPolicy),
      EntryFor("clustering", "nodes holding pods of the same kind first", MakeClusteringPolicy),
      EntryFor("random", "any node that fits, uniformly", MakeRandomPolicy),
  };
  for (const auto& e : entries) {
    const Status st = r.Register(e);
    if (!st.ok()) {
      std::fprintf(stderr, "schedkit: %s\n", st.message().c_str());
      std::abort();
    }
  }
  return r;
}

}  // namespace

const SharingPolicyRegistry& BuiltinSharingPolicies() {
  static const SharingPolicyRegistry registry = BuildRegistry();
  return registry;
}

std::vector<std::string> SharingPolicyNames() {
  std::vector<std::string> names;
  for (const auto& e : BuiltinSharingPolicies().entries()) names.push_back(e.name);
  return names;
}

}  // namespace schedkit::sharing
