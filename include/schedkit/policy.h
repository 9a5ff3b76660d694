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
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/decision.h"
#include "schedkit/status.h"
#include "schedkit/view.h"

namespace schedkit {

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view Name() const = 0;
  // Decides what changes at view.Now(). `out` arrives empty.
  virtual void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) = 0;
  // An exact, independent copy of this policy and all its state, for forking a simulation
  // (Simulator::Fork): given the same views and events from now on, the copy decides
  // exactly as this policy would. The copy shares nothing mutable with this one, so the
  // two may run in different threads. A policy that cannot be copied (its state lives in
  // another process, or in Python) keeps this default, which fails naming the policy.
  virtual Result<std::unique_ptr<Policy>> Clone() const {
    return Status::InvalidArgument("policy '" + std::string(Name()) + "' cannot be cloned");
  }
  // Writes the policy's own output files, if it has any (the `dynamic` policy's
  // switches.csv), into `dir`, the run's output folder, after the run. Each is documented
  // in docs/outputs.md. Most policies have none.
  virtual Status WriteOutputs(const std::string& dir) const {
    (void)dir;
    return Status::Ok();
  }
};

// Builds Policy::Clone from a copyable policy's copy constructor:
//   class MyPolicy final : public ClonablePolicy<MyPolicy> { ... };
// The copy constructor must copy every piece of state (modules held in ModulePtr do).
// A copy whose module could not be cloned fails, naming the policy and the module.
template <typename Derived>
class ClonablePolicy : public Policy {
 public:
  Result<std::unique_ptr<Policy>> Clone() const override {
    auto copy = std::make_unique<Derived>(static_cast<const Derived&>(*this));
    Status st = copy->ModulesCloned();
    if (!st.ok()) return Status::InvalidArgument("policy '" + std::string(Name()) + "': " + st.message());
    return std::unique_ptr<Policy>(std::move(copy));
  }
  // OK iff every module of this (copied) policy is set. Policies holding ModulePtrs
  // override it to check them (ModulePtr::Check).
  virtual Status ModulesCloned() const { return Status::Ok(); }
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
  // An exact copy with the same state, or null if this module cannot be copied (then no
  // policy holding it can be cloned: Policy::Clone). CopyableModule implements it.
  virtual std::unique_ptr<AdmissionModule> Clone() const { return nullptr; }
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
  // As AdmissionModule::Clone.
  virtual std::unique_ptr<SchedulingModule> Clone() const { return nullptr; }
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
  // As AdmissionModule::Clone.
  virtual std::unique_ptr<PlacementModule> Clone() const { return nullptr; }
  // The view at the start of a decision, before any Place of that decision. For modules
  // that score by what runs where, beyond what ClusterState books (the GPU-sharing
  // modules' pod kinds, docs/fgd.md); the others ignore it. ModularPolicy calls it; a
  // policy that does not leaves such a module with the last view it saw.
  virtual void Observe(const ClusterView& view) { (void)view; }
  // True iff, on a cluster of one GPU type, Place's answer depends on `free` and the job's
  // shape (gpus, gpu_milli, cpus, mem_gb) only: not on its id, its other fields or anything
  // Observe saw. A caller that tries many jobs on one unchanged `free` may then remember
  // the shapes that did not fit and skip their jobs (ModularPolicy's backfill walk does).
  // False, the default, is always safe.
  virtual bool PlacesByShape() const { return false; }
  // True iff every placement Place gives `job`, on any free state of `free`'s cluster, is
  // on one node that has at least job.gpus whole GPUs free in that state. A caller that
  // sees no such node in a state may then take Place's answer there to be empty without
  // asking (ModularPolicy's step 3 does, for the state its stopped jobs would leave).
  // False, the default, is always safe.
  virtual bool PlacesOnOneNodeWithFreeGpus(const JobSpec& job, const ClusterState& free) const {
    (void)job;
    (void)free;
    return false;
  }
};

// Implements Clone for a module that its copy constructor copies exactly:
//   class MyOrder final : public CopyableModule<MyOrder, SchedulingModule> { ... };
template <typename Derived, typename Module>
class CopyableModule : public Module {
 public:
  std::unique_ptr<Module> Clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Owns a module, like unique_ptr, but copying it clones the module (Module::Clone), so a
// policy holding its modules in ModulePtrs is copied by its implicit copy constructor. The
// copy of a module that cannot be cloned is null; Check says which.
template <typename Module>
class ModulePtr {
 public:
  ModulePtr() = default;
  template <typename M, typename = std::enable_if_t<std::is_convertible_v<M*, Module*>>>
  ModulePtr(std::unique_ptr<M> m) : m_(std::move(m)) {}  // NOLINT: implicit, as unique_ptr.
  ModulePtr(const ModulePtr& o) : m_(o.m_ ? o.m_->Clone() : nullptr), from_(o.m_ ? o.Name() : "") {}
  ModulePtr& operator=(const ModulePtr& o) { return *this = ModulePtr(o); }
  ModulePtr(ModulePtr&&) noexcept = default;
  ModulePtr& operator=(ModulePtr&&) noexcept = default;

  Module* get() const { return m_.get(); }
  Module* operator->() const { return m_.get(); }
  Module& operator*() const { return *m_; }
  explicit operator bool() const { return m_ != nullptr; }

  // OK unless this is the null copy of a module that cannot be cloned; `role` names it in
  // the error ("placement module 'x' cannot be cloned").
  Status Check(const std::string& role) const {
    if (m_ || from_.empty()) return Status::Ok();
    return Status::InvalidArgument(role + " module '" + from_ + "' cannot be cloned");
  }

 private:
  std::string Name() const { return std::string(m_->Name()); }
  std::unique_ptr<Module> m_;
  std::string from_;  // The name of the module this was copied from.
};

// When a running job may be stopped in favour of a job with a better key.
enum class PreemptionMode {
  kNever,     // Running jobs keep their GPUs until they finish (FIFO, SJF).
  kPriority,  // Any running job may be stopped for a better-keyed one (SRTF, LAS, Tiresias).
};

}  // namespace schedkit

#endif  // SCHEDKIT_POLICY_H_
