// How the simulator books a running job's progress between events. One model per run,
// built from the table in progress_model.cc by SimulatorOptions::progress
// (schedkit/compat.h, ProgressModel), the way SimGrid picks its models: the engine loop
// asks the model and never asks which profile is in force.
#ifndef SCHEDKIT_ENGINE_PROGRESS_MODEL_H_
#define SCHEDKIT_ENGINE_PROGRESS_MODEL_H_

#include <memory>

#include "schedkit/compat.h"
#include "schedkit/job.h"

namespace schedkit {

// The part of a running job's engine state a progress model reads and writes.
struct Work {
  double remaining_s = 0;   // Solo seconds left at last_update.
  double rate = 1;          // Solo seconds of work per wall second while running.
  double overhead_s = 0;    // Restart overhead it pays (per start, or per interval).
  Time last_update = 0;     // When remaining_s was last booked.
  Time overhead_until = 0;  // No progress before this (per-start overhead).
};

class ProgressRules {
 public:
  virtual ~ProgressRules() = default;

  // Solo seconds of work left at `t` (>= last_update) as the view reports it.
  virtual double RemainingAt(const Work& w, Time t) const = 0;
  // Books the progress made from w.last_update to `now` into w.remaining_s. The caller
  // books the executed time and moves last_update.
  virtual void Book(Work* w, Time now) const = 0;
  // The work left when the job's completion event fires at `now`, which must be ~0.
  virtual double RemainingAtCompletion(const Work& w, Time now) const = 0;
  // When the job finishes if nothing changes, seen from `now`.
  virtual Time PredictCompletion(const Work& w, Time now) const = 0;
  // Wall seconds executed at `now` by a job that had executed `executed_s` at `last`
  // (the model's order of the floating-point sum).
  virtual double ExecutedAt(double executed_s, Time last, Time now) const = 0;
  // The job (re)starts at `now` with w.overhead_s set.
  virtual void OnStart(Work* w, Time now) const = 0;
  // The overhead one member of a co-located group pays, given its own and the sum of its
  // group's members'.
  virtual double MemberOverhead(double own_s, double group_sum_s) const = 0;
  // True iff every running job is booked at every event and re-predicted after every
  // decision (progress depends on when events happen, not only on rates).
  virtual bool BooksEveryJobAtEveryEvent() const = 0;
};

// The model of the table's row `model`.
std::unique_ptr<ProgressRules> MakeProgressRules(ProgressModel model);

}  // namespace schedkit

#endif  // SCHEDKIT_ENGINE_PROGRESS_MODEL_H_
