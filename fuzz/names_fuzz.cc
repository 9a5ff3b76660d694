// Fuzz target: the short texts users type as flags and sweep values. The first byte
// picks the parser, the rest of the input is the text: trace formats, compatibility
// profiles, Lucid-engine policies, membership changes, shards ("i/n"), dates.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "schedkit/compat.h"
#include "schedkit/experiment.h"
#include "schedkit/lucid.h"
#include "schedkit/membership.h"
#include "schedkit/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  fuzz::Parts parts(data, size);
  const size_t which = parts.Choice(6);
  const std::string text(parts.Rest());
  switch (which) {
    case 0:
      (void)ParseTraceFormat(text);
      break;
    case 1: {
      Result<CompatMode> mode = ParseCompatMode(text);
      // A name that parses is a profile with a table row.
      if (mode.ok() && *mode != CompatMode::kLucid) (void)ResolveProfile(*mode, std::nullopt);
      break;
    }
    case 2:
      (void)lucid::ParseCompatPolicy(text);
      break;
    case 3:
      (void)ParseMembershipChange(text);
      break;
    case 4:
      (void)ParseShard(text);
      break;
    case 5: {
      int64_t unix_s = 0;
      (void)ParseDateTimeUtc(text, &unix_s);
      break;
    }
  }
  return 0;
}
