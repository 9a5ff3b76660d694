// StreamTrace: a trace file's jobs one row at a time (schedkit/job_source.h).
#include <memory>
#include <string>
#include <utility>

#include "schedkit/job_source.h"
#include "schedkit/trace.h"
#include "workload/csv.h"
#include "workload/trace_formats.h"

namespace schedkit {
namespace {

class TraceRowSource final : public JobSource {
 public:
  explicit TraceRowSource(workload::TraceRows rows) : rows_(std::move(rows)) {}

  bool Next(JobSpec* job) override {
    workload::CsvReader& in = *rows_.in;
    if (!status_.ok() || !in.Next()) {
      if (status_.ok()) status_ = in.status();
      return false;
    }
    *job = JobSpec();
    status_ = rows_.parse(in, job);
    if (status_.ok() && read_ > 0 &&
        (job->submit_s < last_submit_s_ || (job->submit_s == last_submit_s_ && job->id <= last_id_))) {
      status_ = in.FieldError(
          job->submit_s < last_submit_s_ ? rows_.submit_col : rows_.id_col,
          "comes after job " + std::to_string(last_id_) + " (line " + std::to_string(last_line_) +
              ") but is not later in (submit time, id) order; a streamed trace must be sorted "
              "(load it without --stream, or write it sorted with WriteNativeTrace)");
    }
    if (!status_.ok()) return false;
    ++read_;
    last_submit_s_ = job->submit_s;
    last_id_ = job->id;
    last_line_ = in.line();
    return true;
  }

  Status status() const override { return status_; }

  std::string Where() const override {
    return read_ == 0 ? "" : rows_.in->file() + ":" + std::to_string(last_line_);
  }

 private:
  workload::TraceRows rows_;
  Status status_;
  int64_t read_ = 0;
  double last_submit_s_ = 0;
  JobId last_id_ = 0;
  int last_line_ = 0;
};

}  // namespace

Result<std::unique_ptr<JobSource>> StreamTrace(const std::string& path, const TraceOptions& options) {
  Result<TraceFormat> resolved = workload::ResolveTraceFormat(path, options);
  if (!resolved.ok()) return resolved.status();
  const TraceFormat format = *resolved;
  Result<workload::TraceRows> rows = Status::InvalidArgument(
      path + ": a " + TraceFormatName(format) +
      " trace cannot be streamed (its jobs are built from the whole file); streaming reads "
      "native, muri, gavel and gavel-legacy traces");
  switch (format) {
    case TraceFormat::kNative:
      rows = workload::OpenNativeRows(path);
      break;
    case TraceFormat::kMuri:
      rows = workload::OpenMuriRows(path);
      break;
    case TraceFormat::kGavel:
    case TraceFormat::kGavelLegacy:
      rows = workload::OpenGavelRows(path, format == TraceFormat::kGavelLegacy, options);
      break;
    default:
      break;
  }
  if (!rows.ok()) return rows.status();
  return std::unique_ptr<JobSource>(std::make_unique<TraceRowSource>(std::move(rows).value()));
}

}  // namespace schedkit
