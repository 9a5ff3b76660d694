// Fuzz target: the placement text (ParsePlacement), with and without node names. What
// parses must print back to the same placement (ToString round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "schedkit/cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  fuzz::Parts parts(data, size);
  const std::string text(parts.Next());
  // The remaining lines, if any, are node names.
  std::vector<std::string> names;
  while (!parts.empty()) names.emplace_back(parts.Next());
  Result<Placement> p = ParsePlacement(text, names);
  if (!p.ok()) return 0;
  // Names that the text cannot carry (empty, repeated, holding ':' or ';') need not
  // round-trip; the runtime's node names never are such (docs/runtime.md).
  std::set<std::string> distinct(names.begin(), names.end());
  if (distinct.size() != names.size()) return 0;
  for (const std::string& name : names) {
    if (name.empty() || name.find_first_of(":;") != std::string::npos) return 0;
  }
  Result<Placement> again =
      names.empty() ? ParsePlacement(p->ToString()) : ParsePlacement(p->ToString(names), names);
  if (!again.ok() || !(*again == *p)) std::abort();  // The text does not round-trip.
  return 0;
}
