// DecisionApplier (src/engine/decision_applier.h): validation and booking shared by every
// engine, and how the simulator uses it (arrival rejects, the policy error channel).
#include "engine/decision_applier.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "schedkit/policy.h"
#include "schedkit/simulator.h"

namespace schedkit {
namespace {

Placement Gpus(uint64_t mask) { return Placement{{NodeShare{.node = 0, .gpu_mask = mask}}}; }

// Jobs known to a test "engine": id -> (state, GPUs).
class Jobs {
 public:
  Jobs& Add(JobId id, JobState state, int gpus = 1) {
    jobs_[id] = JobFacts{state, gpus};
    return *this;
  }
  void Set(JobId id, JobState state) { jobs_.at(id).state = state; }
  JobLookup Lookup() const {
    return [this](JobId id, JobFacts* facts) {
      auto it = jobs_.find(id);
      if (it == jobs_.end()) return false;
      *facts = it->second;
      return true;
    };
  }

 private:
  std::map<JobId, JobFacts> jobs_;
};

StartDecision Member(JobId id, uint64_t mask, int64_t group, double rate) {
  return StartDecision{.job = id, .placement = Gpus(mask), .rate = rate, .group = group};
}

class ApplierTest : public ::testing::Test {
 protected:
  // Validates and carries out `d` as an engine does; returns the validation status.
  Status Apply(const Decisions& d) {
    SCHEDKIT_RETURN_IF_ERROR(applier_.Validate(d, 5, jobs_.Lookup(), &plan_));
    for (const DecisionPlan::Reject& r : plan_.reject) jobs_.Set(r.job, JobState::kRejected);
    for (JobId id : plan_.stop) {
      applier_.Release(id);
      jobs_.Set(id, JobState::kPending);
    }
    applier_.Book(plan_);
    for (const StartAction& a : plan_.start) jobs_.Set(a.decision->job, JobState::kRunning);
    return Status::Ok();
  }
  void Finish(JobId id) {
    applier_.Release(id);
    jobs_.Set(id, JobState::kFinished);
  }

  ClusterSpec cluster_ = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  DecisionApplier applier_{&cluster_};
  Jobs jobs_;
  DecisionPlan plan_;
};

// One node of 2 GPUs. Job 1 runs on GPU 0 when the node is held back: GPU 1 looks
// booked at once, GPU 0 stays booked when job 1 stops, and nothing may start there, not
// even where a stop of the same decision frees GPUs; ending the hold frees both.
TEST_F(ApplierTest, AHeldBackNodeKeepsItsGpusBookedUntilTheHoldEnds) {
  jobs_.Add(1, JobState::kPending).Add(2, JobState::kPending);
  Decisions first;
  first.start = {StartDecision{1, Gpus(0b01)}};
  ASSERT_TRUE(Apply(first).ok());
  applier_.HoldBack(0, true);
  EXPECT_TRUE(applier_.held_back(0));
  EXPECT_EQ(applier_.free().total_free_gpus(), 0);
  EXPECT_EQ(applier_.Capacity().total_free_gpus(), 0);
  Decisions move;  // Job 1 to GPU 1, job 2 to GPU 0: both refused.
  move.start = {StartDecision{1, Gpus(0b10)}, StartDecision{2, Gpus(0b01)}};
  EXPECT_FALSE(Apply(move).ok());
  Finish(1);
  EXPECT_EQ(applier_.free().total_free_gpus(), 0) << "the hold keeps the GPU job 1 released";
  applier_.HoldBack(0, false);
  EXPECT_EQ(applier_.free().total_free_gpus(), 2);
  EXPECT_EQ(applier_.Capacity().total_free_gpus(), 2);
  Decisions second;
  second.start = {StartDecision{2, Gpus(0b01)}};
  EXPECT_TRUE(Apply(second).ok());
}

// Bookings live in reused slots (no allocation per start): a freed slot taken by a later
// booking, alone or of a group, must not carry the old one's id, holders or GPUs.
// Job 1 alone on GPU 0, then freed; the group {2, 3} takes its slot on GPU 1; job 4 alone
// on GPU 0 takes a new one. Each booking has its own id; the group's GPU is freed with its
// last member only; job 5 then reuses a freed slot on GPU 1.
TEST_F(ApplierTest, AFreedBookingSlotServesTheNextBookingAsNew) {
  for (JobId id = 1; id <= 5; ++id) jobs_.Add(id, JobState::kPending);
  Decisions one;
  one.start = {StartDecision{1, Gpus(0b01)}};
  ASSERT_TRUE(Apply(one).ok());
  const int64_t first = applier_.BookingOf(1);
  Finish(1);
  Decisions group;
  group.start = {Member(2, 0b10, 9, 0.5), Member(3, 0b10, 9, 0.5)};
  ASSERT_TRUE(Apply(group).ok());
  Decisions four;
  four.start = {StartDecision{4, Gpus(0b01)}};
  ASSERT_TRUE(Apply(four).ok());
  EXPECT_EQ(applier_.BookingOf(2), applier_.BookingOf(3));
  EXPECT_NE(applier_.BookingOf(2), first);
  EXPECT_NE(applier_.BookingOf(4), first);
  EXPECT_NE(applier_.BookingOf(4), applier_.BookingOf(2));
  EXPECT_EQ(applier_.free().total_free_gpus(), 0);
  Finish(2);
  EXPECT_EQ(applier_.free().total_free_gpus(), 0) << "job 3 still holds GPU 1";
  Finish(3);
  EXPECT_EQ(applier_.free().total_free_gpus(), 1);
  Decisions five;
  five.start = {StartDecision{5, Gpus(0b10)}};
  ASSERT_TRUE(Apply(five).ok());
  EXPECT_NE(applier_.BookingOf(5), applier_.BookingOf(4));
  EXPECT_EQ(applier_.free().total_free_gpus(), 0);
  Finish(4);
  Finish(5);
  EXPECT_EQ(applier_.free().total_free_gpus(), 2);
}

TEST_F(ApplierTest, AGroupSharesOneBookingFreedWithItsLastMember) {
  jobs_.Add(1, JobState::kPending).Add(2, JobState::kPending).Add(3, JobState::kPending);
  Decisions d;
  d.start = {Member(1, 0b01, 7, 0.6), Member(2, 0b01, 7, 0.8)};
  ASSERT_TRUE(Apply(d).ok());
  ASSERT_EQ(plan_.start.size(), 2u);
  EXPECT_EQ(plan_.start[0].group_size, 2);
  EXPECT_EQ(plan_.groups, (std::vector<std::vector<JobId>>{{1, 2}}));
  EXPECT_EQ(applier_.BookingOf(1), applier_.BookingOf(2));
  EXPECT_EQ(applier_.free().total_free_gpus(), 1);
  Finish(1);
  EXPECT_EQ(applier_.free().total_free_gpus(), 1) << "job 2 still holds GPU 0";
  Decisions third;
  third.start = {StartDecision{3, Gpus(0b01)}};
  EXPECT_FALSE(applier_.Validate(third, 5, jobs_.Lookup(), &plan_).ok());
  Finish(2);
  EXPECT_EQ(applier_.free().total_free_gpus(), 2);
  EXPECT_TRUE(Apply(third).ok());
}

TEST_F(ApplierTest, AGuestBooksNothing) {
  jobs_.Add(1, JobState::kPending).Add(2, JobState::kPending);
  Decisions d;
  d.start = {StartDecision{1, Gpus(0b01)},
             StartDecision{.job = 2, .placement = Gpus(0b01), .rate = 0.5, .guest = true}};
  ASSERT_TRUE(Apply(d).ok());
  EXPECT_EQ(applier_.BookingOf(2), 0);
  EXPECT_EQ(applier_.free().total_free_gpus(), 1);
  Finish(2);
  EXPECT_EQ(applier_.free().total_free_gpus(), 1);
}

TEST_F(ApplierTest, ValidatesAllOrNothingAndNamesTheBrokenRule) {
  jobs_.Add(1, JobState::kPending).Add(2, JobState::kPending).Add(3, JobState::kFinished);
  Decisions d;
  d.start = {StartDecision{1, Gpus(0b01)}, StartDecision{2, Gpus(0b01)}};  // Double booking.
  const Status st = applier_.Validate(d, 5, jobs_.Lookup(), &plan_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "decision at t=5.000000: job 2 placed on busy or missing resources n0:0");
  EXPECT_EQ(applier_.free().total_free_gpus(), 2);
  Decisions group;
  group.start = {Member(1, 0b01, 4, 1), Member(2, 0b10, 4, 1)};
  EXPECT_NE(applier_.Validate(group, 5, jobs_.Lookup(), &plan_)
                .message()
                .find("placement other than its group's"),
            std::string::npos);
  Decisions finished;
  finished.start = {StartDecision{3, Gpus(0b01)}};
  EXPECT_NE(applier_.Validate(finished, 5, jobs_.Lookup(), &plan_)
                .message()
                .find("starts finished, unknown or repeated job 3"),
            std::string::npos);
  Decisions rate;
  rate.start = {StartDecision{.job = 1, .placement = Gpus(0b01), .rate = NAN}};
  EXPECT_FALSE(applier_.Validate(rate, 5, jobs_.Lookup(), &plan_).ok());
}

// Rejects, then the preempted jobs and the moved ones are stopped, then every start; the
// GPUs a stop frees may be started on in the same decision.
TEST_F(ApplierTest, PlansRejectsStopsThenStarts) {
  jobs_.Add(1, JobState::kPending).Add(2, JobState::kPending).Add(3, JobState::kPending);
  jobs_.Add(4, JobState::kPending, 3);
  Decisions first;
  first.start = {StartDecision{1, Gpus(0b01)}, StartDecision{2, Gpus(0b10)}};
  ASSERT_TRUE(Apply(first).ok());
  Decisions d;
  d.Reject(4, "too wide");
  d.preempt = {1};
  d.start = {StartDecision{3, Gpus(0b01)}, StartDecision{2, Gpus(0b10)}};  // 2 moves in place.
  ASSERT_TRUE(Apply(d).ok());
  ASSERT_EQ(plan_.reject.size(), 1u);
  EXPECT_EQ(plan_.reject[0].reason, "too wide");
  EXPECT_EQ(plan_.stop, (std::vector<JobId>{1, 2}));
  EXPECT_EQ(applier_.free().total_free_gpus(), 0);
}

TEST_F(ApplierTest, SaysWhyAJobNeverFits) {
  EXPECT_EQ(applier_.NeverFits(JobBuilder(1).Gpus(2).Build()), "");
  EXPECT_EQ(applier_.NeverFits(JobBuilder(1).Gpus(3).Build()), "asks for 3 GPUs; the cluster has 2");
}

// A job that lists speeds runs only on the types it lists (throughput.h): on 4 v100 and
// 2 k80 GPUs, a job listing only k80 can use 2 of the 6, one listing both all 6.
TEST(ApplierTypes, AJobNoTypeOfTheClusterCanHoldNeverFits) {
  ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 4, 32, 256, "v100");
  cluster.nodes.push_back(NodeSpec{.switch_id = 0, .gpus = 2, .gpu_type = "k80"});
  const DecisionApplier applier(&cluster);
  EXPECT_EQ(applier.NeverFits(JobBuilder(1).Gpus(6).Speed("v100", 1).Speed("k80", 0.3).Build()), "");
  EXPECT_EQ(applier.NeverFits(JobBuilder(2).Gpus(2).Speed("k80", 1).Build()), "");
  EXPECT_EQ(applier.NeverFits(JobBuilder(3).Gpus(3).Speed("k80", 1).Build()),
            "asks for 3 GPUs; the cluster has 2 of the GPU types it can run on (it has k80, v100)");
  EXPECT_EQ(applier.NeverFits(JobBuilder(4).Gpus(1).Speed("p100", 1).Build()),
            "asks for 1 GPUs; the cluster has 0 of the GPU types it can run on (it has k80, v100)");
  EXPECT_EQ(applier.NeverFits(JobBuilder(5).Gpus(6).Build()), "");  // Lists no speeds: any type.
}

// After a runtime restart: a group's surviving members rejoin one booking; a job that
// claims resources apart from its group's, or busy ones, is refused.
TEST_F(ApplierTest, AdoptsGroupsIntoOneBooking) {
  ASSERT_TRUE(applier_.Adopt(1, Gpus(0b01), 9, false).ok());
  ASSERT_TRUE(applier_.Adopt(2, Gpus(0b01), 9, false).ok());
  EXPECT_EQ(applier_.free().total_free_gpus(), 1);
  EXPECT_FALSE(applier_.Adopt(3, Gpus(0b10), 9, false).ok());
  EXPECT_FALSE(applier_.Adopt(3, Gpus(0b01), 0, false).ok());
  ASSERT_TRUE(applier_.Adopt(3, Gpus(0b01), 0, true).ok());  // A guest.
  ASSERT_TRUE(applier_.Adopt(4, Gpus(0b10), 0, false).ok());
  EXPECT_NE(applier_.BookingOf(4), 9);
  applier_.Release(1);
  applier_.Release(2);
  EXPECT_EQ(applier_.free().total_free_gpus(), 1);
  // Bookings made after adoption never reuse an adopted id.
  jobs_.Add(5, JobState::kPending);
  Decisions d;
  d.start = {StartDecision{5, Gpus(0b01)}};
  ASSERT_TRUE(Apply(d).ok());
  EXPECT_GT(applier_.BookingOf(5), 9);
}

// Starts every arrival on GPU 0, remembering what it was told.
class RecordingPolicy final : public Policy {
 public:
  std::string_view Name() const override { return "recording"; }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    seen.insert(seen.end(), events.arrived.begin(), events.arrived.end());
    for (JobId id : events.arrived) out->start.push_back({id, Gpus(0b01)});
  }
  std::vector<JobId> seen;
};

TEST(SimulatorArrival, AJobLargerThanTheClusterIsRejectedBeforeThePolicySeesIt) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Gpus(2).Duration(10).Build(), JobBuilder(2).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  RecordingPolicy policy;
  ASSERT_TRUE(sim.Run(&policy).ok());
  EXPECT_EQ(policy.seen, (std::vector<JobId>{2}));
  EXPECT_EQ(sim.view().Status(1).state, JobState::kRejected);
  EXPECT_EQ(sim.stats().unfinished, 1);
}

// Fails at its second decision, as Themis does when its LP solver fails.
class FailingPolicy final : public Policy {
 public:
  std::string_view Name() const override { return "failing"; }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    if (++calls_ == 2) {
      out->start.push_back({2, Gpus(0b01)});  // Ignored: a failed decision applies nothing.
      out->Fail("LP solver: status 1");
      return;
    }
    for (JobId id : events.arrived) out->start.push_back({id, Gpus(0b01)});
  }

 private:
  int calls_ = 0;
};

TEST(SimulatorPolicyError, EndsTheRunWithThePolicysMessage) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  Trace trace;
  trace.jobs = {JobBuilder(1).Duration(10).Build(), JobBuilder(2).Submit(5).Duration(10).Build()};
  Simulator sim(&trace, &cluster, SimulatorOptions());
  FailingPolicy policy;
  const Status st = sim.Run(&policy);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "failing: LP solver: status 1");
  EXPECT_EQ(sim.view().Status(2).state, JobState::kPending);
}

}  // namespace
}  // namespace schedkit
