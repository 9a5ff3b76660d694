// One registration function per built-in module; RegisterBuiltins calls them all.
#ifndef SCHEDKIT_REGISTRY_BUILTINS_H_
#define SCHEDKIT_REGISTRY_BUILTINS_H_

#include "schedkit/registry.h"

namespace schedkit {

Status RegisterFifo(Registries* r);
Status RegisterSjf(Registries* r);
Status RegisterSrtf(Registries* r);
Status RegisterSrsf(Registries* r);
Status RegisterLas(Registries* r);
Status RegisterTiresias(Registries* r);
Status RegisterGittins(Registries* r);
Status RegisterTiresiasGittins(Registries* r);
Status RegisterQssf(Registries* r);
Status RegisterLucid(Registries* r);  // The clean-model Lucid policy.
Status RegisterMuri(Registries* r);  // muri-s, muri-l
Status RegisterThemis(Registries* r);
Status RegisterGavel(Registries* r);  // The simulated Gavel policy (src/gavel's allocations).
Status RegisterAntMan(Registries* r);
Status RegisterOptimus(Registries* r);
Status RegisterDynamic(Registries* r);  // Looks ahead with the policies registered before it.
Status RegisterPlacements(Registries* r);
// The GPU-sharing placement modules fgd, fgd-best-fit, ... (src/sharing/placement_modules.cc).
Status RegisterSharingPlacements(Registries* r);
Status RegisterAdmissions(Registries* r);

// The process's registries: the built-ins, then what plugins add (LoadPlugin, the only
// writer). BuiltinRegistries() is a read-only view of them.
Registries& ProcessRegistries();

}  // namespace schedkit

#endif  // SCHEDKIT_REGISTRY_BUILTINS_H_
