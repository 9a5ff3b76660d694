// Internal: the per-format trace loaders behind LoadTrace, and what they share.
#ifndef SCHEDKIT_WORKLOAD_TRACE_FORMATS_H_
#define SCHEDKIT_WORKLOAD_TRACE_FORMATS_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schedkit/job.h"
#include "schedkit/status.h"
#include "schedkit/trace.h"
#include "workload/csv.h"

namespace schedkit::workload {

// Collects a loader's jobs: rejects duplicate ids (naming both lines) and returns the
// jobs sorted by (submit time, id).
class TraceCollector {
 public:
  explicit TraceCollector(std::string source) { trace_.source = std::move(source); }

  // `row` is positioned on the job's record; `id_col` is its id column.
  Status Add(const CsvReader& row, int id_col, JobSpec job);
  // For loaders that filter rows before adding them: `line` is the job's record and
  // `id_field` its id column's name.
  Status AddAtLine(int line, const std::string& id_field, JobSpec job);
  Trace Finish() &&;

 private:
  Trace trace_;
  std::unordered_map<JobId, int> line_of_id_;
};

// A trace file of one job per row, opened with its header checked: what LoadTrace collects
// and sorts, and what StreamTrace hands to the engine row by row in file order.
struct TraceRows {
  std::unique_ptr<CsvReader> in;
  // Parses the record `in` is on into *job (which starts default-constructed); fails naming
  // the line and field. A format that numbers jobs in file order keeps its count here.
  std::function<Status(const CsvReader& in, JobSpec* job)> parse;
  int id_col = -1;      // The column a duplicate id is reported against.
  int submit_col = -1;  // The column an out-of-order row is reported against.
};

// options.format, or the detected format when it is auto; fails on a time window given for a
// format that has no dates.
Result<TraceFormat> ResolveTraceFormat(const std::string& path, const TraceOptions& options);

// REQUIRES for each: the file is in that format (LoadTrace has dispatched on it).
Result<TraceRows> OpenMuriRows(const std::string& path);
Result<TraceRows> OpenGavelRows(const std::string& path, bool legacy, const TraceOptions& options);
Result<TraceRows> OpenNativeRows(const std::string& path);
// Every row of `rows` (or its error), duplicate ids refused, sorted by (submit time, id).
Result<Trace> CollectRows(Result<TraceRows> rows);
Result<Trace> LoadPhillyTrace(const std::string& path);
// `path` is the job table; the task table is the file beside it named as PaiTaskTablePath says.
Result<Trace> LoadPaiTrace(const std::string& path);
// The openb pod lists of the Alibaba GPU-sharing traces (docs/formats.md).
Result<Trace> LoadOpenbTrace(const std::string& path);
// The job table's name with its last "job_table" replaced by "task_table" (pai_job_table.csv ->
// pai_task_table.csv, same folder); empty when the name holds no "job_table".
std::string PaiTaskTablePath(const std::string& job_table);
// `anchor` (a date, or empty for none) is Lucid's trace preparation: the window is then
// measured from the first job at or after the anchor as if that job came at the anchor,
// and earlier jobs are dropped. LoadTrace passes none; the Lucid profile's experiment
// window (lucid::LoadExperimentTrace) passes its own.
Result<Trace> LoadLucidTrace(const std::string& path, const TraceOptions& options,
                             const std::string& anchor = "");

// Native format columns, in the order WriteNativeTrace writes them.
inline constexpr const char* kNativeColumns[] = {
    "job_id", "submit_s",   "gpus",       "duration_s",  "iterations",  "iteration_time_s",
    "model",  "batch_size", "stage_io_s", "stage_gpu_s", "stage_net_s", "cpus",
    "mem_gb", "user",       "vc",         "priority"};
// Optional columns after those: Lucid's job attributes (the clean-model lucid policy's
// co-location keys). The writer adds them only when a job sets one.
inline constexpr const char* kNativeLucidColumns[] = {"name", "dataset", "amp", "gmem_mb",
                                                      "gpu_util"};
// Optional, last: the job's speed per GPU type ("k80=0.25;v100=1", JobSpec::profile.
// type_speeds). The writer adds it only when a job has speeds.
inline constexpr const char* kNativeSpeedColumn = "type_speeds";
// The type_speeds text, shared by the trace and the runtime (`schedkit submit --type-speeds`,
// its store): "k80=0.25;v100=1" -> speeds sorted by type; empty text -> none. Errors
// (InvalidArgument) say what is wrong, without a location, for the caller to prefix.
Status ParseTypeSpeeds(std::string_view text, std::vector<TypeSpeed>* out);
// Sorts `speeds` by type and checks them: every type a name the text can hold
// (IsGpuTypeName), named once, and every speed finite and > 0 (a type the job cannot run on
// is left out).
Status CheckTypeSpeeds(std::vector<TypeSpeed>* speeds);
// Non-empty, and none of , ; = " or a line break.
bool IsGpuTypeName(std::string_view name);
// The inverse of ParseTypeSpeeds, for sorted, checked speeds; "" for none.
std::string TypeSpeedsText(const std::vector<TypeSpeed>& speeds);
// Optional, after type_speeds: the most GPUs an elastic job may run on (JobSpec::max_gpus;
// 0 or empty = rigid). The writer adds it only when a job is elastic.
inline constexpr const char* kNativeMaxGpusColumn = "max_gpus";
// Optional, after max_gpus: the job's per-GPU share in milli-GPU (JobSpec::gpu_milli). The
// writer adds it only when a job is fractional.
inline constexpr const char* kNativeShareColumn = "gpu_milli";

}  // namespace schedkit::workload

#endif  // SCHEDKIT_WORKLOAD_TRACE_FORMATS_H_
