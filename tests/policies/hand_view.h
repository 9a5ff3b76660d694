// A ClusterView written by hand for policy tests that drive one decision at a time:
// jobs added by the test, running where it puts them, ended when it says (the runtime's
// cancel of a pending job included), the clock and each job's remaining work set by it.
#ifndef SCHEDKIT_TESTS_POLICIES_HAND_VIEW_H_
#define SCHEDKIT_TESTS_POLICIES_HAND_VIEW_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "schedkit/view.h"

namespace schedkit {

class HandView final : public ClusterView {
 public:
  explicit HandView(ClusterSpec spec) : spec_(std::move(spec)), free_(&spec_) {}

  // A pending job; its remaining work is its duration until SetRemaining says otherwise.
  void Add(JobSpec spec) {
    remaining_[spec.id] = spec.SoloRuntime();
    jobs_[spec.id] = std::move(spec);
  }
  void Run(JobId id, const Placement& p) {
    free_.Allocate(p);
    placements_[id] = p;
    running_.push_back(id);
  }
  // `gpus` of `node`, by local index.
  void Run(JobId id, int node, const std::vector<int>& gpus) {
    NodeShare share{.node = node};
    for (int g : gpus) share.gpu_mask |= uint64_t{1} << g;
    Run(id, Placement{{share}});
  }
  // Finished or cancelled, running or not: it leaves the view's running and pending jobs.
  void End(JobId id) {
    auto it = placements_.find(id);
    if (it != placements_.end()) {
      free_.Release(it->second);
      placements_.erase(it);
      std::erase(running_, id);
    }
    ended_.push_back(id);
  }
  void Hold(int node) { free_.SetHeld(node, true); }
  void SetNow(Time now) { now_ = now; }
  void SetRemaining(JobId id, double remaining_s) { remaining_[id] = remaining_s; }

  Time Now() const override { return now_; }
  const ClusterSpec& Cluster() const override { return spec_; }
  const ClusterState& Resources() const override { return free_; }
  const std::vector<JobId>& RunningJobs() const override { return running_; }
  std::vector<JobId> PendingJobs() const override {
    std::vector<JobId> ids;
    for (const auto& [id, spec] : jobs_) {
      if (!placements_.count(id) && std::find(ended_.begin(), ended_.end(), id) == ended_.end())
        ids.push_back(id);
    }
    return ids;
  }
  JobStatus Status(JobId id) const override {
    JobStatus s;
    s.spec = &jobs_.at(id);
    auto it = placements_.find(id);
    s.state = it != placements_.end() ? JobState::kRunning : JobState::kPending;
    s.placement = it != placements_.end() ? &it->second : nullptr;
    s.remaining_s = remaining_.at(id);
    return s;
  }
  const JobSpec& Spec(JobId id) const override {
    ++spec_reads_[id];
    return jobs_.at(id);
  }
  // Spec calls for `id` so far (a policy's cost: which queued jobs it read).
  int spec_reads(JobId id) const {
    auto it = spec_reads_.find(id);
    return it == spec_reads_.end() ? 0 : it->second;
  }
  void ResetSpecReads() { spec_reads_.clear(); }

 private:
  ClusterSpec spec_;
  ClusterState free_;
  Time now_ = 10;
  std::map<JobId, JobSpec> jobs_;
  std::map<JobId, double> remaining_;
  std::map<JobId, Placement> placements_;
  std::vector<JobId> running_, ended_;
  mutable std::map<JobId, int> spec_reads_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_TESTS_POLICIES_HAND_VIEW_H_
