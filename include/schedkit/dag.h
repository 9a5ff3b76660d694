// Spark DAG job scheduling with spark-sched-sim's semantics (docs/dag.md).
//
// A job is a DAG of stages; a stage has a number of tasks whose durations are drawn from
// measured profiles (TPC-H by default) according to how many executors the job holds and
// what each executor did last. Executors move between jobs (paying a moving delay) and are
// handed out in scheduling rounds: at each decision point a pool of executors (the common
// pool, a job's pool or a stage's pool) is the source, and a scheduler commits some of them
// to one schedulable stage per step, until the source is exhausted or nothing is
// schedulable. One engine serves the simulator (`RunDagSimulation`, `schedkit dag
// simulate`), the learning environment (`MakeDagEnvironment`) and experience collection.
//
// Times are milliseconds inside this module (the profiles' unit); summaries report seconds.
#ifndef SCHEDKIT_DAG_H_
#define SCHEDKIT_DAG_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schedkit/env.h"
#include "schedkit/status.h"

namespace schedkit {

// The environment's parameters; the defaults are the published spark-sched-sim config.
struct DagConfig {
  int num_executors = 50;
  int job_arrival_cap = 200;          // Jobs per episode.
  double job_arrival_rate = 4e-5;     // Poisson arrivals, per ms (mean gap 25 s).
  double moving_delay_ms = 2000;      // An executor moving to another job.
  double warmup_delay_ms = 1000;      // Added to a fresh executor's first-wave duration.

  // OK iff every field is in range; otherwise names the field.
  Status Validate() const;
};

// ---------------------------------------------------------------------------------------
// Workloads: DAG templates with per-stage task-duration profiles.

// Task durations (ms) of one stage at one executor level (the number of executors the
// job held when the durations were measured).
struct DagDurations {
  int level = 0;
  std::vector<double> ms;
};

struct DagStageProfile {
  int num_tasks = 0;
  // Preprocessed as spark-sched-sim does (docs/dag.md): first_wave without the values also in
  // fresh_durations, empty levels filled from the nearest lower level. Sorted by level.
  std::vector<DagDurations> first_wave, rest_wave, fresh_durations;
  // Mean of every duration above: a stage's "most recent duration" before its first task.
  double rough_duration_ms = 0;
};

struct DagTemplate {
  std::string name;                       // e.g. "tpch-q9-50g".
  std::vector<DagStageProfile> stages;    // Stage ids are positions; topological order.
  std::vector<std::vector<int>> parents;  // parents[s]: stages that must finish before s.
};

struct DagWorkload {
  std::string source;  // The file it came from.
  std::vector<DagTemplate> dags;  // A job picks one uniformly at random.
};

// Applies spark-sched-sim's preprocessing to raw waves, in place, and sets
// rough_duration_ms. `num_tasks` is left to the caller (it depends on the raw data).
void PreprocessStageProfile(DagStageProfile* stage);

// Reads tpch.json (shared/data/tpch, `jobs[size][query]`) or the native DAG format
// (docs/formats.md, "schedkit_dag": 1). Errors name the file and the JSON path of the field.
// A file of 1 MB or more is parsed once per content: the loaded workload is kept in a binary
// cache file named after the JSON's checksum ($SCHEDKIT_CACHE_DIR, else
// $XDG_CACHE_HOME/schedkit or ~/.cache/schedkit; SCHEDKIT_CACHE_DIR= turns it off), which
// later loads read instead (docs/dag.md, "The workload cache"). Same workload either way.
Result<DagWorkload> LoadDagWorkload(const std::string& path);
// <data dir>/tpch/tpch.json.
std::string DefaultDagWorkloadPath();

// One job of an episode: which template, and when it arrives.
struct DagArrival {
  double time_ms = 0;
  int dag = 0;  // Index into DagWorkload::dags.
};

// ---------------------------------------------------------------------------------------
// What a scheduler sees and returns (the spark-sched-sim observation and action).

struct DagNode {
  int job = 0;                  // Index into the active jobs (DagObservation::job_ids).
  int stage = 0;                // Stage id within the job's DAG.
  int remaining_tasks = 0;      // Tasks not yet launched.
  double recent_duration_ms = 0;  // Duration of the stage's latest launched task.
  int schedulable_index = -1;   // Position in DagObservation::schedulable, or -1.
  int active_parents = 0;       // Incoming edges from incomplete stages.
  bool schedulable() const { return schedulable_index >= 0; }
};

// A snapshot at a decision point. Nodes are the incomplete stages of the active jobs,
// ordered by job arrival, then stage id.
struct DagObservation {
  double now_ms = 0;
  int num_executors = 0;
  std::vector<DagNode> nodes;
  std::vector<std::array<int, 2>> edges;  // (parent node, child node), both incomplete.
  std::vector<int> job_ptr;      // Nodes of active job j are [job_ptr[j], job_ptr[j+1]).
  std::vector<int> job_ids;      // Episode job id (arrival order) of each active job.
  std::vector<int> exec_supply;  // Per active job: executors at it + moving to it + committed.
  int source_job = 0;            // Active job releasing executors; num_jobs() = common pool.
  int num_committable = 0;       // Executors of the source pool not yet committed this round.
  std::vector<int> schedulable;  // Node indices of schedulable stages, in node order.

  int num_jobs() const { return static_cast<int>(job_ids.size()); }
  // How many executors job j could still receive this round (Decima's first node feature):
  // all committable ones for the source job, else min(max(N - supply, 0), committable).
  int CommitCap(int j) const {
    if (j == source_job) return num_committable;
    const int room = num_executors - exec_supply[j];
    return room > 0 ? (room < num_committable ? room : num_committable) : 0;
  }
};

// stage: index into DagObservation::schedulable, or -1 to commit every remaining executor of
// the source to the common pool (ends the round). num_exec in 1..N, at most num_committable;
// it is cut to the stage's demand (remaining tasks - executors moving there - committed there).
struct DagAction {
  int stage = -1;
  int num_exec = 1;
};

// A DAG scheduling policy: heuristics, Decima and learned policies alike. It only decides;
// it never sees engine state beyond the observation.
class DagScheduler {
 public:
  virtual ~DagScheduler() = default;
  virtual const char* Name() const = 0;
  // Called at the start of each episode (seed of the episode).
  virtual void Reset(uint64_t seed) {}
  // REQUIRES: !obs.schedulable.empty() and obs.num_committable > 0.
  virtual DagAction Decide(const DagObservation& obs) = 0;
};

// The built-in DAG schedulers: "fair", "fifo" (cap N), "fifo-half" (cap ceil(N/2), NetLLM's
// FIFO), "decima" (spark-sched-sim's GNN policy, actions sampled from a generator reseeded
// with the episode's seed) and "decima-greedy" (its argmax actions); docs/decima.md.
// `options` are key=value pairs validated against the scheduler's DagSchedulerOptions
// (Decima: `weights`, a weights JSON, default DefaultDecimaWeightsPath()). InvalidArgument
// naming the scheduler when unknown, or the option when bad; Decima's weight-file errors
// name the file and the tensor.
Result<std::unique_ptr<DagScheduler>> MakeDagScheduler(
    const std::string& name, const DagConfig& config,
    const std::map<std::string, std::string>& options = {});
std::vector<std::string> DagSchedulerNames();
// The options a scheduler accepts: (name, help) pairs; empty for the heuristics.
std::vector<std::pair<std::string, std::string>> DagSchedulerOptions(const std::string& name);
// <data dir>/decima/decima_tpch.json: the public pretrained weights (data/decima/README.md).
std::string DefaultDecimaWeightsPath();

// Round-robin over jobs in arrival order with a per-job executor cap: Fair when
// `dynamic_cap` (cap = ceil(N / active jobs)), else FIFO with a fixed cap.
std::unique_ptr<DagScheduler> MakeRoundRobinScheduler(bool dynamic_cap, int fixed_cap,
                                                      const char* name);

// ---------------------------------------------------------------------------------------
// Simulation.

struct DagJobResult {
  int id = 0;          // Arrival order.
  std::string dag;     // Template name.
  double arrival_ms = 0;
  double completion_ms = 0;
  int num_stages = 0;
  int num_tasks = 0;
  double jct_s() const { return (completion_ms - arrival_ms) / 1000.0; }
};

// One task, for Gantt charts (docs/outputs.md, tasks.csv).
struct DagTaskRecord {
  int job = 0, stage = 0, task = 0, executor = 0;
  double start_ms = 0, end_ms = 0;
  enum class Kind : uint8_t { kFresh, kFirstWave, kRestWave, kFallback } kind = Kind::kFresh;
};

struct DagSummary {
  int64_t jobs = 0;
  double avg_jct_s = 0;
  double p50_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0;  // Nearest rank.
  double makespan_s = 0;      // Last completion - first arrival.
  double total_reward = 0;    // Sum of step rewards (= -sum of JCTs in ms).
  int64_t decisions = 0;      // Scheduler calls (steps).
  int64_t events = 0;         // Arrivals, executor arrivals and task completions handled.
  int64_t tasks = 0;
  double wall_s = 0;          // Simulation run time (the only non-deterministic field).
};

struct DagRunResult {
  DagSummary summary;
  std::vector<DagJobResult> jobs;     // By job id.
  std::vector<DagTaskRecord> tasks;   // In launch order; empty unless record_tasks.
};

struct DagRunOptions {
  bool record_tasks = false;
  // Explicit arrivals (sorted by time) instead of the seeded Poisson sequence.
  std::vector<DagArrival> arrivals;
};

// Runs one episode with `scheduler` through the same step mechanism as the environment.
// A scheduler returning an illegal action ends the run with an InvalidArgument naming it.
Result<DagRunResult> RunDagSimulation(const DagConfig& config, const DagWorkload& workload,
                                      DagScheduler& scheduler, uint64_t seed,
                                      const DagRunOptions& options = {});

// summary.json, jobs.csv and tasks.csv (columns in docs/outputs.md) under `dir`.
Status WriteDagOutputs(const DagRunResult& result,
                       const std::vector<std::pair<std::string, std::string>>& context,
                       const std::string& dir);

// Experience pool (docs/learning.md): runs episodes with `scheduler` (seeds seed, seed+1, ...)
// until `steps` decisions are recorded, writing one JSON line per step to `path`:
// {"episode", "step", "state": {field: {"shape", "data"}}, "action": [stage_idx, num_exec],
//  "reward", "done", "truncated"}. The state is the observation the action was taken in.
struct DagCollectStats {
  int64_t steps = 0;
  int64_t episodes = 0;           // Episodes started (the last may be cut by the step limit).
  int64_t completed_episodes = 0;
};
Result<DagCollectStats> CollectDagExperience(const DagConfig& config, const DagWorkload& workload,
                                             DagScheduler& scheduler, uint64_t seed, int64_t steps,
                                             const std::string& path);

// ---------------------------------------------------------------------------------------
// Learning environment (docs/learning.md): Reset/Step over the same engine. Observation
// fields and the action are documented there. The workload is shared, not copied.
Result<std::unique_ptr<Environment>> MakeDagEnvironment(
    const DagConfig& config, std::shared_ptr<const DagWorkload> workload);
// Loads DefaultDagWorkloadPath().
Result<std::unique_ptr<Environment>> MakeDagEnvironment(const DagConfig& config);

// The observation as named tensors (the environment's observation; docs/learning.md).
Observation DagObservationTensors(const DagObservation& obs);

}  // namespace schedkit

#endif  // SCHEDKIT_DAG_H_
