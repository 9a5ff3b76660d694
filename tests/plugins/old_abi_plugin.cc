// A plugin built against other schedkit headers (its ABI string differs): `--plugin`
// must refuse it before running any of its code (test_plugins.py).
#include "schedkit/plugin.h"

extern "C" __attribute__((visibility("default"), used)) const char SCHEDKIT_PLUGIN_ABI_SYMBOL[] =
    "schedkit 0.0.1 headers 0123456789abcdef";

extern "C" __attribute__((visibility("default"))) void SCHEDKIT_PLUGIN_REGISTER_SYMBOL(
    schedkit::Registries*, schedkit::Status* status) {
  *status = schedkit::Status::Internal("old_abi_plugin: registration must not run");
}
