#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "schedkit/trace.h"
#include "workload/csv.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::ExpectSameJob;
using testing::SourcePath;

// Output of this implementation for seed 0 at 60 jobs/h (see FirstJobsArePinned).
constexpr char kPinnedSubmit1[] = "54.60281530953169";
constexpr char kPinnedDuration0[] = "65723.43843598464";
constexpr int kPinnedGpus0 = 1;

// Fluent config for the tests: GenConfig().Jobs(100).Rate(30).Seed(1).Philly().Obj().
class GenConfig {
 public:
  GenConfig& Jobs(int64_t n) {
    c_.num_jobs = n;
    return *this;
  }
  GenConfig& Rate(double jobs_per_hour) {
    c_.jobs_per_hour = jobs_per_hour;
    return *this;
  }
  GenConfig& Seed(uint64_t s) {
    c_.seed = s;
    return *this;
  }
  GenConfig& Philly() {
    c_.durations = GeneratorConfig::Durations::kPhilly;
    c_.philly_distribution_path = SourcePath("data/gavel/philly_job_distribution.csv");
    return *this;
  }
  GeneratorConfig Obj() const { return c_; }

 private:
  GeneratorConfig c_;
};

Trace MustGenerate(const GeneratorConfig& c) {
  Result<Trace> t = GenerateTrace(c);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : Trace{};
}

// Issue 21: 9999999999999 jobs ended in std::bad_alloc (an abort) instead of an error.
TEST(GeneratorTest, RefusesMoreJobsThanItCanHold) {
  for (int64_t n : {int64_t{-1}, GeneratorConfig::kMaxJobs + 1, int64_t{9999999999999}}) {
    Result<Trace> t = GenerateTrace(GenConfig().Jobs(n).Obj());
    ASSERT_FALSE(t.ok()) << n;
    EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(t.status().message().find(std::to_string(n)), std::string::npos);
  }
}

TEST(GeneratorTest, SameSeedSameTrace) {
  for (const GeneratorConfig& c :
       {GenConfig().Jobs(500).Seed(42).Obj(), GenConfig().Jobs(500).Seed(42).Philly().Obj()}) {
    Trace a = MustGenerate(c);
    Trace b = MustGenerate(c);
    ASSERT_EQ(a.jobs.size(), 500u);
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) ExpectSameJob(a.jobs[i], b.jobs[i]);
    EXPECT_EQ(a.source, b.source);
  }
}

TEST(GeneratorTest, DifferentSeedDifferentTrace) {
  Trace a = MustGenerate(GenConfig().Jobs(50).Seed(1).Obj());
  Trace b = MustGenerate(GenConfig().Jobs(50).Seed(2).Obj());
  int same = 0;
  for (size_t i = 1; i < a.jobs.size(); ++i) same += a.jobs[i].submit_s == b.jobs[i].submit_s;
  EXPECT_EQ(same, 0);
}

// Pins the generator's output for one seed so that an accidental change of the draw
// order or of a transform is noticed (values from this implementation).
TEST(GeneratorTest, FirstJobsArePinned) {
  Trace t = MustGenerate(GenConfig().Jobs(3).Rate(60).Seed(0).Obj());
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.jobs[0].submit_s, 0.0);
  EXPECT_EQ(workload::FormatDouble(t.jobs[1].submit_s), kPinnedSubmit1);
  EXPECT_EQ(workload::FormatDouble(t.jobs[0].duration_s), kPinnedDuration0);
  EXPECT_EQ(t.jobs[0].gpus, kPinnedGpus0);
}

TEST(GeneratorTest, IdsAndArrivalsAreOrdered) {
  Trace t = MustGenerate(GenConfig().Jobs(1000).Seed(3).Obj());
  ASSERT_EQ(t.jobs.size(), 1000u);
  EXPECT_EQ(t.jobs[0].submit_s, 0.0);  // As in Gavel's and Blox's generators.
  for (size_t i = 0; i < t.jobs.size(); ++i) {
    EXPECT_EQ(t.jobs[i].id, static_cast<JobId>(i));
    if (i > 0) {
      EXPECT_GE(t.jobs[i].submit_s, t.jobs[i - 1].submit_s);
    }
  }
}

TEST(GeneratorTest, BloxGpuMixAndDurations) {
  const int n = 20000;
  Trace t = MustGenerate(GenConfig().Jobs(n).Seed(11).Obj());
  ASSERT_EQ(t.jobs.size(), static_cast<size_t>(n));
  std::map<int, int> gpus;
  int short_jobs = 0;
  const double lo = 60 * std::pow(10, 1.5), mid = 60 * 1000.0, hi = 60 * 10000.0;
  for (const JobSpec& j : t.jobs) {
    ++gpus[j.gpus];
    EXPECT_GE(j.duration_s, lo * (1 - 1e-12));
    EXPECT_LE(j.duration_s, hi * (1 + 1e-12));
    short_jobs += j.duration_s < mid;
    EXPECT_EQ(j.iterations, 0);
  }
  EXPECT_EQ(gpus.size(), 4u);
  // Binomial standard deviation at n = 20000 is at most 0.35 %; allow about 4 sigma.
  EXPECT_NEAR(gpus[1] / double(n), 0.70, 0.015);
  EXPECT_NEAR(gpus[2] / double(n), 0.10, 0.015);
  EXPECT_NEAR(gpus[4] / double(n), 0.15, 0.015);
  EXPECT_NEAR(gpus[8] / double(n), 0.05, 0.015);
  EXPECT_NEAR(short_jobs / double(n), 0.80, 0.015);
}

TEST(GeneratorTest, MeanInterArrivalMatchesRate) {
  for (double rate : {6.0, 60.0, 720.0}) {
    const int n = 20000;
    Trace t = MustGenerate(GenConfig().Jobs(n).Rate(rate).Seed(5).Obj());
    double mean_gap = t.jobs.back().submit_s / (n - 1);
    // The mean of 19,999 exponential gaps has a relative standard deviation of 0.7 %.
    EXPECT_NEAR(mean_gap / (3600.0 / rate), 1.0, 0.03) << rate;
  }
}

TEST(GeneratorTest, PhillySamplesRowsOfTheDistribution) {
  // Read the distribution with the same CSV reader to know the allowed pairs.
  auto in = workload::CsvReader::Open(SourcePath("data/gavel/philly_job_distribution.csv"));
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE((*in)->ReadHeader().ok());
  std::set<std::pair<double, int>> rows;
  std::map<int, int> file_gpus;
  while ((*in)->Next()) {
    double d = 0;
    int g = 0;
    ASSERT_TRUE((*in)->ReadDouble(0, &d).ok());
    ASSERT_TRUE((*in)->ReadInt(1, &g).ok());
    rows.emplace(d, g);
    ++file_gpus[g];
  }
  ASSERT_EQ(rows.empty(), false);
  int file_total = 0;
  for (auto& [g, c] : file_gpus) file_total += c;

  const int n = 20000;
  Trace t = MustGenerate(GenConfig().Jobs(n).Seed(9).Philly().Obj());
  ASSERT_EQ(t.jobs.size(), static_cast<size_t>(n));
  std::map<int, int> gpus;
  for (const JobSpec& j : t.jobs) {
    EXPECT_TRUE(rows.count({j.duration_s, j.gpus})) << j.duration_s << "," << j.gpus;
    ++gpus[j.gpus];
  }
  for (auto& [g, c] : file_gpus) {
    EXPECT_NEAR(gpus[g] / double(n), c / double(file_total), 0.015) << g << " GPUs";
  }
}

TEST(GeneratorTest, ConfigErrors) {
  GeneratorConfig c = GenConfig().Obj();
  c.durations = GeneratorConfig::Durations::kPhilly;
  Result<Trace> t = GenerateTrace(c);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("philly_distribution_path"), std::string::npos);

  c.philly_distribution_path = "/nonexistent/philly.csv";
  EXPECT_EQ(GenerateTrace(c).status().code(), Status::Code::kNotFound);

  EXPECT_EQ(GenerateTrace(GenConfig().Rate(-1).Obj()).status().message(),
            "generator: jobs_per_hour must be a positive number (or 0: every job at time 0, not "
            "with dual-load durations), got -1");
  c = GenConfig().Rate(0).Obj();
  c.durations = GeneratorConfig::Durations::kDualLoad;
  EXPECT_FALSE(GenerateTrace(c).ok());
  EXPECT_FALSE(GenerateTrace(GenConfig().Jobs(-1).Obj()).ok());
  EXPECT_TRUE(GenerateTrace(GenConfig().Jobs(0).Obj()).ok());
}

// jobs_per_hour = 0: a static trace. Every job at 0, and the jobs are those of any rate with
// the same seed (no gap is drawn, and the shape draws follow one another).
TEST(GeneratorTest, RateZeroIsAStaticTrace) {
  Result<Trace> static_trace = GenerateTrace(GenConfig().Jobs(50).Rate(0).Seed(4).Obj());
  ASSERT_TRUE(static_trace.ok()) << static_trace.status().message();
  ASSERT_EQ(static_trace->jobs.size(), 50u);
  for (const JobSpec& j : static_trace->jobs) EXPECT_EQ(j.submit_s, 0) << j.id;
  // The first job draws no gap at any rate: its shape is the same.
  Result<Trace> poisson = GenerateTrace(GenConfig().Jobs(1).Rate(5).Seed(4).Obj());
  ASSERT_TRUE(poisson.ok());
  EXPECT_EQ(poisson->jobs[0].duration_s, static_trace->jobs[0].duration_s);
  EXPECT_EQ(poisson->jobs[0].gpus, static_trace->jobs[0].gpus);
  // Without gaps the durations differ from the Poisson trace's after the first job.
  Result<Trace> poisson50 = GenerateTrace(GenConfig().Jobs(50).Rate(5).Seed(4).Obj());
  ASSERT_TRUE(poisson50.ok());
  EXPECT_NE(poisson50->jobs[1].duration_s, static_trace->jobs[1].duration_s);
}

TEST(GeneratorTest, BadPhillyFileNamesLine) {
  testing::TempFile f("duration_s,num_gpus\n10,1\n20,0\n");
  GeneratorConfig c = GenConfig().Philly().Obj();
  c.philly_distribution_path = f.path();
  Result<Trace> t = GenerateTrace(c);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), f.path() + ":3: field 'num_gpus': '0' must be >= 1");
}

}  // namespace
}  // namespace schedkit
