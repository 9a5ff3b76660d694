// The job model: what a workload says about a job before it runs.
//
// Time is simulated time in seconds, as a double, everywhere in schedkit. Integer-second
// traces (Lucid/Helios) are represented exactly; Muri's millisecond traces are divided
// by 1000 on load, as the Muri simulator does.
#ifndef SCHEDKIT_JOB_H_
#define SCHEDKIT_JOB_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace schedkit {

using Time = double;  // Seconds.
using JobId = int64_t;

inline constexpr Time kNever = std::numeric_limits<double>::infinity();

// One whole GPU in milli-GPU, the unit of fractional GPU shares (JobSpec::gpu_milli,
// NodeShare::gpu_milli, docs/fgd.md).
inline constexpr int kMilliPerGpu = 1000;

// Per-iteration stage times of a job (seconds), as Muri profiles them:
// [0] storage I/O + CPU preprocessing, [1] GPU compute, [2] network (0 on one GPU).
using StageTimes = std::array<double, 3>;

// A job's speed on one GPU type: seconds of its solo work (JobSpec::SoloRuntime) it does
// per wall second when it runs alone there. 1 on the type its solo runtime was measured
// on (the reference type: v100 for Gavel's traces and generator).
struct TypeSpeed {
  std::string gpu_type;
  double speed = 1;  // > 0.

  bool operator==(const TypeSpeed&) const = default;
};

// What keys the profiled-performance tables for a job (JobSpec::profile). Which system
// reads each field is said beside it.
struct WorkloadProfile {
  // e.g. "resnet18". Every engine: the restart-overhead table (Muri's profile table).
  // Muri and Gavel traces, Lucid's co-location tables (with the fields below).
  std::string model;
  int batch_size = 0;  // Lucid's co-location tables; carried from Muri and Gavel traces.
  // Muri's interleaving (muri-s, muri-l, antman's interference): per-iteration stage times.
  StageTimes stage_times_s{0, 0, 0};  // All zero when unknown.

  // Lucid (cluster_full_log): with model and batch_size, the key of single_data.csv and
  // colocate_info.csv; memory and utilisation for its packing rules (src/lucid/rules.h).
  std::string dataset;
  bool amp = false;     // Mixed precision.
  double gmem_mb = 0;   // GPU memory the job uses, MB.
  double gpu_util = 0;  // Measured GPU utilisation, percent.

  // Heterogeneous clusters (schedkit/throughput.h, docs/heterogeneous.md): the job's speed
  // per GPU type, sorted by type name, types distinct. Empty = the job runs at its solo
  // speed on every type (a type-agnostic job). A job that lists speeds cannot run on a
  // named type it does not list; every job runs at speed 1 on kGenericGpuType nodes.
  std::vector<TypeSpeed> type_speeds;
};

// The static description of one job. Immutable once the workload is loaded.
struct JobSpec {
  JobId id = 0;
  Time submit_s = 0;
  int gpus = 1;  // The GPUs it needs: it never runs on fewer.
  // Elastic jobs (schedkit/scaling.h, docs/architecture.md "Elastic jobs"): the most GPUs a
  // policy may start it on, at the speed the run's ScalingModel gives for that count. 0 =
  // rigid: it runs on exactly `gpus`. REQUIRES: 0 or >= gpus.
  int max_gpus = 0;
  // The share of each of its GPUs the job needs, in milli-GPU: kMilliPerGpu (the default)
  // = whole GPUs; 1-999 = a fraction of one GPU, which other fractional jobs may share
  // (then gpus == 1; docs/fgd.md).
  int gpu_milli = kMilliPerGpu;
  // CPUs and memory (GB) the job asks for in total; 0 lets the placement module use
  // its own per-GPU default (Muri: 6 CPUs per GPU, 2 for a 1-GPU job).
  int cpus = 0;
  double mem_gb = 0;

  // Work: either iterations x iteration time, or a plain duration. SoloRuntime()
  // says which one is used.
  int64_t iterations = 0;
  double iteration_time_s = 0;
  double duration_s = 0;

  std::string user;
  std::string name;  // Job name as the log gives it (Lucid/Helios `jobname`); may be empty.
  std::string vc;    // Virtual cluster; empty = the whole cluster.
  int priority = 0;  // Larger = more important; meaning is policy-specific (AntMan, Blox FIFO).

  // What the job runs, as the systems that profiled it describe it: the keys of their
  // restart-overhead, throughput and co-location tables. Only the engine and policies
  // that model those systems read it; a policy that only orders and places jobs never
  // does. Every field may be unknown (empty, 0, all zero).
  WorkloadProfile profile;

  // Seconds the job runs alone on its requested GPUs, from start to finish, with no
  // restart overhead: iterations x iteration_time when both are known, else duration.
  double SoloRuntime() const {
    return (iterations > 0 && iteration_time_s > 0) ? iterations * iteration_time_s : duration_s;
  }
  // The most GPUs it may run on: max_gpus for an elastic job, else gpus.
  int MaxGpus() const { return max_gpus > gpus ? max_gpus : gpus; }
  bool Elastic() const { return max_gpus > gpus; }
  bool HasStageTimes() const {
    const StageTimes& t = profile.stage_times_s;
    return t[0] > 0 || t[1] > 0 || t[2] > 0;
  }
};

// A workload: jobs sorted by (submit time, id).
struct Trace {
  std::string source;  // File name or generator description, for reports.
  // Unix time (seconds, UTC) of submit_s = 0, when the trace comes from dated records
  // (Lucid/Helios logs); 0 when unknown. Absolute time of a job = epoch_unix_s + submit_s.
  int64_t epoch_unix_s = 0;
  std::vector<JobSpec> jobs;
};

// Fluent builder for tests and examples: JobBuilder(1).Gpus(8).Submit(10).Duration(100).Build().
class JobBuilder {
 public:
  explicit JobBuilder(JobId id) { spec_.id = id; }
  JobBuilder& Submit(Time t) { spec_.submit_s = t; return *this; }
  JobBuilder& Gpus(int n) { spec_.gpus = n; return *this; }
  JobBuilder& MaxGpus(int n) { spec_.max_gpus = n; return *this; }
  JobBuilder& GpuMilli(int m) { spec_.gpu_milli = m; return *this; }
  JobBuilder& Duration(double s) { spec_.duration_s = s; return *this; }
  JobBuilder& Iterations(int64_t n, double seconds_each) {
    spec_.iterations = n;
    spec_.iteration_time_s = seconds_each;
    return *this;
  }
  JobBuilder& Model(std::string m) { spec_.profile.model = std::move(m); return *this; }
  JobBuilder& Stages(double io_cpu, double gpu, double net) {
    spec_.profile.stage_times_s = {io_cpu, gpu, net};
    return *this;
  }
  JobBuilder& User(std::string u) { spec_.user = std::move(u); return *this; }
  JobBuilder& Vc(std::string v) { spec_.vc = std::move(v); return *this; }
  JobBuilder& Name(std::string n) { spec_.name = std::move(n); return *this; }
  JobBuilder& Dataset(std::string d) { spec_.profile.dataset = std::move(d); return *this; }
  JobBuilder& BatchSize(int b) { spec_.profile.batch_size = b; return *this; }
  JobBuilder& Amp(bool a) { spec_.profile.amp = a; return *this; }
  JobBuilder& GmemMb(double m) { spec_.profile.gmem_mb = m; return *this; }
  JobBuilder& Speed(std::string gpu_type, double speed) {
    spec_.profile.type_speeds.push_back({std::move(gpu_type), speed});
    std::sort(spec_.profile.type_speeds.begin(), spec_.profile.type_speeds.end(),
              [](const TypeSpeed& a, const TypeSpeed& b) { return a.gpu_type < b.gpu_type; });
    return *this;
  }
  JobBuilder& Priority(int p) { spec_.priority = p; return *this; }
  JobBuilder& Cpus(int c) { spec_.cpus = c; return *this; }
  JobBuilder& MemGb(double m) { spec_.mem_gb = m; return *this; }
  JobSpec Build() const { return spec_; }

 private:
  JobSpec spec_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_JOB_H_
