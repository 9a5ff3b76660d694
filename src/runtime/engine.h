// The runtime's scheduling loop. On every submit, finish, cancel or wake-up it builds the
// same ClusterView + EventBatch the simulator gives a policy, asks the policy, and applies
// its decisions through the backend; every transition is written to the store first.
// Time for the policy is seconds since the service's first start (kept in the store), so
// attained service is measured run time and survives restarts.
#ifndef SCHEDKIT_RUNTIME_ENGINE_H_
#define SCHEDKIT_RUNTIME_ENGINE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/decision_applier.h"
#include "runtime/backend.h"
#include "runtime/store.h"
#include "schedkit/policy.h"
#include "schedkit/runtime.h"
#include "schedkit/scaling.h"

namespace schedkit::runtime {

struct JobEvent {
  int64_t seq = 0;
  double time = 0;
  std::string kind;
  JobRecord job;
};

struct NodeStatus {
  std::string name;
  int gpus = 0, free_gpus = 0;
  bool drained = false;
  std::string gpu_type;
};

struct ClusterSummary {
  std::vector<NodeStatus> nodes;
  int64_t pending = 0, running = 0, finished = 0;
};

class Engine {
 public:
  // Loads the store, re-adopts or requeues jobs that were running, and starts the loop.
  static Result<std::unique_ptr<Engine>> Start(const RuntimeOptions& options,
                                               std::unique_ptr<Store> store,
                                               std::unique_ptr<Backend> backend,
                                               std::unique_ptr<Policy> policy);
  ~Engine();
  void Stop();

  // REQUIRES: `job` was validated (see service.cc). Assigns id, submit time, defaults.
  // A job whose idempotency key a stored job has is not stored: that job's id is returned.
  Result<JobId> Submit(JobRecord job);
  Result<JobRecord> Get(JobId id) const;
  // Jobs in `states` (all if empty) with ids > `after`, in id order, at most `limit`.
  std::vector<JobRecord> List(const std::vector<RunState>& states, JobId after = 0,
                              size_t limit = SIZE_MAX) const;
  // Returns the state the job had.
  Result<RunState> Cancel(JobId id);
  // Drained (true): no new job starts on the node, running ones finish there; false
  // undrains it. Kept across restarts. NotFound names the known nodes.
  Status SetDrained(const std::string& node, bool drained);
  // Grows or shrinks running job `id` to `gpus` GPUs on its node while it keeps running
  // (docs/runtime.md): re-books it, stores the new request, appends "up" or "down" to its
  // events file and records a "resized" event. `*previous` gets its GPUs before. A resize
  // the job's state or the cluster does not allow sets `*refused` (the reason) and changes
  // nothing; errors are NotFound or the store's.
  Status Resize(JobId id, int gpus, int* previous, std::string* refused);
  ClusterSummary Summary() const;
  int TotalGpus() const { return backend_->Cluster().TotalGpus(); }
  const std::string& backend_name() const { return backend_name_; }

  // Events with seq > after, waiting up to `timeout_s` for one; empty on timeout or stop.
  std::vector<JobEvent> EventsAfter(int64_t after, double timeout_s) const;
  int64_t LastEventSeq() const;
  bool stopped() const;

 private:
  class View;
  struct Live;

  Engine(const RuntimeOptions& options, std::unique_ptr<Store> store,
         std::unique_ptr<Backend> backend, std::unique_ptr<Policy> policy);
  Status Recover();
  void Loop();
  // REQUIRES: mu_ held. Writes `rec` and records an event.
  Status Transition(Live& live, const std::string& kind, double unix_time);
  void Decide(double now_unix);
  // Rejects arrivals that can never fit (they never reach the policy).
  void RejectUnfittable(double now_unix);
  void Apply(const Decisions& d, double now_unix);
  // The applier's view of job `id` (JobLookup). REQUIRES: mu_ held.
  bool Facts(JobId id, JobFacts* facts) const;
  void StopRunning(Live& live, double now_unix);
  void StartJob(Live& live, const StartAction& start, double now_unix);
  // A start that failed (the job cannot run): FAILED with exit code 127.
  void FailStart(Live& live, const std::string& message, double now_unix);
  // Re-adopts a job the store says is running, or finishes or requeues it.
  void Readopt(Live& live, double now_unix);
  void Finish(Live& live, RunState state, int exit_code, const std::string& message,
              double now_unix, const std::string& kind);
  void PollBackend(double now_unix);
  // Ends (TIMEOUT) the running jobs whose run time has reached their time limit.
  void EnforceTimeLimits(double now_unix);

  RuntimeOptions options_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Policy> policy_;
  std::string backend_name_;
  double origin_unix_ = 0;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  mutable std::condition_variable events_cv_;
  std::map<JobId, std::unique_ptr<Live>> jobs_;  // Every job ever submitted.
  std::map<std::string, JobId> by_idempotency_key_;
  std::vector<JobId> running_;
  std::vector<JobId> arrived_, finished_;  // Since the last decision.
  DecisionApplier applier_;  // Bookings: what is free, who shares what.
  // How elastic jobs speed up on more GPUs than they ask for: the shipped table, loaded
  // once at start (the simulator's model, schedkit/scaling.h).
  std::shared_ptr<const ScalingModel> scaling_;
  DecisionPlan plan_;

  double wake_at_unix_ = 0;  // 0 = none.
  bool dirty_ = false, stop_ = false;
  std::deque<JobEvent> events_;  // The most recent, for WatchJobs.
  int64_t event_seq_ = 0;
  std::thread loop_;
};

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_ENGINE_H_
