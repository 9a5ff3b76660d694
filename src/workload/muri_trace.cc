// Muri / Tiresias CSV traces (see docs/formats.md).
//
// Muri's files carry an iteration_time column and give every time in milliseconds; the
// Tiresias 60-job trace has no such column and gives seconds. The unit follows from the
// header, so both load through one reader.
#include <string>

#include "workload/csv.h"
#include "workload/trace_formats.h"

namespace schedkit::workload {

Result<TraceRows> OpenMuriRows(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  SCHEDKIT_RETURN_IF_ERROR((*opened)->ReadHeader());
  const CsvReader& header = **opened;

  int id_col, gpus_col, submit_col;
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("job_id", &id_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("num_gpu", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(header.RequireColumn("submit_time", &submit_col));
  const int iterations_col = header.ColumnIndex("iterations");
  const int iteration_time_col = header.ColumnIndex("iteration_time");
  const int duration_col = header.ColumnIndex("duration");
  const int model_col = header.ColumnIndex("model_name");
  const int batch_col = header.ColumnIndex("batch_size");
  const int stage_cols[3] = {header.ColumnIndex("resource_time_0"), header.ColumnIndex("resource_time_1"),
                             header.ColumnIndex("resource_time_2")};
  const int priority_col = header.ColumnIndex("priority");
  if (duration_col < 0 && (iterations_col < 0 || iteration_time_col < 0)) {
    int unused;
    return header.RequireColumn("duration", &unused);
  }
  // Milliseconds (Muri) or seconds (Tiresias); see the file comment.
  const double seconds_per_unit = iteration_time_col >= 0 ? 1000.0 : 1.0;
  auto to_seconds = [seconds_per_unit](double v) { return v / seconds_per_unit; };

  auto parse = [=](const CsvReader& in, JobSpec* out) -> Status {
    JobSpec& job = *out;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(id_col, &job.id, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &job.gpus, 1));
    double t = 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(submit_col, &t, 0));
    job.submit_s = to_seconds(t);
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(iterations_col, &job.iterations, 0));
    t = 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(iteration_time_col, &t, 0));
    job.iteration_time_s = to_seconds(t);
    t = 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(duration_col, &t, 0));
    job.duration_s = to_seconds(t);
    for (int s = 0; s < 3; ++s) {
      t = 0;
      SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(stage_cols[s], &t, 0));
      job.profile.stage_times_s[s] = to_seconds(t);
    }
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(model_col, &job.profile.model));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(batch_col, &job.profile.batch_size, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(priority_col, &job.priority));
    if (!(job.SoloRuntime() > 0)) {
      return in.FieldError(duration_col >= 0 ? duration_col : iteration_time_col,
                           "gives the job no work (need duration > 0, or iterations > 0 and "
                           "iteration_time > 0)");
    }
    return Status::Ok();
  };
  return TraceRows{std::move(opened).value(), std::move(parse), id_col, submit_col};
}

}  // namespace schedkit::workload
