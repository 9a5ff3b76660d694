// The native schedkit trace format: reader and writer (see docs/formats.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "schedkit/trace.h"
#include "workload/csv.h"
#include "workload/trace_formats.h"

namespace schedkit {
namespace workload {
namespace {

Status ReadTypeSpeeds(const CsvReader& in, int col, std::vector<TypeSpeed>* out) {
  out->clear();
  if (col < 0) return Status::Ok();
  Status st = ParseTypeSpeeds(in.field(col), out);
  return st.ok() ? st : in.FieldError(col, st.message());
}

}  // namespace

bool IsGpuTypeName(std::string_view name) {
  return !name.empty() && name.find_first_of(",;=\"\r\n") == std::string_view::npos;
}

Status CheckTypeSpeeds(std::vector<TypeSpeed>* speeds) {
  for (const TypeSpeed& s : *speeds) {
    if (!IsGpuTypeName(s.gpu_type)) {
      return Status::InvalidArgument("GPU type '" + s.gpu_type +
                                     "' is empty or holds , ; = \" or a line break");
    }
    if (!(s.speed > 0) || !std::isfinite(s.speed)) {
      return Status::InvalidArgument("gives GPU type '" + s.gpu_type +
                                     "' a speed that is not > 0");
    }
  }
  std::sort(speeds->begin(), speeds->end(),
            [](const TypeSpeed& a, const TypeSpeed& b) { return a.gpu_type < b.gpu_type; });
  for (size_t i = 1; i < speeds->size(); ++i) {
    if ((*speeds)[i].gpu_type == (*speeds)[i - 1].gpu_type) {
      return Status::InvalidArgument("names GPU type '" + (*speeds)[i].gpu_type + "' twice");
    }
  }
  return Status::Ok();
}

Status ParseTypeSpeeds(std::string_view text, std::vector<TypeSpeed>* out) {
  out->clear();
  if (text.empty()) return Status::Ok();
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(';', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string item(text.substr(begin, end - begin));
    const size_t eq = item.find('=');
    double speed = 0;
    if (eq == std::string::npos || eq == 0 || !ParseFiniteDouble(item.substr(eq + 1), &speed)) {
      return Status::InvalidArgument("has entry '" + item + "', not GPU_TYPE=SPEED");
    }
    out->push_back({item.substr(0, eq), speed});
    begin = end + 1;
  }
  return CheckTypeSpeeds(out);
}

std::string TypeSpeedsText(const std::vector<TypeSpeed>& speeds) {
  std::string out;
  for (const TypeSpeed& s : speeds) {
    out += (out.empty() ? "" : ";") + s.gpu_type + '=' + FormatDouble(s.speed);
  }
  return out;
}

Result<TraceRows> OpenNativeRows(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  SCHEDKIT_RETURN_IF_ERROR((*opened)->ReadHeader());
  const CsvReader& header = **opened;

  // Unknown columns are rejected so that a misspelt optional column is not silently
  // ignored.
  for (const std::string& name : header.columns()) {
    bool known = false;
    for (const char* c : kNativeColumns) known = known || name == c;
    for (const char* c : kNativeLucidColumns) known = known || name == c;
    known = known || name == kNativeSpeedColumn || name == kNativeMaxGpusColumn ||
            name == kNativeShareColumn;
    if (!known) {
      return Status::InvalidArgument(path + ":" + std::to_string(header.header_line()) +
                                     ": unknown column " + Quoted(name));
    }
  }
  int id_col, submit_col, gpus_col;
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("job_id", &id_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("submit_s", &submit_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("gpus", &gpus_col));
  const int duration_col = header.ColumnIndex("duration_s");
  const int iterations_col = header.ColumnIndex("iterations");
  const int iteration_time_col = header.ColumnIndex("iteration_time_s");
  if (duration_col < 0 && (iterations_col < 0 || iteration_time_col < 0)) {
    return Status::InvalidArgument(
        path + ":" + std::to_string(header.header_line()) +
        ": missing column 'duration_s' (or both 'iterations' and 'iteration_time_s')");
  }
  const int model_col = header.ColumnIndex("model");
  const int batch_col = header.ColumnIndex("batch_size");
  const int stage_cols[3] = {header.ColumnIndex("stage_io_s"), header.ColumnIndex("stage_gpu_s"),
                             header.ColumnIndex("stage_net_s")};
  const int cpus_col = header.ColumnIndex("cpus");
  const int mem_col = header.ColumnIndex("mem_gb");
  const int user_col = header.ColumnIndex("user");
  const int vc_col = header.ColumnIndex("vc");
  const int priority_col = header.ColumnIndex("priority");
  const int name_col = header.ColumnIndex("name");
  const int dataset_col = header.ColumnIndex("dataset");
  const int amp_col = header.ColumnIndex("amp");
  const int gmem_col = header.ColumnIndex("gmem_mb");
  const int util_col = header.ColumnIndex("gpu_util");
  const int speeds_col = header.ColumnIndex(kNativeSpeedColumn);
  const int max_gpus_col = header.ColumnIndex(kNativeMaxGpusColumn);
  const int share_col = header.ColumnIndex(kNativeShareColumn);

  auto parse = [=](const CsvReader& in, JobSpec* out) -> Status {
    JobSpec& job = *out;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(id_col, &job.id, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(submit_col, &job.submit_s, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &job.gpus, 1));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(duration_col, &job.duration_s, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(iterations_col, &job.iterations, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(iteration_time_col, &job.iteration_time_s, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(model_col, &job.profile.model));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(batch_col, &job.profile.batch_size, 0));
    for (int s = 0; s < 3; ++s) {
      SCHEDKIT_RETURN_IF_ERROR(
          in.ReadOptionalDouble(stage_cols[s], &job.profile.stage_times_s[s], 0));
    }
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(cpus_col, &job.cpus, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(mem_col, &job.mem_gb, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(user_col, &job.user));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(vc_col, &job.vc));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(priority_col, &job.priority));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(name_col, &job.name));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(dataset_col, &job.profile.dataset));
    int amp = 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(amp_col, &amp, 0, 1));
    job.profile.amp = amp != 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(gmem_col, &job.profile.gmem_mb, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(util_col, &job.profile.gpu_util, 0));
    SCHEDKIT_RETURN_IF_ERROR(ReadTypeSpeeds(in, speeds_col, &job.profile.type_speeds));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(max_gpus_col, &job.max_gpus, 0));
    if (job.max_gpus != 0 && job.max_gpus < job.gpus) {
      return in.FieldError(max_gpus_col, "is below the job's gpus " + std::to_string(job.gpus) +
                                             " (0 or empty = rigid)");
    }
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(share_col, &job.gpu_milli, 1, kMilliPerGpu));
    if (job.gpu_milli < kMilliPerGpu && job.gpus != 1) {
      return in.FieldError(share_col, "is a fraction of a GPU: the job must ask for 1 GPU");
    }
    if (!(job.SoloRuntime() > 0)) {
      return in.FieldError(duration_col >= 0 ? duration_col : iteration_time_col,
                           "gives the job no work (need duration_s > 0, or iterations > 0 and "
                           "iteration_time_s > 0)");
    }
    return Status::Ok();
  };
  return TraceRows{std::move(opened).value(), std::move(parse), id_col, submit_col};
}

}  // namespace workload

Status WriteNativeTrace(const Trace& trace, const std::string& path) {
  using workload::CsvField;
  using workload::FormatDouble;
  bool lucid = false;
  bool speeds = false;
  bool elastic = false;
  bool shares = false;
  for (const JobSpec& j : trace.jobs) {
    speeds = speeds || !j.profile.type_speeds.empty();
    elastic = elastic || j.max_gpus != 0;
    shares = shares || j.gpu_milli != kMilliPerGpu;
    lucid = lucid || !j.name.empty() || !j.profile.dataset.empty() || j.profile.amp ||
            j.profile.gmem_mb != 0 || j.profile.gpu_util != 0;
  }
  std::string out;
  for (const char* c : workload::kNativeColumns) {
    if (!out.empty()) out += ',';
    out += c;
  }
  if (lucid) {
    for (const char* c : workload::kNativeLucidColumns) out += std::string(",") + c;
  }
  if (speeds) out += std::string(",") + workload::kNativeSpeedColumn;
  if (elastic) out += std::string(",") + workload::kNativeMaxGpusColumn;
  if (shares) out += std::string(",") + workload::kNativeShareColumn;
  out += '\n';
  for (const JobSpec& j : trace.jobs) {
    for (const std::string* s : {&j.profile.model, &j.user, &j.vc, &j.name, &j.profile.dataset}) {
      if (s->find_first_of("\r\n") != std::string::npos) {
        return Status::InvalidArgument(path + ": job " + std::to_string(j.id) +
                                       ": a string field holds a line break, which the native "
                                       "format cannot store");
      }
    }
    out += std::to_string(j.id) + ',' + FormatDouble(j.submit_s) + ',' + std::to_string(j.gpus) +
           ',' + FormatDouble(j.duration_s) + ',' + std::to_string(j.iterations) + ',' +
           FormatDouble(j.iteration_time_s) + ',' + CsvField(j.profile.model) + ',' +
           std::to_string(j.profile.batch_size) + ',' + FormatDouble(j.profile.stage_times_s[0]) +
           ',' + FormatDouble(j.profile.stage_times_s[1]) + ',' +
           FormatDouble(j.profile.stage_times_s[2]) + ',' + std::to_string(j.cpus) + ',' +
           FormatDouble(j.mem_gb) + ',' + CsvField(j.user) + ',' + CsvField(j.vc) + ',' +
           std::to_string(j.priority);
    if (lucid) {
      out += ',' + CsvField(j.name) + ',' + CsvField(j.profile.dataset) + ',' +
             (j.profile.amp ? "1" : "0") + ',' + FormatDouble(j.profile.gmem_mb) + ',' +
             FormatDouble(j.profile.gpu_util);
    }
    if (speeds) {
      for (const TypeSpeed& s : j.profile.type_speeds) {
        if (!workload::IsGpuTypeName(s.gpu_type)) {
          return Status::InvalidArgument(path + ": job " + std::to_string(j.id) +
                                         ": GPU type '" + s.gpu_type +
                                         "' cannot be written (empty, or holds , ; = \" or a "
                                         "line break)");
        }
      }
      out += ',' + workload::TypeSpeedsText(j.profile.type_speeds);
    }
    if (elastic) out += ',' + std::to_string(j.max_gpus);
    if (shares) out += ',' + std::to_string(j.gpu_milli);
    out += '\n';
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::IoError(path + ": cannot open for writing");
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  f.close();
  if (!f) return Status::IoError(path + ": write failed");
  return Status::Ok();
}

}  // namespace schedkit
