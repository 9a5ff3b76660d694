// Lucid's rules (src/lucid/rules.h), the one definition both the compat engine and the
// clean-model policy decide with: priority, partner rule, pair speeds, packing switch.
#include "lucid/rules.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace schedkit::lucid {
namespace {

TEST(LucidRulesTest, PriorityIsEstimateTimesGpusWithUnknownEstimatesAtAThousandSeconds) {
  EXPECT_EQ(Priority(100, 4), 400);
  EXPECT_EQ(Priority(0, 4), 0);
  EXPECT_EQ(Priority(-1, 2), 2000);  // Negative: the estimator's "unknown".
}

TEST(LucidRulesTest, PartnerRule) {
  const Sharer host{.gpus = 8, .gmem_mb = 10000, .share_score = 1, .priority = 500};
  struct Case {
    const char* name;
    Sharer guest;
    bool shares;
  };
  const std::vector<Case> cases = {
      {"fits every rule", {.gpus = 8, .gmem_mb = 10000, .share_score = 1, .priority = 1000}, true},
      {"other GPU count", {.gpus = 4, .gmem_mb = 1000, .share_score = 0, .priority = 1}, false},
      {"memory reaches 24,576 MB",
       {.gpus = 8, .gmem_mb = 14576, .share_score = 0, .priority = 1},
       false},
      {"memory just under", {.gpus = 8, .gmem_mb = 14575, .share_score = 0, .priority = 1}, true},
      {"share scores sum to 3",
       {.gpus = 8, .gmem_mb = 1000, .share_score = 2, .priority = 1},
       false},
      {"priority over twice the host's",
       {.gpus = 8, .gmem_mb = 1000, .share_score = 0, .priority = 1000.5},
       false},
      {"no share score",
       {.gpus = 8, .gmem_mb = 1000, .share_score = kNeverShares, .priority = 1},
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(MayShare(c.guest, host), c.shares);
  }
  // More than one node's GPUs never share, even with a partner of the same size.
  const Sharer big{.gpus = 16, .gmem_mb = 1000, .share_score = 0, .priority = 1};
  EXPECT_FALSE(MayShare(big, big));
}

JobSpec Workload(const std::string& model) {
  JobSpec j = JobBuilder(1).Model(model).Build();
  j.profile.dataset = "D";
  j.profile.batch_size = 32;
  return j;
}

TEST(LucidRulesTest, PairSpeedsAreLookedUpBothWaysAndUnmeasuredModelsRunAtFullSpeed) {
  PairSpeedTable table;
  table[{KeyOf(Workload("B")), KeyOf(Workload("A"))}] = {0.5, 0.8};
  auto s = LookupPairSpeeds(table, Workload("B"), Workload("A"));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->speed1, 0.5);
  EXPECT_EQ(s->speed2, 0.8);
  s = LookupPairSpeeds(table, Workload("A"), Workload("B"));  // Reversed: speeds swap.
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->speed1, 0.8);
  EXPECT_EQ(s->speed2, 0.5);
  EXPECT_FALSE(LookupPairSpeeds(table, Workload("A"), Workload("C")).has_value());
  for (const char* model : {"NeuMF", "ResNet50", "BERT", "Transformer"}) {
    SCOPED_TRACE(model);
    s = LookupPairSpeeds(table, Workload(model), Workload("C"));
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->speed1, 1);
    EXPECT_EQ(s->speed2, 1);
  }
}

TEST(LucidRulesTest, PackingIsOffOnlyWhenTheForecastMeanIsAtMostTwo) {
  ThroughputForecast f;
  for (int i = 0; i < 8; ++i) {
    f.time_s.push_back(600 * i);
    f.pred_gpu_job.push_back(i < 6 ? 2 : 2.5);
    f.pred_gpu_num.push_back(0);
  }
  const ForecastView view(f);
  EXPECT_FALSE(PackingAllowed(view, 0, -1));      // Rows 1..5: mean 2.
  EXPECT_TRUE(PackingAllowed(view, 600, -1));     // Rows 2..6: mean 2.1.
  EXPECT_TRUE(PackingAllowed(view, 5000, -1));    // No row left: NaN, on.
  EXPECT_TRUE(PackingAllowed(view, 5000, 4900));  // The previous look emptied it: 10, on.
}

}  // namespace
}  // namespace schedkit::lucid
