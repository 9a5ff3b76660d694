// RunDagSimulation (a scheduler driven through the engine's step interface) and its outputs.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "dag/engine.h"
#include "schedkit/dag.h"
#include "schedkit/metrics.h"

namespace schedkit {

Status DagConfig::Validate() const {
  auto bad = [](const char* field, const std::string& what) {
    return Status::InvalidArgument(std::string("dag config: field '") + field + "': " + what);
  };
  if (num_executors < 1 || num_executors > 100000) return bad("num_executors", "must be in 1..100000");
  if (job_arrival_cap < 1 || job_arrival_cap > 10000000) {
    return bad("job_arrival_cap", "must be in 1..10000000");
  }
  if (!(job_arrival_rate > 0) || !std::isfinite(job_arrival_rate)) {
    return bad("job_arrival_rate", "must be a finite number > 0 (per ms)");
  }
  if (!(moving_delay_ms >= 0) || !std::isfinite(moving_delay_ms)) {
    return bad("moving_delay_ms", "must be a finite number >= 0");
  }
  if (!(warmup_delay_ms >= 0) || !std::isfinite(warmup_delay_ms)) {
    return bad("warmup_delay_ms", "must be a finite number >= 0");
  }
  return Status::Ok();
}

namespace {

Status CheckArrivals(const std::vector<DagArrival>& arrivals, const DagWorkload& workload) {
  if (arrivals.empty()) return Status::Ok();
  if (arrivals.front().time_ms != 0) {
    return Status::InvalidArgument("dag arrivals: the first job must arrive at t=0");
  }
  for (size_t i = 0; i < arrivals.size(); ++i) {
    const DagArrival& a = arrivals[i];
    if (a.dag < 0 || a.dag >= static_cast<int>(workload.dags.size())) {
      return Status::InvalidArgument("dag arrivals[" + std::to_string(i) + "]: no DAG " +
                                     std::to_string(a.dag));
    }
    if (!std::isfinite(a.time_ms) || (i > 0 && a.time_ms < arrivals[i - 1].time_ms)) {
      return Status::InvalidArgument("dag arrivals[" + std::to_string(i) +
                                     "]: times must be finite and sorted");
    }
  }
  return Status::Ok();
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

const char* KindName(DagTaskRecord::Kind k) {
  switch (k) {
    case DagTaskRecord::Kind::kFresh: return "fresh";
    case DagTaskRecord::Kind::kFirstWave: return "first_wave";
    case DagTaskRecord::Kind::kRestWave: return "rest_wave";
    case DagTaskRecord::Kind::kFallback: return "fallback";
  }
  return "?";
}

}  // namespace

Result<DagRunResult> RunDagSimulation(const DagConfig& config, const DagWorkload& workload,
                                      DagScheduler& scheduler, uint64_t seed,
                                      const DagRunOptions& options) {
  SCHEDKIT_RETURN_IF_ERROR(config.Validate());
  SCHEDKIT_RETURN_IF_ERROR(CheckArrivals(options.arrivals, workload));
  if (workload.dags.empty()) return Status::InvalidArgument("dag workload has no DAG");
  const auto start = std::chrono::steady_clock::now();
  dag::Engine engine(config, &workload);
  engine.set_record_tasks(options.record_tasks);
  engine.Reset(seed, options.arrivals.empty() ? nullptr : &options.arrivals);
  scheduler.Reset(seed);
  DagRunResult result;
  double reward = 0;
  while (!engine.done()) {
    const DagAction action = scheduler.Decide(engine.observation());
    Result<dag::StepOutcome> step = engine.Step(action);
    if (!step.ok()) {
      return Status::InvalidArgument(std::string(scheduler.Name()) + ": decision at t=" +
                                     Fixed(engine.now_ms(), 3) + " ms: " + step.status().message());
    }
    reward += step->reward;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.jobs = engine.JobResults();
  if (options.record_tasks) result.tasks = engine.tasks();
  DagSummary& s = result.summary;
  s.jobs = static_cast<int64_t>(result.jobs.size());
  std::vector<double> jcts;
  double first_arrival = INFINITY, last_completion = 0;
  for (const DagJobResult& j : result.jobs) {
    jcts.push_back(j.jct_s());
    first_arrival = std::min(first_arrival, j.arrival_ms);
    last_completion = std::max(last_completion, j.completion_ms);
  }
  double sum = 0;
  for (double v : jcts) sum += v;
  s.avg_jct_s = jcts.empty() ? 0 : sum / static_cast<double>(jcts.size());
  s.p50_jct_s = Percentile(jcts, 0.50, PercentileRule::kNearestRank);
  s.p95_jct_s = Percentile(jcts, 0.95, PercentileRule::kNearestRank);
  s.p99_jct_s = Percentile(jcts, 0.99, PercentileRule::kNearestRank);
  s.makespan_s = jcts.empty() ? 0 : (last_completion - first_arrival) / 1000.0;
  s.total_reward = reward;
  s.decisions = engine.steps();
  s.events = engine.events();
  for (const DagJobResult& j : result.jobs) s.tasks += j.num_tasks;
  s.wall_s = wall;
  return result;
}

Status WriteDagOutputs(const DagRunResult& result,
                       const std::vector<std::pair<std::string, std::string>>& context,
                       const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create directory: " + ec.message());
  const DagSummary& s = result.summary;
  nlohmann::ordered_json j;
  for (const auto& [k, v] : context) j["run"][k] = v;
  j["jobs"] = s.jobs;
  j["avg_jct_s"] = s.avg_jct_s;
  j["p50_jct_s"] = s.p50_jct_s;
  j["p95_jct_s"] = s.p95_jct_s;
  j["p99_jct_s"] = s.p99_jct_s;
  j["makespan_s"] = s.makespan_s;
  j["total_reward"] = s.total_reward;
  j["tasks"] = s.tasks;
  j["events"] = s.events;
  j["decisions"] = s.decisions;
  j["wall_s"] = s.wall_s;
  {
    std::ofstream out(dir + "/summary.json");
    if (!out) return Status::IoError(dir + "/summary.json: cannot open for writing");
    out << j.dump(2) << '\n';
    if (!out) return Status::IoError(dir + "/summary.json: write failed");
  }
  {
    std::ofstream out(dir + "/jobs.csv");
    if (!out) return Status::IoError(dir + "/jobs.csv: cannot open for writing");
    out << "job_id,dag,arrival_ms,completion_ms,jct_s,num_stages,num_tasks\n";
    for (const DagJobResult& r : result.jobs) {
      out << r.id << ',' << r.dag << ',' << Fixed(r.arrival_ms, 3) << ','
          << Fixed(r.completion_ms, 3) << ',' << Fixed(r.jct_s(), 6) << ',' << r.num_stages << ','
          << r.num_tasks << '\n';
    }
    if (!out) return Status::IoError(dir + "/jobs.csv: write failed");
  }
  if (!result.tasks.empty()) {
    std::ofstream out(dir + "/tasks.csv");
    if (!out) return Status::IoError(dir + "/tasks.csv: cannot open for writing");
    out << "job_id,stage,task,executor,start_ms,end_ms,duration_ms,kind\n";
    for (const DagTaskRecord& t : result.tasks) {
      out << t.job << ',' << t.stage << ',' << t.task << ',' << t.executor << ','
          << Fixed(t.start_ms, 3) << ',' << Fixed(t.end_ms, 3) << ','
          << Fixed(t.end_ms - t.start_ms, 3) << ',' << KindName(t.kind) << '\n';
    }
    if (!out) return Status::IoError(dir + "/tasks.csv: write failed");
  }
  return Status::Ok();
}

}  // namespace schedkit
