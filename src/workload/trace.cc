// Format names, detection, LoadTrace dispatch and DataDir().
#include "schedkit/trace.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "workload/csv.h"
#include "workload/trace_formats.h"

#ifndef SCHEDKIT_DEFAULT_DATA_DIR
#define SCHEDKIT_DEFAULT_DATA_DIR "data"
#endif

namespace schedkit {
namespace {

struct FormatName {
  TraceFormat format;
  const char* name;
};
constexpr FormatName kFormatNames[] = {
    {TraceFormat::kAuto, "auto"},
    {TraceFormat::kNative, "native"},
    {TraceFormat::kMuri, "muri"},
    {TraceFormat::kGavel, "gavel"},
    {TraceFormat::kGavelLegacy, "gavel-legacy"},
    {TraceFormat::kLucid, "lucid"},
    {TraceFormat::kPhilly, "philly"},
    {TraceFormat::kPai, "pai"},
    {TraceFormat::kOpenb, "openb"},
};

bool Contains(const std::vector<std::string>& v, const char* name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

}  // namespace

Result<TraceFormat> ParseTraceFormat(const std::string& name) {
  std::string known;
  for (const FormatName& f : kFormatNames) {
    if (name == f.name) return f.format;
    known += known.empty() ? "" : ", ";
    known += f.name;
  }
  return Status::InvalidArgument("unknown trace format '" + name + "' (expected one of: " + known +
                                 ")");
}

const char* TraceFormatName(TraceFormat f) {
  for (const FormatName& n : kFormatNames) {
    if (n.format == f) return n.name;
  }
  return "unknown";
}

Result<TraceFormat> DetectTraceFormat(const std::string& path) {
  // No quote handling: Gavel's command column may hold quote characters.
  auto reader = workload::CsvReader::Open(path, {.delimiter = ',', .quotes = false});
  if (!reader.ok()) return reader.status();
  workload::CsvReader& in = **reader;
  if (!in.Next()) {
    if (!in.status().ok()) return in.status();
    return Status::InvalidArgument(path + ": file is empty, cannot detect the trace format");
  }
  const std::string& first = in.line_text();
  if (first.find_first_not_of(" \t") != std::string::npos &&
      first[first.find_first_not_of(" \t")] == '[') {
    return TraceFormat::kPhilly;  // A JSON list: Philly's cluster_job_log.
  }
  if (first.find('\t') != std::string::npos) {
    size_t fields = std::count(first.begin(), first.end(), '\t') + 1;
    if (fields == 10) return TraceFormat::kGavel;
    if (fields == 7) return TraceFormat::kGavelLegacy;
    return Status::InvalidArgument(path + ":" + std::to_string(in.line()) + ": " +
                                   std::to_string(fields) +
                                   " tab-separated fields; Gavel traces have 10 (or 7 in the "
                                   "legacy layout)");
  }
  std::vector<std::string> header;
  for (size_t i = 0; i < in.num_fields(); ++i) header.push_back(in.field(static_cast<int>(i)));
  if (Contains(header, "job_id") && Contains(header, "vc") && Contains(header, "gpu_num") &&
      Contains(header, "submit_time") && Contains(header, "duration")) {
    return TraceFormat::kLucid;
  }
  if (Contains(header, "job_id") && Contains(header, "num_gpu") &&
      Contains(header, "submit_time")) {
    return TraceFormat::kMuri;
  }
  if (Contains(header, "job_id") && Contains(header, "submit_s") && Contains(header, "gpus")) {
    return TraceFormat::kNative;
  }
  if (Contains(header, "name") && Contains(header, "cpu_milli") && Contains(header, "num_gpu") &&
      Contains(header, "gpu_milli")) {
    return TraceFormat::kOpenb;
  }
  // PAI's job table has no header: six fields, a start or end time where a header has a name.
  double time = 0;
  if (header.size() == 6 && (workload::ParseFiniteDouble(header[4], &time) ||
                             workload::ParseFiniteDouble(header[5], &time))) {
    return TraceFormat::kPai;
  }
  return Status::InvalidArgument(
      path + ":" + std::to_string(in.line()) + ": unrecognized trace format (first line " +
      Quoted(first) + "); expected a native header (job_id,submit_s,gpus,...), a Muri/Tiresias header "
      "(job_id,num_gpu,submit_time,...), a Lucid/Helios log header (job_id,vc,gpu_num,submit_time,"
      "duration,...), an openb pod list header (name,cpu_milli,memory_mib,num_gpu,gpu_milli,...), a Gavel tab-separated trace, a Philly JSON job log or a headerless PAI job table");
}

namespace workload {

Result<TraceFormat> ResolveTraceFormat(const std::string& path, const TraceOptions& options) {
  TraceFormat format = options.format;
  if (format == TraceFormat::kAuto) {
    Result<TraceFormat> detected = DetectTraceFormat(path);
    if (!detected.ok()) return detected.status();
    format = *detected;
  }
  if (format != TraceFormat::kLucid &&
      (!options.window_begin.empty() || !options.window_end.empty())) {
    return Status::InvalidArgument(path + ": a time window (window_begin/window_end) applies only "
                                   "to dated logs (format lucid); this trace is format " +
                                   TraceFormatName(format));
  }
  return format;
}

}  // namespace workload

Result<Trace> LoadTrace(const std::string& path, const TraceOptions& options) {
  Result<TraceFormat> format = workload::ResolveTraceFormat(path, options);
  if (!format.ok()) return format.status();
  switch (*format) {
    case TraceFormat::kNative:
      return workload::CollectRows(workload::OpenNativeRows(path));
    case TraceFormat::kMuri:
      return workload::CollectRows(workload::OpenMuriRows(path));
    case TraceFormat::kGavel:
      return workload::CollectRows(workload::OpenGavelRows(path, /*legacy=*/false, options));
    case TraceFormat::kGavelLegacy:
      return workload::CollectRows(workload::OpenGavelRows(path, /*legacy=*/true, options));
    case TraceFormat::kLucid:
      return workload::LoadLucidTrace(path, options);
    case TraceFormat::kPhilly:
      return workload::LoadPhillyTrace(path);
    case TraceFormat::kPai:
      return workload::LoadPaiTrace(path);
    case TraceFormat::kOpenb:
      return workload::LoadOpenbTrace(path);
    case TraceFormat::kAuto:
      break;
  }
  return Status::Internal("LoadTrace: unhandled trace format");
}

std::string DataDir() {
  const char* env = std::getenv("SCHEDKIT_DATA_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  return SCHEDKIT_DEFAULT_DATA_DIR;
}

namespace workload {

Status TraceCollector::Add(const CsvReader& row, int id_col, JobSpec job) {
  auto [it, inserted] = line_of_id_.emplace(job.id, row.line());
  if (!inserted) {
    return row.FieldError(id_col, "duplicates the job id on line " + std::to_string(it->second));
  }
  trace_.jobs.push_back(std::move(job));
  return Status::Ok();
}

Status TraceCollector::AddAtLine(int line, const std::string& id_field, JobSpec job) {
  auto [it, inserted] = line_of_id_.emplace(job.id, line);
  if (!inserted) {
    return Status::InvalidArgument(trace_.source + ":" + std::to_string(line) + ": field '" +
                                   id_field + "': '" + std::to_string(job.id) +
                                   "' duplicates the job id on line " + std::to_string(it->second));
  }
  trace_.jobs.push_back(std::move(job));
  return Status::Ok();
}

Result<Trace> CollectRows(Result<TraceRows> opened) {
  if (!opened.ok()) return opened.status();
  TraceRows& rows = *opened;
  CsvReader& in = *rows.in;
  TraceCollector jobs(in.file());
  while (in.Next()) {
    JobSpec job;
    SCHEDKIT_RETURN_IF_ERROR(rows.parse(in, &job));
    SCHEDKIT_RETURN_IF_ERROR(jobs.Add(in, rows.id_col, std::move(job)));
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  return std::move(jobs).Finish();
}

Trace TraceCollector::Finish() && {
  std::stable_sort(trace_.jobs.begin(), trace_.jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    if (a.submit_s != b.submit_s) return a.submit_s < b.submit_s;
    return a.id < b.id;
  });
  line_of_id_.clear();
  return std::move(trace_);
}

}  // namespace workload
}  // namespace schedkit
