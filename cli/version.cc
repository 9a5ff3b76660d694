#include "version.h"

// Defined for this file only (CMakeLists.txt), so that a new commit recompiles nothing else.
#ifndef SCHEDKIT_VERSION
#error "SCHEDKIT_VERSION is set by CMakeLists.txt"
#endif
#ifndef SCHEDKIT_GIT_COMMIT
#define SCHEDKIT_GIT_COMMIT ""
#endif

namespace schedkit::cli {

std::string VersionString() {
  const std::string commit = SCHEDKIT_GIT_COMMIT;
  return std::string("schedkit ") + SCHEDKIT_VERSION +
         (commit.empty() ? "" : " (commit " + commit + ")");
}

}  // namespace schedkit::cli
