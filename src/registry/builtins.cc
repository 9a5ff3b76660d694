#include "registry/builtins.h"

#include <cstdio>
#include <cstdlib>

namespace schedkit {

Status RegisterBuiltins(Registries* r) {
  // Every built-in, listed explicitly: this order is the order `schedkit policies` prints.
  SCHEDKIT_RETURN_IF_ERROR(RegisterFifo(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterSjf(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterSrtf(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterSrsf(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterLas(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterTiresias(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterGittins(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterTiresiasGittins(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterQssf(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterLucid(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterMuri(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterThemis(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterGavel(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterAntMan(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterOptimus(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterDynamic(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterPlacements(r));
  SCHEDKIT_RETURN_IF_ERROR(RegisterSharingPlacements(r));
  return RegisterAdmissions(r);
}

Registries& ProcessRegistries() {
  static Registries* const registries = [] {
    auto* r = new Registries();
    Status st = RegisterBuiltins(r);
    if (!st.ok()) {
      std::fprintf(stderr, "schedkit: internal error: %s\n", st.message().c_str());
      std::abort();
    }
    return r;
  }();
  return *registries;
}

const Registries& BuiltinRegistries() { return ProcessRegistries(); }

}  // namespace schedkit
