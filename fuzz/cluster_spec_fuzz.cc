// Fuzz target: cluster spec files (both the schedkit and the Muri/Tiresias layouts), and
// membership files against the cluster of the shipped tiny spec. The first line of the
// input says which: "membership" sends the rest to LoadMembership, anything else sends
// the whole input to LoadClusterSpec.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "schedkit/cluster.h"
#include "schedkit/membership.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  fuzz::Parts parts(data, size);
  if (parts.Next() == "membership") {
    // Two switches of two nodes, so that node indices past the cluster are easy to reach.
    static const ClusterSpec cluster = ClusterSpec::Uniform(2, 2, 8, 32, 256);
    const std::string path = fuzz::InputFiles::Get().Write("membership.csv", parts.Rest());
    (void)LoadMembership(path, cluster);
    return 0;
  }
  const std::string path = fuzz::InputFiles::Get().Write(
      "cluster.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  Result<ClusterSpec> spec = LoadClusterSpec(path);
  if (spec.ok()) (void)spec->TotalGpus();
  return 0;
}
