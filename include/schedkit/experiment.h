// Experiments: many simulations at once. `schedkit compare` (several policies on one
// trace) and `schedkit sweep` (a grid of traces or loads x seeds x policies x
// clusters) are built from these.
#ifndef SCHEDKIT_EXPERIMENT_H_
#define SCHEDKIT_EXPERIMENT_H_

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace schedkit {

// Calls fn(i) for i in [0, n) on up to `threads` threads (0: one per core). Each index
// is taken exactly once; no new index starts once `*stop` is true (if given).
void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn,
                 const std::atomic<bool>* stop = nullptr);

// Runs every request on the same trace and cluster in parallel; results in input order.
// Each run gets its own policy object and a copy of `options`.
std::vector<Result<RunOutput>> RunAll(const Trace& trace, const ClusterSpec& cluster,
                                      const std::vector<PolicyRequest>& requests,
                                      const SimulatorOptions& options, int threads = 0);

// The side-by-side table of `schedkit compare`: one row per run with avg / p50 / p99
// JCT, makespan, avg queueing delay, utilisation and preemptions, and each run's avg JCT
// as a ratio to the best (lowest) one.
std::string FormatComparison(const std::vector<std::string>& labels,
                             const std::vector<Summary>& summaries);

// `schedkit compare --out DIR`'s tables (docs/sweep.md#compare): DIR/comparison.csv, one row
// per run with the label, every summary.json statistic and `avg_jct_vs_best` (the table's
// "x best"), and DIR/comparison.json, {"runs": [{"policy": label, statistics...}, ...]}.
// DIR must exist.
Status WriteComparison(const std::string& dir, const std::vector<std::string>& labels,
                       const std::vector<Summary>& summaries);

// ---- Sweeps ----------------------------------------------------------------------

struct SweepPolicy {
  std::string label;  // Unique within the sweep; defaults to the policy name.
  PolicyRequest request;
};

// A sweep file (TOML, documented in docs/sweep.md), resolved to absolute paths.
struct SweepConfig {
  std::string name;
  std::string source;                 // The file it came from.
  std::vector<std::string> plugins;   // Plugin files, loaded by LoadSweepConfig.
  std::vector<std::string> clusters;  // Cluster spec files.
  std::vector<std::string> traces;    // Trace files; or, if empty, the generator below.
  GeneratorConfig generator;          // num_jobs, durations; jobs_per_hour and seed vary.
  std::vector<double> loads;          // jobs_per_hour values (generator only).
  std::vector<uint64_t> seeds;        // Generator and policy seeds.
  std::vector<SweepPolicy> policies;
  CompatMode compat = CompatMode::kNone;
  double overhead_s = -1;  // Fixed restart overhead; < 0: the default table.
  // Solo-runtime multiplier (`simulate --runtime-factor`); unset: the compat profile's.
  std::optional<double> runtime_factor;
  // `measure_jobs = [FIRST, LAST]`: summaries over these job ids; unset: the profile's.
  std::optional<MeasuredJobs> measured;
};

// Parses a sweep file, loading the plugins it names (LoadPlugin) before it resolves its
// policies. Errors name the file, line and key.
Result<SweepConfig> LoadSweepConfig(const std::string& path);

// One point of the grid. `id` is stable across runs of the same config, and a valid
// folder name; `params` are its coordinates as the results table's columns.
struct SweepRun {
  size_t index = 0;
  // Folder name: label, cluster stem, workload (trace stem or load) and seed. A stem two
  // files of the config share (clusters/a/x.csv, clusters/b/x.csv) gets a short hash of
  // its path appended, so that no two points share a folder.
  std::string id;
  // Everything that defines the run (policy, modules, options, full paths, generator,
  // load, seed, compat, overheads) as canonical JSON. A finished run whose recorded
  // definition differs (the config was edited) is not reused: it is run again.
  std::string definition;
  std::vector<std::pair<std::string, std::string>> params;
  const SweepPolicy* policy = nullptr;
  std::string cluster;
  std::string trace;  // Empty for generated workloads.
  double load = 0;
  uint64_t seed = 0;
};

// The grid in a fixed order: cluster, then workload (trace, or load x seed), then policy.
std::vector<SweepRun> ExpandGrid(const SweepConfig& config);

// Parses "i/n" (0 <= i < n). Shard i runs the grid points whose index % n == i.
Result<std::pair<int, int>> ParseShard(const std::string& text);

struct SweepOptions {
  std::string out_dir;
  int threads = 0;  // 0: one per core.
  int shard = 0, num_shards = 1;
  // Called after each run finishes (from the thread that ran it, under a lock).
  std::function<void(size_t done, size_t total, const SweepRun&)> progress;
  const std::atomic<bool>* stop = nullptr;  // Set (e.g. by SIGINT) to start no new run.
};

struct SweepReport {
  size_t total = 0;    // Runs in this shard.
  size_t skipped = 0;  // Already finished before (resumed).
  size_t changed = 0;  // Finished before under another definition; run again (in `ran`).
  size_t ran = 0;
  size_t failed = 0;
  std::vector<std::string> errors;
  bool interrupted = false;
};

// Runs the shard's unfinished grid points, each into OUT/runs/<id>/ (jobs.csv,
// timeseries.csv, then summary.json written last and atomically: its presence marks a
// finished run), then rewrites OUT/results.csv from every finished run of the whole
// grid (all shards). Re-running resumes; an interrupted sweep keeps what finished.
Result<SweepReport> RunSweep(const SweepConfig& config, const SweepOptions& options);

// Rewrites OUT/results.csv from the finished runs found under OUT/runs.
Status WriteSweepResults(const SweepConfig& config, const std::string& out_dir);

// ---- Sweeps on a Slurm cluster ----------------------------------------------------

struct SlurmSweepOptions {
  std::string config_path;  // The sweep file, as given to `schedkit sweep`.
  std::string out_dir;      // Must be on a filesystem every node sees.
  std::string schedkit;     // The schedkit binary the array tasks run (absolute path).
  int tasks = 4;            // Array size; each task runs shard i/tasks.
  int cpus_per_task = 1;    // Threads per task.
  std::string sbatch_args;  // Extra sbatch arguments (e.g. "-p gpu --time=60"), split on spaces.
  double poll_s = 1;        // How often squeue is asked whether the array is done.
  std::function<void(const std::string&)> log;  // Progress lines; may be empty.
};

struct SlurmSweepReport {
  std::string job_id;    // The array's Slurm job id.
  size_t finished = 0;   // Grid points with a result after the array ended.
  size_t total = 0;      // Grid points.
};

// Submits the grid as one Slurm job array (`sbatch --array=0-(tasks-1)`, task i runs
// `schedkit sweep CONFIG --out OUT --shard i/tasks`), waits until squeue no longer lists
// it, then merges every shard's runs into OUT/results.csv. Task logs go to
// OUT/slurm/task-<i>.out, each starting with "node=<node name>". Uses the Slurm clients
// on PATH (and $SLURM_CONF). Fails if sbatch fails; missing runs are reported in
// `finished` < `total`, not as an error.
Result<SlurmSweepReport> RunSweepOnSlurm(const SweepConfig& config, const SlurmSweepOptions& options);

}  // namespace schedkit

#endif  // SCHEDKIT_EXPERIMENT_H_
