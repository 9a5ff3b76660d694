// What runs over virtual clusters report: Lucid's metrics (per VC and cluster-wide), a
// `--compat lucid` run in summary.json's shape, and the files `--out` writes for either
// model (columns in docs/outputs.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "schedkit/compat.h"
#include "schedkit/lucid.h"
#include "schedkit/metrics.h"

namespace schedkit::lucid {
namespace {

Status WriteJobs(const RunResult& r, const std::string& path) {
  std::ofstream f(path);
  if (!f) return Status::IoError(path + ": cannot open for writing");
  f << "job_id,vc,gpus,submit_s,start_s,end_s,queue_s,jct_s,preemptions,profiled,"
       "finished_in_profiler,colocated\n";
  for (const JobResult& j : r.jobs) {
    f << j.id << ',' << j.vc << ',' << j.gpus << ',' << j.submit_s << ',' << j.start_s << ','
      << j.end_s << ',' << j.queue_s << ',' << (j.end_s - j.submit_s) << ',' << j.preemptions << ','
      << j.profiled << ',' << j.finished_in_profiler << ',' << j.colocated << '\n';
  }
  return f ? Status::Ok() : Status::IoError(path + ": write failed");
}

Status WriteVcs(const RunResult& r, const std::string& path) {
  std::ofstream f(path);
  if (!f) return Status::IoError(path + ": cannot open for writing");
  f << "vc,jobs,avg_jct_s,avg_queue_s,p999_queue_s\n";
  auto row = [&f](const std::string& name, const MetricSummary& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s,%lld,%.3f,%.3f,%.3f\n", name.c_str(),
                  static_cast<long long>(s.jobs), s.avg_jct_s, s.avg_queue_s, s.p999_queue_s);
    f << buf;
  };
  for (const auto& [name, s] : r.per_vc) row(name, s);
  row("all", r.all);
  return f ? Status::Ok() : Status::IoError(path + ": write failed");
}

Status CreateDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create directory: " + ec.message());
  return Status::Ok();
}

Status WriteCleanVcs(const VirtualClusterRun& run, const std::string& path) {
  std::ofstream f(path);
  if (!f) return Status::IoError(path + ": cannot open for writing");
  f << "vc,jobs,gpus,avg_jct_s,avg_queue_s,p999_queue_s,preemptions\n";
  char buf[200];
  for (const VcRun& r : run.per_vc) {
    const MetricSummary& s = r.summary;
    std::snprintf(buf, sizeof buf, "%s,%lld,%d,%.3f,%.3f,%.3f,%lld\n", r.vc.c_str(),
                  static_cast<long long>(s.jobs), r.cluster.TotalGpus(), s.avg_jct_s, s.avg_queue_s,
                  s.p999_queue_s, static_cast<long long>(r.run.summary.preemptions));
    f << buf;
  }
  std::snprintf(buf, sizeof buf, "all,%lld,,%.3f,%.3f,%.3f,\n",
                static_cast<long long>(run.all.jobs), run.all.avg_jct_s, run.all.avg_queue_s,
                run.all.p999_queue_s);
  f << buf;
  return f ? Status::Ok() : Status::IoError(path + ": write failed");
}

Status WriteProfiled(const std::vector<ProfiledJobResult>& jobs, const std::string& path) {
  std::ofstream f(path);
  if (!f) return Status::IoError(path + ": cannot open for writing");
  f << "job_id,vc,gpus,submit_s,start_s,end_s,finished\n";
  for (const ProfiledJobResult& j : jobs) {
    f << j.id << ',' << j.vc << ',' << j.gpus << ',' << j.submit_s << ',' << j.start_s << ','
      << j.end_s << ',' << j.finished << '\n';
  }
  return f ? Status::Ok() : Status::IoError(path + ": write failed");
}

}  // namespace

double QuantileLinear(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

MetricSummary Summarize(const std::vector<const JobResult*>& jobs) {
  MetricSummary s;
  s.jobs = static_cast<int64_t>(jobs.size());
  if (jobs.empty()) return s;
  std::vector<double> queue;
  queue.reserve(jobs.size());
  double jct = 0, q = 0;
  for (const JobResult* j : jobs) {
    jct += static_cast<double>(j->end_s - j->submit_s);
    q += static_cast<double>(j->queue_s);
    queue.push_back(static_cast<double>(j->queue_s));
  }
  s.avg_jct_s = jct / static_cast<double>(jobs.size());
  s.avg_queue_s = q / static_cast<double>(jobs.size());
  s.p999_queue_s = QuantileLinear(std::move(queue), 0.999);
  return s;
}

Summary SummarizeRun(const RunResult& r, double wall_s) {
  Summary s;
  s.jobs = static_cast<int64_t>(r.jobs.size());
  s.avg_jct_s = r.all.avg_jct_s;
  s.avg_queue_s = r.all.avg_queue_s;
  s.p999_queue_s = r.all.p999_queue_s;
  s.decisions = r.ticks;
  s.wall_s = wall_s;
  if (r.jobs.empty()) return s;
  std::vector<double> jct;
  int64_t first_submit = r.jobs.front().submit_s, last_end = r.jobs.front().end_s;
  for (const JobResult& j : r.jobs) {
    jct.push_back(static_cast<double>(j.end_s - j.submit_s));
    first_submit = std::min(first_submit, j.submit_s);
    last_end = std::max(last_end, j.end_s);
    s.preemptions += j.preemptions;
    if (!j.finished_in_profiler) s.events += 2;  // Its arrival and its end in its VC.
  }
  s.p50_jct_s = Percentile(jct, 0.50, PercentileRule::kNearestRank);
  s.p95_jct_s = Percentile(jct, 0.95, PercentileRule::kNearestRank);
  s.p99_jct_s = Percentile(std::move(jct), 0.99, PercentileRule::kNearestRank);
  s.makespan_s = static_cast<double>(last_end - first_submit);
  const double capacity = static_cast<double>(r.total_gpus) * s.makespan_s;
  s.gpu_utilization = capacity > 0 ? static_cast<double>(r.busy_gpu_s) / capacity : 0;
  return s;
}

std::vector<std::pair<std::string, std::string>> CompatRunBlock(
    CompatPolicy policy, const std::string& trace_path,
    const std::map<std::string, std::string>& opts) {
  std::vector<std::pair<std::string, std::string>> run = {
      {"policy", CompatPolicyName(policy)},
      {"compat", CompatModeName(CompatMode::kLucid)},
      {"trace", trace_path}};
  for (const auto& [key, value] : opts) run.emplace_back("opt." + key, value);
  return run;
}

Status WriteCompatOutputs(const RunResult& r, const Summary& summary,
                          const std::vector<std::pair<std::string, std::string>>& run,
                          const std::string& dir) {
  SCHEDKIT_RETURN_IF_ERROR(CreateDirectory(dir));
  SCHEDKIT_RETURN_IF_ERROR(WriteJobs(r, dir + "/jobs.csv"));
  SCHEDKIT_RETURN_IF_ERROR(WriteVcs(r, dir + "/vcs.csv"));
  return WriteSummaryJson(summary, run, dir + "/summary.json");
}

Status WriteVirtualClusterOutputs(const VirtualClusterRun& run, const std::string& dir) {
  SCHEDKIT_RETURN_IF_ERROR(CreateDirectory(dir));
  SCHEDKIT_RETURN_IF_ERROR(WriteCleanVcs(run, dir + "/vcs.csv"));
  for (const VcRun& r : run.per_vc) {
    SCHEDKIT_RETURN_IF_ERROR(CreateDirectory(dir + "/" + r.vc));
    SCHEDKIT_RETURN_IF_ERROR(WriteJobsCsv(*r.run.recorder, dir + "/" + r.vc + "/jobs.csv"));
  }
  if (run.profiled.empty()) return Status::Ok();
  return WriteProfiled(run.profiled, dir + "/profiler.csv");
}

}  // namespace schedkit::lucid
