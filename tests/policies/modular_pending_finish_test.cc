// ModularPolicy when an engine ends a job that is still pending (the runtime's cancel):
// the job must leave the queue and never be started. The simulator never does this, so
// a hand-written view drives the policy here.
#include <gtest/gtest.h>

#include <map>

#include "schedkit/registry.h"
#include "schedkit/view.h"

namespace schedkit {
namespace {

class OneNodeView final : public ClusterView {
 public:
  explicit OneNodeView(int gpus) : spec_(ClusterSpec::Uniform(1, 1, gpus, 0, 0)), free_(&spec_) {}
  void Add(JobId id) {
    jobs_[id] = JobBuilder(id).Submit(static_cast<Time>(id)).Gpus(1).Duration(100).Build();
  }
  void Run(JobId id, const Placement& p) {
    free_.Allocate(p);
    placements_[id] = p;
    running_.push_back(id);
  }
  void End(JobId id) {
    auto it = placements_.find(id);
    if (it != placements_.end()) {
      free_.Release(it->second);
      placements_.erase(it);
      std::erase(running_, id);
    }
    ended_.push_back(id);
  }

  Time Now() const override { return 10; }
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
    return s;
  }
  const JobSpec& Spec(JobId id) const override { return jobs_.at(id); }

 private:
  ClusterSpec spec_;
  ClusterState free_;
  std::map<JobId, JobSpec> jobs_;
  std::map<JobId, Placement> placements_;
  std::vector<JobId> running_, ended_;
};

TEST(Modular, APendingJobThatEndsLeavesTheQueueAndNeverStarts) {
  for (const char* name : {"fifo", "tiresias", "srtf"}) {
    PolicyRequest request;
    request.policy = name;
    auto policy = MakePolicy(request);
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    OneNodeView view(1);
    for (JobId id : {1, 2, 3}) view.Add(id);
    Decisions d;
    (*policy)->Decide(view, EventBatch{.arrived = {1, 2, 3}}, &d);
    ASSERT_EQ(d.start.size(), 1u) << name;
    ASSERT_EQ(d.start[0].job, 1) << name;
    view.Run(1, d.start[0].placement);

    view.End(2);  // Cancelled while pending.
    d.Clear();
    (*policy)->Decide(view, EventBatch{.finished = {2}}, &d);
    EXPECT_TRUE(d.start.empty()) << name;

    view.End(1);
    d.Clear();
    (*policy)->Decide(view, EventBatch{.finished = {1}}, &d);
    ASSERT_EQ(d.start.size(), 1u) << name;
    EXPECT_EQ(d.start[0].job, 3) << name << ": started the ended job";
  }
}

}  // namespace
}  // namespace schedkit
