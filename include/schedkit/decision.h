// What a policy returns to an engine, and what it is told has happened since last time.
#ifndef SCHEDKIT_DECISION_H_
#define SCHEDKIT_DECISION_H_

#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"

namespace schedkit {

// Everything that happened since the previous Decide call, all at or before Now().
// Each job appears in `arrived` exactly once in a run and in `finished` at most once.
struct EventBatch {
  std::vector<JobId> arrived;   // New jobs, in (submit, id) order. Pending until started.
  std::vector<JobId> finished;  // Jobs that completed their work.
  bool woken = false;           // A wake-up the policy asked for has come.
};

struct StartDecision {
  JobId job = 0;
  Placement placement;
};

// The policy's orders. The engine applies them in this order: reject, preempt, start.
// A start naming a running job moves it (a migration: stop, then restart elsewhere).
// An engine refuses decisions that break its state (starting a finished job,
// double-booking a GPU) with an error: that is a policy bug, not an outcome.
struct Decisions {
  std::vector<JobId> reject;         // Pending jobs that will never run.
  std::vector<JobId> preempt;        // Running jobs to stop; they become pending again.
  std::vector<StartDecision> start;  // Jobs to (re)start on the given resources.
  Time wake_at = kNever;             // Call Decide again no later than this, even if nothing happens.

  bool empty() const { return reject.empty() && preempt.empty() && start.empty(); }
  void Clear() { *this = Decisions(); }
};

}  // namespace schedkit

#endif  // SCHEDKIT_DECISION_H_
