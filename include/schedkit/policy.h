// THE POLICY CONTRACT. Read this first.
//
// A policy only decides. Both engines, the simulator (schedkit/simulator.h, also behind
// the learning environments' step interface) and the real-cluster runtime (`schedkit
// serve`), drive the same Policy objects the same way. (In a learning environment, and
// so from Python, an agent's actions take the policy's place: schedkit/env.h.)
//
//   loop:
//     something happens (jobs arrive or finish, a wake-up the policy asked for comes)
//     engine builds a ClusterView at `now` and an EventBatch of what happened
//     policy->Decide(view, events, &decisions)
//     engine validates and applies the decisions (reject, preempt, start/move)
//
// Rules a policy must follow:
//  - It never mutates engine state; it sees the cluster only through ClusterView.
//  - It may keep its own state (ordered queues, statistics), derived only from the
//    views and event batches it was given. One Policy object serves one run; engines
//    create a fresh one per run through the Registry.
//  - It is deterministic: ties are broken by (submit time, job id), never by pointer
//    values or hash order; randomness comes only from the seed in PolicyContext.
//  - A job that does not fit is a normal outcome (it stays pending), not an error. A
//    job larger than the cluster never reaches the policy (the engine rejects it).
//  - A policy that cannot decide (its solver failed) reports it with Decisions::Fail;
//    it never aborts the process.
//  - Co-location is explicit: jobs share GPUs only as members of one StartDecision
//    group (same `group`, same placement), or as a guest (StartDecision::guest: runs on
//    GPUs without booking them, AntMan's opportunistic jobs), each at the `rate` the
//    policy gives it (schedkit/decision.h). Engines never slow a job down on their own.
//
// Policies are usually composed Blox-style from swappable modules: an
// AdmissionModule (which arrivals may queue now), a SchedulingModule (the priority
// order), a PlacementModule (which GPUs) and a preemption mode. ModularPolicy (in
// schedkit/modular_policy.h) glues them together; a policy with its own mechanism
// (co-location groups, LP allocations) implements Policy directly and reuses the
// modules it needs.
#ifndef SCHEDKIT_POLICY_H_
#define SCHEDKIT_POLICY_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/decision.h"
#include "schedkit/view.h"

namespace schedkit {

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view Name() const = 0;
  // Decides what changes at view.Now(). `out` arrives empty.
  virtual void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) = 0;
};

// Admission: which waiting jobs may enter the scheduler's queue now. Jobs not admitted
// wait and are offered again at the next decision (Blox semantics).
class AdmissionModule {
 public:
  virtual ~AdmissionModule() = default;
  virtual std::string_view Name() const = 0;
  // `waiting` is in arrival order; `active_gpu_demand` is the GPUs requested by all
  // admitted, unfinished jobs. Appends to `admitted` a subset of `waiting`, in order.
  virtual void Admit(const ClusterView& view, const std::vector<JobId>& waiting,
                     int64_t active_gpu_demand, std::vector<JobId>* admitted) = 0;
};

// A priority key: lower runs first, compared lexicographically. The mechanism breaks
// remaining ties by (submit time, job id).
using PriorityKey = std::array<double, 3>;

// Scheduling (ordering): the policy's notion of who should run first.
class SchedulingModule {
 public:
  virtual ~SchedulingModule() = default;
  virtual std::string_view Name() const = 0;
  // The key of `job` at `now`. For a pending job the key must not change while it
  // stays pending (the mechanism keeps pending jobs in an ordered set); a running
  // job's key may change with time and is re-read whenever the mechanism compares it
  // with other keys (not necessarily at every decision).
  virtual PriorityKey Key(const JobStatus& job, Time now) const = 0;
  // The earliest time after `now` at which the key of running `job` changes in a way
  // that can reorder jobs (e.g. a Tiresias queue demotion), or kNever. The mechanism
  // asks to be woken then.
  virtual Time NextKeyChange(const JobStatus& job, Time now) const {
    (void)job;
    (void)now;
    return kNever;
  }
};

// Placement: which resources a job gets, given what is free.
class PlacementModule {
 public:
  virtual ~PlacementModule() = default;
  virtual std::string_view Name() const = 0;
  // Returns a placement for `job` within `free`, or an empty one if it does not fit.
  // Must be deterministic and must not return resources that are not free. A fractional
  // job (JobSpec::gpu_milli < 1000) gets one share with the job's gpu_milli.
  virtual Placement Place(const JobSpec& job, const ClusterState& free) const = 0;
  // The view at the start of a decision, before any Place of that decision. For modules
  // that score by what runs where, beyond what ClusterState books (the GPU-sharing
  // modules' pod kinds, docs/fgd.md); the others ignore it. ModularPolicy calls it; a
  // policy that does not leaves such a module with the last view it saw.
  virtual void Observe(const ClusterView& view) { (void)view; }
};

// When a running job may be stopped in favour of a job with a better key.
enum class PreemptionMode {
  kNever,     // Running jobs keep their GPUs until they finish (FIFO, SJF).
  kPriority,  // Any running job may be stopped for a better-keyed one (SRTF, LAS, Tiresias).
};

}  // namespace schedkit

#endif  // SCHEDKIT_POLICY_H_
