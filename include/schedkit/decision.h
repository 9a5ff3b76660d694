// What a policy returns to an engine, and what it is told has happened since last time.
#ifndef SCHEDKIT_DECISION_H_
#define SCHEDKIT_DECISION_H_

#include <string>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

// Everything that happened since the previous Decide call, all at or before Now().
// Each job appears in `arrived` exactly once in a run and in `finished` at most once.
// A job that asks for more GPUs than the cluster has never reaches the policy: the
// engine rejects it at arrival with the reason "asks for N GPUs; the cluster has M".
struct EventBatch {
  std::vector<JobId> arrived;   // New jobs, in (submit, id) order. Pending until started.
  // Jobs that completed their work; in the runtime also jobs that were cancelled or could
  // not start, which may have been pending: a policy must drop them from its queues.
  // A job is listed here only after the batch that listed it in `arrived` (the runtime
  // tells nothing of a job cancelled before the policy heard of it), except a running job
  // the runtime re-adopted after a restart (docs/runtime.md, Limits).
  std::vector<JobId> finished;
  // Running jobs the engine stopped on its own because their node failed (membership.h):
  // pending again, with their progress kept, for the policy to restart like jobs it
  // preempted itself. A policy that keeps state about running jobs must update it.
  std::vector<JobId> interrupted;
  bool woken = false;           // A wake-up the policy asked for has come.
};

// Starts (or moves) one job. Co-location (Muri's multi-resource interleaving): the
// starts in one Decisions that carry the same nonzero `group` form a group that shares
// ONE placement; every member must name the identical placement, which is booked once
// and freed when the last member stops or finishes. A group's members may have
// different rates. Joining a running job's resources requires restarting that job in
// the same group (a change of co-location is a restart).
struct StartDecision {
  JobId job = 0;
  Placement placement;
  // Speed relative to running alone on `placement`: the job does `rate` seconds of its
  // solo work per wall second (Muri: solo iteration time / group iteration time).
  // REQUIRES: rate > 0 and finite. 1 = alone; it stays until the job is stopped or
  // started again.
  double rate = 1.0;
  int64_t group = 0;  // 0 = alone; else members of one group share one placement.
  // Opportunistic co-location (AntMan): a guest runs on the named GPUs without booking
  // them. They need not be free, stay available to every later start, and the guest's
  // use of them is not counted as GPU time. The placement must name existing GPUs of
  // distinct nodes, as many as the job asks for; its CPUs and memory are ignored. The
  // policy keeps any sharing limit and gives the guest its slowed `rate`.
  // REQUIRES: group == 0.
  bool guest = false;
};

// The policy's orders. The engine applies them in this order: reject, preempt, start.
// A start naming a running job moves it (a migration: stop, then restart elsewhere).
// An engine refuses decisions that break its state (starting a finished job,
// double-booking a GPU) with an error: that is a policy bug, not an outcome. Decisions
// are checked in full before any is applied (all or nothing).
struct Decisions {
  std::vector<JobId> reject;         // Pending jobs that will never run.
  // Why, for users (the runtime stores and prints it): reject_reason[i] explains
  // reject[i]; a missing or empty entry gives no reason. Reject() keeps the two aligned.
  std::vector<std::string> reject_reason;
  std::vector<JobId> preempt;        // Running jobs to stop; they become pending again.
  std::vector<StartDecision> start;  // Jobs to (re)start on the given resources.
  Time wake_at = kNever;             // Call Decide again no later than this, even if nothing happens.
  // The policy could not decide (e.g. its solver failed): set with Fail(), never abort.
  // The engine then applies none of these decisions; the simulator ends the run with the
  // error "<policy>: <message>", the runtime logs it and asks again at its next poll.
  Status error;

  void Reject(JobId job, std::string reason) {
    reject_reason.resize(reject.size());
    reject.push_back(job);
    reject_reason.push_back(std::move(reason));
  }
  // The reason given for reject[i], or "" if none.
  const std::string& RejectReason(size_t i) const {
    static const std::string kNone;
    return i < reject_reason.size() ? reject_reason[i] : kNone;
  }
  void Fail(std::string message) { error = Status::Internal(std::move(message)); }
  bool failed() const { return !error.ok(); }

  bool empty() const { return reject.empty() && preempt.empty() && start.empty(); }
  // As a new Decisions, keeping the vectors' storage (the simulator reuses one per run).
  void Clear() {
    reject.clear();
    reject_reason.clear();
    preempt.clear();
    start.clear();
    wake_at = kNever;
    error = Status();
  }
};

}  // namespace schedkit

#endif  // SCHEDKIT_DECISION_H_
