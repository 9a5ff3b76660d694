// `schedkit --version`.
#pragma once

#include <string>

namespace schedkit::cli {

// "schedkit VERSION" (CMake's project version), then " (commit HASH)" when the build was
// configured in a git checkout: the commit checked out at configure time.
std::string VersionString();

}  // namespace schedkit::cli
