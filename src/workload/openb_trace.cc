// The openb pod lists (Alibaba GPU-sharing traces) as a simulator trace: one job per GPU
// pod, with its per-GPU share (docs/formats.md, "openb pod lists").
#include <algorithm>
#include <limits>

#include "schedkit/sharing.h"
#include "workload/trace_formats.h"

namespace schedkit::workload {
namespace {

// The pod's "A|B" model constraint as speeds (1 on each model: schedkit/throughput.h),
// sorted by type name, each type once.
std::vector<TypeSpeed> ModelSpeeds(const std::string& models) {
  std::vector<TypeSpeed> speeds;
  size_t begin = 0;
  while (begin <= models.size() && !models.empty()) {
    const size_t bar = std::min(models.find('|', begin), models.size());
    const std::string model = models.substr(begin, bar - begin);
    const bool seen = std::any_of(speeds.begin(), speeds.end(),
                                  [&](const TypeSpeed& t) { return t.gpu_type == model; });
    if (!model.empty() && !seen) speeds.push_back({model, 1});
    begin = bar + 1;
  }
  std::sort(speeds.begin(), speeds.end(),
            [](const TypeSpeed& a, const TypeSpeed& b) { return a.gpu_type < b.gpu_type; });
  return speeds;
}

}  // namespace

Result<Trace> LoadOpenbTrace(const std::string& path) {
  Result<std::vector<sharing::PodSpec>> pods = sharing::LoadOpenbPods(path);
  if (!pods.ok()) return pods.status();
  int64_t epoch = std::numeric_limits<int64_t>::max();
  for (const sharing::PodSpec& pod : *pods) {
    if (pod.gpus > 0 && pod.creation_s >= 0) epoch = std::min(epoch, pod.creation_s);
  }
  TraceCollector out(path);
  JobId next_id = 0;
  for (const sharing::PodSpec& pod : *pods) {
    const JobId id = next_id++;  // The pod's index in the file, CPU-only pods counted.
    if (pod.gpus == 0) continue;  // CPU-only pods are not jobs of the simulator.
    auto field_error = [&](const char* field, const std::string& what) {
      return Status::InvalidArgument(path + ":" + std::to_string(pod.line) + ": field '" + field +
                                     "': " + what);
    };
    if (pod.creation_s < 0) {
      return field_error("creation_time", "is missing: the simulator needs every GPU pod's arrival");
    }
    if (pod.deletion_s < 0) {
      return field_error("deletion_time", "is missing: the simulator needs every GPU pod's end");
    }
    const int64_t start = pod.scheduled_s >= 0 ? pod.scheduled_s : pod.creation_s;
    if (pod.deletion_s < start) {
      return field_error("deletion_time", "'" + std::to_string(pod.deletion_s) +
                                              "' is before the pod's scheduled_time (or creation_time) " +
                                              std::to_string(start));
    }
    if (pod.deletion_s == start) continue;  // No work to replay (as PAI's zero-length jobs).
    JobSpec job;
    job.id = id;
    job.name = pod.name;
    job.submit_s = static_cast<Time>(pod.creation_s - epoch);
    job.duration_s = static_cast<double>(pod.deletion_s - start);
    job.gpus = pod.gpus;
    job.gpu_milli = pod.gpu_milli;
    job.cpus = static_cast<int>((pod.cpu_milli + 999) / 1000);  // Whole cores, rounded up.
    job.mem_gb = static_cast<double>(pod.mem_mib) / 1024.0;
    job.profile.type_speeds = ModelSpeeds(pod.gpu_models);
    SCHEDKIT_RETURN_IF_ERROR(out.AddAtLine(pod.line, "name", std::move(job)));
  }
  Trace trace = std::move(out).Finish();
  if (trace.jobs.empty()) return Status::InvalidArgument(path + ": no pod asks for a GPU");
  return trace;
}

}  // namespace schedkit::workload
