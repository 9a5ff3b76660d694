// ModularPolicy: the mechanism behind MakeModularPolicy (schedkit/modular_policy.h, which
// documents its steps). Internal: users build it through the factory.
#ifndef SCHEDKIT_POLICIES_MODULAR_POLICY_H_
#define SCHEDKIT_POLICIES_MODULAR_POLICY_H_

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "mechanisms/job_queue.h"
#include "mechanisms/persistent_order.h"
#include "schedkit/modular_policy.h"

namespace schedkit {

class ModularPolicy final : public Policy {
 public:
  // REQUIRES: admission, scheduling and placement are set.
  explicit ModularPolicy(ModularPolicyConfig config);
  ~ModularPolicy() override;

  std::string_view Name() const override { return config_.name; }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override;

 private:
  using QueueEntry = QueuedJob;
  struct Candidate {
    QueueEntry order;
    JobStatus status;
  };

  void AdmitArrivals(const ClusterView& view, const EventBatch& events, Decisions* out);
  void Enqueue(const JobStatus& pending, Time now);
  std::vector<Candidate> RunningInOrder(const ClusterView& view) const;
  void DecideKeepRunning(const ClusterView& view, Decisions* out);
  // Places every pending job beside the running ones; false (and `out` untouched) if
  // one does not fit.
  bool PlaceAllPending(const ClusterView& view, Decisions* out);
  // True iff every running job's key is ahead of the best pending job's: then nobody
  // can be preempted (step 2). O(running), no sort.
  bool RunningAllAheadOfPending(const ClusterView& view) const;
  void DecidePriority(const ClusterView& view, const std::vector<Candidate>& running,
                      Decisions* out);
  void DecideReplaceAll(const ClusterView& view, Decisions* out);
  // Places pending jobs from the queue, in order, on `free`; stops on the first
  // misfit without backfill. Skips jobs in `skip`.
  void PlacePending(const ClusterView& view, ClusterState* free, Decisions* out,
                    const std::set<JobId>& skip = {});
  // Updates the queue and the wake-ups after the decisions; sets out->wake_at.
  void BookDecisions(const ClusterView& view, Decisions* out);
  // Puts a running job that stops now (preempted by this policy, or interrupted by the
  // engine) back in the queue.
  void Requeue(const ClusterView& view, JobId id);
  void SetWake(JobId id, Time at, Time now);
  void ForgetWake(JobId id);

  ModularPolicyConfig config_;
  std::vector<JobId> waiting_;  // Arrived, not yet admitted, in arrival order.
  int64_t admitted_gpu_demand_ = 0;
  JobQueue queue_;  // Admitted pending jobs.
  // replace_all only: every admitted unfinished job, in the persistent list order.
  PersistentOrder list_;
  // Running jobs' next key changes (SchedulingModule::NextKeyChange), earliest first.
  std::set<std::pair<Time, JobId>> wakes_;
  std::unordered_map<JobId, Time> wake_of_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_POLICIES_MODULAR_POLICY_H_
