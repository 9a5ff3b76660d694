// Muri / Tiresias CSV traces (see docs/formats.md).
//
// Muri's files carry an iteration_time column and give every time in milliseconds; the
// Tiresias 60-job trace has no such column and gives seconds. The unit follows from the
// header, so both load through one reader.
#include <string>

#include "workload/csv.h"
#include "workload/trace_formats.h"

namespace schedkit::workload {

Result<Trace> LoadMuriTrace(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());

  int id_col, gpus_col, submit_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("job_id", &id_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_gpu", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("submit_time", &submit_col));
  const int iterations_col = in.ColumnIndex("iterations");
  const int iteration_time_col = in.ColumnIndex("iteration_time");
  const int duration_col = in.ColumnIndex("duration");
  const int model_col = in.ColumnIndex("model_name");
  const int batch_col = in.ColumnIndex("batch_size");
  const int stage_cols[3] = {in.ColumnIndex("resource_time_0"), in.ColumnIndex("resource_time_1"),
                             in.ColumnIndex("resource_time_2")};
  const int priority_col = in.ColumnIndex("priority");
  if (duration_col < 0 && (iterations_col < 0 || iteration_time_col < 0)) {
    int unused;
    return in.RequireColumn("duration", &unused);
  }
  // Milliseconds (Muri) or seconds (Tiresias); see the file comment.
  const double seconds_per_unit = iteration_time_col >= 0 ? 1000.0 : 1.0;
  auto to_seconds = [seconds_per_unit](double v) { return v / seconds_per_unit; };

  TraceCollector jobs(path);
  while (in.Next()) {
    JobSpec job;
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
    SCHEDKIT_RETURN_IF_ERROR(jobs.Add(in, id_col, std::move(job)));
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  return std::move(jobs).Finish();
}

}  // namespace schedkit::workload
