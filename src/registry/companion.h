// Libraries that ship with the `schedkit` executable and that it opens only when a command
// needs them, so that every other command starts without loading what they link:
// libschedkit_pyembed.so (Python policies: libpython) and libschedkit_runtime.so (the
// real-cluster runtime's commands: gRPC, protobuf, SQLite). Like plugins they link no copy
// of the core library (the executable exports it) and carry the plugin ABI symbol
// (schedkit/plugin.h), checked before any of their code runs.
#ifndef SCHEDKIT_REGISTRY_COMPANION_H_
#define SCHEDKIT_REGISTRY_COMPANION_H_

#include <string>

#include "schedkit/status.h"

namespace schedkit {

// Opens the companion library `file` once per process (later calls return the same handle;
// it stays open): the path in $`env_var` if set, else `file` beside the running executable
// (a build tree), else in ../lib/schedkit/ from it (an installed prefix). Fails, with one
// line, when it is in none of them ("<needed_for> need FILE (schedkit built with
// <build_option>=ON); not in ...; $ENV names it"), cannot be loaded, or was built against
// other schedkit headers.
Result<void*> OpenCompanionLibrary(const std::string& file, const char* env_var,
                                   const std::string& needed_for, const std::string& build_option);

}  // namespace schedkit

#endif  // SCHEDKIT_REGISTRY_COMPANION_H_
