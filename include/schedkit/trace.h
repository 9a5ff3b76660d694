// Workloads: trace readers by format, and the synthetic generator.
#ifndef SCHEDKIT_TRACE_H_
#define SCHEDKIT_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

enum class TraceFormat {
  kAuto,         // Detect from the first line (see DetectTraceFormat).
  kNative,       // schedkit CSV, documented in docs/formats.md.
  kMuri,         // Muri/Tiresias CSV (job_id,num_gpu,submit_time,iterations,...), times in ms.
  kGavel,        // Gavel 10-column TSV (physical_cluster/*.trace), no header.
  kGavelLegacy,  // Gavel 7-column TSV (msr_legacy_seed0/*.trace), no header.
  kLucid,        // Lucid cluster_full_log / Helios cluster_log CSV (dated submit_time).
  kPhilly,       // Microsoft Philly cluster_job_log: a JSON list of jobs with attempts.
  kPai,          // Alibaba PAI 2020 pai_job_table.csv (headerless), with pai_task_table.csv beside it.
  kOpenb,        // Alibaba GPU-sharing openb_pod_list_*.csv (fractional GPUs, docs/fgd.md).
};

// "auto", "native", "muri", "gavel", "gavel-legacy", "lucid", "philly", "pai", "openb".
Result<TraceFormat> ParseTraceFormat(const std::string& name);
const char* TraceFormatName(TraceFormat f);

// Detects the format from a file's first line. Fails naming the file if none matches.
Result<TraceFormat> DetectTraceFormat(const std::string& path);

struct TraceOptions {
  TraceFormat format = TraceFormat::kAuto;
  // Gavel traces give steps, not times: a job's iteration time is 1 / its isolated
  // throughput (steps/s) on `gavel_gpu_type` (its reference type) in Gavel's
  // simulation_throughputs.json, and its speed on every type of the table is its
  // throughput there over that one (JobSpec::profile.type_speeds, schedkit/throughput.h).
  // Empty path: <data dir>/gavel/simulation_throughputs.json (see DataDir()).
  std::string gavel_throughputs_path;
  std::string gavel_gpu_type = "v100";

  // Dated logs (kLucid, whose submit_time is a date, docs/formats.md): only jobs submitted
  // in [window_begin, window_end] (both inclusive; "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD",
  // wall-clock times in the log's zone) are kept, and submit_s counts from window_begin.
  // An empty bound is no bound; with no window_begin, submit_s counts from the first job
  // kept. LoadTrace fails, naming the file and the window, when a bound is not a date,
  // when the window keeps no job, or when a bound is given for a format without dates.
  std::string window_begin;
  std::string window_end;

  // Lucid/Helios logs: timestamps are wall-clock times at UTC + lucid_utc_offset_s (0:
  // UTC, as the reference runs used). Jobs with no GPU, or whose VC is not in lucid_vcs
  // (when non-empty), are dropped before the window is applied.
  int64_t lucid_utc_offset_s = 0;
  std::vector<std::string> lucid_vcs;
};

// Parses "YYYY-MM-DD HH:MM:SS" (or "YYYY-MM-DD") as a UTC calendar time; returns false
// if the text is not such a date.
bool ParseDateTimeUtc(const std::string& text, int64_t* unix_s);

// Reads a trace. Jobs come back sorted by (submit time, id). Errors are one line naming
// the file, the 1-based line number and the field ("t.csv:7: field 'num_gpu': 'x' is
// not an integer").
Result<Trace> LoadTrace(const std::string& path, const TraceOptions& options = {});

// The folder of shipped data: $SCHEDKIT_DATA_DIR if set, else the source tree's data/.
std::string DataDir();

// Writes `trace` in the native format (round-trips through LoadTrace exactly).
Status WriteNativeTrace(const Trace& trace, const std::string& path);

// Synthetic workloads (`schedkit generate`).
struct GeneratorConfig {
  // The whole trace is built in memory (about 300 bytes a job), so num_jobs is bounded:
  // 0 <= num_jobs <= kMaxJobs, else GenerateTrace fails with InvalidArgument.
  static constexpr int64_t kMaxJobs = 20'000'000;
  int64_t num_jobs = 1000;
  double jobs_per_hour = 60;  // Poisson arrivals.
  enum class Durations {
    kBlox,    // GPUs 1/2/4/8 at 70/10/15/5 %; durations log-uniform, 80 % in
              // 10^1.5..10^3 min and 20 % in 10^3..10^4 min (Blox/Gavel).
    kPhilly,  // (duration, GPUs) pairs sampled from Gavel's Philly distribution file.
    // Gavel's generator: durations as kBlox; GPUs (scale factor) 1, or 1/2/4/8 at
    // 70/10/15/5 % with gavel_multi_gpu; a job type drawn uniformly from those the table
    // measured on a V100 at that scale factor; steps = floor(duration x V100 steps/s);
    // iteration time 1 / V100 steps/s; speeds per type from the table.
    kGavel,
    // Blox's Philly-derived workload with its published defaults: durations as kBlox,
    // every job 1 GPU (Blox's simulator redraws the Philly jobs' durations this way).
    kBloxPhilly,
    // Blox's dual load (Figures 12-13), every job 1 GPU: a base stream of Poisson
    // arrivals at jobs_per_hour with durations uniform in [36,000, 86,400] s, plus a
    // burst stream at 4 x jobs_per_hour with durations uniform in [600, 3,600] s that is
    // on only inside the windows DualLoadBurstOn names. num_jobs counts both streams;
    // ids follow the merged arrival order. Draw order in docs/formats.md.
    kDualLoad,
  } durations = Durations::kBlox;
  std::string philly_distribution_path;  // Required for kPhilly.
  std::string gavel_throughputs_path;    // Required for kGavel.
  bool gavel_multi_gpu = false;          // kGavel: scale factors 1/2/4/8, else all 1.
  // Elastic jobs (schedkit/scaling.h): > 0 makes every job elastic up to this many GPUs
  // (JobSpec::max_gpus = max(gpus, max_gpus): a job asking for as many or more stays
  // rigid). 0 = rigid jobs. Draws nothing: the same seed gives the same jobs otherwise.
  int max_gpus = 0;
  uint64_t seed = 0;
};

// Same config and seed = same trace, on every platform (the generator does not use
// std:: distributions, whose output is implementation-defined).
Result<Trace> GenerateTrace(const GeneratorConfig& config);

// The names `schedkit generate --durations` and a sweep's `workload.durations` take:
// blox, philly, gavel, gavel-multi, blox-philly, dual-load. Sets config->durations
// (and gavel_multi_gpu); a kind that reads a data file gets its path under `data_dir`
// unless one is set. Fails naming the known names otherwise.
Status SetGeneratorDurations(const std::string& name, const std::string& data_dir,
                             GeneratorConfig* config);
// The name SetGeneratorDurations takes for `config`'s durations.
const char* GeneratorDurationsName(const GeneratorConfig& config);

// The dual load's burst switch: on from each multiple of 14,400 s to the first multiple
// of 21,600 s at or after it, i.e. in [14400, 21600) and [28800, 43200) of every
// 43,200-s period (a switch-on at a multiple of 43,200 s is switched off at once).
bool DualLoadBurstOn(double t_s);

}  // namespace schedkit

#endif  // SCHEDKIT_TRACE_H_
