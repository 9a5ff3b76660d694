// Tiresias' running index (ModularPolicy, RunningIndex::kExact) is kept only while
// someone waits: dropped after more idle decisions than jobs run, rebuilt from the view
// (keys read now) and the remembered wake-ups when a decision needs it again (issue 20).
// A policy that drops it must decide, at every decision point, as one that keeps it; and
// a clone, whose index holds places in its own sets, must decide as its original.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "policies/modular_policy.h"
#include "schedkit/simulator.h"
#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

std::unique_ptr<Policy> Tiresias() {
  auto policy = MakePolicy(Request("tiresias", {{"thresholds", "2000:8000"}}), PolicyKnobs(),
                           BuiltinRegistries());
  EXPECT_TRUE(policy.ok()) << (policy.ok() ? "" : policy.status().message());
  return policy.ok() ? std::move(policy).value() : nullptr;
}

ModularPolicy* Modular(Policy* p) { return dynamic_cast<ModularPolicy*>(p); }

// BurstsAndQuietSpells: queue-0 newcomers of each burst preempt demoted jobs; in each
// quiet spell the long jobs run on and are demoted unseen, and the index is dropped;
// the next burst rebuilds it.
TEST(TiresiasIndex, DroppedAndRebuiltDecidesAsKeptAndClonesDecideAsTheirOriginal) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 8, 0, 0);
  for (uint32_t seed : {1, 2, 3}) {
    Trace trace;
    trace.jobs = BurstsAndQuietSpells(seed);
    Simulator sim(&trace, &cluster, SimulatorOptions());
    std::unique_ptr<Policy> dropping = Tiresias();
    std::unique_ptr<Policy> kept = Tiresias();
    ASSERT_NE(Modular(dropping.get()), nullptr);
    ASSERT_NE(Modular(kept.get()), nullptr);
    Modular(kept.get())->KeepIndexWhileIdle();
    std::unique_ptr<Policy> clone;  // Of `dropping`, taken once its index holds jobs.
    int decisions = 0, drops = 0, rebuilds = 0, clone_decisions = 0;
    bool was_kept = Modular(dropping.get())->IndexKept();
    EventBatch events;
    while (sim.NextDecisionPoint(&events)) {
      if (!clone && was_kept && !sim.view().RunningJobs().empty() && decisions > 20) {
        auto c = dropping->Clone();
        ASSERT_TRUE(c.ok()) << c.status().message();
        clone = std::move(c).value();
      }
      Decisions d, reference;
      dropping->Decide(sim.view(), events, &d);
      kept->Decide(sim.view(), events, &reference);
      ASSERT_EQ(Describe(d), Describe(reference))
          << "seed " << seed << ", decision " << decisions << " at " << sim.view().Now();
      if (clone) {
        Decisions c;
        clone->Decide(sim.view(), events, &c);
        ASSERT_EQ(Describe(c), Describe(d))
            << "clone, seed " << seed << ", decision " << decisions << " at " << sim.view().Now();
        ++clone_decisions;
      }
      const bool is_kept = Modular(dropping.get())->IndexKept();
      drops += was_kept && !is_kept;
      rebuilds += !was_kept && is_kept;
      was_kept = is_kept;
      ++decisions;
      ASSERT_TRUE(sim.Apply(d).ok());
    }
    // The run went through what it is meant to test.
    EXPECT_GE(drops, 2) << "seed " << seed;
    EXPECT_GE(rebuilds, 2) << "seed " << seed;
    EXPECT_GT(clone_decisions, 100) << "seed " << seed;
    EXPECT_TRUE(Modular(kept.get())->IndexKept());
    EXPECT_GT(sim.stats().preemptions, 0) << "seed " << seed;
  }
}

}  // namespace
}  // namespace schedkit::testing
