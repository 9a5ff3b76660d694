#include "schedkit/run.h"

#include <chrono>

#include "schedkit/trace.h"

namespace schedkit {

Result<RestartOverheads> DefaultRestartOverheads() {
  return RestartOverheads::Load(DataDir() + "/muri_profile_table.csv", 10.0);
}

Result<RunOutput> RunSimulation(const Trace& trace, const ClusterSpec& cluster,
                                const PolicyRequest& request, SimulatorOptions options,
                                const Registries& registries) {
  SCHEDKIT_RETURN_IF_ERROR(ValidateMembership(options.membership, cluster, "membership"));
  const CompatProfile profile = ResolveProfile(request.compat, options.runtime_factor);
  PolicyRequest with_trace = request;
  with_trace.trace = &trace;
  Result<std::unique_ptr<Policy>> policy = MakePolicy(with_trace, profile.knobs, registries);
  if (!policy.ok()) return policy.status();
  options.progress = profile.progress;
  options.runtime_factor = profile.runtime_factor;
  RunOutput out;
  out.recorder = std::make_unique<MetricsRecorder>(&trace, profile.runtime_factor);
  Simulator sim(&trace, &cluster, std::move(options));
  sim.AddObserver(out.recorder.get());
  const auto start = std::chrono::steady_clock::now();
  SCHEDKIT_RETURN_IF_ERROR(sim.Run(policy->get()));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.stats = sim.stats();
  out.summary = Summarize(*out.recorder, cluster, out.stats, profile.percentiles, wall);
  return out;
}

}  // namespace schedkit
