// The trace-driven, event-driven simulator.
//
// Events (arrivals, completions, membership changes, policy wake-ups) are ordered by
// (time, sequence number); all events at one time form one EventBatch and one Decide
// call. At one time, completions come first, then membership changes, then arrivals. A running
// job holds remaining work (solo seconds) and a rate; its completion event is
// recomputed when its rate changes, and stale completion events are dropped by
// generation number. The clock jumps from event to event: there are no ticks.
// Same trace, cluster, policy, options and seed => byte-identical outputs.
#ifndef SCHEDKIT_SIMULATOR_H_
#define SCHEDKIT_SIMULATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/compat.h"
#include "schedkit/decision.h"
#include "schedkit/job.h"
#include "schedkit/job_source.h"
#include "schedkit/throughput.h"
#include "schedkit/membership.h"
#include "schedkit/policy.h"
#include "schedkit/registry.h"
#include "schedkit/scaling.h"
#include "schedkit/status.h"

namespace schedkit {

// Seconds a job loses each time it (re)starts: checkpoint restore, warm-up. Looked up
// by (model, GPUs); models not in the table pay `default_s`.
class RestartOverheads {
 public:
  explicit RestartOverheads(double default_s = 0) : default_s_(default_s) {}
  // Reads the `restart_overhead_s` column of a Muri-style profile table
  // (model_name,batch_size,num_gpu,...,restart_overhead_s). Errors name file:line:field.
  static Result<RestartOverheads> Load(const std::string& path, double default_s = 0);

  void Set(const std::string& model, int gpus, double seconds) {
    table_[model][gpus] = seconds;
  }
  double For(std::string_view model, int gpus) const;
  double default_s() const { return default_s_; }

 private:
  double default_s_;
  // By model, then GPU count. Looked up by a view of the name: no key is built (a copy
  // of the name, once per job).
  std::map<std::string, std::map<int, double>, std::less<>> table_;
};

struct SimulatorOptions {
  // How running jobs progress (schedkit/compat.h): kClean pays a job's restart overhead
  // once per (re)start; kMuriInterval is the Muri simulator's per-interval accounting.
  // RunSimulation sets it from the request's compat profile.
  ProgressModel progress = ProgressModel::kClean;
  // Solo runtime multiplier; unset means 1 here. RunSimulation fills in the profile's
  // (1.015 under compat muri, Muri's jobs.py) unless the user set one, e.g. to reproduce
  // runs made without Muri's factor (docs/fidelity.md, Themis); the policy's knobs get the
  // same value.
  std::optional<double> runtime_factor;
  RestartOverheads overheads;
  // Nodes joining, draining, failing and recovering (membership.h), in time order.
  // REQUIRES: ValidateMembership accepts them for the cluster.
  std::vector<MembershipEvent> membership;
  // > 0: decisions only at multiples of this many seconds (rounds, as Blox's simulator):
  // arrivals, membership changes and wake-ups at t wait for the first multiple >= t;
  // completions are booked at their own time (the GPUs fall idle) and the policy hears of
  // them at that round's end. 0: event-driven. RunSimulation sets it from the profile.
  double decision_round_s = 0;
  // Not the engine's: RunSimulation's summary takes its per-job statistics over these
  // job ids only (`--measure-jobs`, the blox profile's 3000-4000). Unset: all jobs.
  std::optional<MeasuredJobs> measured;
  bool check_invariants = true;  // Abort on a violated engine invariant.
  // The measured throughput table policies see through ClusterView::Throughputs() (Gavel's
  // co-located pairs); null for none. Job speeds per type come from the jobs themselves.
  std::shared_ptr<const ThroughputTable> throughputs;
  // How elastic jobs (JobSpec::max_gpus) speed up on more GPUs than they ask for
  // (schedkit/scaling.h). REQUIRES: set when the trace has an elastic job (RunSimulation
  // loads the shipped table then); the simulator refuses to run otherwise.
  std::shared_ptr<const ScalingModel> scaling;
};

// Engine signals, for metrics recorders, invariant checkers, experience writers.
class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  virtual void OnJobStart(const JobSpec& job, Time now, const Placement& placement) {}
  virtual void OnJobPreempt(const JobSpec& job, Time now) {}
  virtual void OnJobReject(const JobSpec& job, Time now) {}
  // `first_start` is when it first ran; `executed_s` wall seconds it ran in all.
  virtual void OnJobFinish(const JobSpec& job, Time now, Time first_start, double executed_s,
                           int preemptions, const Placement& last_placement) {}
  // After each decision step whose counts changed.
  virtual void OnClusterState(Time now, int pending, int running, int busy_gpus) {}
};

struct SimulationStats {
  int64_t events = 0;     // Arrivals + completions + membership changes + wake-ups.
  int64_t decisions = 0;  // Decide calls.
  int64_t preemptions = 0;
  int64_t unfinished = 0;  // Jobs never finished (rejected, or stuck when events ran out).
  Time end_time = 0;
};

class Simulator;
struct PredictedFinish;

// What Simulator::Fork returns: the copied simulation and the copied policy that drives it.
struct SimulationFork {
  std::unique_ptr<Simulator> simulator;
  std::unique_ptr<Policy> policy;
};

class Simulator {
 public:
  // `trace` and `cluster` must outlive the simulator.
  Simulator(const Trace* trace, const ClusterSpec* cluster, SimulatorOptions options);
  // STREAMED RUN: jobs are read from `jobs` one at a time as the clock reaches them (one
  // job ahead) instead of from a Trace held in memory, and each job's engine state and
  // spec are freed after the decision point that hears it finished or was rejected, so
  // memory follows the jobs in the system (docs/architecture.md, "Streamed runs"). Same
  // jobs in the same order => the same run, event for event, as with a Trace.
  // Differences: ClusterView::Status and Spec of a job freed that way abort (a policy
  // may read a finished job only in the decision its EventBatch reports it); a bad job
  // (out of (submit, id) order, an id given twice, or one the Trace constructor refuses)
  // or a source error ends the run with that error when it is read, not before the
  // start; Fork refuses. `jobs` and `cluster` must outlive the simulator.
  Simulator(JobSource* jobs, const ClusterSpec* cluster, SimulatorOptions options);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  void AddObserver(SimulationObserver* observer);

  // Runs `policy` from the current point (the start, unless stepped or forked) to the end
  // of the trace. Fails, with "<policy>: <message>", if the policy
  // returns an invalid decision or reports a failure (Decisions::Fail).
  Status Run(Policy* policy);

  // Step interface (learning environments drive the engine one decision at a time):
  // advances to the next event time and fills `events`; returns false when nothing is
  // left to happen. Then the caller must Apply the decisions for that point; Apply fails,
  // changing nothing, on invalid or failed (Decisions::Fail) decisions.
  bool NextDecisionPoint(EventBatch* events);
  Status Apply(const Decisions& decisions);
  const ClusterView& view() const;
  const SimulationStats& stats() const;

  // FORKING: an exact copy of this simulation at its current point, and of `policy`, the
  // policy driving it (Policy::Clone). Run with the copied policy, the copy goes through
  // the very events, decisions, observer signals and stats from here to the end that this
  // simulation goes through with `policy`: the two end byte for byte equal, and either
  // may run first, or both at once in different threads.
  //  Copied: every job's state and lazily booked progress, the clock, the pending events
  //    with their tie order, the wake-up asked for, the bookings, the stats, the options.
  //  Shared, read-only: the trace and the cluster (which must outlive both), the options'
  //    throughput table.
  //  Not copied: observers. The fork starts with none; add its own (a recorder that must
  //    cover the whole run starts as a copy of the original's at the fork).
  //  Cost: O(jobs in the trace + pending events) time and memory, plus the policy's copy;
  //    nothing is re-simulated.
  // Fails, changing nothing, if `policy` cannot be cloned (the error names it), when
  // called between NextDecisionPoint and its Apply (fork before or after a decision), or
  // on a streamed run.
  Result<SimulationFork> Fork(const Policy& policy) const;

 private:
  friend Result<std::vector<PredictedFinish>> SimulateFrom(const ClusterView& view,
                                                          Policy* policy,
                                                          const SimulatorOptions& options,
                                                          std::vector<JobSpec> arrivals);
  Simulator();  // impl_ set by Fork or SimulateFrom.
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// SIMULATING AHEAD FROM A VIEW: what happens to the jobs now in the system if `policy`,
// FRESH (it has decided nothing yet), takes over at view.Now() and no job arrives any more
// (the overload below takes arrivals).
// This serves a policy that looks ahead (the `dynamic` policy) from behind the Policy
// contract: it has only the view, not the engine, so it cannot Fork.
// The look-ahead is the simulator itself, started from the view's state instead of from
// the trace's beginning:
//  - Jobs: the view's running and pending jobs (finished and rejected ones are gone),
//    each with its remaining work (JobStatus::remaining_s, which must be known), executed
//    and attained time, first and last start and preemption count as the view reports them.
//  - Running jobs keep their placements and run ALONE there at their placement's speed
//    (rate 1: co-location groups and guests are not recreated; overlapping placements
//    fail), still paying what is left of their restart overhead (options.overheads, from
//    their last start). The policy adopts them as the runtime's policy does after a
//    restart: it sees them running in the view though it never started them.
//  - Pending jobs are announced to the policy as arrivals in the first EventBatch, at
//    view.Now(), in (submit time, id) order.
//  - Nodes held back in the view (ClusterView::Capacity) stay held; no membership change
//    happens (options.membership is ignored). options' progress model, overheads,
//    throughput table and invariant checks apply; the runtime factor is not applied
//    again (remaining work is taken as the view gives it).
// Returns every job's predicted finish time, kNever for a job that does not finish (the
// policy rejected it, or it was stuck when events ran out), in (submit time, id) order.
// Fails if a job's remaining work is unknown (NaN), on placements that cannot be adopted,
// or if the policy fails ("<policy>: <message>", as Simulator::Run).
// Cost: one simulation of the jobs in the system, O(jobs) to set up; the view is only read.
struct PredictedFinish {
  JobId job = 0;
  Time submit_s = 0;
  Time finish_s = kNever;
  bool arrival = false;  // One of the `arrivals` below, not a job of the view.
};
Result<std::vector<PredictedFinish>> SimulateFrom(const ClusterView& view, Policy* policy,
                                                 const SimulatorOptions& options);

// SIMULATING AHEAD WITH ARRIVALS: the same, but `arrivals` enter the look-ahead after the
// view's time, each at its submit_s, as a trace's jobs do (the same path as a real arrival:
// a job that can never fit is rejected there, one that can reaches the policy in the
// EventBatch of its time, or of the first round boundary at or after it under
// options.decision_round_s). Their work is their JobSpec's solo runtime times
// options.runtime_factor (unset: 1), as in any run; their restart overheads come from
// options.overheads. They exist only in the look-ahead: the view, and the run behind it,
// never hear of them.
// REQUIRES of each arrival (else an error naming the arrival's id and the field): submit_s
// after view.Now(); an id that no job of the view and no other arrival has.
// Returns the view's jobs, then the arrivals (PredictedFinish::arrival), each group in
// (submit time, id) order. With no arrivals, exactly SimulateFrom above. A look-ahead whose
// arrivals are the later jobs of the trace the view's run came from predicts, for every job,
// the finish time a straight run of that whole trace gives, wherever the policy's fresh
// start decides as the running one did (tests/engine/fork_test.cc).
// Cost: that of SimulateFrom plus the arrivals' simulation; O(arrivals log arrivals) to sort.
Result<std::vector<PredictedFinish>> SimulateFrom(const ClusterView& view, Policy* policy,
                                                 const SimulatorOptions& options,
                                                 std::vector<JobSpec> arrivals);

}  // namespace schedkit

#endif  // SCHEDKIT_SIMULATOR_H_
