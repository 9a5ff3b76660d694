// Every registered policy when an engine ends a job that is still pending (the runtime's
// cancel, src/runtime/engine.cc): the job must never be started afterwards, and the policy
// must go on returning valid decisions until every other job has run. The policies come
// from the registry, so a policy registered later is covered without editing this file.
// The simulator never ends a pending job, so a small engine that drives policies the way
// the runtime does (a view of the cluster at `now`, batches of arrivals and endings, the
// decisions checked and applied) stands in for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/decision_applier.h"
#include "schedkit/registry.h"
#include "schedkit/view.h"

namespace schedkit {
namespace {

// Policies that cannot run here, with the reason. Empty: every built-in runs on its
// default options (the data they read by default ships in data/).
const std::map<std::string, std::string>& SkippedPolicies() {
  static const std::map<std::string, std::string> skipped;
  return skipped;
}

constexpr int kGpus = 2;
constexpr JobId kJobs = 6;

// Jobs 1..6 of 2, 1, 2, ... GPUs on one 2-GPU node: some must wait whatever the policy.
// Stage times let Muri interleave; durations tell SRTF-like policies apart.
JobSpec TestJob(JobId id) {
  const bool odd = id % 2 == 1;
  return JobBuilder(id)
      .Submit(static_cast<Time>(id))
      .Gpus(odd ? 2 : 1)
      .Duration(100.0 * id)
      .Iterations(100 * id, 1.0)
      .Stages(odd ? 0.6 : 0.2, odd ? 0.3 : 0.7, 0.1)
      .Build();
}

// A one-node cluster that applies decisions as every engine does, through the shared
// DecisionApplier: a decision it refuses (a start of a job that has ended, a preemption
// of a job that is not running, a double booking, a group whose members disagree on the
// placement, a non-finite rate) is a test failure.
class MiniRuntime final : public ClusterView {
 public:
  MiniRuntime() : spec_(ClusterSpec::Uniform(1, 1, kGpus, 0, 0)), applier_(&spec_) {}

  void Submit(const JobSpec& spec) {
    jobs_[spec.id].spec = spec;
    arrived_.push_back(spec.id);
  }
  // The runtime's cancel (pending or running) and a running job's exit alike.
  void End(JobId id) {
    Job& j = jobs_.at(id);
    if (j.state == JobState::kRunning) Stop(id);
    j.state = JobState::kFinished;
    finished_.push_back(id);
  }
  void EndFirstRunning() { End(*std::min_element(running_.begin(), running_.end())); }
  // One Decide at `now` with what happened since the last one; applies the decisions.
  void Step(Policy& policy, Time now) {
    now_ = now;
    EventBatch events;
    events.arrived.swap(arrived_);
    events.finished.swap(finished_);
    events.woken = wake_at_ <= now;
    Decisions d;
    policy.Decide(*this, events, &d);
    Apply(d);
    wake_at_ = d.wake_at;
  }
  JobState State(JobId id) const { return jobs_.at(id).state; }

  Time Now() const override { return now_; }
  const ClusterSpec& Cluster() const override { return spec_; }
  const ClusterState& Resources() const override { return applier_.free(); }
  const std::vector<JobId>& RunningJobs() const override { return running_; }
  std::vector<JobId> PendingJobs() const override {
    std::vector<JobId> ids;  // Ids follow submit times here.
    for (const auto& [id, j] : jobs_) {
      if (j.state == JobState::kPending) ids.push_back(id);
    }
    return ids;
  }
  JobStatus Status(JobId id) const override {
    const Job& j = jobs_.at(id);
    JobStatus s;
    s.spec = &j.spec;
    s.state = j.state;
    s.first_start_s = j.first_start_s;
    s.last_start_s = j.last_start_s;
    s.executed_s = j.executed_s + (j.state == JobState::kRunning ? now_ - j.last_start_s : 0);
    s.attained_gpu_s = s.executed_s * j.spec.gpus;
    s.preemptions = j.preemptions;
    s.remaining_s = std::max(0.0, j.spec.duration_s - s.executed_s);
    s.placement = j.state == JobState::kRunning ? &j.placement : nullptr;
    return s;
  }
  const JobSpec& Spec(JobId id) const override { return jobs_.at(id).spec; }

 private:
  struct Job {
    JobSpec spec;
    JobState state = JobState::kPending;
    Placement placement;
    Time first_start_s = kNever, last_start_s = kNever;
    double executed_s = 0;
    int preemptions = 0;
  };

  void Stop(JobId id) {
    Job& j = jobs_.at(id);
    j.executed_s += now_ - j.last_start_s;
    applier_.Release(id);
    j.state = JobState::kPending;
    j.placement = Placement();
    std::erase(running_, id);
  }

  void Apply(const Decisions& d) {
    ASSERT_FALSE(d.failed()) << d.error.message();
    DecisionPlan plan;
    const JobLookup lookup = [&](JobId id, JobFacts* facts) {
      auto it = jobs_.find(id);
      if (it == jobs_.end()) return false;
      *facts = JobFacts{it->second.state, it->second.spec.gpus};
      return true;
    };
    const schedkit::Status st = applier_.Validate(d, now_, lookup, &plan);
    ASSERT_TRUE(st.ok()) << st.message();
    for (const DecisionPlan::Reject& r : plan.reject) jobs_.at(r.job).state = JobState::kRejected;
    for (JobId id : d.preempt) jobs_.at(id).preemptions++;
    for (JobId id : plan.stop) Stop(id);
    applier_.Book(plan);
    for (const StartAction& a : plan.start) {
      Job& j = jobs_.at(a.decision->job);
      j.state = JobState::kRunning;
      j.placement = a.decision->placement;
      if (j.first_start_s == kNever) j.first_start_s = now_;
      j.last_start_s = now_;
      running_.push_back(a.decision->job);
    }
  }

  ClusterSpec spec_;
  DecisionApplier applier_;
  Time now_ = 0;
  Time wake_at_ = kNever;
  std::map<JobId, Job> jobs_;
  std::vector<JobId> running_;
  std::vector<JobId> arrived_, finished_;  // Since the last Step.
};

struct Cancel {
  int round = -1;  // None by default.
  JobId job = 0;
};

// The scenario: every job submitted, a first decision at t=10, then one round per 100 s
// in which the running job with the lowest id exits (the others keep running and gain
// service, so preemptive policies preempt). With `cancel`, its job is ended right after
// that round's decision, and the policy told at once, as the runtime's cancel does.
// Appends the jobs pending after each round's decision to `waiting`.
void RunScenario(const std::string& policy_name, Cancel cancel,
                 std::vector<std::vector<JobId>>* waiting) {
  PolicyRequest request;
  request.policy = policy_name;
  auto policy = MakePolicy(request);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  MiniRuntime rt;
  for (JobId id = 1; id <= kJobs; ++id) rt.Submit(TestJob(id));
  Time now = 10;
  rt.Step(**policy, now);
  for (int round = 0; round < 10 * kJobs; ++round) {
    waiting->push_back(rt.PendingJobs());
    if (round == cancel.round) {
      ASSERT_EQ(rt.State(cancel.job), JobState::kPending);
      rt.End(cancel.job);
      rt.Step(**policy, now + 1);
    }
    if (rt.RunningJobs().empty()) break;
    rt.EndFirstRunning();
    now += 100;
    rt.Step(**policy, now);
  }
  // A start of the cancelled job fails in MiniRuntime::Apply ("starts finished ...").
  EXPECT_TRUE(rt.RunningJobs().empty());
  EXPECT_EQ(rt.PendingJobs(), std::vector<JobId>()) << "jobs the policy stopped starting";
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, NeverStartsAJobEndedWhilePending) {
  const std::string& name = GetParam();
  if (auto it = SkippedPolicies().find(name); it != SkippedPolicies().end()) {
    GTEST_SKIP() << it->second;
  }
  std::vector<std::vector<JobId>> waiting;
  ASSERT_NO_FATAL_FAILURE(RunScenario(name, Cancel(), &waiting));
  ASSERT_FALSE(waiting[0].empty()) << "every job started at once: the cluster must be full";
  // One run per job waiting after each round: whichever job the policy would start next,
  // whether it never ran, was preempted or holds a reservation, is cancelled in one.
  for (int round = 0; round < static_cast<int>(waiting.size()); ++round) {
    for (JobId victim : waiting[round]) {
      SCOPED_TRACE("job " + std::to_string(victim) + " ended while pending after round " +
                   std::to_string(round));
      std::vector<std::vector<JobId>> unused;
      RunScenario(name, Cancel{round, victim}, &unused);
    }
  }
}

std::vector<std::string> RegisteredPolicies() {
  std::vector<std::string> names;
  for (const auto& entry : BuiltinRegistries().policies.entries()) names.push_back(entry.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryPolicy, ::testing::ValuesIn(RegisteredPolicies()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;  // Test names allow [A-Za-z0-9_].
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace schedkit
