// Gavel traces: tab-separated, no header; 10 columns (physical_cluster/*.trace) or the
// older 7-column layout (msr_legacy_seed0/*.trace). See docs/formats.md.
//
// Gavel gives work in steps. A job's iteration time is 1 / its isolated throughput
// (steps/s) on the chosen GPU type, read from simulation_throughputs.json, whose keys
// look like "('ResNet-50 (batch size 64)', 4)" -> {"null": steps/s, ...}.
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

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

// Isolated throughput (steps/s) by job type, then scale factor, on one GPU type.
using ThroughputTable = std::map<std::string, std::map<int, double>>;

// Parses "('ResNet-50 (batch size 64)', 4)".
bool ParseJobTypeKey(std::string_view key, std::string* job_type, int* scale_factor) {
  if (key.size() < 7 || key.substr(0, 2) != "('" || key.back() != ')') return false;
  size_t sep = key.rfind("', ");
  if (sep == std::string_view::npos || sep < 2) return false;
  int64_t sf = 0;
  if (!ParseInt64(key.substr(sep + 3, key.size() - 1 - (sep + 3)), &sf) || sf < 1 ||
      sf > (1 << 20)) {
    return false;
  }
  *job_type = std::string(key.substr(2, sep - 2));
  *scale_factor = static_cast<int>(sf);
  return true;
}

Result<ThroughputTable> LoadThroughputs(const std::string& path, const std::string& gpu_type) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::NotFound(path + ": cannot open the Gavel throughput table");
  nlohmann::json root = nlohmann::json::parse(f, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return Status::InvalidArgument(path + ": not a JSON object");
  }
  auto gpu = root.find(gpu_type);
  if (gpu == root.end() || !gpu->is_object()) {
    std::string have;
    for (auto it = root.begin(); it != root.end(); ++it) {
      have += (have.empty() ? "" : ", ") + it.key();
    }
    return Status::InvalidArgument(path + ": no GPU type '" + gpu_type + "' (has: " + have + ")");
  }
  ThroughputTable table;
  for (auto it = gpu->begin(); it != gpu->end(); ++it) {
    std::string job_type;
    int sf = 0;
    if (!ParseJobTypeKey(it.key(), &job_type, &sf)) {
      return Status::InvalidArgument(path + ": " + gpu_type + ": unexpected key '" + it.key() +
                                     "' (expected \"('JOB TYPE', SCALE_FACTOR)\")");
    }
    if (!it->is_object()) continue;
    auto isolated = it->find("null");
    if (isolated == it->end() || !isolated->is_number()) continue;
    double steps_per_s = isolated->get<double>();
    if (steps_per_s > 0) table[job_type][sf] = steps_per_s;
  }
  return table;
}

// "ResNet-50 (batch size 64)" -> ("ResNet-50", 64); "A3C" -> ("A3C", 0).
void SplitJobType(const std::string& job_type, std::string* model, int* batch_size) {
  static constexpr std::string_view kBatch = " (batch size ";
  *model = job_type;
  *batch_size = 0;
  size_t pos = job_type.rfind(kBatch);
  if (pos == std::string::npos || job_type.back() != ')') return;
  std::string_view digits(job_type.data() + pos + kBatch.size(),
                          job_type.size() - 1 - (pos + kBatch.size()));
  int64_t batch = 0;
  if (!ParseInt64(digits, &batch) || batch < 0 || batch > (1 << 30)) return;
  *model = job_type.substr(0, pos);
  *batch_size = static_cast<int>(batch);
}

}  // namespace

Result<Trace> LoadGavelTrace(const std::string& path, bool legacy, const TraceOptions& options) {
  auto opened = CsvReader::Open(path, {.delimiter = '\t', .quotes = false});
  if (!opened.ok()) return opened.status();
  const std::string throughputs_path = options.gavel_throughputs_path.empty()
                                           ? DataDir() + "/gavel/simulation_throughputs.json"
                                           : options.gavel_throughputs_path;
  Result<ThroughputTable> table = LoadThroughputs(throughputs_path, options.gavel_gpu_type);
  if (!table.ok()) return table.status();
  CsvReader& in = **opened;
  if (legacy) {
    in.SetColumnNames({std::begin(kGavelLegacyColumns), std::end(kGavelLegacyColumns)});
  } else {
    in.SetColumnNames({std::begin(kGavelColumns), std::end(kGavelColumns)});
  }
  int type_col, steps_col, sf_col, arrival_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("job_type", &type_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("total_steps", &steps_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("scale_factor", &sf_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("arrival_time", &arrival_col));
  const int priority_col = in.ColumnIndex("priority_weight");  // 10-column layout only.

  TraceCollector jobs(path);
  JobId next_id = 0;  // Gavel numbers jobs in file order.
  while (in.Next()) {
    JobSpec job;
    job.id = next_id++;
    const std::string& job_type = in.field(type_col);
    SplitJobType(job_type, &job.profile.model, &job.profile.batch_size);
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
    auto type_it = table->find(job_type);
    if (type_it == table->end()) {
      return in.FieldError(type_col, "has no throughput for GPU type '" + options.gavel_gpu_type +
                                         "' in " + throughputs_path);
    }
    auto sf_it = type_it->second.upper_bound(job.gpus);
    if (sf_it == type_it->second.begin()) {
      return in.FieldError(sf_col, "has no throughput at or below this scale factor for '" +
                                       job_type + "' on GPU type '" + options.gavel_gpu_type +
                                       "' in " + throughputs_path);
    }
    --sf_it;
    job.iteration_time_s = 1.0 / sf_it->second;
    SCHEDKIT_RETURN_IF_ERROR(jobs.Add(in, type_col, std::move(job)));
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  return std::move(jobs).Finish();
}

}  // namespace schedkit::workload
