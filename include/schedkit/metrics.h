// Metrics: an observer that records what happened, the summary statistics, and the
// writers of jobs.csv, summary.json and timeseries.csv (columns in docs/outputs.md).
// The engine knows nothing about files: it only emits SimulationObserver signals.
#ifndef SCHEDKIT_METRICS_H_
#define SCHEDKIT_METRICS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "schedkit/simulator.h"

namespace schedkit {

// What became of one job of the trace, as MetricsRecorder saw it: a row of jobs.csv
// (docs/outputs.md). A value: MetricsRecorder keeps its rows in a compact form and builds
// these on request (MetricsRecorder::job, Jobs).
struct RecordedJob {
  enum class Outcome { kFinished, kRejected, kUnfinished };
  JobId id = 0;
  Time submit_s = 0;
  Time first_start_s = kNever;  // kNever if it never ran.
  Time end_s = kNever;          // kNever unless finished.
  double executed_s = 0;        // Wall seconds it ran, overheads included; finished jobs only.
  double solo_s = 0;            // Its solo runtime as the run models it (trace x runtime factor).
  int gpus = 0;
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

class MetricsRecorder;
struct Summary;

// With `measured`, the per-job statistics (jobs, rejected, unfinished, JCT, queueing
// delay, slowdown, preemptions) are over the jobs whose ids are in it; makespan and
// utilisation stay the whole run's.
Summary Summarize(const MetricsRecorder& recorder, const ClusterSpec& cluster,
                  const SimulationStats& stats, PercentileRule rule, double wall_s,
                  const std::optional<MeasuredJobs>& measured = std::nullopt);

Status WriteJobsCsv(const MetricsRecorder& recorder, const std::string& path);

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

  // One record per trace job, in trace order: num_jobs() of them; job(i) builds the i-th
  // (REQUIRES: i < num_jobs()), Jobs() all of them (a copy of the whole table: for tests
  // and bindings, not per row).
  size_t num_jobs() const { return rows_.size(); }
  RecordedJob job(size_t i) const;
  std::vector<RecordedJob> Jobs() const;
  // Placements held apart from the rows (several nodes, fractional shares), the empty one
  // included: one per row that ever ran on several nodes, whatever its restarts, plus one
  // per distinct fractional share. For memory checks.
  size_t num_placements() const { return placements_.size(); }
  // Indices of job() in completion order (for sums in the order Muri takes them).
  const std::vector<int>& completion_order() const { return completion_order_; }
  // One sample per decision step whose counts changed; at most one per time, in time
  // order: num_samples() of them, given to `f` one by one in that order.
  size_t num_samples() const { return samples_.size(); }
  void ForEachSample(const std::function<void(const ClusterSample&)>& f) const {
    samples_.ForEach(f);
  }

 private:
  friend Summary Summarize(const MetricsRecorder&, const ClusterSpec&, const SimulationStats&,
                           PercentileRule, double, const std::optional<MeasuredJobs>&);
  friend Status WriteJobsCsv(const MetricsRecorder&, const std::string&);

  // Appended values in chunks of 2^11 that never move: a run of millions of jobs grows
  // without copying its table at each doubling (nor holding the old and the new copy at
  // once: the peak memory of a long run).
  template <class T>
  class Chunked {
   public:
    size_t size() const { return size_; }
    T& operator[](size_t i) { return chunks_[i >> kBits][i & kMask]; }
    const T& operator[](size_t i) const { return chunks_[i >> kBits][i & kMask]; }
    T& back() { return (*this)[size_ - 1]; }
    void push_back(const T& v) {
      if ((size_ & kMask) == 0) {
        chunks_.emplace_back();
        chunks_.back().reserve(kMask + 1);
      }
      chunks_.back().push_back(v);
      ++size_;
    }
    void pop_back() {
      chunks_.back().pop_back();
      if (chunks_.back().empty()) chunks_.pop_back();
      --size_;
    }

   private:
    static constexpr int kBits = 11;
    static constexpr size_t kMask = (size_t{1} << kBits) - 1;
    std::vector<std::vector<T>> chunks_;
    size_t size_ = 0;
  };

  // The samples, exactly, in ~9 bytes each instead of 24 (a busy run records tens of
  // millions): each as its differences from the one before, variable-length coded in
  // blocks that never move. Time goes by its IEEE-754 bit pattern (consecutive times
  // share their high bits; whole or round seconds also their low ones, dropped as a
  // count of trailing zeros), the counts as zigzag integers. The newest sample is held
  // whole until one at a later time comes: one at its own time replaces it.
  class SampleLog {
   public:
    void Record(const ClusterSample& s);
    size_t size() const { return encoded_ + (has_newest_ ? 1 : 0); }
    void ForEach(const std::function<void(const ClusterSample&)>& f) const;

   private:
    void Encode(const ClusterSample& s);
    std::vector<std::vector<uint8_t>> blocks_;
    ClusterSample encoded_last_{0, 0, 0, 0};  // Differences are from it (zeros at first).
    ClusterSample newest_{0, 0, 0, 0};
    bool has_newest_ = false;
    size_t encoded_ = 0;
  };

  // A row as kept: RecordedJob without its strings, 80 bytes instead of 128 and two
  // strings. The last placement is `node`'s whole GPUs `gpu_mask` when node >= 0 (nearly
  // every start: neither a lookup nor a text until jobs.csv is written), else
  // placements_[placement] (several nodes, a fractional share; 0 = empty: never started),
  // also formatted only when jobs.csv is written: a restarted job's earlier placements
  // are never shown.
  // The VC is vc_texts_[vc] (0 = "").
  struct Row {
    JobId id = 0;
    Time submit_s = 0;
    Time first_start_s = kNever;
    Time end_s = kNever;
    double executed_s = 0;
    double solo_s = 0;
    int32_t gpus = 0;
    int32_t preemptions = 0;
    uint64_t gpu_mask = 0;
    int32_t node = -1;
    uint32_t placement = 0;
    uint32_t vc = 0;
    RecordedJob::Outcome outcome = RecordedJob::Outcome::kUnfinished;
  };
  // One-node fractional placements, by what their text shows (node, GPU, milli-GPU): equal
  // keys, equal text, so such a placement is kept only the first time it is seen. (A
  // multi-node start keeps its own copy: those seldom repeat, PlacementId.)
  struct TextHash {
    size_t operator()(const Placement& p) const;
  };
  struct SameText {
    bool operator()(const Placement& a, const Placement& b) const;
  };

  int RowOf(JobId id) const;
  uint32_t PlacementId(const Placement& placement);
  std::string PlacementText(const Row& row) const;
  uint32_t VcId(const std::string& vc);

  Chunked<Row> rows_;
  double runtime_factor_ = 1;
  // JobId -> row: a flat vector while ids are small and dense (every trace and generator
  // the project reads), else the map. 4 bytes a job instead of a hash node.
  std::vector<int32_t> dense_rows_;
  std::unordered_map<JobId, int> sparse_rows_;
  std::unordered_map<Placement, uint32_t, TextHash, SameText> placement_ids_;
  std::vector<Placement> placements_{Placement()};
  std::unordered_map<std::string, uint32_t> vc_ids_;
  std::vector<std::string> vc_texts_{""};
  std::vector<int> completion_order_;
  SampleLog samples_;
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

Status WriteTimeSeriesCsv(const MetricsRecorder& recorder, const std::string& path);
// `context` (policy, trace, cluster, seed...) is written under "run".
Status WriteSummaryJson(const Summary& summary,
                        const std::vector<std::pair<std::string, std::string>>& context,
                        const std::string& path);

}  // namespace schedkit

#endif  // SCHEDKIT_METRICS_H_
