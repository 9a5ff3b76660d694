// A plugin that registers nothing: `--plugin` must refuse it (test_plugins.py).
#include "schedkit/plugin.h"

SCHEDKIT_PLUGIN(registries) { return schedkit::Status::Ok(); }
