#include "schedkit/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "metrics/summary_json.h"
#include "workload/csv.h"

namespace schedkit {

double Percentile(std::vector<double> values, double p, PercentileRule rule) {
  if (values.empty()) return 0;
  const size_t n = values.size();
  size_t index;
  if (rule == PercentileRule::kMuriIndex) {
    index = static_cast<size_t>(p * static_cast<double>(n));
  } else {
    const double rank = std::ceil(p * static_cast<double>(n) - 1e-9);
    index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  }
  // The value a full sort would put at `index`, in linear time (a summary of 1M jobs
  // took five sorts of 1M doubles).
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(std::min(index, n - 1));
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

MetricsRecorder::MetricsRecorder(const Trace* trace, double runtime_factor, double end_round_s)
    : runtime_factor_(runtime_factor), end_round_s_(end_round_s) {
  if (trace == nullptr) return;
  jobs_.reserve(trace->jobs.size());
  for (const JobSpec& spec : trace->jobs) AddJob(spec);
}

void MetricsRecorder::AddJob(const JobSpec& spec) {
  const int row = static_cast<int>(jobs_.size());
  // Flat while every id is below 4x the rows + 64 (no id is negative).
  if (sparse_rows_.empty() && spec.id >= 0 && spec.id < 4 * static_cast<JobId>(row + 1) + 64) {
    if (spec.id >= static_cast<JobId>(dense_rows_.size())) {
      dense_rows_.resize(std::max<size_t>(spec.id + 1, dense_rows_.size() * 3 / 2), -1);
    }
    if (dense_rows_[spec.id] < 0) dense_rows_[spec.id] = row;  // The first of a repeated id, as the map.
  } else {
    if (sparse_rows_.empty()) {  // Move the flat rows over, once.
      for (size_t id = 0; id < dense_rows_.size(); ++id) {
        if (dense_rows_[id] >= 0) sparse_rows_.emplace(static_cast<JobId>(id), dense_rows_[id]);
      }
      std::vector<int32_t>().swap(dense_rows_);
    }
    sparse_rows_.emplace(spec.id, row);
  }
  RecordedJob r;
  r.id = spec.id;
  r.gpus = spec.gpus;
  r.vc = spec.vc;
  r.submit_s = spec.submit_s;
  r.solo_s = spec.SoloRuntime() * runtime_factor_;
  jobs_.push_back(std::move(r));
}

int MetricsRecorder::Row(JobId id) const {
  if (sparse_rows_.empty()) {
    if (id >= 0 && id < static_cast<JobId>(dense_rows_.size()) && dense_rows_[id] >= 0) {
      return dense_rows_[id];
    }
  } else if (auto it = sparse_rows_.find(id); it != sparse_rows_.end()) {
    return it->second;
  }
  std::fprintf(stderr, "schedkit: metrics: no row for job %lld\n", static_cast<long long>(id));
  std::abort();
}

void MetricsRecorder::OnJobStart(const JobSpec& job, Time now, const Placement& placement) {
  RecordedJob& r = jobs_[Row(job.id)];
  if (r.first_start_s == kNever) r.first_start_s = now;
  r.placement = placement.ToString();
}

void MetricsRecorder::OnJobPreempt(const JobSpec& job, Time now) {
  ++jobs_[Row(job.id)].preemptions;
}

void MetricsRecorder::OnJobReject(const JobSpec& job, Time now) {
  jobs_[Row(job.id)].outcome = RecordedJob::Outcome::kRejected;
}

void MetricsRecorder::OnJobFinish(const JobSpec& job, Time now, Time first_start,
                                  double executed_s, int preemptions,
                                  const Placement& last_placement) {
  const int i = Row(job.id);
  RecordedJob& r = jobs_[i];
  r.end_s = end_round_s_ > 0 ? std::ceil(now / end_round_s_) * end_round_s_ : now;
  r.first_start_s = first_start;
  r.executed_s = executed_s;
  r.preemptions = preemptions;
  r.outcome = RecordedJob::Outcome::kFinished;
  completion_order_.push_back(i);
}

void MetricsRecorder::OnClusterState(Time now, int pending, int running, int busy_gpus) {
  if (!samples_.empty() && samples_.back().time_s == now) samples_.pop_back();
  samples_.push_back(ClusterSample{now, pending, running, busy_gpus});
}

Summary Summarize(const MetricsRecorder& recorder, const ClusterSpec& cluster,
                  const SimulationStats& stats, PercentileRule rule, double wall_s,
                  const std::optional<MeasuredJobs>& measured) {
  auto counted = [&](const RecordedJob& r) {
    return !measured || (r.id >= measured->first && r.id <= measured->last);
  };
  Summary s;
  std::vector<double> jcts, queues, slowdowns;
  double jct_sum = 0, queue_sum = 0, slowdown_sum = 0, last_end = 0;
  double first_submit = recorder.jobs().empty() ? 0 : recorder.jobs().front().submit_s;
  for (int i : recorder.completion_order()) {
    const RecordedJob& r = recorder.jobs()[i];
    last_end = std::max(last_end, r.end_s);
    if (!counted(r)) continue;
    jct_sum += r.jct_s();
    queue_sum += r.queue_s();
    jcts.push_back(r.jct_s());
    queues.push_back(r.queue_s());
    if (r.solo_s > 0) {
      slowdown_sum += r.slowdown();
      slowdowns.push_back(r.slowdown());
    }
  }
  for (const RecordedJob& r : recorder.jobs()) {
    first_submit = std::min(first_submit, r.submit_s);
    if (!counted(r)) continue;
    s.preemptions += r.preemptions;
    if (r.outcome == RecordedJob::Outcome::kRejected) ++s.rejected;
    if (r.outcome == RecordedJob::Outcome::kUnfinished) ++s.unfinished;
  }
  s.jobs = static_cast<int64_t>(jcts.size());
  if (s.jobs > 0) {
    s.avg_jct_s = jct_sum / s.jobs;
    s.avg_queue_s = queue_sum / s.jobs;
    s.p50_jct_s = Percentile(jcts, 0.50, rule);
    s.p95_jct_s = Percentile(jcts, 0.95, rule);
    s.p99_jct_s = Percentile(jcts, 0.99, rule);
    s.p999_queue_s = Percentile(queues, 0.999, rule);
    s.makespan_s = last_end - first_submit;
  }
  if (!slowdowns.empty()) {
    s.avg_slowdown = slowdown_sum / static_cast<double>(slowdowns.size());
    s.p99_slowdown = Percentile(std::move(slowdowns), 0.99, rule);
  }
  // Busy GPU-seconds from the piecewise-constant time series.
  double busy = 0;
  const auto& samples = recorder.samples();
  for (size_t i = 0; i + 1 < samples.size(); ++i) {
    busy += samples[i].busy_gpus * (samples[i + 1].time_s - samples[i].time_s);
  }
  const double capacity = static_cast<double>(cluster.TotalGpus()) * s.makespan_s;
  s.gpu_utilization = capacity > 0 ? busy / capacity : 0;
  s.wall_s = wall_s;
  s.events = stats.events;
  s.decisions = stats.decisions;
  return s;
}

namespace {

std::string Num(double v) {
  if (v == kNever) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

}  // namespace

const char* OutcomeName(RecordedJob::Outcome o) {
  switch (o) {
    case RecordedJob::Outcome::kFinished: return "finished";
    case RecordedJob::Outcome::kRejected: return "rejected";
    case RecordedJob::Outcome::kUnfinished: return "unfinished";
  }
  return "?";
}

Status WriteJobsCsv(const MetricsRecorder& recorder, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << "job_id,gpus,submit_s,first_start_s,end_s,jct_s,queue_s,executed_s,preemptions,"
         "outcome,placement,vc\n";
  for (const RecordedJob& r : recorder.jobs()) {
    const bool done = r.outcome == RecordedJob::Outcome::kFinished;
    out << r.id << ',' << r.gpus << ',' << Num(r.submit_s) << ',' << Num(r.first_start_s) << ','
        << Num(r.end_s) << ',' << (done ? Num(r.jct_s()) : "") << ','
        << (r.first_start_s == kNever ? "" : Num(r.queue_s())) << ',' << Num(r.executed_s) << ','
        << r.preemptions << ',' << OutcomeName(r.outcome) << ',' << workload::CsvField(r.placement)
        << ',' << workload::CsvField(r.vc) << '\n';
  }
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

Status WriteTimeSeriesCsv(const MetricsRecorder& recorder, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << "time_s,pending,running,busy_gpus\n";
  for (const ClusterSample& s : recorder.samples()) {
    out << Num(s.time_s) << ',' << s.pending << ',' << s.running << ',' << s.busy_gpus << '\n';
  }
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

nlohmann::ordered_json SummaryStatisticsJson(const Summary& s) {
  nlohmann::ordered_json j;
  j["jobs"] = s.jobs;
  j["rejected"] = s.rejected;
  j["unfinished"] = s.unfinished;
  j["avg_jct_s"] = s.avg_jct_s;
  j["p50_jct_s"] = s.p50_jct_s;
  j["p95_jct_s"] = s.p95_jct_s;
  j["p99_jct_s"] = s.p99_jct_s;
  j["makespan_s"] = s.makespan_s;
  j["avg_queue_s"] = s.avg_queue_s;
  j["p999_queue_s"] = s.p999_queue_s;
  j["avg_slowdown"] = s.avg_slowdown;
  j["p99_slowdown"] = s.p99_slowdown;
  j["gpu_utilization"] = s.gpu_utilization;
  j["preemptions"] = s.preemptions;
  j["events"] = s.events;
  j["decisions"] = s.decisions;
  j["wall_s"] = s.wall_s;
  return j;
}

Status WriteSummaryJson(const Summary& s,
                        const std::vector<std::pair<std::string, std::string>>& context,
                        const std::string& path) {
  nlohmann::ordered_json j;
  for (const auto& [k, v] : context) j["run"][k] = v;
  j.update(SummaryStatisticsJson(s));
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << j.dump(2) << '\n';
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

}  // namespace schedkit
