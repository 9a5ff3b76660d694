// Metrics: an observer that records what happened, the summary statistics, and the
// writers of jobs.csv, summary.json and timeseries.csv (columns in docs/outputs.md).
// The engine knows nothing about files: it only emits SimulationObserver signals.
#ifndef SCHEDKIT_METRICS_H_
#define SCHEDKIT_METRICS_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "schedkit/simulator.h"

namespace schedkit {

// What became of one job of the trace, as MetricsRecorder saw it: a row of jobs.csv
// (docs/outputs.md).
struct RecordedJob {
  enum class Outcome { kFinished, kRejected, kUnfinished };
  JobId id = 0;
  int gpus = 0;
  Time submit_s = 0;
  Time first_start_s = kNever;  // kNever if it never ran.
  Time end_s = kNever;          // kNever unless finished.
  double executed_s = 0;        // Wall seconds it ran, overheads included; finished jobs only.
  double solo_s = 0;            // Its solo runtime as the run models it (trace x runtime factor).
  int preemptions = 0;          // Times it was stopped (moves included).
  std::string placement;        // Last placement it ran on (Placement::ToString).
  std::string vc;               // The job's virtual cluster; empty if none.
  Outcome outcome = Outcome::kUnfinished;

  double jct_s() const { return end_s - submit_s; }
  double queue_s() const { return first_start_s - submit_s; }
  // JCT over the solo runtime: 1 for a job that started at once and ran alone on its
  // reference GPU type; 0 when the job has no solo runtime (no slowdown is defined).
  double slowdown() const { return solo_s > 0 ? jct_s() / solo_s : 0; }
};

// jobs.csv's outcome column: "finished", "rejected" or "unfinished".
const char* OutcomeName(RecordedJob::Outcome o);

struct ClusterSample {
  Time time_s;
  int pending;
  int running;
  int busy_gpus;
};

// PercentileRule (how percentiles are read from n sorted values) is in schedkit/compat.h.
double Percentile(std::vector<double> values, double p, PercentileRule rule);

class MetricsRecorder final : public SimulationObserver {
 public:
  // `runtime_factor` is the run's (SimulatorOptions::runtime_factor): a job's solo
  // runtime is its trace runtime times it, as the simulator models the job.
  // `end_round_s` > 0 records each finished job's end as the first multiple of it at or
  // after its completion (CompatProfile::end_round_s).
  // A row for each job of `trace`; null for none yet (a streamed run adds them with AddJob).
  explicit MetricsRecorder(const Trace* trace, double runtime_factor = 1.0,
                           double end_round_s = 0);

  // A row for `job`, after the rows already there (jobs.csv keeps this order).
  // REQUIRES: no row has its id.
  void AddJob(const JobSpec& job);

  void OnJobStart(const JobSpec& job, Time now, const Placement& placement) override;
  void OnJobPreempt(const JobSpec& job, Time now) override;
  void OnJobReject(const JobSpec& job, Time now) override;
  void OnJobFinish(const JobSpec& job, Time now, Time first_start, double executed_s,
                   int preemptions, const Placement& last_placement) override;
  void OnClusterState(Time now, int pending, int running, int busy_gpus) override;

  // One record per trace job, in trace order.
  const std::vector<RecordedJob>& jobs() const { return jobs_; }
  // Indices into jobs() in completion order (for sums in the order Muri takes them).
  const std::vector<int>& completion_order() const { return completion_order_; }
  // One sample per decision step whose counts changed; at most one per time.
  const std::vector<ClusterSample>& samples() const { return samples_; }

 private:
  int Row(JobId id) const;

  std::vector<RecordedJob> jobs_;
  double runtime_factor_ = 1;
  // JobId -> row: a flat vector while ids are small and dense (every trace and generator
  // the project reads), else the map. 4 bytes a job instead of a hash node.
  std::vector<int32_t> dense_rows_;
  std::unordered_map<JobId, int> sparse_rows_;
  std::vector<int> completion_order_;
  std::vector<ClusterSample> samples_;
  double end_round_s_ = 0;
};

struct Summary {
  int64_t jobs = 0;        // Finished jobs (the statistics below are over these).
  int64_t rejected = 0;
  int64_t unfinished = 0;  // Never finished: stuck when events ran out.
  double avg_jct_s = 0, p50_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0;
  double makespan_s = 0;   // Last end - first submit.
  double avg_queue_s = 0, p999_queue_s = 0;  // Queueing delay = first start - submit.
  // Slowdown = JCT / solo runtime, over finished jobs with a solo runtime (RecordedJob).
  double avg_slowdown = 0, p99_slowdown = 0;
  double gpu_utilization = 0;  // Busy GPU-seconds / (GPUs x makespan).
  int64_t preemptions = 0;  // Over all jobs, finished or not.
  double wall_s = 0;       // Simulator run time (the only non-deterministic field).
  int64_t events = 0;
  int64_t decisions = 0;
};

// With `measured`, the per-job statistics (jobs, rejected, unfinished, JCT, queueing
// delay, slowdown, preemptions) are over the jobs whose ids are in it; makespan and
// utilisation stay the whole run's.
Summary Summarize(const MetricsRecorder& recorder, const ClusterSpec& cluster,
                  const SimulationStats& stats, PercentileRule rule, double wall_s,
                  const std::optional<MeasuredJobs>& measured = std::nullopt);

Status WriteJobsCsv(const MetricsRecorder& recorder, const std::string& path);
Status WriteTimeSeriesCsv(const MetricsRecorder& recorder, const std::string& path);
// `context` (policy, trace, cluster, seed...) is written under "run".
Status WriteSummaryJson(const Summary& summary,
                        const std::vector<std::pair<std::string, std::string>>& context,
                        const std::string& path);

}  // namespace schedkit

#endif  // SCHEDKIT_METRICS_H_
