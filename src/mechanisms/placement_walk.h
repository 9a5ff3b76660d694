// PlacementWalk: a free state that many queued jobs are placed on in turn (a backfill
// walk), remembering the job shapes that did not fit on it as it is now. With a long
// queue on a nearly full cluster most jobs do not fit; when the placement module answers
// by shape (PlacementModule::PlacesByShape) a job whose shape already failed on the
// unchanged state is skipped without a Place, which on a large cluster scans every node.
// Every change of the state goes through Allocate, which forgets the failed shapes, so
// each answer is the one the module would give: the walk decides exactly as before.
#ifndef SCHEDKIT_MECHANISMS_PLACEMENT_WALK_H_
#define SCHEDKIT_MECHANISMS_PLACEMENT_WALK_H_

#include <array>
#include <optional>
#include <vector>

#include "schedkit/policy.h"

namespace schedkit {

class PlacementWalk {
 public:
  // What a PlacesByShape module's answer depends on, besides the free state. Jobs of
  // equal shapes (a NaN never equals) get one answer on one state.
  struct Shape {
    int gpus;
    int gpu_milli;
    int cpus;
    double mem_gb;
    bool operator==(const Shape&) const = default;
  };
  static Shape ShapeOf(const JobSpec& job) { return {job.gpus, job.gpu_milli, job.cpus, job.mem_gb}; }

  // Walks `free`, its own (a copy of an lvalue).
  PlacementWalk(const PlacementModule& placement, ClusterState&& free);
  PlacementWalk(const PlacementModule& placement, const ClusterState& free)
      : PlacementWalk(placement, ClusterState(free)) {}
  // Walks `*free` itself, then, once a job is placed and the state is read again, a copy
  // of it: a decision that places nothing copies nothing, nor one that places one job and
  // asks only MayFit after it (on 1,280 nodes the copy is 30 KB). REQUIRES: `*free`
  // outlives the walk and does not change while it lives.
  PlacementWalk(const PlacementModule& placement, const ClusterState* free);
  // Storage a caller keeps across walks, so that a walk on a borrowed state allocates
  // nothing once warm: the copy of the state (assigned into `state`, whatever it held)
  // and the placements allocated before the copy is made.
  struct Scratch {
    std::optional<ClusterState> state;
    std::vector<Placement> allocated;
  };
  // The same, with `*scratch`'s storage. REQUIRES: `*scratch` outlives the walk, no other
  // walk uses it meanwhile, and its state is not `*free`.
  PlacementWalk(const PlacementModule& placement, const ClusterState* free, Scratch* scratch);
  // Walks `*free` itself and changes it: Allocate books on it at once (a caller's scratch
  // state, prepared for the walk). REQUIRES: `*free` outlives the walk.
  struct InPlace {};
  PlacementWalk(const PlacementModule& placement, ClusterState* free, InPlace);
  PlacementWalk(const PlacementWalk&) = delete;
  PlacementWalk& operator=(const PlacementWalk&) = delete;

  // The state after every Allocate so far.
  const ClusterState& free() const {
    if (!allocated_->empty()) CopyWithAllocations();
    return *free_;
  }
  // free().MayFit(gpus, gpu_milli), without copying a borrowed state when only whole-GPU
  // placements were allocated on it. Inline: the backfill walk asks it for every demand
  // class at every step.
  bool MayFit(int gpus, int gpu_milli) const {
    if (allocated_->empty()) return free_->MayFit(gpus, gpu_milli);
    if (allocated_fraction_) return free().MayFit(gpus, gpu_milli);
    // Whole-GPU bookings take their GPUs from the free count and leave the shared GPUs.
    return free_->MayFit(gpus + allocated_gpus_, gpu_milli);
  }
  // placement.Place(job, free()), or an empty placement without asking when a job of the
  // same shape got one since the last Allocate.
  Placement Place(const JobSpec& job);
  // REQUIRES: free().CanAllocate(p).
  void Allocate(const Placement& p);
  // Allocate(p) if free().CanAllocate(p), checked once; returns whether it booked.
  bool TryAllocate(const Placement& p);
  // True iff the module answers by shape on this walk's cluster
  // (PlacementModule::PlacesByShape and one GPU type): then jobs of one shape get one
  // answer from Place while allocations() is unchanged.
  bool places_by_shape() const { return by_shape_; }
  // Place calls answered from the remembered shapes (for tests).
  int64_t skipped() const { return skipped_; }
  // Allocate calls so far: the free state is the one an answer was read on while this
  // count is unchanged (every change of the state goes through Allocate).
  int64_t allocations() const { return allocations_; }

 private:
  // Walks, from now on, a copy of the borrowed state with `*allocated_` booked on it.
  void CopyWithAllocations() const;

  const PlacementModule& placement_;
  // `writable_` is null while the walk reads a borrowed state; `*allocated_` holds what
  // was allocated on it since (applied to the copy when the state is read: the scratch
  // state, else `own_`), `allocated_gpus_` their whole GPUs, `allocated_fraction_` whether
  // any is fractional.
  mutable std::optional<ClusterState> own_;
  Scratch* const scratch_ = nullptr;
  mutable const ClusterState* free_;  // The state walked: borrowed, or *writable_.
  mutable ClusterState* writable_ = nullptr;  // Where Allocate books: &*own_, a scratch state.
  std::vector<Placement> own_allocated_;
  std::vector<Placement>* const allocated_;  // &scratch_->allocated, else &own_allocated_.
  int allocated_gpus_ = 0;
  bool allocated_fraction_ = false;
  const bool by_shape_;  // The module answers by shape on this cluster.
  // Since the last Allocate, at most kMaxMisfits (a trace of many shapes would make the
  // search cost more than it saves; past that, the module is asked): misfits_[0, num_misfits_).
  // Held inline: a walk is made per decision, and a vector's allocation cost ~1 % of SRTF's
  // run at 95 % load.
  static constexpr size_t kMaxMisfits = 16;
  std::array<Shape, kMaxMisfits> misfits_;  // Only [0, num_misfits_) is ever read.
  size_t num_misfits_ = 0;
  int64_t skipped_ = 0;
  int64_t allocations_ = 0;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_PLACEMENT_WALK_H_
