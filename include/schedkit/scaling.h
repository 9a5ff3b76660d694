// Elastic jobs: how fast a job runs on more GPUs than it asked for.
//
// The one scaling model every engine uses (docs/architecture.md, "Elastic jobs";
// data/optimus/README.md for the numbers):
//  - A job's work stays its solo runtime on its requested GPUs (JobSpec::SoloRuntime,
//    JobStatus::remaining_s): on n GPUs it does Speedup(job, n) seconds of that work per
//    wall second, times its StartDecision rate and its GPU type's speed.
//  - The curve is Optimus' (Peng et al., EuroSys'18, section 3.2) time per synchronous
//    data-parallel step, with the per-worker batch fixed (weak scaling, the way elastic
//    data-parallel jobs grow) and all-reduce instead of parameter servers: the per-worker
//    compute term is a constant and the communication terms grow linearly with workers,
//    step(w) = alpha + beta x (w - 1). A step on w GPUs processes w per-worker batches,
//    so throughput is w / step(w) samples per unit and, the job's work being a fixed number
//    of samples, Speedup(job, n) = (n / step(n)) / (g / step(g)), g = job.gpus. It is 1 at
//    n = g and grows with n (towards 1 / beta) for beta >= 0.
//  - alpha and beta come per model name (JobSpec::profile.model) from a table; a job whose
//    model the table lacks follows the table's default curve.
#ifndef SCHEDKIT_SCALING_H_
#define SCHEDKIT_SCALING_H_

#include <map>
#include <string>
#include <utility>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

// The fitted step time of one model: step(w) = alpha_s + beta_s x (w - 1) seconds.
struct StepTimeCurve {
  double alpha_s = 1;  // > 0: the step on one GPU.
  double beta_s = 0;   // >= 0: what each further worker adds (communication).

  double StepTime(int workers) const { return alpha_s + beta_s * (workers - 1); }
  // Samples per second relative to one worker's batch: workers / StepTime(workers).
  double Throughput(int workers) const { return workers / StepTime(workers); }
};

// Immutable once loaded; cheap to share (SimulatorOptions::scaling).
class ScalingModel {
 public:
  // Reads the table (data/optimus/speedup.csv's layout, docs/formats.md): columns model,
  // alpha_ms, beta_ms; the row whose model is "*" is the default curve and is required.
  // Errors name file, line and field.
  static Result<ScalingModel> Load(const std::string& path);
  // A model with only a default curve (tests, plugins).
  explicit ScalingModel(StepTimeCurve default_curve, std::string source = "")
      : source_(std::move(source)), default_(default_curve) {}

  void Set(const std::string& model, StepTimeCurve curve) { curves_[model] = curve; }
  // The curve of `model`, or the default.
  const StepTimeCurve& CurveFor(const std::string& model) const;
  // Seconds of `job`'s solo work (on its requested GPUs) per wall second on `gpus` GPUs:
  // exactly 1 when gpus == job.gpus. REQUIRES: gpus >= 1.
  double Speedup(const JobSpec& job, int gpus) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  StepTimeCurve default_;
  std::map<std::string, StepTimeCurve> curves_;
};

// The rate every engine (the simulator, the runtime) books a start's progress at: seconds
// of `job`'s solo work per wall second on `placement` of `cluster` = the start's policy
// `rate` (StartDecision::rate: 1 alone, below 1 co-located) x PlacementSpeed (the speed
// of its GPU type, schedkit/throughput.h) x, on more GPUs than it asks for,
// scaling->Speedup. Exactly `rate` for a type-agnostic job on its own GPU count.
// REQUIRES: `scaling` non-null when placement.gpus() != job.gpus.
double StartRate(const JobSpec& job, double rate, const Placement& placement,
                 const ClusterSpec& cluster, const ScalingModel* scaling);

// The shipped table, relative to DataDir() (schedkit/trace.h).
inline constexpr char kShippedScalingTable[] = "optimus/speedup.csv";

}  // namespace schedkit

#endif  // SCHEDKIT_SCALING_H_
