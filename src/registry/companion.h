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

// One companion library, as its caller names it.
struct CompanionLibrary {
  const char* file;          // "libschedkit_pyembed.so"
  const char* entry;         // The symbol its caller calls.
  const char* env_var;       // Names another path: "SCHEDKIT_PYTHON_EMBED".
  const char* needed_for;    // For the error: "Python policies".
  const char* build_option;  // For the error: "SCHEDKIT_BUILD_PYTHON".
};

// The address of `library.entry` in the companion library, opened once per process (it stays
// open): the path in $env_var if set, else `file` beside the running executable (a build
// tree), else in ../lib/schedkit/ from it (an installed prefix). Fails, with one line, when
// it is in none of them ("<needed_for> need FILE (schedkit built with <build_option>=ON); not
// in ...; $ENV names it"), cannot be loaded, was built against other schedkit headers, or has
// no such symbol ("FILE: no symbol ENTRY").
Result<void*> CompanionEntry(const CompanionLibrary& library);

}  // namespace schedkit

#endif  // SCHEDKIT_REGISTRY_COMPANION_H_
