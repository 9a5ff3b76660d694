// Heterogeneous GPUs: how fast a job runs on each GPU type, alone and beside another job.
//
// The one model that every engine and policy uses (docs/heterogeneous.md):
//  - A job's work is its solo runtime (JobSpec::SoloRuntime), in seconds on its
//    reference type. For Gavel's traces and generator that is steps / (steps/s on a
//    V100): the job's speed on type k is T_k / T_v100, T the table's isolated steps/s.
//  - Alone on GPU type k, a job does SpeedOn(job, k) seconds of that work per wall second.
//    On a placement spanning several types it runs at the slowest one's speed (a
//    synchronous job waits for its slowest worker).
//  - Co-located (a group of StartDecision), its rate relative to running alone on that
//    type comes from the table's pair throughputs (ColocatedRate); the engine multiplies
//    the start's rate by the placement's speed.
#ifndef SCHEDKIT_THROUGHPUT_H_
#define SCHEDKIT_THROUGHPUT_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

// Seconds of `job`'s solo work per wall second alone on `gpu_type`: 1 on kGenericGpuType
// and for a job that lists no speeds; else its listed speed, or 0 (it cannot run there)
// when it lists none for that type.
double SpeedOn(const JobSpec& job, const std::string& gpu_type);

// `job`'s speed alone on `placement` of `cluster`: the lowest SpeedOn over the types of
// the nodes it uses; 0 if it cannot run on one of them. REQUIRES: non-empty placement
// whose nodes exist in `cluster`.
double PlacementSpeed(const JobSpec& job, const Placement& placement, const ClusterSpec& cluster);

// True iff every node of `placement` has the same GPU type.
bool WithinOneType(const Placement& placement, const ClusterSpec& cluster);

// Gavel's measured throughputs (simulation_throughputs.json): per GPU type, per job type
// ("ResNet-50 (batch size 64)") and scale factor (GPUs), the isolated steps/s and, for
// pairs measured sharing the same GPUs, each one's steps/s [own, other]. Immutable and
// cheap to copy (the data is shared).
class ThroughputTable {
 public:
  // Reads Gavel's JSON. Errors name the file and the bad key or value.
  static Result<ThroughputTable> LoadGavel(const std::string& path);

  const std::string& source() const;
  std::vector<std::string> GpuTypes() const;  // Sorted.
  // Job types with an isolated throughput on `gpu_type` at exactly `scale_factor`, sorted.
  std::vector<std::string> JobTypes(const std::string& gpu_type, int scale_factor) const;

  // Gavel's job type text: "MODEL (batch size B)", or MODEL alone when B is 0.
  static std::string JobType(const std::string& model, int batch_size);
  // The inverse: "ResNet-50 (batch size 64)" -> ("ResNet-50", 64); "A3C" -> ("A3C", 0).
  static void SplitJobType(const std::string& job_type, std::string* model, int* batch_size);

  // The largest scale factor <= `scale_factor` at which `job_type` is measured on
  // `gpu_type` (Gavel's legacy traces ask for up to 64 GPUs; the table stops at 8).
  // NotFound naming the GPU type, job type and scale factor when there is none.
  Result<int> MeasuredScaleFactor(const std::string& gpu_type, const std::string& job_type,
                                  int scale_factor) const;
  // Isolated steps/s at exactly that scale factor; NotFound naming what is missing.
  Result<double> Isolated(const std::string& gpu_type, const std::string& job_type,
                          int scale_factor) const;
  // Steps/s of a job of type `a` beside one of type `b` on the same GPUs of `gpu_type`:
  // {a's, b's}. NotFound when the table did not measure that pair.
  Result<std::array<double, 2>> Colocated(const std::string& gpu_type, const std::string& a,
                                          int a_scale_factor, const std::string& b,
                                          int b_scale_factor) const;

  // A job's speeds (JobSpec::profile.type_speeds): on every GPU type of the table that
  // measured it (at MeasuredScaleFactor), its isolated steps/s over that on `reference`.
  // Sorted by type. Fails when the job type is not measured on `reference`.
  Result<std::vector<TypeSpeed>> Speeds(const std::string& job_type, int scale_factor,
                                        const std::string& reference) const;

  // The StartDecision::rate of `job` co-located with `other` on `gpu_type` (both at their
  // own GPU counts): its pair steps/s over its isolated steps/s there. The engine
  // multiplies it by the type's speed, so progress is the pair throughput. NotFound when
  // the table lacks the pair or either job's type.
  Result<double> ColocatedRate(const JobSpec& job, const JobSpec& other,
                               const std::string& gpu_type) const;

 private:
  struct Data;
  std::shared_ptr<const Data> data_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_THROUGHPUT_H_
