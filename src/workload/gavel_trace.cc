// Gavel traces: tab-separated, no header; 10 columns (physical_cluster/*.trace) or the
// older 7-column layout (msr_legacy_seed0/*.trace). See docs/formats.md.
//
// Gavel gives work in steps. A job's iteration time is 1 / its isolated throughput
// (steps/s) on the chosen reference GPU type, read from simulation_throughputs.json
// (schedkit/throughput.h), and its speed on each GPU type is its throughput there over
// that one.
#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/throughput.h"

#include "workload/csv.h"
#include "workload/trace_formats.h"

namespace schedkit::workload {
namespace {

constexpr const char* kGavelColumns[] = {
    "job_type",    "command",      "working_directory", "num_steps_arg", "needs_data_dir",
    "total_steps", "scale_factor", "priority_weight",   "SLO",           "arrival_time"};
constexpr const char* kGavelLegacyColumns[] = {"job_type",       "command",     "num_steps_arg",
                                               "needs_data_dir", "total_steps", "arrival_time",
                                               "scale_factor"};

}  // namespace

Result<TraceRows> OpenGavelRows(const std::string& path, bool legacy, const TraceOptions& options) {
  auto opened = CsvReader::Open(path, {.delimiter = '\t', .quotes = false});
  if (!opened.ok()) return opened.status();
  const std::string throughputs_path = options.gavel_throughputs_path.empty()
                                           ? DataDir() + "/gavel/simulation_throughputs.json"
                                           : options.gavel_throughputs_path;
  Result<ThroughputTable> loaded = ThroughputTable::LoadGavel(throughputs_path);
  if (!loaded.ok()) return loaded.status();
  auto table = std::make_shared<const ThroughputTable>(std::move(loaded).value());
  {
    const std::vector<std::string> types = table->GpuTypes();
    if (std::find(types.begin(), types.end(), options.gavel_gpu_type) == types.end()) {
      std::string have;
      for (const std::string& t : types) have += (have.empty() ? "" : ", ") + t;
      return Status::InvalidArgument(throughputs_path + ": no GPU type '" +
                                     options.gavel_gpu_type + "' (has: " + have + ")");
    }
  }
  CsvReader& header = **opened;
  if (legacy) {
    header.SetColumnNames({std::begin(kGavelLegacyColumns), std::end(kGavelLegacyColumns)});
  } else {
    header.SetColumnNames({std::begin(kGavelColumns), std::end(kGavelColumns)});
  }
  int type_col, steps_col, sf_col, arrival_col;
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("job_type", &type_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("total_steps", &steps_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("scale_factor", &sf_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("arrival_time", &arrival_col));
  const int priority_col = header.ColumnIndex("priority_weight");  // 10-column layout only.

  const std::string ref = options.gavel_gpu_type;
  auto parse = [=, next_id = JobId{0}](const CsvReader& in, JobSpec* out) mutable -> Status {
    JobSpec& job = *out;
    job.id = next_id++;  // Gavel numbers jobs in file order.
    const std::string& job_type = in.field(type_col);
    ThroughputTable::SplitJobType(job_type, &job.profile.model, &job.profile.batch_size);
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(steps_col, &job.iterations, 1));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(sf_col, &job.gpus, 1));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(arrival_col, &job.submit_s, 0));
    if (priority_col >= 0) {
      double weight = 1;
      SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(priority_col, &weight, -1e9, 1e9));
      if (weight != static_cast<double>(static_cast<int>(weight))) {
        return in.FieldError(priority_col,
                             "is not a whole number (schedkit priorities are "
                             "integers)");
      }
      job.priority = static_cast<int>(weight);
    }

    // The throughput at the job's scale factor; where Gavel did not measure it (the
    // legacy traces ask for up to 64 GPUs, the table stops at 8), the largest measured
    // scale factor below it.
    Result<int> sf = table->MeasuredScaleFactor(ref, job_type, job.gpus);
    if (!sf.ok()) {
      if (!table->MeasuredScaleFactor(ref, job_type, std::numeric_limits<int>::max()).ok()) {
        return in.FieldError(type_col, "has no throughput for GPU type '" + ref + "' in " +
                                           throughputs_path);
      }
      return in.FieldError(sf_col, "has no throughput at or below this scale factor for '" +
                                       job_type + "' on GPU type '" + ref + "' in " +
                                       throughputs_path);
    }
    job.iteration_time_s = 1.0 / *table->Isolated(ref, job_type, *sf);
    Result<std::vector<TypeSpeed>> speeds = table->Speeds(job_type, job.gpus, ref);
    if (!speeds.ok()) return in.FieldError(type_col, speeds.status().message());
    job.profile.type_speeds = std::move(speeds).value();
    return Status::Ok();
  };
  return TraceRows{std::move(opened).value(), std::move(parse), type_col, arrival_col};
}

}  // namespace schedkit::workload
