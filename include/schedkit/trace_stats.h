// What a trace asks of a cluster: `schedkit trace stats` (docs/cli.md).
#ifndef SCHEDKIT_TRACE_STATS_H_
#define SCHEDKIT_TRACE_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "schedkit/job.h"

namespace schedkit {

struct TraceStats {
  int64_t jobs = 0;
  Time first_submit_s = 0, last_submit_s = 0;  // 0 for an empty trace.
  // Mean arrival rate over the submission span: (jobs - 1) / span x 3600; 0 when every
  // job arrives at the same time.
  double arrivals_per_hour = 0;
  std::map<int, int64_t> jobs_by_gpus;  // GPU count -> jobs asking for it.
  // Solo runtime (JobSpec::SoloRuntime, seconds): nearest-rank quantiles, and the max.
  double runtime_p50_s = 0, runtime_p90_s = 0, runtime_p99_s = 0, runtime_max_s = 0;
  double gpu_seconds = 0;  // Sum of GPUs x solo runtime: the work the trace brings.
  // Jobs submitted in each hour from first_submit_s: [k] counts submit_s - first_submit_s
  // in [3600 k, 3600 (k + 1)). Empty for an empty trace.
  std::vector<int64_t> arrivals_by_hour;
  // The runtime CDF at m = min(jobs, kRuntimeCdfPoints) points: [k - 1] is the nearest-rank
  // quantile k / m of the solo runtimes (k = 1..m), so every job is a point when jobs <= m.
  static constexpr int kRuntimeCdfPoints = 1000;
  std::vector<double> runtime_cdf_s;

  Time span_s() const { return last_submit_s - first_submit_s; }
  // The work offered per second of the submission span, as a share of a cluster of
  // `cluster_gpus` GPUs: above 1 the queue can only grow while jobs arrive. NaN when every
  // job arrives at once (a batch: no rate) or the cluster has no GPU.
  double OfferedLoad(int cluster_gpus) const;
};

TraceStats ComputeTraceStats(const Trace& trace);

// The stats as text, one figure a line (with the offered load when cluster_gpus > 0).
std::string FormatTraceStats(const TraceStats& stats, int cluster_gpus);

// The same figures as one JSON object (`trace stats --figures` writes it as stats.json, and
// the figures are drawn from it; docs/cli.md lists the keys). offered_load is present when
// cluster_gpus > 0 (null for a batch).
std::string TraceStatsJson(const TraceStats& stats, int cluster_gpus);

}  // namespace schedkit

#endif  // SCHEDKIT_TRACE_STATS_H_
