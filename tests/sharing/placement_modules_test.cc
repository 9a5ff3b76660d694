// The six GPU-sharing policies as PlacementModules of the main registry (fgd, fgd-best-fit,
// ...): the worked cases of policies_test.cc on the same cluster, now held in the core
// ClusterState, and a small simulation of fractional jobs with departures.
#include <gtest/gtest.h>

#include <set>

#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

JobSpec Fractional(int cpus, int milli) {
  return JobBuilder(1).Gpus(1).GpuMilli(milli).Cpus(cpus).Duration(10).Build();
}
JobSpec Whole(int cpus, int gpus) { return JobBuilder(1).Gpus(gpus).Cpus(cpus).Duration(10).Build(); }

NodeShare Share(int node, uint64_t mask, int cpus, int milli = kMilliPerGpu) {
  return NodeShare{.node = node, .cpus = cpus, .gpu_mask = mask, .gpu_milli = milli};
}

// What a module reads of a view: the running jobs' placements (fgd-clustering's kinds).
class RunningView final : public ClusterView {
 public:
  RunningView(const ClusterState* state, std::vector<Placement> running)
      : state_(state), placements_(std::move(running)) {
    for (size_t i = 0; i < placements_.size(); ++i) {
      ids_.push_back(static_cast<JobId>(i));
      specs_.push_back(JobBuilder(static_cast<JobId>(i)).Build());
    }
  }
  Time Now() const override { return 0; }
  const ClusterSpec& Cluster() const override { return state_->spec(); }
  const ClusterState& Resources() const override { return *state_; }
  const std::vector<JobId>& RunningJobs() const override { return ids_; }
  std::vector<JobId> PendingJobs() const override { return {}; }
  JobStatus Status(JobId id) const override {
    JobStatus s;
    s.spec = &specs_[id];
    s.state = JobState::kRunning;
    s.placement = &placements_[id];
    return s;
  }
  const JobSpec& Spec(JobId id) const override { return specs_[id]; }

 private:
  const ClusterState* state_;
  std::vector<Placement> placements_;
  std::vector<JobId> ids_;
  std::vector<JobSpec> specs_;
};

// As in policies_test.cc: node 0 has 2 GPUs, GPU 0 holding a 700 milli fractional job
// (300 free), GPU 1 free; node 1 has 4 free GPUs. Both 32 cores, 28 left on each.
class SharingPlacementTest : public ::testing::Test {
 protected:
  SharingPlacementTest() : state_(&spec_) {
    spec_.nodes = {NodeSpec{0, 2, 32, 1024, "T4"}, NodeSpec{0, 4, 32, 1024, "T4"}};
    state_ = ClusterState(&spec_);
    running_ = Placement{{Share(0, 0b01, 4, 700)}};
    state_.Allocate(running_);
    state_.Allocate(Placement{{Share(1, 0, 4)}});
    // The trace: 300 milli jobs of one core, FGD's target workload.
    trace_.jobs = {Fractional(1, 300)};
  }
  void FillNode1Cpu() { state_.Allocate(Placement{{Share(1, 0, 28)}}); }

  Result<std::unique_ptr<PlacementModule>> Make(const std::string& name,
                                                std::map<std::string, std::string> options = {},
                                                const Trace* trace = nullptr) {
    const PlacementRegistry::Entry* e = BuiltinRegistries().placements.Find(name);
    EXPECT_NE(e, nullptr) << name;
    Result<OptionValues> values = OptionValues::Parse(name, e->options, options);
    if (!values.ok()) return values.status();
    ModuleContext ctx{std::move(values).value(), trace == nullptr ? &trace_ : trace};
    return e->factory(ctx);
  }
  std::string Place(const std::string& name, const JobSpec& job,
                    std::map<std::string, std::string> options = {}) {
    auto made = Make(name, std::move(options));
    EXPECT_TRUE(made.ok()) << made.status().message();
    if (!made.ok()) return "error";
    (*made)->Observe(RunningView(&state_, {running_}));
    return (*made)->Place(job, state_).ToString();
  }

  ClusterSpec spec_;
  ClusterState state_;
  Placement running_;
  Trace trace_;
};

TEST_F(SharingPlacementTest, TheSixAreListedWithTheOtherPlacementModules) {
  for (const char* name : {"fgd", "fgd-best-fit", "fgd-dot-product", "fgd-packing",
                           "fgd-clustering", "fgd-random"}) {
    EXPECT_NE(BuiltinRegistries().placements.Find(name), nullptr) << name;
  }
}

TEST_F(SharingPlacementTest, FgdKeepsAGpuThatStillHoldsTheWorkload) {
  FillNode1Cpu();
  // A 200 pod on GPU 0 strands 100 of the workload's 300 (score 47), on GPU 1 nothing (50).
  EXPECT_EQ(Place("fgd", Fractional(1, 200)), "n0:1@200");
}

TEST_F(SharingPlacementTest, BestFitTakesTheTightestNodeAndGpu) {
  EXPECT_EQ(Place("fgd-best-fit", Fractional(1, 200)), "n0:0@200");
}

TEST_F(SharingPlacementTest, DotProductPrefersTheSmallerFreeVector) {
  EXPECT_EQ(Place("fgd-dot-product", Whole(1, 1)), "n0:1");
}

TEST_F(SharingPlacementTest, PackingUsesSharedGpusThenFreeGpusOfAUsedNode) {
  EXPECT_EQ(Place("fgd-packing", Whole(1, 1)), "n0:1");
  EXPECT_EQ(Place("fgd-packing", Fractional(1, 300)), "n0:0@300");
}

TEST_F(SharingPlacementTest, ClusteringReadsThePodKindsFromTheView) {
  // Node 0 runs only a fractional job (Observe): fractional jobs go there, a whole GPU to
  // the idle node 1.
  EXPECT_EQ(Place("fgd-clustering", Fractional(1, 200)), "n0:0@200");
  EXPECT_EQ(Place("fgd-clustering", Whole(1, 1)), "n1:0");
}

// Two idle nodes: node 0 with 2 GPUs, node 1 with 4. Clustering scores an idle node
// 25 + 25 x (8000 - free milli-GPU) / 8000: one whole GPU goes to node 0 (25 + 18 = 43
// against 25 + 12 = 37). Once it is booked, node 0 holds only 1-GPU jobs, so a fractional
// job scores 0 + 25 x 7000 / 8000 = 21 there and goes to idle node 1 (37); had the module
// counted kinds only at Observe, node 0 would still look idle (25 + 21 = 46) and win.
TEST(SharingClusteringKinds, CountsTheJobsPlacedEarlierInTheSameDecision) {
  ClusterSpec spec;
  spec.nodes = {NodeSpec{0, 2, 32, 1024, "T4"}, NodeSpec{0, 4, 32, 1024, "T4"}};
  const ClusterState observed(&spec);
  const Trace trace;
  const PlacementRegistry::Entry* e = BuiltinRegistries().placements.Find("fgd-clustering");
  ASSERT_NE(e, nullptr);
  Result<OptionValues> values = OptionValues::Parse(e->name, e->options, {});
  ASSERT_TRUE(values.ok());
  ModuleContext ctx{std::move(values).value(), &trace};
  auto made = e->factory(ctx);
  ASSERT_TRUE(made.ok()) << made.status().message();
  PlacementModule& m = **made;
  m.Observe(RunningView(&observed, {}));

  ClusterState scratch = observed;  // A policy's copy for this decision.
  const Placement whole = m.Place(Whole(1, 1), scratch);
  EXPECT_EQ(whole.ToString(), "n0:0");
  // Not booked (the policy dropped it): node 0 still looks idle to the next job.
  EXPECT_EQ(m.Place(Fractional(1, 500), scratch).ToString(), "n0:0@500");
  scratch.Allocate(whole);
  EXPECT_EQ(m.Place(Fractional(1, 500), scratch).ToString(), "n1:0@500");
  // The next decision starts from its own view: nothing runs, node 0 is idle again.
  m.Observe(RunningView(&observed, {}));
  EXPECT_EQ(m.Place(Fractional(1, 500), observed).ToString(), "n0:0@500");
}

TEST_F(SharingPlacementTest, RandomReachesEveryNodeThatFitsAndOnlyThose) {
  std::set<std::string> two, one;
  for (int seed = 0; seed < 40; ++seed) {
    const std::map<std::string, std::string> o{{"seed", std::to_string(seed)}};
    two.insert(Place("fgd-random", Whole(1, 2), o).substr(0, 3));
    one.insert(Place("fgd-random", Whole(1, 1), o).substr(0, 3));
  }
  EXPECT_EQ(two, (std::set<std::string>{"n1:"}));  // Node 0 has one free GPU only.
  EXPECT_EQ(one, (std::set<std::string>{"n0:", "n1:"}));
}

TEST_F(SharingPlacementTest, EveryModulePlacesOnlyWhatTheStateAccepts) {
  for (const auto& e : BuiltinRegistries().placements.entries()) {
    if (e.name.rfind("fgd", 0) != 0) continue;
    for (const JobSpec& job : {Fractional(1, 250), Whole(2, 2)}) {
      auto made = Make(e.name);
      ASSERT_TRUE(made.ok()) << made.status().message();
      const Placement p = (*made)->Place(job, state_);
      ASSERT_FALSE(p.empty()) << e.name;
      EXPECT_TRUE(state_.CanAllocate(p)) << e.name << " " << p.ToString();
      EXPECT_EQ(p.gpus(), job.gpus) << e.name;
      EXPECT_EQ(p.shares[0].gpu_milli, job.gpu_milli) << e.name;
    }
    auto made = Make(e.name);
    EXPECT_TRUE((*made)->Place(Whole(1, 8), state_).empty()) << e.name;  // No node has 8.
  }
}

TEST_F(SharingPlacementTest, FollowsTheStateItIsGivenCallAfterCall) {
  auto made = Make("fgd-best-fit");
  ASSERT_TRUE(made.ok());
  EXPECT_EQ((*made)->Place(Fractional(1, 200), state_).ToString(), "n0:0@200");
  // GPU 0 of node 0 fills up: the next 200 pod goes to node 0's other GPU.
  state_.Allocate(Placement{{Share(0, 0b01, 1, 300)}});
  EXPECT_EQ((*made)->Place(Fractional(1, 200), state_).ToString(), "n0:1@200");
}

TEST_F(SharingPlacementTest, WithoutATraceFgdHasNoWorkloadAndTiesDecide) {
  FillNode1Cpu();
  const Trace empty;
  auto no_trace = Make("fgd", {}, &empty);
  ASSERT_TRUE(no_trace.ok()) << no_trace.status().message();
  // No target workload: every GPU scores 50; the first GPU that holds the job wins (with the
  // workload, GPU 1: FgdKeepsAGpuThatStillHoldsTheWorkload).
  EXPECT_EQ((*no_trace)->Place(Fractional(1, 200), state_).ToString(), "n0:0@200");
}

TEST_F(SharingPlacementTest, RefusesBadOptions) {
  auto ties = Make("fgd-packing", {{"ties", "last"}});
  ASSERT_FALSE(ties.ok());
  EXPECT_EQ(ties.status().message(),
            "placement fgd-packing: option 'ties' must be 'ranked', 'first' or 'random', "
            "not 'last'");
  EXPECT_FALSE(Make("fgd", {{"coverage", "0"}}).ok());
}

// One node of 2 GPUs; four 500 milli jobs and, at t=10, a whole-GPU job. FGD's target
// workload (from the trace): the 500 shape (weight 0.8) and the 1000 shape (0.2). Job 1
// takes GPU 0 (either GPU strands 100 of the 1000 shape; the first wins), job 2 fills GPU 0
// (back to no fragment), jobs 3 and 4 share GPU 1: all four start at 0. Job 2 leaves at
// 50, but GPU 0 still holds job 1 until 100: job 5 starts at 100, when all GPUs free up.
TEST(SharingPlacementSimulation, FifoWithFgdPacksFractionalJobsAndWaitsForAWholeGpu) {
  std::vector<JobSpec> jobs;
  for (int id = 1; id <= 4; ++id) {
    jobs.push_back(JobBuilder(id).Gpus(1).GpuMilli(500).Duration(id == 2 ? 50 : 100).Build());
  }
  jobs.push_back(JobBuilder(5).Submit(10).Gpus(1).Duration(10).Build());
  PolicyRequest request = testing::Request("fifo");
  request.placement = "fgd";
  const testing::ScenarioResult r =
      testing::RunScenario(jobs, ClusterSpec::Uniform(1, 1, 2, 0, 0), request);
  ASSERT_EQ(r.jobs.size(), 5u);
  for (int id = 1; id <= 4; ++id) EXPECT_EQ(r.Start(id), 0) << id;
  EXPECT_EQ(r.jobs.at(1).placement, "n0:0@500");
  EXPECT_EQ(r.jobs.at(2).placement, "n0:0@500");
  EXPECT_EQ(r.jobs.at(3).placement, "n0:1@500");
  EXPECT_EQ(r.jobs.at(4).placement, "n0:1@500");
  EXPECT_EQ(r.Start(5), 100);
  EXPECT_EQ(r.jobs.at(5).placement, "n0:0");
  // A whole-GPU module gives each fractional job a free GPU of its own: jobs 3 and 4 wait.
  request.placement = "first-fit";
  const testing::ScenarioResult whole =
      testing::RunScenario(jobs, ClusterSpec::Uniform(1, 1, 2, 0, 0), request);
  EXPECT_EQ(whole.jobs.at(2).placement, "n0:1@500");
  EXPECT_EQ(whole.Start(3), 50);
}

}  // namespace
}  // namespace schedkit
