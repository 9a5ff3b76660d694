// One simulation run from loaded inputs to metrics: what `schedkit simulate`, the
// benchmarks and the tests all call.
#ifndef SCHEDKIT_RUN_H_
#define SCHEDKIT_RUN_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedkit/metrics.h"
#include "schedkit/registry.h"
#include "schedkit/simulator.h"

namespace schedkit {

struct RunOutput {
  Summary summary;
  SimulationStats stats;
  std::unique_ptr<MetricsRecorder> recorder;
  std::unique_ptr<Policy> policy;  // The run's policy, after the run (Policy::WriteOutputs).
};

// Builds the policy from `request`, simulates `trace` on `cluster` and summarises.
// request.compat's profile (ResolveProfile with options.runtime_factor) sets the
// simulator's progress model and runtime factor, the policy's knobs and the summary's
// percentile rule. request.policy is looked up in `registries` (Python's
// schedkit.simulate adds its policies to a copy of the built-in ones).
Result<RunOutput> RunSimulation(const Trace& trace, const ClusterSpec& cluster,
                                const PolicyRequest& request, SimulatorOptions options,
                                const Registries& registries = BuiltinRegistries());

// The same run with the jobs streamed from `jobs` (Simulator's streamed constructor): the
// trace is never held in memory, the metrics recorder keeps one row per job as the jobs
// are read, and the outputs are byte for byte those of RunSimulation over a Trace of the
// same jobs. The policy sees no trace (PolicyRequest::trace is null); the shipped scaling
// model is loaded unless options name one (an elastic job may come at any point).
Result<RunOutput> RunSimulation(JobSource& jobs, const ClusterSpec& cluster,
                                const PolicyRequest& request, SimulatorOptions options,
                                const Registries& registries = BuiltinRegistries());

// summary.json's "run" block (docs/outputs.md), the one description of a run that
// `schedkit simulate` and every sweep run write. In this order: policy; placement and
// admission (the modules used: the request's, else the policy's defaults; empty for a
// policy that takes none); compat; trace and cluster (the paths as given); seed;
// runtime_factor (only when given); measured_jobs ("FIRST-LAST", only when the summary is
// over a window: `measured`, else the profile's); then "opt.KEY" for each request option,
// by key. Every value is text. A policy missing from `registries` gets the request's
// modules; the placement is the request's, else the profile's default, else the policy's.
std::vector<std::pair<std::string, std::string>> SummaryRunBlock(
    const PolicyRequest& request, const std::string& trace, const std::string& cluster,
    std::optional<double> runtime_factor, const Registries& registries = BuiltinRegistries(),
    std::optional<MeasuredJobs> measured = std::nullopt);

// Restart overheads used when the user names none: the Muri profile table shipped in
// data/ (per model and GPU count) and 10 s for models not in it, as in Muri.
Result<RestartOverheads> DefaultRestartOverheads();

// The scaling model of elastic jobs shipped in data/ (kShippedScalingTable, fitted to the
// Muri profile table: data/optimus/README.md). RunSimulation uses it when the trace has an
// elastic job and the options name no model.
Result<std::shared_ptr<const ScalingModel>> ShippedScalingModel();

}  // namespace schedkit

#endif  // SCHEDKIT_RUN_H_
