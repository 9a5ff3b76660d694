// What the ordered policies' step 3 (ModularPolicy::DecidePriority and TopFrontier) skips
// at 95 % load (issue 20), each pinned by a hand-worked decision on a hand-written view:
//  - a try that places no chosen pending job backfills on the view's own free state,
//    unless the stopped jobs' releases are not undone exactly (a held node); a try that
//    the placement module's promise says cannot place any is not made;
//  - a running job's key re-read lower is written in place only while it stays above the
//    job before it in the running index, else the job moves;
//  - the backfill walk re-asks a demand class whether it may fit only after an allocation
//    (PlacementWalk::allocations), per class, and stops reading a class of one job shape
//    after one of its jobs found no place, until the next allocation.
// And, on simulated runs: SRTF's and SRSF's promise of how fast a running key may fall
// (ModularPolicyConfig::running_key_fall) leaves keys unread where the bound decides,
// and decides at every decision point as the same policy without the promise, on GPU
// types that run jobs faster and slower than alone on a generic GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hand_view.h"
#include "mechanisms/placement_walk.h"
#include "policies/remaining_work.h"
#include "schedkit/ordering_policy.h"
#include "schedkit/registry.h"
#include "schedkit/simulator.h"
#include "schedkit/view.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

// Pending jobs of `gpus` GPUs each with `remaining_s` of work left, as the view reports it.
struct HandJob {
  JobId id;
  int gpus;
  double remaining_s;
};
void Add(HandView& view, std::initializer_list<HandJob> jobs) {
  for (const HandJob& j : jobs)
    view.Add(JobBuilder(j.id).Submit(0).Gpus(j.gpus).Duration(j.remaining_s).Build());
}

std::unique_ptr<Policy> Srtf() {
  PolicyRequest request;
  request.policy = "srtf";
  auto policy = MakePolicy(request);
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  return policy.ok() ? std::move(*policy) : nullptr;
}

EventBatch Arrivals(std::vector<JobId> ids) {
  EventBatch events;
  events.arrived = std::move(ids);
  return events;
}

// A fresh srtf's decision when `arrived` arrive on `view`.
Decisions DecideArrivals(const HandView& view, std::vector<JobId> arrived) {
  auto policy = Srtf();
  Decisions d;
  if (policy != nullptr) policy->Decide(view, Arrivals(std::move(arrived)), &d);
  return d;
}

// "job@placement" for each start, in order.
std::vector<std::string> Starts(const Decisions& d) {
  std::vector<std::string> out;
  for (const StartDecision& s : d.start) out.push_back(std::to_string(s.job) + "@" + s.placement.ToString());
  return out;
}

// Two 4-GPU nodes, six GPUs busy: A (2 GPUs, 100 s left) and C (1, 600 s) on node 0, B
// (2, 500 s) and D (1, 700 s) on node 1. P (4 GPUs, 50 s) and Q (1 GPU, 1,000 s) arrive.
// Walking the order P, A, B, C, D, Q with 8 GPUs, P, A and B take them all: C and D are
// stopped on paper, which leaves GPUs 2-3 free on each node, and P finds no node with 4.
constexpr JobId kA = 1, kB = 2, kC = 3, kD = 4, kP = 5, kQ = 6;
HandView StuckFourGpuJob() {
  HandView view(ClusterSpec::Uniform(1, 2, 4, 0, 0));
  Add(view, {{kA, 2, 100}, {kB, 2, 500}, {kC, 1, 600}, {kD, 1, 700}, {kP, 4, 50}, {kQ, 1, 1000}});
  view.Run(kA, 0, {0, 1});
  view.Run(kC, 0, {2});
  view.Run(kB, 1, {0, 1});
  view.Run(kD, 1, {2});
  return view;
}

TEST(Step3Costs, ATryThatPlacesNothingBackfillsTheViewsOwnState) {
  HandView view = StuckFourGpuJob();
  const Decisions d = DecideArrivals(view, {kP, kQ});
  // C and D keep their GPUs; Q is backfilled on the first free GPU, P waits.
  EXPECT_EQ(Starts(d), std::vector<std::string>{"6@n0:3"});
  EXPECT_TRUE(d.preempt.empty());
}

// yarn, counting the Place calls for jobs of `counted_gpus` GPUs, with or without its
// promise that such a job goes on one node with its GPUs free.
class CountingYarn final : public PlacementModule {
 public:
  CountingYarn(bool promise, int counted_gpus, int* calls)
      : yarn_(BuiltinRegistries().placements.Find("yarn")->factory(ctx_).value()),
        promise_(promise),
        counted_gpus_(counted_gpus),
        calls_(calls) {}
  std::string_view Name() const override { return "counting-yarn"; }
  bool PlacesByShape() const override { return yarn_->PlacesByShape(); }
  bool PlacesOnOneNodeWithFreeGpus(const JobSpec& job, const ClusterState& free) const override {
    return promise_ && yarn_->PlacesOnOneNodeWithFreeGpus(job, free);
  }
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    if (job.gpus == counted_gpus_) ++*calls_;
    return yarn_->Place(job, free);
  }

 private:
  ModuleContext ctx_;
  std::unique_ptr<PlacementModule> yarn_;
  bool promise_;
  int counted_gpus_;
  int* calls_;
};

// srtf's decision on StuckFourGpuJob with CountingYarn; `*p_places` counts the Place
// calls for P (the only 4-GPU job).
Decisions DecideStuckWithCountingYarn(bool promise, int* p_places) {
  Registries registries = BuiltinRegistries();
  PlacementRegistry::Entry entry;
  entry.name = "counting-yarn";
  entry.factory = [=](ModuleContext&) -> Result<std::unique_ptr<PlacementModule>> {
    return std::unique_ptr<PlacementModule>(std::make_unique<CountingYarn>(promise, 4, p_places));
  };
  EXPECT_TRUE(registries.placements.Register(std::move(entry)).ok());
  PolicyRequest request;
  request.policy = "srtf";
  request.placement = "counting-yarn";
  auto policy = MakePolicy(request, registries);
  Decisions d;
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  if (policy.ok()) (*policy)->Decide(StuckFourGpuJob(), Arrivals({kP, kQ}), &d);
  return d;
}

TEST(Step3Costs, ATryNoNodeCouldHoldIsNotMade) {
  // P is chosen, C and D are stopped on paper: each node would have 2 + 1 = 3 GPUs free,
  // and yarn puts a 4-GPU job on one node with 4 free, so P is not tried. Without the
  // promise it is, and finds no place. Either way Q is backfilled and nobody is stopped.
  for (bool promise : {true, false}) {
    int p_places = 0;
    const Decisions d = DecideStuckWithCountingYarn(promise, &p_places);
    EXPECT_EQ(Starts(d), std::vector<std::string>{"6@n0:3"}) << promise;
    EXPECT_TRUE(d.preempt.empty()) << promise;
    EXPECT_EQ(p_places, promise ? 0 : 1) << promise;
  }
}

TEST(Step3Costs, YarnPromisesOneNodeForWholeGpusThatANodeHolds) {
  const ClusterSpec spec = ClusterSpec::Uniform(1, 2, 4, 0, 0);
  const ClusterState free(&spec);
  ModuleContext ctx;
  auto yarn = BuiltinRegistries().placements.Find("yarn")->factory(ctx).value();
  EXPECT_TRUE(yarn->PlacesOnOneNodeWithFreeGpus(JobBuilder(1).Gpus(4).Build(), free));
  EXPECT_FALSE(yarn->PlacesOnOneNodeWithFreeGpus(JobBuilder(1).Gpus(5).Build(), free));  // Spans nodes.
  // A fraction may share a GPU that is not free.
  EXPECT_FALSE(yarn->PlacesOnOneNodeWithFreeGpus(JobBuilder(1).Gpus(1).GpuMilli(500).Build(), free));
  auto gpu_count = BuiltinRegistries().placements.Find("gpu-count")->factory(ctx).value();
  EXPECT_FALSE(gpu_count->PlacesOnOneNodeWithFreeGpus(JobBuilder(1).Gpus(1).Build(), free));
}

TEST(Step3Costs, AStoppedJobOnAHeldNodeIsNotGivenItsGpusBack) {
  // Node 1 is held (drained): its free GPU looks booked, and D's GPU, released on paper,
  // stays with the hold. So D cannot keep its GPU: it moves to node 0's free GPU, and Q
  // finds no room. Backfilling on the view's own state would start Q there instead.
  HandView view = StuckFourGpuJob();
  view.Hold(1);
  const Decisions d = DecideArrivals(view, {kP, kQ});
  EXPECT_EQ(Starts(d), std::vector<std::string>{"4@n0:3"});
  EXPECT_TRUE(d.preempt.empty());
}

TEST(Step3Costs, AKeyReReadBelowItsPredecessorMovesAndOneAboveStays) {
  // One 4-GPU node: A (2 GPUs), B and C (1 each), keys read at t=10 as 100, 200, 300.
  HandView view(ClusterSpec::Uniform(1, 1, 4, 0, 0));
  constexpr JobId a = 1, b = 2, c = 3, p = 4;
  Add(view, {{a, 2, 100}, {b, 1, 200}, {c, 1, 300}, {p, 2, 70}});
  view.Run(a, 0, {0, 1});
  view.Run(b, 0, {2});
  view.Run(c, 0, {3});
  auto policy = Srtf();
  Decisions d;
  policy->Decide(view, EventBatch{}, &d);  // Nobody waits: the index holds the keys read.
  ASSERT_TRUE(d.start.empty());
  // At t=20 (remaining work fell, B's fastest): A 90, B 50, C 290. P (2 GPUs, 70 s)
  // arrives. Reading down from the top: C's 290 stays above B's old 200 (in place), B's
  // 50 falls below A's old 100 (B moves), A's 90 stays above B's 50 (in place). The
  // order B, P, A, C with 4 GPUs chooses B, P and C: A is stopped, P takes its GPUs.
  // Had B been left in A's place, the walk would read C, B, A and keep everyone.
  view.SetNow(20);
  view.SetRemaining(a, 90);
  view.SetRemaining(b, 50);
  view.SetRemaining(c, 290);
  d.Clear();
  policy->Decide(view, Arrivals({p}), &d);
  EXPECT_EQ(Starts(d), std::vector<std::string>{"4@n0:0-1"});
  EXPECT_EQ(d.preempt, std::vector<JobId>{a});
}

TEST(Step3Costs, BackfillAsksEachDemandClassAgainAfterAnAllocation) {
  // One 4-GPU node, R (2 GPUs, 10 s) running and ahead of everybody: no preemption, a
  // backfill walk over 2 free GPUs. The queue: J1 (4 GPUs) cannot fit at all, J2 and J3
  // (1 GPU each) fit one after the other, J4 (2 GPUs) fitted before J2 started only.
  HandView view(ClusterSpec::Uniform(1, 1, 4, 0, 0));
  Add(view, {{1, 2, 10}, {2, 4, 100}, {3, 1, 200}, {4, 1, 300}, {5, 2, 400}});
  view.Run(1, 0, {0, 1});
  const Decisions d = DecideArrivals(view, {2, 3, 4, 5});
  EXPECT_EQ(Starts(d), (std::vector<std::string>{"3@n0:2", "4@n0:3"}));
}

// Two 4-GPU nodes with one GPU free on each, behind R1 and R2 (3 GPUs each, ahead of
// everybody). J1-J3 ask for 2 GPUs each: every node has too few, though 2 are free in
// all, so each finds no place. Q (1 GPU) arrives at the second decision and starts on
// n0's free GPU. `j2_cpus` gives J2 another shape than J1's and J3's (the nodes have 8
// CPUs: it would fit as well, but for the GPUs). Returns how often the second decision
// read J2's and J3's specs.
std::pair<int, int> SecondDecisionReadsOfJ2J3(int j2_cpus) {
  HandView view(ClusterSpec::Uniform(1, 2, 4, 8, 0));
  constexpr JobId r1 = 1, r2 = 2, j1 = 3, j2 = 4, j3 = 5, q = 6;
  Add(view, {{r1, 3, 10}, {r2, 3, 20}, {j1, 2, 100}, {j3, 2, 300}, {q, 1, 1000}});
  view.Add(JobBuilder(j2).Submit(0).Gpus(2).Cpus(j2_cpus).Duration(200).Build());
  view.Run(r1, 0, {0, 1, 2});
  view.Run(r2, 1, {0, 1, 2});
  auto policy = Srtf();
  Decisions d;
  policy->Decide(view, Arrivals({j1, j2, j3}), &d);
  EXPECT_TRUE(d.start.empty());
  view.ResetSpecReads();
  d.Clear();
  policy->Decide(view, Arrivals({q}), &d);
  EXPECT_EQ(Starts(d), std::vector<std::string>{"6@n0:3"});
  return {view.spec_reads(j2), view.spec_reads(j3)};
}

TEST(Step3Costs, BackfillSkipsTheRestOfAOneShapeClassAfterAMisfit) {
  // J1, J2 and J3 of one shape: J1's misfit ends the class's walk until an allocation.
  EXPECT_EQ(SecondDecisionReadsOfJ2J3(0), std::make_pair(0, 0));
  // J2 of another shape: the class is walked to its end (each gets no place).
  EXPECT_EQ(SecondDecisionReadsOfJ2J3(1), std::make_pair(1, 1));
}

TEST(Step3Costs, PlacementWalkCountsItsAllocationsInEveryMode) {
  const ClusterSpec spec = ClusterSpec::Uniform(1, 2, 4, 0, 0);
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  const ClusterState base(&spec);
  PlacementWalk::Scratch scratch;
  ClusterState in_place(&spec);
  PlacementWalk own(*yarn, base);
  PlacementWalk borrowed(*yarn, &base, &scratch);
  PlacementWalk booked(*yarn, &in_place, PlacementWalk::InPlace());
  for (PlacementWalk* walk : {&own, &borrowed, &booked}) {
    EXPECT_EQ(walk->allocations(), 0);
    const Placement p = walk->Place(JobBuilder(1).Gpus(4).Build());
    ASSERT_FALSE(p.empty());
    EXPECT_EQ(walk->allocations(), 0);  // Placing allocates nothing.
    walk->Allocate(p);
    EXPECT_EQ(walk->allocations(), 1);
    EXPECT_TRUE(walk->Place(JobBuilder(2).Gpus(8).Build()).empty());  // Nor does a misfit.
    EXPECT_EQ(walk->allocations(), 1);
    walk->Allocate(walk->Place(JobBuilder(3).Gpus(2).Build()));
    EXPECT_EQ(walk->allocations(), 2);
    EXPECT_EQ(walk->free().total_free_gpus(), 2);
  }
  EXPECT_EQ(base.total_free_gpus(), 8);
}

// The failed shapes are held inline, at most 16: a 17th is asked about every time.
TEST(Step3Costs, PlacementWalkRemembersAtMostSixteenFailedShapes) {
  const ClusterSpec spec = ClusterSpec::Uniform(1, 1, 4, 0, 0);
  auto yarn = testing::MakeBuiltinPlacement("yarn");
  ASSERT_TRUE(yarn->PlacesByShape());
  PlacementWalk walk(*yarn, ClusterState(&spec));
  // 8 GPUs never fit on 4; the CPU count tells the 17 shapes apart.
  auto shape = [](int i) { return JobBuilder(i).Gpus(8).Cpus(i).Build(); };
  for (int i = 0; i < 17; ++i) EXPECT_TRUE(walk.Place(shape(i)).empty());
  EXPECT_EQ(walk.skipped(), 0);
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < 17; ++i) EXPECT_TRUE(walk.Place(shape(i)).empty());
    EXPECT_EQ(walk.skipped(), 16 * round);
  }
}

// Forwards to a view, counting the statuses read.
class StatusCountingView final : public ClusterView {
 public:
  explicit StatusCountingView(const ClusterView* view) : view_(view) {}
  Time Now() const override { return view_->Now(); }
  const ClusterSpec& Cluster() const override { return view_->Cluster(); }
  const ClusterState& Resources() const override { return view_->Resources(); }
  ClusterState Capacity() const override { return view_->Capacity(); }
  const std::vector<JobId>& RunningJobs() const override { return view_->RunningJobs(); }
  std::vector<JobId> PendingJobs() const override { return view_->PendingJobs(); }
  JobStatus Status(JobId id) const override {
    ++statuses_;
    return view_->Status(id);
  }
  const JobSpec& Spec(JobId id) const override { return view_->Spec(id); }
  const ThroughputTable* Throughputs() const override { return view_->Throughputs(); }
  int64_t statuses() const { return statuses_; }

 private:
  const ClusterView* view_;
  mutable int64_t statuses_ = 0;
};

// Two nodes of 8 "fast" GPUs, two of 8 "slow" and one generic: a job that lists speeds
// runs at 2.5 on fast ones and 0.4 on slow ones (its slowest type when it spans them), one
// that lists none at 1 everywhere. Poisson arrivals at about twice what the cluster
// serves, heavy-tailed work.
ClusterSpec TwoSpeedCluster() {
  ClusterSpec spec;
  for (const char* type : {"fast", "fast", "slow", "slow", kGenericGpuType}) {
    NodeSpec n;
    n.gpus = 8;
    n.gpu_type = type;
    spec.nodes.push_back(n);
  }
  return spec;
}

std::vector<JobSpec> BusyTwoSpeedJobs(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (JobId id = 1; id <= 500; ++id) {
    t += std::round(-std::log(1 - u(rng)) * 40);
    JobSpec j = JobBuilder(id).Submit(t).Gpus(1 << static_cast<int>(u(rng) * 4))
                    .Duration(std::round(std::exp(u(rng) * 7) * 5)).Build();
    if (u(rng) < 0.7) j.profile.type_speeds = {{"fast", 2.5}, {"slow", 0.4}};
    jobs.push_back(j);
  }
  return jobs;
}

// `name` ("srtf" or "srsf") as registered, or without the promise.
std::unique_ptr<Policy> RemainingWorkPolicy(const std::string& name, bool promise) {
  Registries registries = BuiltinRegistries();
  const bool gpu_weighted = name == "srsf";
  const Status registered = RegisterOrderingPolicy(
      {.name = name + "-unbounded",
       .description = name + " without running_key_fall",
       .default_placement = "yarn",
       .running_keys_never_grow = true,
       .make = [gpu_weighted](const PolicyContext&) -> Result<std::unique_ptr<SchedulingModule>> {
         return MakeRemainingWorkOrder(gpu_weighted, false);
       }},
      &registries);
  EXPECT_TRUE(registered.ok()) << registered.message();
  PolicyRequest request;
  request.policy = promise ? name : name + "-unbounded";
  auto policy = MakePolicy(request, registries);
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  return policy.ok() ? std::move(*policy) : nullptr;
}

TEST(Step3Costs, KeysLeftUnreadByTheirFallBoundDecideAsKeysReadEveryTime) {
  const ClusterSpec cluster = TwoSpeedCluster();
  for (const std::string name : {"srtf", "srsf"}) {
    for (uint32_t seed : {1, 2, 3}) {
      Trace trace;
      trace.jobs = BusyTwoSpeedJobs(seed);
      Simulator sim(&trace, &cluster, SimulatorOptions());
      std::unique_ptr<Policy> bounded = RemainingWorkPolicy(name, true);
      std::unique_ptr<Policy> unbounded = RemainingWorkPolicy(name, false);
      ASSERT_NE(bounded, nullptr);
      ASSERT_NE(unbounded, nullptr);
      int64_t bounded_reads = 0, unbounded_reads = 0, moves = 0;
      int decisions = 0;
      EventBatch events;
      while (sim.NextDecisionPoint(&events)) {
        StatusCountingView bounded_view(&sim.view()), unbounded_view(&sim.view());
        Decisions d, reference;
        bounded->Decide(bounded_view, events, &d);
        unbounded->Decide(unbounded_view, events, &reference);
        ASSERT_EQ(testing::Describe(d), testing::Describe(reference))
            << name << ", seed " << seed << ", decision " << decisions << " at " << sim.view().Now();
        bounded_reads += bounded_view.statuses();
        unbounded_reads += unbounded_view.statuses();
        for (const StartDecision& s : d.start) moves += sim.view().Status(s.job).running();
        ++decisions;
        ASSERT_TRUE(sim.Apply(d).ok());
      }
      // The runs went through what they are meant to test: preemptions, moves, and keys
      // the bound left unread.
      EXPECT_GT(sim.stats().preemptions, 20) << name << ", seed " << seed;
      EXPECT_GT(moves, 0) << name << ", seed " << seed;
      EXPECT_LT(bounded_reads, unbounded_reads * 0.9) << name << ", seed " << seed;
    }
  }
}

}  // namespace
}  // namespace schedkit
