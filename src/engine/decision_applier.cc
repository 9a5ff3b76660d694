#include "engine/decision_applier.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "schedkit/throughput.h"

namespace schedkit {

std::vector<JobId>& DecisionPlan::AddGroup() {
  if (spare_groups_.empty()) return groups.emplace_back();
  groups.push_back(std::move(spare_groups_.back()));
  spare_groups_.pop_back();
  return groups.back();
}

void DecisionPlan::Clear() {
  reject.clear();
  stop.clear();
  start.clear();
  for (std::vector<JobId>& g : groups) {
    g.clear();
    spare_groups_.push_back(std::move(g));
  }
  groups.clear();
}

DecisionApplier::DecisionApplier(const ClusterSpec* cluster)
    : cluster_(cluster), free_(cluster), after_(cluster) {
  std::map<std::string, int> gpus;  // Sorted by type, for a deterministic message.
  for (const NodeSpec& node : cluster->nodes) gpus[node.gpu_type] += node.gpus;
  gpus_per_type_.assign(gpus.begin(), gpus.end());
}

std::string DecisionApplier::NeverFits(const JobSpec& job) const {
  const int total = free_.total_gpus();
  // Every arrival asks: the answer is built only when it is not "".
  if (job.gpus <= total && job.profile.type_speeds.empty()) return "";
  const std::string asks = "asks for " + std::to_string(job.gpus) + " GPUs; ";
  if (job.gpus > total) return asks + "the cluster has " + std::to_string(total);
  if (job.profile.type_speeds.empty()) return "";  // Runs on every type.
  int usable = 0;
  std::string types;
  for (const auto& [type, gpus] : gpus_per_type_) {
    if (SpeedOn(job, type) > 0) usable += gpus;
    types += (types.empty() ? "" : ", ") + type;
  }
  if (job.gpus <= usable) return "";
  return asks + "the cluster has " + std::to_string(usable) +
         " of the GPU types it can run on (it has " + types + ")";
}

Status DecisionApplier::Validate(const Decisions& d, Time now, const JobLookup& jobs,
                                 DecisionPlan* plan) const {
  Status status = CheckDecisions(d, now, jobs, plan);
  if (status.ok()) return status;
  return Status::InvalidArgument("decision at t=" + std::to_string(now) + ": " + status.message());
}

Status DecisionApplier::CheckDecisions(const Decisions& d, Time now, const JobLookup& jobs,
                                       DecisionPlan* plan) const {
  plan->Clear();
  auto fail = [&](const std::string& what, JobId id) {
    return Status::InvalidArgument(what + " job " + std::to_string(id));
  };
  // A job may appear in one list, once. Decisions usually name a few jobs: a linear
  // search of those named so far, a hash set past kLinear.
  constexpr size_t kLinear = 32;
  named_.clear();
  FlatMap<char>& named = scratch_named_;
  named.Clear();
  auto first_naming = [&](JobId id) {
    if (named_.size() < kLinear) {
      if (std::find(named_.begin(), named_.end(), id) != named_.end()) return false;
      named_.push_back(id);
      return true;
    }
    if (named.size() == 0) {
      for (JobId n : named_) named.Insert(n, 1);
    }
    return named.Insert(id, 1).second;
  };
  JobFacts facts;
  auto look_up = [&](JobId id) { return jobs(id, &facts) && first_naming(id); };
  for (size_t i = 0; i < d.reject.size(); ++i) {
    const JobId id = d.reject[i];
    if (!look_up(id) || facts.state != JobState::kPending) {
      return fail("rejects non-pending or repeated", id);
    }
    plan->reject.push_back({id, d.RejectReason(i)});
  }
  for (JobId id : d.preempt) {
    if (!look_up(id) || facts.state != JobState::kRunning) {
      return fail("preempts non-running or repeated", id);
    }
    plan->stop.push_back(id);
  }
  if (d.wake_at != kNever && !(d.wake_at > now)) {
    return Status::InvalidArgument("wake-up at t=" + std::to_string(d.wake_at) +
                                   " is not after now");
  }
  if (d.start.empty()) return Status::Ok();
  start_facts_.clear();
  for (const StartDecision& s : d.start) {
    if (!look_up(s.job) ||
        (facts.state != JobState::kPending && facts.state != JobState::kRunning)) {
      return fail("starts finished, unknown or repeated", s.job);
    }
    if (facts.state == JobState::kRunning) plan->stop.push_back(s.job);  // A move.
    start_facts_.push_back({facts.gpus, std::max(facts.gpus, facts.max_gpus), facts.spec});
  }
  // Resources as they will be after the stops. A shared booking is freed only when all
  // its holders stop. One start after no stop is checked on free() itself, uncopied.
  ClusterState* after = nullptr;
  if (!plan->stop.empty() || d.start.size() > 1) {
    after_ = free_;  // Assignment: the scratch keeps its storage.
    after = &after_;
  }
  // Per-decision maps in the applier's scratch (cleared, not freed: a decision that
  // restarts dozens of co-located groups allocated a node per entry before).
  FlatMap<int>& holders_left = scratch_holders_left_;
  holders_left.Clear();
  for (JobId id : plan->stop) {
    const int32_t slot = *holds_.Find(id);
    if (slot == kGuest) continue;
    const Booking& b = pool_[slot];
    int* left = holders_left.Insert(slot, b.holders).first;
    if (--*left == 0) after->Release(b.placement);
  }
  FlatMap<const Placement*>& group_placement = scratch_group_placement_;
  FlatMap<int>& group_index = scratch_group_index_;
  group_placement.Clear();
  group_index.Clear();
  for (size_t i = 0; i < d.start.size(); ++i) {
    const StartDecision& s = d.start[i];
    const JobSpec* spec = start_facts_[i].spec;
    if (spec != nullptr && !s.guest) {
      for (const NodeShare& share : s.placement.shares) {
        if (share.gpu_milli == spec->gpu_milli) continue;
        return Status::InvalidArgument("job " + std::to_string(s.job) + " placed on " +
                                       s.placement.ToString() + " with " +
                                       std::to_string(share.gpu_milli) +
                                       " milli-GPU per GPU; it asks for " +
                                       std::to_string(spec->gpu_milli));
      }
    }
    SCHEDKIT_RETURN_IF_ERROR(CheckStart(s, start_facts_[i].gpus, start_facts_[i].max_gpus, after,
                                        &group_placement));
    if (spec != nullptr && PlacementSpeed(*spec, s.placement, *cluster_) == 0) {
      return Status::InvalidArgument("job " + std::to_string(s.job) + " placed on " +
                                     s.placement.ToString() +
                                     ", a GPU type it has no speed for (schedkit/throughput.h)");
    }
    StartAction action{&s, -1, 1};
    if (s.group != 0 && !s.guest) {
      auto [index, first] = group_index.Insert(s.group, static_cast<int>(plan->groups.size()));
      if (first) plan->AddGroup();
      action.group = *index;
      plan->groups[*index].push_back(s.job);
    }
    plan->start.push_back(action);
  }
  for (StartAction& a : plan->start) {
    if (a.group >= 0) a.group_size = static_cast<int>(plan->groups[a.group].size());
  }
  return Status::Ok();
}

Status DecisionApplier::CheckStart(const StartDecision& s, int gpus, int max_gpus,
                                   ClusterState* after,
                                   FlatMap<const Placement*>* group_placement) const {
  auto fail = [&](const std::string& what) {
    return Status::InvalidArgument(what + " job " + std::to_string(s.job));
  };
  if (!(s.rate > 0) || !std::isfinite(s.rate)) {
    return fail("starts with a rate that is not positive and finite");
  }
  if (s.guest) {
    if (s.group != 0) return fail("starts as a guest in a group:");
    if (s.placement.gpus() != gpus || !NamesExistingGpus(s.placement)) {
      return Status::InvalidArgument("guest job " + std::to_string(s.job) +
                                     " placed on missing or too few/many GPUs " +
                                     s.placement.ToString());
    }
    return Status::Ok();  // Books nothing.
  }
  if (s.group != 0) {
    auto [known, first] = group_placement->Insert(s.group, &s.placement);
    if (!first) {
      if (!(**known == s.placement))
        return fail("starts with a placement other than its group's:");
      if (s.placement.gpus() != gpus) return fail("starts on a group placement of another size:");
      return Status::Ok();  // Booked with the group's first member.
    }
  }
  const int n = s.placement.gpus();
  if (max_gpus > gpus && s.group == 0) {  // Elastic, alone: any count in [gpus, max_gpus].
    if (n < gpus || n > max_gpus) {
      return Status::InvalidArgument("starts elastic job " + std::to_string(s.job) +
                                     " on " + std::to_string(n) + " GPUs; it runs on " +
                                     std::to_string(gpus) + " to " + std::to_string(max_gpus));
    }
  } else if (n != gpus) {
    return Status::InvalidArgument("starts job " + std::to_string(s.job) + " on " +
                                   std::to_string(n) + " GPUs; it asks for " +
                                   std::to_string(gpus) +
                                   (max_gpus > gpus ? " (in a group, an elastic job runs on "
                                                      "what it asks for)"
                                                    : ""));
  }
  if (!(after != nullptr ? *after : free_).CanAllocate(s.placement)) {
    return Status::InvalidArgument("job " + std::to_string(s.job) +
                                   " placed on busy or missing resources " +
                                   s.placement.ToString());
  }
  if (after != nullptr) after->Allocate(s.placement);
  return Status::Ok();
}

void DecisionApplier::Book(const DecisionPlan& plan) {
  std::vector<int64_t> group_booking(plan.groups.size(), 0);
  for (const StartAction& a : plan.start) {
    const StartDecision& s = *a.decision;
    if (s.guest) {
      Hold(s.job, 0, s.placement);
      continue;
    }
    int64_t booking = a.group >= 0 ? group_booking[a.group] : 0;
    if (booking == 0) {
      booking = next_booking_++;
      if (a.group >= 0) group_booking[a.group] = booking;
    }
    Hold(s.job, booking, s.placement);
  }
}

Status DecisionApplier::Adopt(JobId job, const Placement& placement, int64_t booking, bool guest) {
  if (holds_.Find(job) != nullptr) Die("job " + std::to_string(job) + " is adopted twice");
  if (guest) {
    if (!NamesExistingGpus(placement)) {
      return Status::InvalidArgument("guest job " + std::to_string(job) + " runs on missing GPUs " +
                                     placement.ToString());
    }
    Hold(job, 0, placement);
    return Status::Ok();
  }
  if (booking == 0) booking = next_unnamed_booking_--;  // Apart from every id Book gives.
  const int32_t* shared_slot = booking_slot_.Find(booking);
  const Booking* shared = shared_slot == nullptr ? nullptr : &pool_[*shared_slot];
  if (shared != nullptr && !(shared->placement == placement)) {
    return Status::InvalidArgument("job " + std::to_string(job) + " runs on " +
                                   placement.ToString() + ", apart from its group on " +
                                   shared->placement.ToString());
  }
  if (shared == nullptr && !free_.CanAllocate(placement)) {
    return Status::InvalidArgument("job " + std::to_string(job) + " runs on busy or missing " +
                                   "resources " + placement.ToString());
  }
  next_booking_ = std::max(next_booking_, booking + 1);  // Later groups get new ids.
  Hold(job, booking, placement);
  return Status::Ok();
}

void DecisionApplier::Hold(JobId job, int64_t booking, const Placement& placement) {
  if (booking == 0) {
    if (!holds_.Insert(job, kGuest).second) Die("job " + std::to_string(job) + " is booked twice");
    return;
  }
  int32_t slot;
  if (const int32_t* shared = booking_slot_.Find(booking)) {
    slot = *shared;
  } else if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<int32_t>(pool_.size());
    pool_.emplace_back();
  }
  if (!holds_.Insert(job, slot).second) Die("job " + std::to_string(job) + " is booked twice");
  Booking& b = pool_[slot];
  if (b.holders++ == 0) {
    booking_slot_.Insert(booking, slot);
    b.id = booking;
    b.placement = placement;  // Copy-assigned: the slot's storage is reused.
    free_.Allocate(placement);
  }
}

void DecisionApplier::Release(JobId job) {
  const int32_t* hold = holds_.Find(job);
  if (hold == nullptr) Die("job " + std::to_string(job) + " holds no booking");
  const int32_t slot = *hold;
  holds_.Erase(job);
  if (slot == kGuest) return;  // A guest booked nothing.
  Booking& b = pool_[slot];
  if (--b.holders == 0) {
    free_.Release(b.placement);
    booking_slot_.Erase(b.id);
    free_slots_.push_back(slot);
  }
}

ClusterState DecisionApplier::Capacity() const {
  ClusterState empty(cluster_);
  for (int node = 0; node < empty.num_nodes(); ++node) empty.SetHeld(node, held_back(node));
  return empty;
}

int64_t DecisionApplier::BookingOf(JobId job) const {
  const int32_t* slot = holds_.Find(job);
  if (slot == nullptr) Die("job " + std::to_string(job) + " holds no booking");
  return *slot == kGuest ? 0 : pool_[*slot].id;
}

bool DecisionApplier::NamesExistingGpus(const Placement& p) const {
  int prev = -1;
  for (const NodeShare& share : p.shares) {
    if (share.node <= prev || share.node >= static_cast<int>(cluster_->nodes.size())) return false;
    const int gpus = cluster_->nodes[share.node].gpus;
    const uint64_t all = gpus >= 64 ? ~uint64_t{0} : (uint64_t{1} << gpus) - 1;
    if (share.gpu_mask == 0 || (share.gpu_mask & ~all) != 0) return false;
    prev = share.node;
  }
  return !p.shares.empty();
}

void DecisionApplier::Die(const std::string& what) {
  std::fprintf(stderr, "schedkit: engine invariant violated: %s\n", what.c_str());
  std::abort();
}

}  // namespace schedkit
