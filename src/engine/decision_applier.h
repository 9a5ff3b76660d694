// DecisionApplier: the one place where a policy's Decisions are checked and booked, shared
// by every engine (the simulator, the real-cluster runtime, the tests' mini runtime). It
// owns the bookings: who holds which resources, a co-location group's members sharing one
// booking that is freed when the last of them stops, a guest booking nothing. The engine
// owns everything else about a job (its state, progress, processes) and carries out, in
// the order the plan gives, what a validated Decisions asks for.
//
// One decision, in an engine:
//   DecisionPlan plan;
//   SCHEDKIT_RETURN_IF_ERROR(applier.Validate(d, now, lookup, &plan));  // All or nothing.
//   for (r : plan.reject) engine rejects r.job
//   for (id : plan.stop) { engine stops id; applier.Release(id); }   // Preempts, then moves.
//   applier.Book(plan);                                               // Every start at once.
//   for (s : plan.start) engine starts s (its group, rate, guest flag, group size)
#ifndef SCHEDKIT_ENGINE_DECISION_APPLIER_H_
#define SCHEDKIT_ENGINE_DECISION_APPLIER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mechanisms/flat_map.h"
#include "schedkit/cluster.h"
#include "schedkit/decision.h"
#include "schedkit/view.h"

namespace schedkit {

// What the engine knows of a job that a decision names.
struct JobFacts {
  JobState state = JobState::kPending;
  int gpus = 0;
  // The most GPUs a start may give it alone (an elastic job, schedkit/scaling.h); 0 or
  // `gpus` = rigid, exactly `gpus`. Co-located and guest starts are always exactly `gpus`.
  int max_gpus = 0;
  // Its spec, when the engine has one: a start on a placement where the job cannot run
  // (PlacementSpeed 0: a GPU type it lists no speed for) is then refused.
  const JobSpec* spec = nullptr;
};
// Fills `facts` and returns true iff the job has arrived (the policy may name it).
using JobLookup = std::function<bool(JobId, JobFacts*)>;

// One start of a plan. `decision` points into the validated Decisions, which must outlive
// the plan's use.
struct StartAction {
  const StartDecision* decision = nullptr;
  int group = -1;      // Index in DecisionPlan::groups; -1 when alone or a guest.
  int group_size = 1;  // Jobs that share its booking (1 alone or a guest).
};

// What the engine must carry out, in this order: rejects, stops, starts.
struct DecisionPlan {
  struct Reject {
    JobId job = 0;
    std::string reason;  // Empty when the policy gave none.
  };
  std::vector<Reject> reject;
  std::vector<JobId> stop;                 // Preempted jobs, then running jobs that a start moves.
  std::vector<StartAction> start;          // In decision order.
  std::vector<std::vector<JobId>> groups;  // Each group's members, in decision order.

  // Appends an empty group, with the storage of one that Clear() emptied: a decision that
  // restarts dozens of groups allocated a vector for each.
  std::vector<JobId>& AddGroup();
  void Clear();

 private:
  std::vector<std::vector<JobId>> spare_groups_;  // Emptied, storage kept.
};

class DecisionApplier {
 public:
  // REQUIRES: `cluster` outlives the applier.
  explicit DecisionApplier(const ClusterSpec* cluster);

  // Resources no booking holds.
  const ClusterState& free() const { return free_; }

  // Why `job` can never run on this cluster, or empty if it can: it asks for more GPUs than
  // the cluster has ("asks for N GPUs; the cluster has M"), or than the cluster has of the
  // GPU types it can run on (throughput.h: SpeedOn > 0), counted across types, since a
  // policy may span them. Engines reject such a job at arrival with this reason.
  std::string NeverFits(const JobSpec& job) const;

  // Checks `d` in full against the jobs' states and the bookings (as they will be after
  // its stops) and fills `plan`; nothing changes. The error says which decision at `now`
  // breaks which rule: a policy bug, not an outcome. `plan` is only valid while `d` is.
  // It works in the applier's scratch (no allocation per decision): one call at a time.
  Status Validate(const Decisions& d, Time now, const JobLookup& jobs, DecisionPlan* plan) const;

  // Books every start of a plan that Validate accepted; every stop of the plan must have
  // been Released first. A group's members share one booking, a guest books nothing.
  void Book(const DecisionPlan& plan);

  // Re-books a job that runs on `placement` (the runtime re-adopting it after a restart).
  // `booking` names the booking it shares with its group (BookingOf when it started; 0 if
  // unknown: it ran alone); `guest` books nothing. Fails when the resources are not free for it.
  Status Adopt(JobId job, const Placement& placement, int64_t booking, bool guest);

  // Drops `job`'s hold on its booking; the resources are freed with the last holder.
  // REQUIRES: `job` holds a booking (was booked or adopted and not released since).
  void Release(JobId job);

  // Holds `node` back from new starts (drained, failed, not yet joined) or lets it take
  // them again. While held, its idle GPUs look booked in free(), and GPUs its jobs release
  // stay booked; bookings already there are untouched (the engine stops them if it must).
  void HoldBack(int node, bool held) { free_.SetHeld(node, held); }
  bool held_back(int node) const { return free_.held(node); }
  // The cluster with nothing booked but the held-back nodes: ClusterView::Capacity.
  ClusterState Capacity() const;

  // The booking `job` shares with its group (unique for the applier's life and, after
  // Adopt, across runtime restarts), or 0 for a guest. REQUIRES: `job` holds one.
  int64_t BookingOf(JobId job) const;

 private:
  // A booking lives in a slot of pool_ that is reused once it is freed: its placement's
  // storage with it, so a start and a completion allocate nothing.
  struct Booking {
    Placement placement;
    int64_t id = 0;
    int holders = 0;
  };
  // Validate without the "decision at t=...: " prefix, which is built only on failure
  // (formatting `now` at every decision cost ~6 % of a 10M-job run).
  Status CheckDecisions(const Decisions& d, Time now, const JobLookup& jobs,
                        DecisionPlan* plan) const;
  // `after` null: check against free() alone, booking nothing (a decision's only start,
  // with nothing stopped before it).
  Status CheckStart(const StartDecision& s, int gpus, int max_gpus, ClusterState* after,
                    FlatMap<const Placement*>* group_placement) const;
  // True iff every share names an existing node, in ascending order, and GPUs it has.
  bool NamesExistingGpus(const Placement& p) const;
  void Hold(JobId job, int64_t booking, const Placement& placement);
  [[noreturn]] static void Die(const std::string& what);

  const ClusterSpec* cluster_;
  std::vector<std::pair<std::string, int>> gpus_per_type_;  // GPUs of each type, by type.
  ClusterState free_;
  FlatMap<int32_t> holds_;         // Job -> its booking's slot in pool_; kGuest for a guest.
  FlatMap<int32_t> booking_slot_;  // Booking id -> its slot in pool_.
  std::vector<Booking> pool_;
  std::vector<int32_t> free_slots_;  // Slots of pool_ no booking uses.
  static constexpr int32_t kGuest = -1;
  // Validate's scratch, kept so that a decision allocates nothing: the resources after
  // the decision's stops and starts so far, and each start's job facts.
  struct StartFacts {
    int gpus;
    int max_gpus;
    const JobSpec* spec;
  };
  mutable ClusterState after_;
  mutable std::vector<StartFacts> start_facts_;
  mutable std::vector<JobId> named_;
  mutable FlatMap<char> scratch_named_;  // Past the first kLinear names.
  mutable FlatMap<int> scratch_holders_left_;                // Booking slot -> holders not stopped.
  mutable FlatMap<const Placement*> scratch_group_placement_;  // Group -> its placement.
  mutable FlatMap<int> scratch_group_index_;                 // Group -> DecisionPlan::groups.
  int64_t next_booking_ = 1;
  int64_t next_unnamed_booking_ = -1;  // For Adopt without a booking id.
};

}  // namespace schedkit

#endif  // SCHEDKIT_ENGINE_DECISION_APPLIER_H_
