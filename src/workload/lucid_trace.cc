// Lucid / Helios job logs (see docs/formats.md, "Lucid / Helios logs").
//
// One reader serves Lucid's cluster_full_log (with the workload columns the co-location
// tables need) and Helios' cluster_log (job_id,user,vc,gpu_num,cpu_num,node_num,state,
// submit_time,start_time,end_time,duration,queue): columns are found by name and the
// workload ones are optional. Recorded start/end/queue are ignored: a simulation replays
// `duration`.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "schedkit/trace.h"
#include "workload/csv.h"
#include "workload/trace_formats.h"

namespace schedkit {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's civil-day formula).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool ParseDigits(const std::string& s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

bool ParseDateTimeUtc(const std::string& text, int64_t* unix_s) {
  int64_t y, mo, d, h = 0, mi = 0, sec = 0;
  if (!ParseDigits(text, 0, 4, &y) || text.size() < 10 || text[4] != '-' ||
      !ParseDigits(text, 5, 2, &mo) || text[7] != '-' || !ParseDigits(text, 8, 2, &d)) {
    return false;
  }
  if (text.size() != 10) {
    if (text.size() != 19 || (text[10] != ' ' && text[10] != 'T') ||
        !ParseDigits(text, 11, 2, &h) || text[13] != ':' || !ParseDigits(text, 14, 2, &mi) ||
        text[16] != ':' || !ParseDigits(text, 17, 2, &sec)) {
      return false;
    }
  }
  static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > kDaysIn[mo - 1] || h > 23 || mi > 59 || sec > 59) {
    return false;
  }
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo == 2 && d == 29 && !leap) return false;
  *unix_s = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
  return true;
}

namespace workload {
namespace {

Status ParseOptionTime(const std::string& what, const std::string& text, int64_t* out) {
  if (!ParseDateTimeUtc(text, out)) {
    return Status::InvalidArgument(what + " " + Quoted(text) + " is not a date 'YYYY-MM-DD HH:MM:SS'");
  }
  return Status::Ok();
}

struct Row {
  JobSpec job;
  int64_t unix_s = 0;
};

// "[begin, end]" for error messages, an empty bound shown as the log's own.
std::string WindowText(const TraceOptions& options) {
  return "[" + (options.window_begin.empty() ? "start of log" : options.window_begin) + ", " +
         (options.window_end.empty() ? "end of log" : options.window_end) + "]";
}

}  // namespace

Result<Trace> LoadLucidTrace(const std::string& path, const TraceOptions& options,
                             const std::string& anchor_text) {
  const bool anchored = !anchor_text.empty();
  const bool has_begin = !options.window_begin.empty();
  const bool has_end = !options.window_end.empty();
  int64_t anchor = 0, begin = 0, end = 0;
  if (anchored) SCHEDKIT_RETURN_IF_ERROR(ParseOptionTime("window anchor", anchor_text, &anchor));
  if (has_begin) {
    SCHEDKIT_RETURN_IF_ERROR(ParseOptionTime("window begin", options.window_begin, &begin));
  }
  if (has_end) {
    SCHEDKIT_RETURN_IF_ERROR(ParseOptionTime("window end", options.window_end, &end));
  }

  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());
  int id_col, vc_col, gpus_col, submit_col, duration_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("job_id", &id_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("vc", &vc_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("gpu_num", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("submit_time", &submit_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("duration", &duration_col));
  const int user_col = in.ColumnIndex("user");
  const int name_col = in.ColumnIndex("jobname");
  const int cpus_col = in.ColumnIndex("cpu_num");
  const int model_col = in.ColumnIndex("model");
  const int dataset_col = in.ColumnIndex("dataset");
  const int batch_col = in.ColumnIndex("batchsize");
  const int amp_col = in.ColumnIndex("amp");
  const int gmem_col = in.ColumnIndex("gmem");
  const int util_col = in.ColumnIndex("gpu_util");

  auto vc_kept = [&](const std::string& vc) {
    if (options.lucid_vcs.empty()) return true;
    for (const std::string& v : options.lucid_vcs) {
      if (v == vc) return true;
    }
    return false;
  };

  // Rows kept by the GPU, VC and anchor filters, with their line numbers for errors.
  std::vector<Row> rows;
  std::vector<int> lines;
  while (in.Next()) {
    Row r;
    JobSpec& job = r.job;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(id_col, &job.id, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &job.gpus, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadString(vc_col, &job.vc));
    if (!ParseDateTimeUtc(in.field(submit_col), &r.unix_s)) {
      return in.FieldError(submit_col, "is not a date 'YYYY-MM-DD HH:MM:SS'");
    }
    r.unix_s -= options.lucid_utc_offset_s;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(duration_col, &job.duration_s, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(user_col, &job.user));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(name_col, &job.name));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(cpus_col, &job.cpus, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(model_col, &job.profile.model));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(dataset_col, &job.profile.dataset));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(batch_col, &job.profile.batch_size, 0));
    int amp = 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalInt(amp_col, &amp, 0, 1));
    job.profile.amp = amp != 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(gmem_col, &job.profile.gmem_mb, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalDouble(util_col, &job.profile.gpu_util, 0));
    if (job.gpus == 0 || !vc_kept(job.vc)) continue;
    // A replayed job needs work; Lucid's tick loop would never end one of 0 s.
    if (job.duration_s < 1) return in.FieldError(duration_col, "must be >= 1 for a GPU job");
    rows.push_back(std::move(r));
    lines.push_back(in.line());
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());

  // The anchor and window bounds are wall-clock times in the log's zone, like the rows.
  const int64_t offset = options.lucid_utc_offset_s;
  // Anchored (Lucid's trace preparation): the window is measured from the first job at or
  // after the anchor as if that job came at the anchor; earlier jobs are dropped.
  // Otherwise the window is absolute.
  int64_t shift = 0;
  if (anchored) {
    bool any = false;
    for (const Row& r : rows) {
      if (r.unix_s >= anchor - offset && (!any || r.unix_s - (anchor - offset) < shift)) {
        shift = r.unix_s - (anchor - offset);
        any = true;
      }
    }
    if (!any) {
      return Status::InvalidArgument(path + ": no job kept at or after the window's anchor " +
                                     Quoted(anchor_text));
    }
  }
  const int64_t lo = anchored ? anchor - offset + shift : INT64_MIN;
  const int64_t from = has_begin ? begin - offset + shift : lo;
  const int64_t to = has_end ? end - offset + shift : INT64_MAX;

  std::vector<size_t> kept;
  int64_t origin = INT64_MAX;  // submit_s = 0: the window's begin, else the first job kept.
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].unix_s < from || rows[i].unix_s > to) continue;
    kept.push_back(i);
    origin = std::min(origin, rows[i].unix_s);
  }
  if (has_begin) origin = from;
  Trace empty;
  empty.source = path;
  if (kept.empty()) {
    if (!has_begin && !has_end && !anchored) return empty;  // Nothing to keep in the log.
    return Status::InvalidArgument(path + ": no job kept in the window " + WindowText(options));
  }
  TraceCollector jobs(path);
  for (size_t i : kept) {
    Row& r = rows[i];
    r.job.submit_s = static_cast<double>(r.unix_s - origin);
    SCHEDKIT_RETURN_IF_ERROR(jobs.AddAtLine(lines[i], "job_id", std::move(r.job)));
  }
  Trace trace = std::move(jobs).Finish();
  trace.epoch_unix_s = origin;
  return trace;
}

}  // namespace workload
}  // namespace schedkit
