// Fuzz target: sweep files (TOML, docs/sweep.md), and the grid of a small one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "schedkit/experiment.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  const std::string path = fuzz::InputFiles::Get().Write(
      "sweep.toml", std::string_view(reinterpret_cast<const char*>(data), size));
  Result<SweepConfig> config = LoadSweepConfig(path);
  if (!config.ok()) return 0;
  const size_t workloads = config->traces.empty()
                               ? config->loads.size() * std::max<size_t>(config->seeds.size(), 1)
                               : config->traces.size();
  if (config->clusters.size() * workloads * config->policies.size() <= 1000) {
    (void)ExpandGrid(*config);
  }
  return 0;
}
