// The compatibility-profile table (schedkit/compat.h): its rows, how a run resolves one,
// and that the engine's progress model and the policies' knobs come from it.
#include "schedkit/compat.h"

#include <gtest/gtest.h>

#include "schedkit/registry.h"
#include "sim_test_util.h"

namespace schedkit {
namespace {

using testing::Request;
using testing::RunScenario;

TEST(CompatProfile, ModeNamesRoundTrip) {
  for (CompatMode mode : {CompatMode::kNone, CompatMode::kMuri, CompatMode::kLucid, CompatMode::kBlox}) {
    Result<CompatMode> parsed = ParseCompatMode(CompatModeName(mode));
    ASSERT_TRUE(parsed.ok()) << CompatModeName(mode);
    EXPECT_EQ(*parsed, mode);
  }
  Result<CompatMode> bad = ParseCompatMode("gavel");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown compat mode 'gavel' (expected one of: none, muri, lucid, blox)");
}

TEST(CompatProfile, RowsSayWhatEachModeChanges) {
  const CompatProfile& clean = ProfileFor(CompatMode::kNone);
  EXPECT_EQ(clean.progress, ProgressModel::kClean);
  EXPECT_EQ(clean.runtime_factor, 1.0);
  EXPECT_EQ(clean.percentiles, PercentileRule::kNearestRank);
  EXPECT_FALSE(clean.knobs.list_ordered_replacement);
  EXPECT_EQ(clean.knobs.default_isolated_time, IsolatedTimeUnit::kSeconds);

  const CompatProfile& muri = ProfileFor(CompatMode::kMuri);
  EXPECT_EQ(muri.progress, ProgressModel::kMuriInterval);
  EXPECT_STREQ(ProgressModelName(muri.progress), "muri-interval");
  EXPECT_EQ(muri.runtime_factor, kMuriRuntimeFactor);
  EXPECT_EQ(muri.knobs.runtime_factor, kMuriRuntimeFactor);
  EXPECT_EQ(muri.percentiles, PercentileRule::kMuriIndex);
  EXPECT_TRUE(muri.knobs.list_ordered_replacement);
  EXPECT_TRUE(muri.knobs.whole_second_thresholds);
  EXPECT_TRUE(muri.knobs.key_unstarted_by_trace_duration);
  EXPECT_TRUE(muri.knobs.reference_matching_order);
  EXPECT_EQ(muri.knobs.default_isolated_time, IsolatedTimeUnit::kIterations);

  EXPECT_TRUE(ProfileFor(CompatMode::kLucid).own_engine);
  EXPECT_FALSE(muri.own_engine);
}

TEST(CompatProfile, UserRuntimeFactorReachesEngineAndKnobsAlike) {
  const CompatProfile p = ResolveProfile(CompatMode::kMuri, 1.0);
  EXPECT_EQ(p.runtime_factor, 1.0);
  EXPECT_EQ(p.knobs.runtime_factor, 1.0);
  EXPECT_TRUE(p.knobs.list_ordered_replacement);  // The rest of the row stays.
  EXPECT_EQ(ResolveProfile(CompatMode::kMuri, std::nullopt).runtime_factor, kMuriRuntimeFactor);
}

// A policy that records the knobs its factory was given.
class NoopPolicy final : public Policy {
 public:
  std::string_view Name() const override { return "noop"; }
  void Decide(const ClusterView&, const EventBatch&, Decisions*) override {}
};

TEST(CompatProfile, MakePolicyHandsTheProfileKnobsToTheFactory) {
  Registries r;
  PolicyKnobs seen;
  ASSERT_TRUE(r.policies
                  .Register({.name = "noop",
                             .description = "records its knobs",
                             .factory = [&seen](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
                               seen = ctx.knobs;
                               return std::unique_ptr<Policy>(std::make_unique<NoopPolicy>());
                             },
                             .default_admission = ""})
                  .ok());
  PolicyRequest req;
  req.policy = "noop";
  req.compat = CompatMode::kMuri;
  ASSERT_TRUE(MakePolicy(req, r).ok());
  EXPECT_TRUE(seen.list_ordered_replacement);
  EXPECT_EQ(seen.runtime_factor, kMuriRuntimeFactor);

  ASSERT_TRUE(MakePolicy(req, ResolveProfile(CompatMode::kMuri, 1.0).knobs, r).ok());
  EXPECT_EQ(seen.runtime_factor, 1.0);

  req.compat = CompatMode::kLucid;  // Its own engine: refused here.
  EXPECT_FALSE(MakePolicy(req, r).ok());
}

// The worked example of docs/architecture.md: FIFO, overhead 5 s, two one-GPU jobs of
// 100 s submitted at 0 and 50 on a free cluster.
std::vector<JobSpec> TwoJobs() {
  return {JobBuilder(1).Gpus(1).Submit(0).Duration(100).Build(),
          JobBuilder(2).Gpus(1).Submit(50).Duration(100).Build()};
}
const ClusterSpec kTwoGpus = ClusterSpec::Uniform(1, 1, 2, 0, 0);

TEST(CompatProfile, CleanProgressPaysTheOverheadOncePerStart) {
  auto r = RunScenario(TwoJobs(), kTwoGpus, Request("fifo"), /*overhead_s=*/5);
  EXPECT_DOUBLE_EQ(r.Jct(1), 105);  // 5 s overhead, then 100 s of work.
  EXPECT_DOUBLE_EQ(r.Jct(2), 105);
}

TEST(CompatProfile, MuriIntervalProgressPaysTheOverheadEveryInterval) {
  PolicyRequest req = Request("fifo");
  req.compat = CompatMode::kMuri;
  auto r = RunScenario(TwoJobs(), kTwoGpus, req, /*overhead_s=*/5);
  // A's work is 101.5; at t=50 it is booked 50 - 5 = 45 (56.5 left, predicted 106.5) and
  // its last interval costs nothing. B (101.5) is booked 56.5 - 5 at t=106.5 (50 left) and
  // ends at 156.5.
  EXPECT_DOUBLE_EQ(r.Jct(1), 106.5);
  EXPECT_DOUBLE_EQ(r.Jct(2), 106.5);
}

TEST(CompatProfile, RuntimeFactorOverrideReachesTheEngine) {
  Trace trace;
  trace.jobs = TwoJobs();
  PolicyRequest req = Request("fifo");
  req.compat = CompatMode::kMuri;
  SimulatorOptions options;
  options.overheads = RestartOverheads(5);
  options.runtime_factor = 1.0;
  Result<RunOutput> run = RunSimulation(trace, kTwoGpus, req, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  // Work 100: A is booked 45 at t=50 and ends at 105; B is booked 55 - 5 then and ends at 155.
  EXPECT_DOUBLE_EQ(run->recorder->job(0).jct_s(), 105);
  EXPECT_DOUBLE_EQ(run->recorder->job(1).jct_s(), 105);
}

}  // namespace
}  // namespace schedkit
