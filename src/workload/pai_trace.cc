// Alibaba PAI 2020 (alibaba/clusterdata cluster-trace-gpu-v2020): the headerless job table
// plus the task table beside it. See docs/formats.md ("Alibaba PAI 2020") for the columns
// and the mapping.
#include <cmath>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "workload/trace_formats.h"

namespace schedkit::workload {
namespace {

// Upstream column order (cluster-trace-gpu-v2020 README).
enum JobCol { kJobName, kInstId, kUser, kJobStatus, kJobStart, kJobEnd, kJobCols };
enum TaskCol {
  kTaskJob, kTaskName, kInstNum, kTaskStatus, kTaskStart, kTaskEnd,
  kPlanCpu, kPlanMem, kPlanGpu, kGpuType, kTaskCols
};

constexpr const char* kFinishedStatus = "Terminated";  // The only status of a job that finished.
constexpr double kPlanGpuPerGpu = 100;                 // plan_gpu is in percent of one GPU.
constexpr int kMaxGpusPerJob = 1 << 20;                // Beyond this a request is a typo.

struct PaiJob {
  int line = 0;  // In the job table.
  std::string name, user;
  double start = 0, end = 0;
  double gpu_percent = 0;  // Sum over its tasks of inst_num x plan_gpu.
};

// An optional number: empty (upstream writes nothing for a missing value) leaves *out and
// returns false.
Status ReadOptionalTime(const CsvReader& r, int col, double* out, bool* present) {
  *present = !r.field(col).empty();
  return *present ? r.ReadDouble(col, out, 0) : Status::Ok();
}

}  // namespace

std::string PaiTaskTablePath(const std::string& job_table) {
  std::filesystem::path p(job_table);
  std::string name = p.filename().string();
  const size_t at = name.rfind("job_table");
  if (at == std::string::npos) return "";
  name.replace(at, 9, "task_table");
  return (p.parent_path() / name).string();
}

Result<Trace> LoadPaiTrace(const std::string& path) {
  const std::string task_path = PaiTaskTablePath(path);
  if (task_path.empty()) {
    return Status::InvalidArgument(path + ": a PAI job table's file name must contain 'job_table' "
                                   "(its task table is the same name with 'task_table')");
  }
  auto jobs_in = CsvReader::Open(path);
  if (!jobs_in.ok()) return jobs_in.status();
  CsvReader& jr = **jobs_in;
  jr.SetColumnNames({"job_name", "inst_id", "user", "status", "start_time", "end_time"});
  std::vector<PaiJob> jobs;
  std::unordered_map<std::string, size_t> job_of_name;  // Finished jobs only.
  std::unordered_map<std::string, int> line_of_name;    // Every job.
  while (jr.Next()) {
    std::string name;
    SCHEDKIT_RETURN_IF_ERROR(jr.ReadString(kJobName, &name));
    if (name.empty()) return jr.FieldError(kJobName, "is empty");
    auto [seen, fresh] = line_of_name.emplace(name, jr.line());
    if (!fresh) {
      return jr.FieldError(kJobName, "duplicates the job on line " + std::to_string(seen->second));
    }
    if (jr.field(kJobStatus) != kFinishedStatus) continue;  // Failed, Running, Waiting: not replayed.
    PaiJob job;
    job.line = jr.line();
    job.name = name;
    job.user = jr.field(kUser);
    bool has_start = false, has_end = false;
    SCHEDKIT_RETURN_IF_ERROR(ReadOptionalTime(jr, kJobStart, &job.start, &has_start));
    SCHEDKIT_RETURN_IF_ERROR(ReadOptionalTime(jr, kJobEnd, &job.end, &has_end));
    if (!has_start || !has_end) continue;  // No run time recorded: nothing to replay.
    if (job.end < job.start) return jr.FieldError(kJobEnd, "is before its start_time");
    job_of_name.emplace(name, jobs.size());
    jobs.push_back(std::move(job));
  }
  SCHEDKIT_RETURN_IF_ERROR(jr.status());

  auto tasks_in = CsvReader::Open(task_path);
  if (!tasks_in.ok()) {
    return Status::NotFound(path + ": its task table " + task_path + " cannot be opened");
  }
  CsvReader& tr = **tasks_in;
  tr.SetColumnNames({"job_name", "task_name", "inst_num", "status", "start_time", "end_time",
                     "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"});
  while (tr.Next()) {
    auto it = job_of_name.find(tr.field(kTaskJob));
    if (it == job_of_name.end()) continue;  // A task of a job that is not replayed.
    double inst_num = 0, plan_gpu = 0;
    SCHEDKIT_RETURN_IF_ERROR(tr.ReadDouble(kInstNum, &inst_num, 0));
    if (inst_num != std::floor(inst_num)) return tr.FieldError(kInstNum, "is not a whole number");
    SCHEDKIT_RETURN_IF_ERROR(tr.ReadOptionalDouble(kPlanGpu, &plan_gpu, 0));  // Empty: no GPU.
    PaiJob& job = jobs[it->second];
    job.gpu_percent += inst_num * plan_gpu;
    if (job.gpu_percent / kPlanGpuPerGpu > kMaxGpusPerJob) {
      return tr.FieldError(kPlanGpu, "brings job '" + job.name + "' over " +
                                         std::to_string(kMaxGpusPerJob) + " GPUs");
    }
  }
  SCHEDKIT_RETURN_IF_ERROR(tr.status());

  // A CPU-only job, or one that ran for no time, has nothing to replay.
  auto replayed = [](const PaiJob& j) { return j.gpu_percent > 0 && j.end > j.start; };
  double origin = 0;
  bool any = false;
  for (const PaiJob& j : jobs) {
    if (!replayed(j)) continue;
    origin = any ? std::min(origin, j.start) : j.start;
    any = true;
  }
  if (!any) {
    return Status::InvalidArgument(path + ": no Terminated job that ran for some time asks for a GPU in " +
                                   task_path + "; nothing to simulate");
  }
  TraceCollector collector(path);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const PaiJob& p = jobs[i];
    if (!replayed(p)) continue;
    JobSpec job;
    job.id = static_cast<JobId>(p.line - 1);
    job.submit_s = static_cast<Time>(p.start - origin);
    job.duration_s = p.end - p.start;
    // Fractional requests round up: a job asking for 50 % of one GPU holds a whole one.
    // 1e-9 absorbs float noise in sums such as 3 x 33.333...
    job.gpus = static_cast<int>(std::ceil(p.gpu_percent / kPlanGpuPerGpu - 1e-9));
    job.user = p.user;
    job.name = p.name;
    SCHEDKIT_RETURN_IF_ERROR(collector.AddAtLine(p.line, "job_name", std::move(job)));
  }
  return std::move(collector).Finish();
}

}  // namespace schedkit::workload
