#include "schedkit/run.h"

#include <algorithm>
#include <chrono>

#include "schedkit/trace.h"

namespace schedkit {

Result<RestartOverheads> DefaultRestartOverheads() {
  return RestartOverheads::Load(DataDir() + "/muri_profile_table.csv", 10.0);
}

Result<std::shared_ptr<const ScalingModel>> ShippedScalingModel() {
  Result<ScalingModel> model = ScalingModel::Load(DataDir() + "/" + kShippedScalingTable);
  if (!model.ok()) return model.status();
  return std::shared_ptr<const ScalingModel>(
      std::make_shared<ScalingModel>(std::move(model).value()));
}

namespace {

// The metrics recorder learns each job as the engine reads it from the source.
class RecordedSource final : public JobSource {
 public:
  RecordedSource(JobSource* jobs, MetricsRecorder* recorder) : jobs_(jobs), recorder_(recorder) {}
  bool Next(JobSpec* job) override {
    if (!jobs_->Next(job)) return false;
    recorder_->AddJob(*job);
    return true;
  }
  Status status() const override { return jobs_->status(); }
  std::string Where() const override { return jobs_->Where(); }

 private:
  JobSource* jobs_;
  MetricsRecorder* recorder_;
};

// One run over `trace`, or streamed from `jobs` when `trace` is null.
Result<RunOutput> Run(const Trace* trace, JobSource* jobs, const ClusterSpec& cluster,
                      const PolicyRequest& request, SimulatorOptions options,
                      const Registries& registries) {
  SCHEDKIT_RETURN_IF_ERROR(ValidateMembership(options.membership, cluster, "membership"));
  if (trace == nullptr) {
    const std::string placement = PlacementOf(request, registries);
    const PlacementRegistry::Entry* module = registries.placements.Find(placement);
    if (module != nullptr && module->reads_workload) {
      return Status::InvalidArgument(
          "placement '" + placement +
          "' plans for the run's whole workload, which a streamed run does not hold: load the "
          "trace whole (without --stream)");
    }
  }
  const CompatProfile profile = ResolveProfile(request.compat, options.runtime_factor);
  PolicyRequest with_trace = request;
  with_trace.trace = trace;
  Result<std::unique_ptr<Policy>> policy = MakePolicy(with_trace, profile.knobs, registries);
  if (!policy.ok()) return policy.status();
  const bool any_elastic =
      trace == nullptr || std::any_of(trace->jobs.begin(), trace->jobs.end(),
                                      [](const JobSpec& j) { return j.Elastic(); });
  if (!options.scaling && any_elastic) {
    Result<std::shared_ptr<const ScalingModel>> shipped = ShippedScalingModel();
    if (!shipped.ok()) return shipped.status();
    options.scaling = std::move(shipped).value();
  }
  options.progress = profile.progress;
  options.runtime_factor = profile.runtime_factor;
  options.decision_round_s = profile.decision_round_s;
  if (!profile.restart_overheads) options.overheads = RestartOverheads(0);
  // The user's window, else the profile's.
  const std::optional<MeasuredJobs> measured = options.measured ? options.measured : profile.measured;
  RunOutput out;
  out.recorder =
      std::make_unique<MetricsRecorder>(trace, profile.runtime_factor, profile.end_round_s);
  RecordedSource recorded(jobs, out.recorder.get());
  std::unique_ptr<Simulator> sim =
      trace != nullptr ? std::make_unique<Simulator>(trace, &cluster, std::move(options))
                       : std::make_unique<Simulator>(&recorded, &cluster, std::move(options));
  sim->AddObserver(out.recorder.get());
  const auto start = std::chrono::steady_clock::now();
  SCHEDKIT_RETURN_IF_ERROR(sim->Run(policy->get()));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.stats = sim->stats();
  out.summary = Summarize(*out.recorder, cluster, out.stats, profile.percentiles, wall, measured);
  out.policy = std::move(policy).value();
  return out;
}

}  // namespace

Result<RunOutput> RunSimulation(const Trace& trace, const ClusterSpec& cluster,
                                const PolicyRequest& request, SimulatorOptions options,
                                const Registries& registries) {
  return Run(&trace, nullptr, cluster, request, std::move(options), registries);
}

Result<RunOutput> RunSimulation(JobSource& jobs, const ClusterSpec& cluster,
                                const PolicyRequest& request, SimulatorOptions options,
                                const Registries& registries) {
  return Run(nullptr, &jobs, cluster, request, std::move(options), registries);
}

}  // namespace schedkit
