// Microsoft Philly's cluster_job_log (msr-fiddle/philly-traces): a JSON list of jobs, each
// with its attempts. See docs/formats.md ("Philly") for the fields and the mapping.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "workload/trace_formats.h"

namespace schedkit::workload {
namespace {

// 1-based line of byte offset `byte` in `text`.
int LineOf(const std::string& text, size_t byte) {
  const size_t end = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + end, '\n'));
}

// One job's fields as the loader uses them.
struct PhillyJob {
  std::string jobid, user, vc, status;
  int64_t submit_unix = 0;
  double run_s = 0;  // Summed over attempts that have both times.
  int gpus = 0;      // Of the last attempt that names any.
};

// Reads job `index` of the list; errors name the file, the job and the field.
Status ReadJob(const std::string& path, size_t index, const nlohmann::json& j, PhillyJob* out) {
  const std::string at = path + ": job " + std::to_string(index) +
                         (j.is_object() && j.contains("jobid") && j["jobid"].is_string()
                              ? " (jobid '" + j["jobid"].get<std::string>() + "')"
                              : "");
  auto field_error = [&](const std::string& field, const std::string& what) {
    return Status::InvalidArgument(at + ": field '" + field + "': " + what);
  };
  if (!j.is_object()) return Status::InvalidArgument(at + ": not a JSON object");
  auto text = [&](const char* field, bool required, std::string* value) -> Status {
    auto it = j.find(field);
    if (it == j.end() || it->is_null()) {
      return required ? field_error(field, "missing") : Status::Ok();
    }
    if (!it->is_string()) return field_error(field, "not a string");
    *value = it->get<std::string>();
    return Status::Ok();
  };
  SCHEDKIT_RETURN_IF_ERROR(text("jobid", true, &out->jobid));
  SCHEDKIT_RETURN_IF_ERROR(text("user", false, &out->user));
  SCHEDKIT_RETURN_IF_ERROR(text("vc", false, &out->vc));
  SCHEDKIT_RETURN_IF_ERROR(text("status", false, &out->status));
  std::string submitted;
  SCHEDKIT_RETURN_IF_ERROR(text("submitted_time", true, &submitted));
  if (!ParseDateTimeUtc(submitted, &out->submit_unix)) {
    return field_error("submitted_time", "'" + submitted + "' is not a date (YYYY-MM-DD HH:MM:SS)");
  }
  auto attempts = j.find("attempts");
  if (attempts == j.end() || !attempts->is_array()) return field_error("attempts", "not a list");
  for (size_t a = 0; a < attempts->size(); ++a) {
    const nlohmann::json& attempt = (*attempts)[a];
    const std::string where = "attempts[" + std::to_string(a) + "]";
    if (!attempt.is_object()) return field_error(where, "not a JSON object");
    int64_t times[2] = {0, 0};
    bool timed = true;
    const char* names[2] = {"start_time", "end_time"};
    for (int k = 0; k < 2; ++k) {
      auto t = attempt.find(names[k]);
      if (t == attempt.end() || t->is_null()) {  // Philly writes None for a missing time.
        timed = false;
        continue;
      }
      if (!t->is_string() || !ParseDateTimeUtc(t->get<std::string>(), &times[k])) {
        return field_error(where + "." + names[k], "'" + t->dump() + "' is not a date or null");
      }
    }
    if (timed && times[1] < times[0]) {
      return field_error(where + ".end_time", "before its start_time");
    }
    if (timed) out->run_s += static_cast<double>(times[1] - times[0]);
    auto detail = attempt.find("detail");
    if (detail == attempt.end() || !detail->is_array()) continue;
    int gpus = 0;
    for (const nlohmann::json& d : *detail) {
      auto g = d.is_object() ? d.find("gpus") : d.end();
      if (g == d.end() || !g->is_array()) {
        return field_error(where + ".detail", "each entry needs a 'gpus' list");
      }
      gpus += static_cast<int>(g->size());
    }
    if (gpus > 0) out->gpus = gpus;
  }
  return Status::Ok();
}

}  // namespace

Result<Trace> LoadPhillyTrace(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::NotFound(path + ": cannot open");
  const std::string body((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    return Status::InvalidArgument(path + ":" + std::to_string(LineOf(body, e.byte)) +
                                   ": not valid JSON (" + e.what() + ")");
  }
  if (!root.is_array()) return Status::InvalidArgument(path + ": not a JSON list of jobs");
  std::vector<PhillyJob> jobs(root.size());
  for (size_t i = 0; i < root.size(); ++i) SCHEDKIT_RETURN_IF_ERROR(ReadJob(path, i, root[i], &jobs[i]));
  int64_t origin = 0;
  bool any = false;
  for (const PhillyJob& p : jobs) {
    if (p.gpus == 0 || p.run_s <= 0) continue;  // Never ran: nothing to replay.
    origin = any ? std::min(origin, p.submit_unix) : p.submit_unix;
    any = true;
  }
  if (!any) {
    return Status::InvalidArgument(path + ": no job ran (every job lacks an attempt with times "
                                   "and GPUs); nothing to simulate");
  }
  TraceCollector collector(path);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const PhillyJob& p = jobs[i];
    if (p.gpus == 0 || p.run_s <= 0) continue;
    JobSpec job;
    job.id = static_cast<JobId>(i);
    job.submit_s = static_cast<Time>(p.submit_unix - origin);
    job.gpus = p.gpus;
    job.duration_s = p.run_s;
    job.user = p.user;
    job.vc = p.vc;
    job.name = p.jobid;
    SCHEDKIT_RETURN_IF_ERROR(collector.AddAtLine(0, "jobid", std::move(job)));  // Ids are unique.
  }
  Trace trace = std::move(collector).Finish();
  trace.epoch_unix_s = origin;
  return trace;
}

}  // namespace schedkit::workload
