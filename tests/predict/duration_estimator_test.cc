// The duration estimator on a generated log with a known additive structure: it beats the
// constant baselines out of sample, its curves show the structure, it never trains on
// the evaluation jobs, and it survives save/load byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "predict/additive_model.h"
#include "predict_test_util.h"
#include "schedkit/predict.h"
#include "test_files.h"
#include "workload/csv.h"
#include "workload/workload_test_util.h"

namespace schedkit {
namespace {

using testing::MakeJobLog;
using testing::ReadFile;
using testing::TempFile;

DurationEstimatorOptions Options() {
  DurationEstimatorOptions o;
  o.training.rounds = 200;
  o.training.learning_rate = 0.2;
  o.training.train_fraction = 0.7;
  return o;
}

const FeatureShape* Find(const Explanation& e, const std::string& name) {
  for (const FeatureShape& f : e.features) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

double At(const FeatureShape& f, const std::string& value) {
  for (const ShapePoint& p : f.points) {
    if (p.value == value) return p.contribution;
  }
  ADD_FAILURE() << f.name << " has no point " << value;
  return 0;
}

TEST(DurationEstimatorTest, BeatsConstantBaselinesOnLaterJobs) {
  const Trace log = MakeJobLog(1500);
  auto m = DurationEstimator::Train(log, Options());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Evaluation& e = m->evaluation();
  EXPECT_EQ(e.target, "duration_s");
  EXPECT_EQ(e.train_rows, 1050);
  EXPECT_EQ(e.test_rows, 450);
  // The noise alone (uniform over a factor of e) leaves about 12 % of a typical duration.
  EXPECT_LT(e.mae_model, 0.5 * e.mae_median);
  EXPECT_LT(e.mae_median, e.mae_mean);  // Heavy tail: the mean is the worse constant.
  EXPECT_EQ(m->train_cut(), log.epoch_unix_s + log.jobs[1049].submit_s);
}

TEST(DurationEstimatorTest, CurvesShowTheGeneratingStructure) {
  auto m = DurationEstimator::Train(MakeJobLog(1500), Options());
  ASSERT_TRUE(m.ok());
  auto e = m->Explain();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->scale, "log1p");
  const FeatureShape* user = Find(*e, "user");
  const FeatureShape* vc = Find(*e, "vc");
  const FeatureShape* gpus = Find(*e, "gpus");
  const FeatureShape* weekday = Find(*e, "weekday");
  ASSERT_TRUE(user && vc && gpus && weekday);
  EXPECT_EQ(user->kind, "categorical");
  ASSERT_EQ(user->points.size(), 13u);  // u00..u11 and (other).
  EXPECT_EQ(user->points.back().value, "(other)");
  // Users' effects rise by 0.2 each: the curve rises from u00 to u11 (up to noise).
  EXPECT_NEAR(At(*user, "u11") - At(*user, "u00"), 2.2, 0.4);
  EXPECT_NEAR(At(*vc, "vcC") - At(*vc, "vcA"), 1.0, 0.25);
  EXPECT_NEAR(At(*gpus, "8") - At(*gpus, "1"), 0.9, 0.25);
  // The name effect is carried by the name and its tokens together.
  double debug = 0, pretrain = 0;
  for (const FeatureShape& f : e->features) {
    if (f.name == "token:debug") debug = At(f, "1") - At(f, "0");
    if (f.name == "token:pretrain") pretrain = At(f, "1") - At(f, "0");
  }
  EXPECT_LT(debug, -0.3);
  EXPECT_GT(pretrain, 0.3);
  // Weekday carries nothing; the user carries a lot.
  EXPECT_LT(weekday->importance, 0.1 * user->importance);
  EXPECT_EQ(e->features.front().importance,
            std::max_element(e->features.begin(), e->features.end(),
                             [](const FeatureShape& a, const FeatureShape& b) {
                               return a.importance < b.importance;
                             })
                ->importance);
  int64_t rows = 0;
  for (const ShapePoint& p : user->points) rows += p.train_rows;
  EXPECT_EQ(rows, 1050);
}

TEST(DurationEstimatorTest, EvaluationJobsNeverReachTheFit) {
  Trace log = MakeJobLog(1000);
  auto a = DurationEstimator::Train(log, Options());
  // Rewrite every evaluation job's duration: the model (and its training baselines)
  // must not change, only the evaluation errors.
  for (size_t i = 700; i < log.jobs.size(); ++i) log.jobs[i].duration_s *= 10;
  auto b = DurationEstimator::Train(log, Options());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a->Estimate(log), *b->Estimate(log));
  EXPECT_EQ(a->evaluation().train_median, b->evaluation().train_median);
  EXPECT_GT(b->evaluation().mae_model, a->evaluation().mae_model);
  // --train-until: jobs submitted before the time train, the rest evaluate.
  DurationEstimatorOptions until = Options();
  until.training.train_until = log.epoch_unix_s + log.jobs[400].submit_s;
  auto c = DurationEstimator::Train(log, until);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->evaluation().train_rows, 400);
  EXPECT_EQ(c->evaluation().test_rows, 600);
  until.training.train_until = static_cast<double>(log.epoch_unix_s);
  auto none = DurationEstimator::Train(log, until);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "generated log: no training rows before the train cut");
}

TEST(DurationEstimatorTest, SavedModelEstimatesAndExplainsTheSame) {
  const Trace log = MakeJobLog(800);
  auto m = DurationEstimator::Train(log, Options());
  ASSERT_TRUE(m.ok());
  TempFile f1("", "m1.json"), f2("", "m2.json");
  ASSERT_TRUE(m->Save(f1.path()).ok());
  auto again = DurationEstimator::Train(log, Options());
  ASSERT_TRUE(again.ok() && again->Save(f2.path()).ok());
  EXPECT_EQ(ReadFile(f1.path()), ReadFile(f2.path()));  // Deterministic training.
  auto loaded = DurationEstimator::Load(f1.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*loaded->Estimate(log), *m->Estimate(log));
  EXPECT_EQ(loaded->evaluation().mae_model, m->evaluation().mae_model);
  EXPECT_EQ(loaded->train_cut(), m->train_cut());
  auto e1 = m->Explain();
  auto e2 = loaded->Explain();
  ASSERT_TRUE(e1.ok() && e2.ok());
  ASSERT_EQ(e1->features.size(), e2->features.size());
  for (size_t i = 0; i < e1->features.size(); ++i) {
    EXPECT_EQ(e1->features[i].name, e2->features[i].name);
    ASSERT_EQ(e1->features[i].points.size(), e2->features[i].points.size());
    for (size_t k = 0; k < e1->features[i].points.size(); ++k) {
      EXPECT_EQ(e1->features[i].points[k].contribution, e2->features[i].points[k].contribution);
    }
  }
  auto kind = PredictorKind(f1.path());
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, "duration");
}

TEST(DurationEstimatorTest, UnseenValuesFallBackToOther) {
  auto m = DurationEstimator::Train(MakeJobLog(600), Options());
  ASSERT_TRUE(m.ok());
  Trace unseen;
  unseen.epoch_unix_s = testing::kLogEpoch;
  unseen.jobs = {JobBuilder(1).Submit(0).Gpus(3).Duration(1).User("stranger").Vc("vcZ").Build()};
  auto est = m->Estimate(unseen);
  ASSERT_TRUE(est.ok());
  ASSERT_EQ(est->size(), 1u);
  EXPECT_TRUE(std::isfinite((*est)[0]));
  EXPECT_GE((*est)[0], 0);
}

TEST(DurationEstimatorTest, WritesOneEstimatePerJobInTraceOrder) {
  const Trace log = MakeJobLog(300);
  auto m = DurationEstimator::Train(log, Options());
  ASSERT_TRUE(m.ok());
  auto est = m->Estimate(log);
  ASSERT_TRUE(est.ok());
  TempFile out("", "estimates.csv");
  ASSERT_TRUE(WriteEstimatesCsv(log, *est, out.path()).ok());
  const std::vector<std::string> lines = testing::Lines(ReadFile(out.path()));
  ASSERT_EQ(lines.size(), log.jobs.size() + 1);
  EXPECT_EQ(lines[0], "job_id,estimate_s");
  for (size_t i = 0; i < log.jobs.size(); ++i) {
    const size_t comma = lines[i + 1].find(',');
    EXPECT_EQ(lines[i + 1].substr(0, comma), std::to_string(log.jobs[i].id));
    double v;
    ASSERT_TRUE(workload::ParseFiniteDouble(lines[i + 1].substr(comma + 1), &v));
    EXPECT_NEAR(v, (*est)[i], 0.05 + 1e-9);
  }
  std::vector<double> wrong(3, 1.0);
  EXPECT_FALSE(WriteEstimatesCsv(log, wrong, out.path()).ok());
}

TEST(DurationEstimatorTest, RollingEstimatesUseOnlyEarlierJobs) {
  Trace log = MakeJobLog(1500);  // About 5.2 days from 2020-09-01.
  const double day = 86400, from = testing::kLogEpoch + 2 * day;
  int64_t in_sample = -1;
  auto rolling = RollingEstimates(log, Options(), from, day, &in_sample);
  ASSERT_TRUE(rolling.ok()) << rolling.status().message();
  ASSERT_EQ(rolling->size(), log.jobs.size());
  auto day_of = [&](const JobSpec& j) { return static_cast<int>(j.submit_s / day); };
  int64_t before = 0;
  for (const JobSpec& j : log.jobs) before += day_of(j) < 2;
  EXPECT_EQ(in_sample, before);
  // Day 3's jobs: exactly what a model trained on days 0-2 says.
  DurationEstimatorOptions o = Options();
  o.training.train_until = testing::kLogEpoch + 3 * day;
  auto model = DurationEstimator::Train(log, o);
  ASSERT_TRUE(model.ok());
  auto all = model->Estimate(log);
  ASSERT_TRUE(all.ok());
  int checked = 0;
  for (size_t i = 0; i < log.jobs.size(); ++i) {
    if (day_of(log.jobs[i]) == 3) {
      EXPECT_EQ((*rolling)[i], (*all)[i]) << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
  // Later durations never change earlier estimates.
  for (JobSpec& j : log.jobs) {
    if (day_of(j) >= 4) j.duration_s *= 7;
  }
  auto changed = RollingEstimates(log, Options(), from, day, &in_sample);
  ASSERT_TRUE(changed.ok());
  for (size_t i = 0; i < log.jobs.size(); ++i) {
    if (day_of(log.jobs[i]) < 4) EXPECT_EQ((*rolling)[i], (*changed)[i]) << i;
  }
  auto none = RollingEstimates(log, Options(), testing::kLogEpoch, day, &in_sample);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "generated log: no training rows before the train cut");
}

TEST(DurationEstimatorTest, BadModelFilesAreOneLineErrors) {
  TempFile garbage("{\"format\": \"something else\"}", "bad.json");
  auto m = DurationEstimator::Load(garbage.path());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(
      m.status().message(),
      garbage.path() + ": not a schedkit predictor model (format schedkit-predictor, version 1)");
  auto missing = DurationEstimator::Load(garbage.path() + ".nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open model file"), std::string::npos);
  TempFile truncated(
      "{\"format\": \"schedkit-predictor\", \"version\": 1, \"kind\": \"duration\","
      " \"models\": []}",
      "trunc.json");
  m = DurationEstimator::Load(truncated.path());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), truncated.path() + ": a duration model holds exactly 1 model");
  DurationEstimatorOptions o = Options();
  o.training.train_fraction = 0;
  EXPECT_FALSE(DurationEstimator::Train(MakeJobLog(50), o).ok());
  o = Options();
  o.min_category_count = 0;
  EXPECT_FALSE(DurationEstimator::Train(MakeJobLog(50), o).ok());
}

}  // namespace
}  // namespace schedkit
