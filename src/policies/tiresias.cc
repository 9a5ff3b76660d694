// Tiresias: discretised 2D-LAS. Jobs sit in queues by attained GPU-time (queue k once
// attained >= thresholds[k-1]); lower queues run first. Within a queue running jobs stay
// ahead (no preemption inside a queue) and pending jobs are FIFO by queue entry time
// (arrival for queue 0, the demotion time for the others).
// A running job is demoted the moment it crosses a threshold: the policy asks to be
// woken then. With the knob whole_second_thresholds (the Muri profile), demotion times are
// ceil(threshold / GPUs) seconds of execution, as in the Muri/Tiresias simulator
// (docs/fidelity.md).
#include <cfloat>
#include <cmath>

#include "mechanisms/job_slots.h"
#include "schedkit/ordering_policy.h"
#include "policies/queue_levels.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

class TiresiasOrder final : public CopyableModule<TiresiasOrder, SchedulingModule> {
 public:
  // `list_ordered`: the mechanism keeps list order within a queue (kLevelFifo), so
  // only the queue is in the key. `whole_seconds`: demotions fall on whole seconds of
  // executed time (thresholds are compared exactly, QueueLevels::Make).
  TiresiasOrder(QueueLevels levels, bool list_ordered, bool whole_seconds)
      : levels_(std::move(levels)), list_ordered_(list_ordered), whole_seconds_(whole_seconds) {}
  std::string_view Name() const override { return "tiresias"; }

  // (queue, not running, time the job entered that queue): jobs are preempted only by
  // jobs of a higher-priority queue, as in the Tiresias simulator, and pending jobs of a
  // queue are FIFO by entry time. In list-ordered mode the list discipline orders within
  // a queue instead (QueueDiscipline::kLevelFifo), so only the queue is in the key.
  PriorityKey Key(const JobStatus& job, Time now) const override {
    const size_t q = levels_.LevelOf(job.attained_gpu_s);
    if (list_ordered_) return {static_cast<double>(q), 0, 0};
    return {static_cast<double>(q), job.running() ? 0.0 : 1.0, EntryTime(job, q, now)};
  }

  // Also foresees when the job crosses into the next queue if it runs on: the first
  // crossing of its run after `now` (RunCrossing), which is also its entry time there.
  // With whole_seconds the wake-up comes at the next whole second of execution instead;
  // in that mode a key may change before its wake-up, but the mode comes only with the
  // Muri profile's list-ordered replacement, where the mechanism reads every key at every
  // decision (running_keys_change_at_wakeups is then unused).
  // The answer depends on the run, not on when it is asked: asked late, at any time
  // after a crossing while the job has kept running, it gives the crossing the wake-up
  // at that crossing would have foreseen (the mechanism sleeps while nobody waits and
  // asks late: ModularPolicyConfig::running_keys_change_at_wakeups).
  Time NextKeyChange(const JobStatus& job, Time now) const override {
    if (whole_seconds_) {
      const size_t q = levels_.LevelOf(job.attained_gpu_s);
      if (levels_.IsLast(q)) return kNever;
      return (std::ceil(levels_.UpperBound(q) / job.spec->gpus) - job.executed_s) + now;
    }
    History& h = history_[job.spec->id];
    if (!OnRun(h, job, now)) {
      h.run_start = now;
      h.run_attained = job.attained_gpu_s;
    }
    for (size_t k = levels_.LevelOf(h.run_attained); !levels_.IsLast(k); ++k) {
      const Time t = RunCrossing(h, k, job.spec->gpus);
      if (t > now) return t;
    }
    return kNever;
  }

 private:
  // Per job: the queue it was last seen in (0: none yet) and when it entered it, and the
  // run NextKeyChange last saw begin: when, and the attained GPU-seconds then (its
  // attained service grows by its GPUs per second from there while it runs).
  struct History {
    size_t level = 0;
    Time entry = 0;
    Time run_start = kNever;
    double run_attained = 0;
  };

  // When the run in `h` reaches the end of queue k (thresholds[k]): from the run's
  // start, so that every read gives the same time.
  Time RunCrossing(const History& h, size_t k, int gpus) const {
    return h.run_start + (levels_.UpperBound(k) - h.run_attained) / gpus;
  }

  // Whether `job`, running at `now`, has run without a pause since the run in `h` began:
  // its attained service is on the run's line, to the rounding of the engine's and this
  // extrapolation (a pause of more than about a microsecond is off the line).
  bool OnRun(const History& h, const JobStatus& job, Time now) const {
    if (h.run_start == kNever || !job.running()) return false;
    const double gpus = job.spec->gpus;
    const double line = h.run_attained + (now - h.run_start) * gpus;
    const double tolerance =
        16 * DBL_EPSILON * (std::abs(job.attained_gpu_s) + gpus * (std::abs(now) + std::abs(h.run_start)));
    return std::abs(job.attained_gpu_s - line) <= tolerance;
  }

  // When the job's attained service crossed the threshold of queue q (its submit time for
  // queue 0), remembered once known, since a pending job's history is not in its status.
  // A crossing during the run NextKeyChange last saw begin (the job's last or current run)
  // is the time RunCrossing gives, whenever the key is first read in queue q, so that the
  // entry time does not depend on when it is read (now - overshoot / GPUs, computed at
  // different times, differs in the last bits). Only a job whose crossing NextKeyChange
  // never saw (a runtime adopting it, queues changed by whole-second rounding) falls back
  // to that formula, read now.
  Time EntryTime(const JobStatus& job, size_t q, Time now) const {
    if (q == 0) return job.spec->submit_s;
    History& h = history_[job.spec->id];
    if (h.level == q) return h.entry;
    h.level = q;
    if (h.run_start != kNever && levels_.LevelOf(h.run_attained) < q) {
      h.entry = RunCrossing(h, q - 1, job.spec->gpus);
    } else {
      h.entry =
          job.running() ? now - (job.attained_gpu_s - levels_.LowerBound(q)) / job.spec->gpus : now;
    }
    return h.entry;
  }

  QueueLevels levels_;
  bool list_ordered_;
  bool whole_seconds_;
  // Derived only from statuses seen, so runs stay deterministic. Never erased: dense
  // pages by job id (a hash map cost a node and a hash per job, ~4 % of a 1M-job run).
  mutable JobSlots<History> history_;
};

}  // namespace

Status RegisterTiresias(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "tiresias",
       .description = "Discretised 2D-LAS: multi-level queues by attained GPU-time, FIFO within a queue",
       .options = {QueueLevels::Option()},
       .default_placement = "gpu-count",
       .default_preemption = PreemptionMode::kPriority,
       .queue_discipline = QueueDiscipline::kLevelFifo,
       .running_keys_change_at_wakeups = true,  // At demotions, when it asks to be woken.
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         const PolicyKnobs& k = ctx.knobs;
         Result<QueueLevels> levels = QueueLevels::Make(
             "tiresias", ctx.options.DoubleList("thresholds"), k.whole_second_thresholds);
         if (!levels.ok()) return levels.status();
         return std::unique_ptr<SchedulingModule>(std::make_unique<TiresiasOrder>(
             std::move(levels).value(), k.list_ordered_replacement, k.whole_second_thresholds));
       }},
      r);
}

}  // namespace schedkit
