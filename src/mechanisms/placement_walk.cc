#include "mechanisms/placement_walk.h"

#include <algorithm>
#include <utility>

namespace schedkit {

PlacementWalk::PlacementWalk(const PlacementModule& placement, ClusterState&& free)
    : placement_(placement),
      own_(std::move(free)),
      free_(&*own_),
      by_shape_(placement.PlacesByShape() && free_->one_gpu_type()) {}

PlacementWalk::PlacementWalk(const PlacementModule& placement, const ClusterState* free)
    : placement_(placement), free_(free), by_shape_(placement.PlacesByShape() && free_->one_gpu_type()) {}

Placement PlacementWalk::Place(const JobSpec& job) {
  if (!by_shape_) return placement_.Place(job, *free_);
  const Shape shape{job.gpus, job.gpu_milli, job.cpus, job.mem_gb};
  if (std::find(misfits_.begin(), misfits_.end(), shape) != misfits_.end()) {
    ++skipped_;
    return Placement();
  }
  Placement p = placement_.Place(job, *free_);
  if (p.empty() && misfits_.size() < kMaxMisfits) misfits_.push_back(shape);
  return p;
}

void PlacementWalk::Allocate(const Placement& p) {
  if (!own_) {
    own_.emplace(*free_);
    free_ = &*own_;
  }
  own_->Allocate(p);
  misfits_.clear();
}

}  // namespace schedkit
