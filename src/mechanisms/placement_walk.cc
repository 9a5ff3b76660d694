#include "mechanisms/placement_walk.h"

#include <algorithm>
#include <utility>

namespace schedkit {

PlacementWalk::PlacementWalk(const PlacementModule& placement, ClusterState&& free)
    : placement_(placement),
      own_(std::move(free)),
      free_(&*own_),
      writable_(&*own_),
      allocated_(&own_allocated_),
      by_shape_(placement.PlacesByShape() && free_->one_gpu_type()) {}

PlacementWalk::PlacementWalk(const PlacementModule& placement, const ClusterState* free)
    : placement_(placement),
      free_(free),
      allocated_(&own_allocated_),
      by_shape_(placement.PlacesByShape() && free_->one_gpu_type()) {}

PlacementWalk::PlacementWalk(const PlacementModule& placement, const ClusterState* free,
                             Scratch* scratch)
    : placement_(placement),
      scratch_(scratch),
      free_(free),
      allocated_(&scratch->allocated),
      by_shape_(placement.PlacesByShape() && free_->one_gpu_type()) {
  allocated_->clear();
}

PlacementWalk::PlacementWalk(const PlacementModule& placement, ClusterState* free, InPlace)
    : placement_(placement),
      free_(free),
      writable_(free),
      allocated_(&own_allocated_),
      by_shape_(placement.PlacesByShape() && free_->one_gpu_type()) {}

void PlacementWalk::CopyWithAllocations() const {
  if (scratch_ == nullptr) {
    own_.emplace(*free_);
    writable_ = &*own_;
  } else if (scratch_->state) {
    *scratch_->state = *free_;  // Keeps its storage.
    writable_ = &*scratch_->state;
  } else {
    writable_ = &scratch_->state.emplace(*free_);
  }
  for (const Placement& p : *allocated_) writable_->Allocate(p);
  allocated_->clear();
  free_ = writable_;
}

Placement PlacementWalk::Place(const JobSpec& job) {
  if (!by_shape_) return placement_.Place(job, free());
  const Shape shape = ShapeOf(job);
  const auto misfits_end = misfits_.begin() + num_misfits_;
  if (std::find(misfits_.begin(), misfits_end, shape) != misfits_end) {
    ++skipped_;
    return Placement();
  }
  Placement p = placement_.Place(job, free());
  if (p.empty() && num_misfits_ < kMaxMisfits) misfits_[num_misfits_++] = shape;
  return p;
}

bool PlacementWalk::TryAllocate(const Placement& p) {
  if (writable_ == nullptr) {
    if (!free().CanAllocate(p)) return false;
    Allocate(p);
    return true;
  }
  if (!writable_->TryAllocate(p)) return false;
  num_misfits_ = 0;
  ++allocations_;
  return true;
}

void PlacementWalk::Allocate(const Placement& p) {
  num_misfits_ = 0;
  ++allocations_;
  if (writable_ != nullptr) {
    writable_->Allocate(p);
    return;
  }
  allocated_->push_back(p);
  for (const NodeShare& s : p.shares) {
    if (s.fractional()) allocated_fraction_ = true;
    else allocated_gpus_ += s.gpus();
  }
}

}  // namespace schedkit
