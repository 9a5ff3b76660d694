// StumpBooster: the XGBoost wrapper gives an additive model whose contributions add up,
// depend on one feature each, recover a known additive function, and survive save/load.
#include "predict/stump_booster.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "predict/civil_time.h"
#include "predict/job_name.h"
#include "schedkit/trace.h"

namespace schedkit::predict {
namespace {

// y = f(a) + g(b) with a categorical (4 codes) and b numeric (0..9), every (a, b) pair
// three times, and a third feature that is pure noise-free filler (constant 1).
struct Data {
  FeatureMatrix x;
  std::vector<float> y;
  std::vector<FeatureType> types = {FeatureType::kCategorical, FeatureType::kNumeric,
                                    FeatureType::kNumeric};
};

constexpr double kF[] = {0.0, 3.0, -1.0, 1.5};
double G(int b) { return b < 5 ? 0.0 : 2.0; }

Data MakeData() {
  Data d;
  d.x = FeatureMatrix(4 * 10 * 3, 3);
  int64_t r = 0;
  for (int rep = 0; rep < 3; ++rep) {
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 10; ++b, ++r) {
        d.x.at(r, 0) = static_cast<float>(a);
        d.x.at(r, 1) = static_cast<float>(b);
        d.x.at(r, 2) = 1;
        d.y.push_back(static_cast<float>(kF[a] + G(b)));
      }
    }
  }
  return d;
}

BoosterParams Params() {
  BoosterParams p;
  p.rounds = 300;
  p.learning_rate = 0.3;
  p.min_child_weight = 1;
  p.lambda = 0;
  return p;
}

TEST(StumpBoosterTest, ContributionsAddUpAndRecoverTheAdditiveFunction) {
  const Data d = MakeData();
  auto b = StumpBooster::Train(d.x, d.types, d.y, Params());
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto pred = b->Predict(d.x);
  auto contrib = b->Contributions(d.x);
  ASSERT_TRUE(pred.ok() && contrib.ok());
  ASSERT_EQ(contrib->size(), static_cast<size_t>(d.x.rows * 4));
  std::map<int, double> by_a, by_b;
  for (int64_t r = 0; r < d.x.rows; ++r) {
    const double* c = &(*contrib)[r * 4];
    EXPECT_NEAR(c[0] + c[1] + c[2] + c[3], (*pred)[r], 1e-4);
    EXPECT_NEAR((*pred)[r], d.y[r], 1e-3);
    EXPECT_EQ(c[2], 0.0);  // A constant feature never splits.
    // A feature's contribution depends on its own value alone.
    const int a = static_cast<int>(d.x.at(r, 0)), bv = static_cast<int>(d.x.at(r, 1));
    if (by_a.count(a)) EXPECT_NEAR(by_a[a], c[0], 1e-5);
    if (by_b.count(bv)) EXPECT_NEAR(by_b[bv], c[1], 1e-5);
    by_a[a] = c[0];
    by_b[bv] = c[1];
  }
  // Shapes are identified up to a constant: compare differences.
  for (int a = 1; a < 4; ++a) EXPECT_NEAR(by_a[a] - by_a[0], kF[a] - kF[0], 1e-3);
  for (int v = 1; v < 10; ++v) EXPECT_NEAR(by_b[v] - by_b[0], G(v) - G(0), 1e-3);
}

TEST(StumpBoosterTest, SavedModelPredictsTheSameAndTrainingIsDeterministic) {
  const Data d = MakeData();
  auto b1 = StumpBooster::Train(d.x, d.types, d.y, Params());
  auto b2 = StumpBooster::Train(d.x, d.types, d.y, Params());
  ASSERT_TRUE(b1.ok() && b2.ok());
  auto j1 = b1->ToJson();
  auto j2 = b2->ToJson();
  ASSERT_TRUE(j1.ok() && j2.ok());
  EXPECT_EQ(*j1, *j2);
  auto loaded = StumpBooster::FromJson(*j1, d.types);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  FeatureMatrix probe(2, 3);  // Missing values and an unseen category too.
  probe.at(0, 0) = 2;
  probe.at(0, 1) = 7;
  probe.at(1, 0) = 9;
  EXPECT_EQ(*loaded->Contributions(probe), *b1->Contributions(probe));
  EXPECT_EQ(*loaded->Predict(d.x), *b1->Predict(d.x));
}

TEST(StumpBoosterTest, BadInputIsAStatus) {
  const Data d = MakeData();
  std::vector<FeatureType> two = {FeatureType::kNumeric, FeatureType::kNumeric};
  EXPECT_FALSE(StumpBooster::Train(d.x, two, d.y, Params()).ok());
  std::vector<float> short_y(d.y.begin(), d.y.begin() + 3);
  EXPECT_FALSE(StumpBooster::Train(d.x, d.types, short_y, Params()).ok());
  BoosterParams zero = Params();
  zero.rounds = 0;
  EXPECT_FALSE(StumpBooster::Train(d.x, d.types, d.y, zero).ok());
  auto bad = StumpBooster::FromJson("{not json", d.types);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("XGBoost"), std::string::npos);
}

TEST(CivilTimeTest, FormatsAndDecomposesUtcTimes) {
  int64_t t;
  ASSERT_TRUE(ParseDateTimeUtc("2020-09-01 00:00:00", &t));
  EXPECT_EQ(t, 1598918400);
  EXPECT_EQ(FormatDateTime(t), "2020-09-01 00:00:00");
  EXPECT_EQ(DayOfWeek(t), 1);  // A Tuesday.
  ASSERT_TRUE(ParseDateTimeUtc("2020-02-29 13:30:05", &t));
  EXPECT_EQ(FormatDateTime(t), "2020-02-29 13:30:05");
  EXPECT_DOUBLE_EQ(HourOfDay(t), 13.5 + 5.0 / 3600);
  EXPECT_EQ(DayOfWeek(t), 5);  // A Saturday.
  EXPECT_EQ(DayOfWeek(0), 3);  // 1970-01-01, a Thursday.
  EXPECT_EQ(FormatDateTime(-1), "1969-12-31 23:59:59");
  EXPECT_EQ(FormatDateTime(951782400), "2000-02-29 00:00:00");
}

TEST(JobNameTest, TokensAreLetterAndDigitRuns) {
  EXPECT_EQ(NameTokens("ResNet50_bs64-ft"),
            (std::vector<std::string>{"resnet", "50", "bs", "64", "ft"}));
  EXPECT_EQ(NameTokens("job2748"), (std::vector<std::string>{"job", "2748"}));
  EXPECT_EQ(NameTokens("a_a-A"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(NameTokens("").empty());
  EXPECT_TRUE(NameTokens("__--").empty());
}

}  // namespace
}  // namespace schedkit::predict
