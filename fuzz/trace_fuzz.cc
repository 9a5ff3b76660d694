// Fuzz target: trace files of every format (LoadTrace's detection picks native, Muri,
// Gavel, Lucid/Helios or Philly from the first line), then, for a small trace that
// loads, a FIFO simulation of it on a two-node cluster: a trace the loader accepts must
// simulate without tripping an engine invariant.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "schedkit/cluster.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  const std::string path = fuzz::InputFiles::Get().Write(
      "trace.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  // Gavel traces: the throughputs of the seeds' models only (fuzz/gavel_throughputs.json,
  // cut from data/gavel/): the full file takes most of a second to read under ASan.
  TraceOptions options;
  options.gavel_throughputs_path = SCHEDKIT_FUZZ_DIR "/gavel_throughputs.json";
  Result<Trace> trace = LoadTrace(path, options);
  if (!trace.ok() || trace->jobs.empty() || trace->jobs.size() > 16) return 0;
  PolicyRequest request;
  request.policy = "fifo";
  const SimulatorOptions sim;  // Invariant checks on: a violation aborts.
  (void)RunSimulation(*trace, ClusterSpec::Uniform(1, 2, 4, 32, 256), request, sim);
  return 0;
}
