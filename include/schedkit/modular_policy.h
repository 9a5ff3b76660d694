// ModularPolicy: a Policy assembled Blox-style from admission, scheduling (ordering),
// placement and preemption modules. Most built-in policies are a SchedulingModule run
// by this one shared mechanism; they differ only in their priority key.
//
// At every decision:
//  1. Arrivals asking for more GPUs than the cluster has are rejected; the rest wait for
//     admission. Admitted jobs enter the pending queue, ordered by (key, submit, id).
//  2. Preemption kNever, or kPriority when every pending job fits beside the running
//     ones or no pending job's key is ahead of any running job's: nobody is preempted;
//     pending jobs are placed greedily in queue order on what is free.
//  3. Otherwise (kPriority, someone must wait and outranks someone running): running
//     jobs are re-keyed at `now` and merged with the queue into one priority order.
//     Walking it, jobs are chosen while their GPU demand fits the cluster's GPU count;
//     chosen pending jobs are placed in order on what running jobs not chosen leave;
//     then each running job not chosen keeps its GPUs if they are still free (no
//     needless restart), or moves if it fits elsewhere, or is preempted; then the rest
//     of the queue backfills.
//  4. With backfill, a job that does not fit is skipped and later jobs may run; without
//     it the walk stops at the first job that does not fit, by GPU count or by
//     placement (head-of-line blocking), and in steps 2-3 nobody moves.
//  5. With replace_all (the Muri/Tiresias simulators' semantics), the schedule is
//     rebuilt from an empty cluster at every decision instead. Jobs live in one
//     persistent list, stable-sorted by key at every decision (ties keep their previous
//     order; newcomers join the back); every job, running or not, is placed afresh in
//     that order. The running set is exactly the one that fresh placement allows;
//     running jobs keep their GPUs when the new set fits around them, else they move.
//     SchedulingModule::MultiLevelFifo adds Tiresias' queue discipline to the list.
//  6. The policy asks to be woken at the earliest SchedulingModule::NextKeyChange of a
//     running job, asked when the job starts and again when that time comes. A key
//     change is thus seen at most once per wake-up, never lost to rounding.
// So running jobs are re-keyed only when it can matter, and an event after which
// everyone pending can start costs no more than placing those jobs, whatever the
// cluster's size.
// Jobs no placement could ever satisfy (e.g. more CPUs than any node has) are not
// detected: they stay pending and end the run unfinished.
#ifndef SCHEDKIT_MODULAR_POLICY_H_
#define SCHEDKIT_MODULAR_POLICY_H_

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "schedkit/job_queue.h"
#include "schedkit/persistent_order.h"
#include "schedkit/policy.h"

namespace schedkit {

struct ModularPolicyConfig {
  std::string name;
  std::unique_ptr<AdmissionModule> admission;
  std::unique_ptr<SchedulingModule> scheduling;
  std::unique_ptr<PlacementModule> placement;
  PreemptionMode preemption = PreemptionMode::kPriority;
  bool backfill = true;
  bool replace_all = false;
};

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

#endif  // SCHEDKIT_MODULAR_POLICY_H_
