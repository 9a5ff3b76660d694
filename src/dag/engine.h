// The DAG scheduling engine: spark-sched-sim's executor pools, commitments, scheduling rounds
// and task-duration sampling (docs/dag.md). The simulator, the environment and experience
// collection all drive it through Reset / observation / Step.
#ifndef SCHEDKIT_DAG_ENGINE_H_
#define SCHEDKIT_DAG_ENGINE_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <random>
#include <vector>

#include "mechanisms/portable_rng.h"
#include "schedkit/dag.h"

namespace schedkit::dag {

// The executor level whose durations a task uses, given the n executors at the job (n >= 1):
// n <= 5 -> 5; at a level -> that level; between levels l < n < r -> l with probability
// (n - l) / (r - l) (decima-sim's `1 + int(U * (r - l)) <= n - l`); above 100 -> 100.
// `u` is a uniform draw in [0, 1); it is used only between levels.
int SampleExecutorLevel(int n, double u);
// True iff SampleExecutorLevel draws a random number for n.
bool ExecutorLevelNeedsDraw(int n);

// The DAG simulator's draws: portable sequences (mechanisms/portable_rng.h).
using DagRng = PortableRng;

// What the executor did before this task: nothing (idle, just moved or arrived), a task of
// the same stage, or a task of another stage of the same job.
enum class PriorTask { kNone, kSameStage, kOtherStage };

// One task duration (ms) by spark-sched-sim's rules (docs/dag.md): the executor level from
// `local_execs`, then fresh_durations / first_wave + warm-up for kNone, rest_wave (falling
// through when empty) for kSameStage, first_wave, else fresh_durations.
double SampleTaskDuration(const DagStageProfile& profile, int local_execs, PriorTask prior,
                          double warmup_ms, DagRng& rng, DagTaskRecord::Kind* kind);

struct StepOutcome {
  double reward = 0;  // -(integral of jobs in the system over the step), in ms.
  bool done = false;  // Every job has completed.
};

class Engine {
 public:
  static constexpr int kNone = -1;    // No pool (an executor on the move).
  static constexpr int kCommon = 0;   // The common pool.

  Engine(const DagConfig& config, const DagWorkload* workload);

  // Starts an episode: Poisson arrivals drawn from `seed`, or the given ones.
  // REQUIRES: arrivals (when given) sorted by time, the first at 0.
  void Reset(uint64_t seed, const std::vector<DagArrival>* arrivals = nullptr);

  // The observation at the current decision point (no job once done()).
  const DagObservation& observation() const { return obs_; }

  // Applies one commitment; if the round ends, runs the simulation to the next decision point.
  // An illegal action is an InvalidArgument and changes nothing. If the simulation runs out of
  // events with jobs unfinished (the scheduler kept executors away from every runnable stage),
  // the step fails and the episode is over until the next Reset.
  Result<StepOutcome> Step(const DagAction& action);

  bool done() const { return completed_jobs_ == static_cast<int>(jobs_.size()); }
  double now_ms() const { return now_; }
  int64_t events() const { return events_; }
  int64_t steps() const { return steps_; }

  void set_record_tasks(bool on) { record_tasks_ = on; }
  const std::vector<DagTaskRecord>& tasks() const { return task_log_; }
  // Results of every job (completion_ms is +inf while unfinished).
  std::vector<DagJobResult> JobResults() const;

  // Introspection for tests.
  int pool_size(int pool) const { return static_cast<int>(pools_[pool].size()); }
  int job_pool(int job) const { return 1 + job; }
  int stage_pool(int job, int stage) const { return 1 + num_jobs() + jobs_[job].first + stage; }
  int executor_pool(int e) const { return execs_[e].pool; }
  int executor_job(int e) const { return execs_[e].job; }
  int exec_supply(int job) const { return jobs_[job].supply; }
  int num_jobs() const { return static_cast<int>(jobs_.size()); }
  int moving_to(int job, int stage) const { return stages_[jobs_[job].first + stage].moving; }
  bool job_completed(int job) const { return jobs_[job].completion < kInf; }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  enum class EventType : uint8_t { kJobArrival, kExecutorReady, kTaskFinished };
  struct Event {
    double time;
    uint64_t seq;
    EventType type;
    int a;  // Job (arrival), executor (ready, finished).
    int b;  // Stage (global index) for ready and finished.
  };
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };
  struct StageState {
    int job = 0, id = 0;
    int num_tasks = 0, remaining = 0, executing = 0, completed = 0;
    int incomplete_parents = 0;
    int moving = 0;       // Executors on their way to this stage.
    int committed = 0;    // Commitments to this stage.
    double recent_ms = 0;
    bool selected = false;  // Picked in the current round.
    const DagStageProfile* profile = nullptr;
  };
  struct JobState {
    int dag = 0;
    int first = 0;  // Global index of stage 0.
    int num_stages = 0;
    int active_stages = 0, saturated_stages = 0;
    int local_execs = 0;
    int supply = 0;
    double arrival = 0, completion = kInf;
  };
  struct ExecState {
    int job = kNone;       // Job the executor is local to.
    int pool = kCommon;
    int pos = 0;           // Index in pools_[pool].
    int last_stage = -1;   // Global stage of its current/last task; -1 when idle ("no task").
    bool executing = false;
    int task = 0;          // Index in task_log_ of the running task (when recording).
  };
  struct Commitment {
    int dst;
    int count;
  };

  // Pools and commitments.
  int PoolJob(int pool) const;  // kNone for the common pool.
  bool IsStagePool(int pool) const { return pool > num_jobs(); }
  int PoolStage(int pool) const { return pool - 1 - num_jobs(); }
  void PlaceInPool(int e, int pool);
  void RemoveFromPool(int e);
  int NumCommittable() const;
  void AddCommitment(int n, int dst);
  int RemoveCommitment(int e, int dst);
  int PeekCommitment(int pool) const;
  int Demand(const StageState& s) const { return s.remaining - s.moving - s.committed; }
  bool Saturated(const StageState& s) const { return Demand(s) <= 0; }
  bool JobSaturated(int j) const { return jobs_[j].saturated_stages == jobs_[j].num_stages; }
  int SourceJob() const { return source_ <= 0 ? kNone : PoolJob(source_); }

  // Scheduling.
  bool StageReady(const StageState& s) const;
  void FindSchedulable(const int* jobs, int n, int source_job, std::vector<int>* out) const;
  void BuildObservation();

  // Simulation.
  void Push(double t, EventType type, int a, int b);
  void HandleEvent(const Event& ev);
  void OnJobArrival(int j);
  void OnExecutorReady(int e, int g);
  void OnTaskFinished(int e, int g);
  void CommitRemaining();
  void FulfillFromSource();
  void FulfillCommitment(int e, int dst);
  void MoveIdle(int src, const std::vector<int>* execs);
  void MoveToStage(int e, int g);
  void Send(int e, int g);
  void TryBackup(int e);
  int FindBackup(int e) const;
  void ExecuteNextTask(int e, int g);
  double SampleDuration(int e, int g, DagTaskRecord::Kind* kind);
  void CompleteJob(int j);
  void Resume();
  void Advance(double t);

  DagConfig config_;
  const DagWorkload* workload_;
  DagRng rng_;

  std::vector<JobState> jobs_;
  std::vector<StageState> stages_;
  std::vector<std::vector<int>> children_;  // Per global stage: global children.
  std::vector<ExecState> execs_;
  std::vector<std::vector<int>> pools_;
  std::vector<std::vector<Commitment>> commitments_;  // Per source pool, insertion order.
  std::vector<int> commitments_from_;
  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  uint64_t seq_ = 0;

  std::vector<int> active_jobs_;     // Arrival order.
  std::vector<int> schedulable_;     // Global stage ids, in node order.
  std::vector<int> selected_;        // Stages picked this round.
  int source_ = kNone;
  bool stalled_ = false;
  double now_ = 0;
  int completed_jobs_ = 0;
  int jobs_in_system_ = 0;
  double job_time_ms_ = 0;  // Integral of jobs in the system up to now_.
  int64_t events_ = 0, steps_ = 0;

  bool record_tasks_ = false;
  std::vector<DagTaskRecord> task_log_;
  std::vector<int> scratch_;
  DagObservation obs_;
  std::vector<int> node_of_stage_;  // Global stage -> node index in obs_ (or -1).
};

}  // namespace schedkit::dag

#endif  // SCHEDKIT_DAG_ENGINE_H_
