// Loaders for the openb pod and node lists (docs/fgd.md lists the columns).
#include "schedkit/sharing.h"
#include "workload/csv.h"

namespace schedkit::sharing {
namespace {

using workload::CsvReader;

// A pod's (num_gpu, gpu_milli) must be one of the three kinds of PodSpec.
Status CheckPodKind(const CsvReader& in, int gpu_milli_col, const PodSpec& pod) {
  if (pod.gpus == 0 && pod.gpu_milli != 0) {
    return in.FieldError(gpu_milli_col, "must be 0 when num_gpu is 0");
  }
  if (pod.gpus == 1 && pod.gpu_milli == 0) {
    return in.FieldError(gpu_milli_col, "must be in 1-1000 when num_gpu is 1");
  }
  if (pod.gpus > 1 && pod.gpu_milli != kMilliPerGpu) {
    return in.FieldError(gpu_milli_col, "must be 1000 when num_gpu is more than 1");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<PodSpec>> LoadOpenbPods(const std::string& path) {
  Result<std::unique_ptr<CsvReader>> opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());
  int name_col, cpu_col, mem_col, gpus_col, milli_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("name", &name_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("cpu_milli", &cpu_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("memory_mib", &mem_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_gpu", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("gpu_milli", &milli_col));
  const int spec_col = in.ColumnIndex("gpu_spec");
  const int time_cols[] = {in.ColumnIndex("creation_time"), in.ColumnIndex("deletion_time"),
                           in.ColumnIndex("scheduled_time")};
  std::vector<PodSpec> pods;
  while (in.Next()) {
    PodSpec pod;
    pod.line = in.line();
    int64_t* times[] = {&pod.creation_s, &pod.deletion_s, &pod.scheduled_s};
    for (int i = 0; i < 3; ++i) SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(time_cols[i], times[i], 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadString(name_col, &pod.name));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(cpu_col, &pod.cpu_milli, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(mem_col, &pod.mem_mib, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &pod.gpus, 0, kMaxGpusPerNode));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(milli_col, &pod.gpu_milli, 0, kMilliPerGpu));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(spec_col, &pod.gpu_models));
    SCHEDKIT_RETURN_IF_ERROR(CheckPodKind(in, milli_col, pod));
    pods.push_back(std::move(pod));
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  if (pods.empty()) return Status::InvalidArgument(path + ": no pod rows after the header");
  return pods;
}

Result<SharingClusterSpec> LoadOpenbNodes(const std::string& path) {
  Result<std::unique_ptr<CsvReader>> opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());
  int name_col, cpu_col, mem_col, gpus_col, model_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("sn", &name_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("cpu_milli", &cpu_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("memory_mib", &mem_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("gpu", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("model", &model_col));
  SharingClusterSpec spec;
  spec.source = path;
  while (in.Next()) {
    SharingNodeSpec node;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadString(name_col, &node.name));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(cpu_col, &node.cpu_milli, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(mem_col, &node.mem_mib, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &node.gpus, 0, kMaxGpusPerNode));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(model_col, &node.gpu_model));
    if (node.gpus > 0 && node.gpu_model.empty()) {
      return in.FieldError(model_col, "must name the GPU model of a node with GPUs");
    }
    spec.nodes.push_back(std::move(node));
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  if (spec.nodes.empty()) return Status::InvalidArgument(path + ": no node rows after the header");
  return spec;
}

}  // namespace schedkit::sharing
