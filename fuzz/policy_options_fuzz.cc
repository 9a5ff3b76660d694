// Fuzz target: policy requests as users give them (`--policy`, `--placement`,
// `--admission`, `--opt KEY=VALUE`): line 1 the policy, line 2 the placement module,
// line 3 the admission module (empty lines: the defaults), then one KEY=VALUE a line.
// Every request is built (MakePolicy) under the clean and the Muri profile. Values naming
// files are left out: files have their own targets, and a path here could name a device
// that never ends.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "schedkit/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  fuzz::Parts parts(data, size);
  PolicyRequest request;
  request.policy = std::string(parts.Next());
  request.placement = std::string(parts.Next());
  request.admission = std::string(parts.Next());
  while (!parts.empty()) {
    const std::string_view line = parts.Next();
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string value(line.substr(eq + 1));
    if (value.find('/') != std::string::npos) return 0;
    request.options[std::string(line.substr(0, eq))] = value;
  }
  for (CompatMode compat : {CompatMode::kNone, CompatMode::kMuri}) {
    request.compat = compat;
    (void)MakePolicy(request);
  }
  return 0;
}
