// The throughput forecaster: beats constant baselines on a history with a daily and weekly
// pattern, never reads bins it may not see, round-trips through its file, and reads
// Lucid's cluster_throughput.csv.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "predict/additive_model.h"
#include "predict/civil_time.h"
#include "schedkit/predict.h"
#include "test_files.h"
#include "workload/workload_test_util.h"

namespace schedkit {
namespace {

using testing::ReadFile;
using testing::TempFile;

constexpr int64_t kSep1 = 1598918400;  // 2020-09-01 00:00:00 UTC, a Tuesday.

// Four weeks of 10-minute bins: busy working hours, quiet weekends, Poisson-like noise
// from a seeded engine (mt19937_64's raw output is the same everywhere).
ThroughputHistory MakeHistory(int days = 28) {
  ThroughputHistory h;
  h.start = kSep1;
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < days * 144; ++i) {
    const double t = static_cast<double>(h.start + i * 600);
    const double hour = predict::HourOfDay(t);
    const bool weekend = predict::DayOfWeek(t) >= 5;
    const double rate = (hour >= 9 && hour < 18 ? 12.0 : 3.0) * (weekend ? 0.3 : 1.0);
    const double noise = static_cast<double>(rng() % 1000) / 1000.0;  // [0, 1)
    const double jobs = std::floor(rate * (0.5 + noise));
    h.gpu_jobs.push_back(jobs);
    h.gpu_num.push_back(jobs * (1 + static_cast<double>(rng() % 4)));
  }
  return h;
}

ThroughputForecasterOptions Options() {
  ThroughputForecasterOptions o;
  o.training.rounds = 150;
  o.training.train_fraction = 0.75;  // Three weeks train, one week evaluation.
  return o;
}

TEST(ThroughputForecasterTest, BeatsConstantBaselinesOutOfSample) {
  const ThroughputHistory h = MakeHistory();
  auto f = ThroughputForecaster::Train(h, Options());
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->evaluations().size(), 2u);
  for (const Evaluation& e : f->evaluations()) {
    SCOPED_TRACE(e.target);
    EXPECT_EQ(e.train_rows, 21 * 144);
    EXPECT_EQ(e.test_rows, 7 * 144);
    EXPECT_LT(e.mae_model, 0.8 * e.mae_median);
    EXPECT_LT(e.mae_model, 0.8 * e.mae_mean);
    EXPECT_LT(e.mae_model, e.mae_last);
  }
  EXPECT_EQ(f->train_cut(), static_cast<double>(kSep1 + 21 * 86400));
  auto explained = f->Explain();
  ASSERT_TRUE(explained.ok());
  // The daily pattern is the signal: the hour (or a lag that tracks it) matters most, and
  // at 12:00 the hour curve is above its value at 03:00.
  const Explanation& jobs = (*explained)[0];
  EXPECT_EQ(jobs.target, "submit_gpu_job");
  EXPECT_EQ(jobs.scale, "log1p");
  const FeatureShape* hour = nullptr;
  for (const FeatureShape& s : jobs.features) {
    if (s.name == "hour") hour = &s;
  }
  ASSERT_NE(hour, nullptr);
  ASSERT_EQ(hour->points.size(), 24u);
  EXPECT_GT(hour->points[12].contribution, hour->points[3].contribution);
  int64_t rows = 0;
  for (const ShapePoint& p : hour->points) rows += p.train_rows;
  EXPECT_EQ(rows, 21 * 144);
}

TEST(ThroughputForecasterTest, AForecastNeverReadsBinsInsideItsHorizon) {
  ThroughputHistory h = MakeHistory();
  auto f = ThroughputForecaster::Train(h, Options());
  ASSERT_TRUE(f.ok());
  const int horizon = f->horizon_bins();
  auto before = f->Forecast(h, static_cast<double>(kSep1));
  ASSERT_TRUE(before.ok());
  const size_t j = 20 * 144 + 50;
  h.gpu_jobs[j] += 40;
  h.gpu_num[j] += 300;
  auto after = f->Forecast(h, static_cast<double>(kSep1));
  ASSERT_TRUE(after.ok());
  for (size_t i = j; i < j + horizon; ++i) {
    EXPECT_EQ((*before)[i].pred_gpu_job, (*after)[i].pred_gpu_job) << i;
    EXPECT_EQ((*before)[i].pred_gpu_num, (*after)[i].pred_gpu_num) << i;
  }
  // ...but the first bin allowed to see it does (the last-value lag changed a lot).
  EXPECT_NE((*before)[j + horizon].pred_gpu_num, (*after)[j + horizon].pred_gpu_num);
}

TEST(ThroughputForecasterTest, SavedModelForecastsTheSame) {
  const ThroughputHistory h = MakeHistory();
  auto f = ThroughputForecaster::Train(h, Options());
  ASSERT_TRUE(f.ok());
  TempFile file("", "throughput.json");
  ASSERT_TRUE(f->Save(file.path()).ok());
  auto kind = PredictorKind(file.path());
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, "throughput");
  auto g = ThroughputForecaster::Load(file.path());
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->train_cut(), f->train_cut());
  EXPECT_EQ(g->evaluations()[1].mae_model, f->evaluations()[1].mae_model);
  auto a = f->Forecast(h, f->train_cut());
  auto b = g->Forecast(h, g->train_cut());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 7u * 144);
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].pred_gpu_job, (*b)[i].pred_gpu_job);
    EXPECT_EQ((*a)[i].pred_gpu_num, (*b)[i].pred_gpu_num);
  }
  auto wrong = predict::ReadModelFile(file.path(), "duration");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            file.path() + ": a throughput model, expected a duration model");
  EXPECT_FALSE(DurationEstimator::Load(file.path()).ok());
}

TEST(ThroughputForecasterTest, WritesLucidsForecastFormatAndReadsItBack) {
  const ThroughputHistory h = MakeHistory();
  auto f = ThroughputForecaster::Train(h, Options());
  ASSERT_TRUE(f.ok());
  auto rows = f->Forecast(h, f->train_cut());
  ASSERT_TRUE(rows.ok());
  TempFile file("", "pred.csv");
  ASSERT_TRUE(WriteThroughputForecastCsv(*rows, file.path()).ok());
  const std::vector<std::string> lines = testing::Lines(ReadFile(file.path()));
  ASSERT_EQ(lines.size(), rows->size() + 1);
  EXPECT_EQ(lines[0], "time,submit_gpu_job,submit_gpu_num,pred_gpu_job,pred_gpu_num");
  EXPECT_EQ(lines[1].substr(0, 20), "2020-09-22 00:00:00,");
  auto back = LoadThroughputHistory(file.path());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->start, kSep1 + 21 * 86400);
  EXPECT_EQ(back->gpu_jobs, std::vector<double>(h.gpu_jobs.begin() + 21 * 144, h.gpu_jobs.end()));
}

TEST(ThroughputForecasterTest, HistoryErrorsNameFileLineAndField) {
  TempFile gap(
      "time,submit_gpu_job,submit_gpu_num\n2020-09-01 00:00:00,1,2\n"
      "2020-09-01 00:20:00,1,2\n",
      "gap.csv");
  auto r = LoadThroughputHistory(gap.path());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            gap.path() +
                ":3: field 'time': '2020-09-01 00:20:00' is not 10 minutes after the "
                "previous row (2020-09-01 00:10:00)");
  TempFile neg("time,submit_gpu_job,submit_gpu_num\n2020-09-01 00:00:00,-1,2\n", "neg.csv");
  r = LoadThroughputHistory(neg.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("neg.csv:2: field 'submit_gpu_job'"), std::string::npos);
  TempFile no_col("time,submit_gpu_job\n", "nocol.csv");
  r = LoadThroughputHistory(no_col.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("missing column 'submit_gpu_num'"), std::string::npos);
  ThroughputForecasterOptions o = Options();
  o.horizon_bins = 0;
  EXPECT_FALSE(ThroughputForecaster::Train(MakeHistory(2), o).ok());
}

TEST(ThroughputForecasterTest, CountsAJobLogIntoBins) {
  std::vector<JobSpec> jobs = {JobBuilder(1).Submit(0).Gpus(2).Build(),
                               JobBuilder(2).Submit(599).Gpus(4).Build(),
                               JobBuilder(3).Submit(1800).Gpus(8).Build()};
  const ThroughputHistory h = ThroughputFromJobs(jobs, static_cast<double>(kSep1 + 300));
  EXPECT_EQ(h.start, kSep1);
  EXPECT_EQ(h.gpu_jobs, (std::vector<double>{1, 1, 0, 1}));
  EXPECT_EQ(h.gpu_num, (std::vector<double>{2, 4, 0, 8}));
}

TEST(ThroughputForecasterTest, ReadsLucidsClusterThroughputHistory) {
  const std::string path = testing::SharedPath("data/lucid/cluster_throughput.csv");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
  auto h = LoadThroughputHistory(path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->gpu_jobs.size(), 26064u);
  EXPECT_EQ(predict::FormatDateTime(h->start), "2020-04-01 00:00:00");
  EXPECT_EQ(h->gpu_jobs[2], 3);
  EXPECT_EQ(h->gpu_num[2], 24);
}

}  // namespace
}  // namespace schedkit
