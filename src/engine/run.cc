#include "schedkit/run.h"

#include <chrono>

#include "schedkit/trace.h"

namespace schedkit {

Result<RestartOverheads> DefaultRestartOverheads() {
  return RestartOverheads::Load(DataDir() + "/muri_profile_table.csv", 10.0);
}

Result<RunOutput> RunSimulation(const Trace& trace, const ClusterSpec& cluster,
                                const PolicyRequest& request, SimulatorOptions options) {
  Result<std::unique_ptr<Policy>> policy = MakePolicy(request);
  if (!policy.ok()) return policy.status();
  options.compat = request.compat;
  RunOutput out;
  out.recorder = std::make_unique<MetricsRecorder>(&trace);
  Simulator sim(&trace, &cluster, std::move(options));
  sim.AddObserver(out.recorder.get());
  const auto start = std::chrono::steady_clock::now();
  SCHEDKIT_RETURN_IF_ERROR(sim.Run(policy->get()));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.stats = sim.stats();
  const PercentileRule rule = request.compat == CompatMode::kMuri ? PercentileRule::kMuriIndex
                                                                  : PercentileRule::kNearestRank;
  out.summary = Summarize(*out.recorder, cluster, out.stats, rule, wall);
  return out;
}

}  // namespace schedkit
