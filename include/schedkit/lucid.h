// Lucid / Helios reproduction: virtual clusters, Lucid's side data, and the
// `--compat lucid` engine that reproduces the public Lucid simulator (ASPLOS'23, whose
// engine comes from Helios' "QSSF Service") on integer-second traces.
//
// Virtual clusters: a cluster is a list of VCs, each a number of 8-GPU nodes. A job
// belongs to exactly one VC (JobSpec::vc) and never crosses it, so each VC is simulated
// independently (in parallel threads) and the per-job results are merged; metrics are
// given per VC and cluster-wide. See docs/lucid.md.
#ifndef SCHEDKIT_LUCID_H_
#define SCHEDKIT_LUCID_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/metrics.h"
#include "schedkit/run.h"
#include "schedkit/status.h"
#include "schedkit/trace.h"

namespace schedkit::lucid {

inline constexpr int kGpusPerNode = 8;

struct VirtualCluster {
  std::string name;
  int nodes = 0;
};

// vc_config.csv: header ",num" (or "vc,num"); one VC per line, in file order.
Result<std::vector<VirtualCluster>> LoadVcConfig(const std::string& path);

// Per-job duration estimates (seconds), keyed by job id. Accepts a header
// `job_id,priority` (Lucid's Venus_Sept_lgb.csv / Venus_Sept_ebm_weekly_updated.csv) or
// `job_id,estimate_s` (what `schedkit predict` writes).
Result<std::unordered_map<JobId, double>> LoadEstimates(const std::string& path);

// single_data.csv: share score (`label`) per workload (model, dataset, batchsize, amp).
struct WorkloadKey {
  std::string model, dataset;
  int batch_size = 0;
  bool amp = false;
  auto operator<=>(const WorkloadKey&) const = default;
};
Result<std::map<WorkloadKey, int>> LoadShareScores(const std::string& path);

// colocate_info.csv: measured speeds of a pair (job 1, job 2) sharing GPUs.
struct PairSpeeds {
  double speed1 = 1, speed2 = 1;
};
Result<std::map<std::pair<WorkloadKey, WorkloadKey>, PairSpeeds>> LoadColocateSpeeds(
    const std::string& path);

// Venus_throughput_pred.csv: one row per 10-minute bin; `time` is a date, made relative
// to the first row (which stands for the simulation's t = 0).
struct ThroughputForecast {
  std::vector<int64_t> time_s;       // Relative to the first row.
  std::vector<double> pred_gpu_job;  // Forecast GPU jobs submitted in the bin.
  std::vector<double> pred_gpu_num;  // Forecast GPUs requested in the bin.
};
Result<ThroughputForecast> LoadThroughputForecast(const std::string& path);

// The policies the `--compat lucid` engine runs, each with the Lucid simulator's own
// semantics (not the registered policies of the same names; docs/lucid.md).
enum class CompatPolicy { kFifo, kSjf, kQssf, kTiresias, kLucid };
// "fifo", "sjf", "qssf", "tiresias", "lucid"; fails naming the known ones otherwise.
Result<CompatPolicy> ParseCompatPolicy(const std::string& name);
const char* CompatPolicyName(CompatPolicy p);

// Lucid's profiling pool. The constants are Lucid's; the VC names are the cluster's
// (ConfigFromOptions fills in those of Lucid's Venus run, docs/lucid.md).
struct ProfilerConfig {
  bool enabled = true;  // Lucid only.
  int nodes = 2;        // The profiling pool ("profvc"), taken one node each from donor_vcs.
  std::vector<std::string> donor_vcs;
  int64_t time_limit_s = 200;       // Jobs run at most this long in the profiler.
  int max_gpus = 8;                 // Larger jobs are not profiled (scale x factor = 2 x 4).
  int scale_up_queue = 10;          // Add a node when more jobs wait (checked every 10 s).
  int scale_down_queue = 5;         // Remove it when fewer wait (checked every 100 s) ...
  double scale_down_max_gpus = 40;  // ... and the forecast pred_gpu_num mean is <= this.
  std::string lender_vc;  // The VC that lends the extra node (--compat lucid); empty: none.
};

struct Config {
  CompatPolicy policy = CompatPolicy::kFifo;
  std::vector<VirtualCluster> vcs;
  // QSSF / Lucid: estimate per job id (required for those policies).
  std::unordered_map<JobId, double> estimates;
  // Lucid only.
  std::map<WorkloadKey, int> share_scores;
  std::map<std::pair<WorkloadKey, WorkloadKey>, PairSpeeds> colocate_speeds;
  ThroughputForecast forecast;
  ProfilerConfig profiler;
  int threads = 1;  // VCs simulated concurrently.
};

// What one job went through. Times in seconds from the trace's t = 0.
struct JobResult {
  JobId id = 0;
  std::string vc;
  int gpus = 0;
  int64_t submit_s = 0;
  int64_t start_s = 0;  // First start in its VC (or in the profiler, if it finished there).
  int64_t end_s = 0;
  int64_t queue_s = 0;  // Includes time waiting in the profiler.
  int preemptions = 0;
  bool profiled = false;
  bool finished_in_profiler = false;
  bool colocated = false;  // Shared GPUs with another job at some point.
};

struct MetricSummary {
  int64_t jobs = 0;
  double avg_jct_s = 0;
  double avg_queue_s = 0;
  double p999_queue_s = 0;  // 0.999 quantile, linear interpolation (pandas' default).
};
MetricSummary Summarize(const std::vector<const JobResult*>& jobs);
// The q-quantile of `values` with linear interpolation between order statistics (numpy's
// and pandas' default). REQUIRES: values non-empty, 0 <= q <= 1.
double QuantileLinear(std::vector<double> values, double q);

struct RunResult {
  std::vector<JobResult> jobs;  // Trace order.
  MetricSummary all;
  std::vector<std::pair<std::string, MetricSummary>> per_vc;  // VC config order.
  int64_t profiler_scale_events = 0;
  int64_t colocated_jobs = 0;
  int total_gpus = 0;      // The configured VCs' GPUs (the profiling pool's included).
  int64_t busy_gpu_s = 0;  // GPU-seconds held by jobs, in the VCs and the profiling pool.
  int64_t ticks = 0;       // Ticks the engine visited (and decided at), over all VCs.
};

// Loads the trace of a Lucid experiment (`--compat lucid`, `simulate --vc-config`): jobs
// whose VC is not in `vcs` are dropped. A Lucid/Helios log given no window (both
// options.window_begin and window_end empty) gets Lucid's published experiment window
// (Venus, September 2020), measured as Lucid's trace preparation measures it
// (docs/lucid.md, "Trace window"); a window the caller gives is used as LoadTrace uses
// it. Other formats load exactly as LoadTrace loads them.
Result<Trace> LoadExperimentTrace(const std::string& path, TraceOptions options,
                                  const std::vector<VirtualCluster>& vcs);

// Builds a Config from `--opt key=value` pairs (docs/lucid.md): lucid_dir (folder holding
// Lucid's side files under their Lucid names), vc_config, estimates, share_scores,
// colocate, forecast (paths overriding lucid_dir's), profiler (bool), threads. Files the
// policy does not use are not read. Unknown keys are an error naming the key.
Result<Config> ConfigFromOptions(CompatPolicy policy,
                                 const std::map<std::string, std::string>& opts);

// Runs `config.policy` on every VC of `config.vcs` with the Lucid simulator's 1-second
// tick semantics (docs/lucid.md lists them). Jobs whose VC is not configured are an
// error naming the job. REQUIRES: integer submit times and durations.
Result<RunResult> RunCompat(const Trace& trace, const Config& config);

// The run's cluster-wide figures in summary.json's shape (docs/outputs.md): every job
// finishes; avg_jct_s, avg_queue_s and p999_queue_s are `r.all`'s (Lucid's linear
// interpolation); p50/p95/p99 JCT by nearest rank; gpu_utilization is busy_gpu_s /
// (total_gpus x makespan_s); decisions and events count visited ticks and the VCs' job
// arrivals and ends.
Summary SummarizeRun(const RunResult& r, double wall_s);

// summary.json's `run` block for a `--compat lucid` run: policy, compat, trace, then one
// `opt.KEY` per option, sorted by key.
std::vector<std::pair<std::string, std::string>> CompatRunBlock(
    CompatPolicy policy, const std::string& trace_path,
    const std::map<std::string, std::string>& opts);

// Writes DIR/jobs.csv, DIR/vcs.csv and DIR/summary.json (docs/outputs.md), creating DIR.
// `run` is summary.json's `run` block.
Status WriteCompatOutputs(const RunResult& r, const Summary& summary,
                          const std::vector<std::pair<std::string, std::string>>& run,
                          const std::string& dir);

// The clean model over virtual clusters: any registered policy (request), run by the
// event-driven simulator on each VC's own cluster (nodes x 8 GPUs; CPUs ignored, as in
// Lucid) and sub-trace, VCs in parallel threads. Jobs whose VC is not listed are an
// error. `all` is over every VC's finished jobs (p99.9 with linear interpolation).
//
// Policy "lucid" with option profiler=true (the default) runs Lucid's profiler first,
// over all VCs' jobs, on a pool of one node from each VC named by option
// profiler_donors (those VCs keep one node less). Jobs that end within the pool's time
// limit finish there; the others enter their VC when they leave the pool, with their
// full duration. Node lending from a lender VC is not modelled (docs/lucid.md).
struct VcRun {
  std::string vc;
  ClusterSpec cluster;
  Trace trace;  // A profiled job's submit time here is when it left the profiler.
  RunOutput run;
  // This VC's finished jobs from their original submit times: a profiled job's queueing
  // delay adds its wait for the profiler; jobs that finished in the profiler count here.
  MetricSummary summary;
};
struct ProfiledJobResult {
  JobId id = 0;
  std::string vc;
  int gpus = 0;
  Time submit_s = 0, start_s = 0, end_s = 0;  // Original submit; in and out of the pool.
  bool finished = false;                      // Finished in the profiler.
};
struct VirtualClusterRun {
  std::vector<VcRun> per_vc;  // VC config order.
  MetricSummary all;
  std::vector<ProfiledJobResult> profiled;  // Trace order; empty without the profiler.
  int64_t profiler_scale_events = 0;        // Nodes added to or removed from the pool.
};
Result<VirtualClusterRun> RunVirtualClusters(const Trace& trace,
                                             const std::vector<VirtualCluster>& vcs,
                                             const PolicyRequest& request,
                                             const SimulatorOptions& options, int threads);

// Writes DIR/vcs.csv, DIR/<vc>/jobs.csv for every VC and, when the profiler ran,
// DIR/profiler.csv (docs/outputs.md), creating the folders.
Status WriteVirtualClusterOutputs(const VirtualClusterRun& run, const std::string& dir);

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_H_
