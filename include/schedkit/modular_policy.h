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
//     QueueDiscipline::kLevelFifo makes the list a set of FIFO queues (below).
//  6. The policy asks to be woken at the earliest SchedulingModule::NextKeyChange of a
//     running job, asked when the job starts and again when that time comes. A key
//     change is thus seen at most once per wake-up, never lost to rounding. With
//     running_key_rate (periodic key changes whose keys grow linearly, LAS), a wake-up
//     at which the order cannot have changed is skipped (ModularPolicyConfig).
//  7. With tail_preemption (Blox's placement), every decision walks all admitted jobs,
//     running ones re-keyed, in key order. A running job keeps its GPUs. A pending job
//     is placed on what is free; if it does not fit and preemption is kPriority, running
//     jobs are stopped from the tail of the order (the lowest first, only those behind
//     it), one at a time, until it fits: those stops stand even if it never fits. The
//     first job that cannot be placed ends the walk (no backfill, whatever `backfill`
//     says). A job stopped earlier in the walk is placed again when the walk reaches it;
//     it then keeps or moves its GPUs instead of stopping.
// With running_keys_never_grow (SRTF, SRSF), step 3 re-keys only the running jobs at the
// top, which pending ones may push out, and with running_key_fall only those of them
// whose keys could have fallen far enough since last read to change a comparison.
// So running jobs are re-keyed only when it can matter, and an event after which
// everyone pending can start costs no more than placing those jobs, whatever the
// cluster's size.
// Jobs no placement could ever satisfy (e.g. more CPUs than any node has) are not
// detected: they stay pending and end the run unfinished.
#ifndef SCHEDKIT_MODULAR_POLICY_H_
#define SCHEDKIT_MODULAR_POLICY_H_

#include <functional>
#include <memory>
#include <string>

#include "schedkit/policy.h"

namespace schedkit {

// How the persistent list of step 5 (replace_all) orders jobs whose keys tie. Without
// replace_all the discipline changes nothing: ties go by (submit time, job id).
enum class QueueDiscipline {
  // The list is stable-sorted by key: tied jobs keep the order they had.
  kStableByKey,
  // key[0] is a queue level and each level is a FIFO queue, as in multi-level feedback
  // queues (Tiresias): a job whose level changes joins the back of its new level, and
  // after each decision the jobs then running move ahead of the others in their level
  // (both keeping their order). Keys should tie within a level (key[1] = key[2] = 0).
  kLevelFifo,
};

// A rate read from a running job's status: how fast its key[0] grows per second
// (ModularPolicyConfig::running_key_rate) or may fall per second of its solo work
// (running_key_fall).
using KeyRate = std::function<double(const JobStatus& running)>;

struct ModularPolicyConfig {
  std::string name;
  // Copying a config clones its modules (ModulePtr): a ModularPolicy is cloned exactly
  // (Policy::Clone) when its three modules can be.
  ModulePtr<AdmissionModule> admission;
  ModulePtr<SchedulingModule> scheduling;
  ModulePtr<PlacementModule> placement;
  PreemptionMode preemption = PreemptionMode::kPriority;
  bool backfill = true;
  bool replace_all = false;  // Step 5 (PolicyKnobs::list_ordered_replacement).
  bool tail_preemption = false;  // Step 7 (PolicyKnobs::tail_preemption).
  QueueDiscipline queue_discipline = QueueDiscipline::kStableByKey;  // Step 5's list.
  // What the scheduling module's keys promise, which lets the mechanism do less work
  // for the same decisions; false is always safe.
  // NextKeyChange(job, now) depends on `now` only (a fixed period, as LAS's quantum):
  // while nobody waits no key change can reorder anything, so the policy is not woken;
  // it catches up later from each missed time, so the times it is woken at once someone
  // waits stay those of a wake-up every period.
  bool periodic_key_changes = false;
  // A running job's key never grows while it keeps running (SRTF: remaining work only
  // falls or stands still). Step 3 then keeps running jobs ordered by keys read earlier,
  // which bound today's from above, and re-reads and sorts only those at the top, which
  // pending jobs may push out; the others are chosen whatever their order.
  bool running_keys_never_grow = false;
  // With running_keys_never_grow: how fast a running job's key may fall. While the job
  // runs in place, key[0] falls by at most running_key_fall(its status) per second of
  // its solo work (SRTF: 1; SRSF: its GPUs) and its other elements stand. The engines'
  // progress rule bounds its solo work per wall second (StartDecision::rate x
  // PlacementSpeed, on as many GPUs as it asks for), so step 3 knows how far below the
  // key last read each job's key may be now: a job whose bound stays above the next
  // job's key keeps its place unread, and a comparison with a pending job that the
  // bound decides needs no read either. Empty: no promise (every such job is read).
  KeyRate running_key_fall = nullptr;
  // A running job's key changes only at its NextKeyChange times (Tiresias: at a
  // demotion): read when it starts and at each of them, it is exact in between. Step 3
  // then keeps running jobs in an ordered set re-keyed at those times, and walks only
  // the boundary between running and pending jobs, as with running_keys_never_grow.
  // It also promises that they may be read late: at a time t while the job has kept
  // running since it started, the key is the one a read at each change up to t would
  // give, and NextKeyChange(job, t) the first change after t that such reads would have
  // foreseen (Tiresias computes its demotions from the run's start, not from the time
  // asked). While nobody waits no key change can reorder anything, so the policy is not
  // woken; the changes that came meanwhile are read at the next decision.
  bool running_keys_change_at_wakeups = false;
  // With periodic_key_changes: a running job's key is {k0 + rate x (t - now), k1, k2} at
  // every t >= now while it keeps running, where {k0, k1, k2} is its key at `now` and
  // rate = running_key_rate(its status at `now`) >= 0 (LAS: its attained service grows by
  // its GPUs, or by 1 on wall-seconds, per second). Empty: no promise. The mechanism
  // then wakes, after a decision that started, stopped and rejected nothing, not at the
  // next periodic wake-up but at the first one at or after which a comparison between
  // keys that the decision made could have come out the other way: in between, every
  // decision would see the same jobs, resources and comparisons, so it would do nothing
  // again (the argument, and what it needs of the placement module, admission and
  // engine: ModularPolicy::BookDecisions).
  KeyRate running_key_rate = nullptr;
};

// The policy that runs `config`'s modules by the steps above.
// REQUIRES: admission, scheduling and placement are set.
std::unique_ptr<Policy> MakeModularPolicy(ModularPolicyConfig config);

}  // namespace schedkit

#endif  // SCHEDKIT_MODULAR_POLICY_H_
