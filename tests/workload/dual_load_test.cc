// Blox's workloads: the dual load (a base stream plus a 4x burst switched on and off by
// time) and the Philly-derived 1-GPU workload (issue 16).
#include <gtest/gtest.h>

#include <cmath>

#include "schedkit/trace.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::ExpectSameJob;

GeneratorConfig DualLoad(int64_t jobs, double jobs_per_hour, uint64_t seed) {
  GeneratorConfig c;
  EXPECT_TRUE(SetGeneratorDurations("dual-load", "", &c).ok());
  c.num_jobs = jobs;
  c.jobs_per_hour = jobs_per_hour;
  c.seed = seed;
  return c;
}

Trace MustGenerate(const GeneratorConfig& c) {
  Result<Trace> t = GenerateTrace(c);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : Trace{};
}

// Burst jobs are the short ones: the two streams' duration ranges do not overlap.
bool IsBurst(const JobSpec& j) { return j.duration_s < 36000; }

// On from each multiple of 14,400 s to the first multiple of 21,600 s at or after it.
TEST(DualLoadTest, BurstSwitchByHand) {
  // Period 0: on at 14,400 until 21,600; on at 28,800 until 43,200; the switch-on at
  // 43,200 meets the switch-off there.
  for (double t : {0.0, 300.0, 14399.0, 21600.0, 25000.0, 28799.0, 43200.0, 50000.0, 57599.0,
                   64800.0, 71999.0, 86400.0}) {
    EXPECT_FALSE(DualLoadBurstOn(t)) << t;
  }
  for (double t : {14400.0, 18000.0, 21599.0, 28800.0, 36000.0, 43199.0, 57600.0, 64799.0,
                   72000.0, 86399.0, 100800.0}) {
    EXPECT_TRUE(DualLoadBurstOn(t)) << t;
  }
}

TEST(DualLoadTest, BurstJobsOnlyInsideTheirWindowsAndShapes) {
  Trace t = MustGenerate(DualLoad(5000, 9, 7));
  ASSERT_EQ(t.jobs.size(), 5000u);
  int burst = 0;
  for (size_t i = 0; i < t.jobs.size(); ++i) {
    const JobSpec& j = t.jobs[i];
    EXPECT_EQ(j.id, static_cast<JobId>(i));
    EXPECT_EQ(j.gpus, 1);
    if (i > 0) EXPECT_GE(j.submit_s, t.jobs[i - 1].submit_s);
    if (IsBurst(j)) {
      ++burst;
      EXPECT_TRUE(DualLoadBurstOn(j.submit_s)) << "job " << j.id << " at " << j.submit_s;
      EXPECT_GE(j.duration_s, 600);
      EXPECT_LE(j.duration_s, 3600);
    } else {
      EXPECT_GE(j.duration_s, 36000);
      EXPECT_LE(j.duration_s, 86400);
    }
  }
  EXPECT_GT(burst, 0);
  EXPECT_EQ(t.jobs[0].submit_s, 0.0);  // The base stream's first job, as the others.
}

// Per 43,200-s period the base stream brings 12 L jobs and the burst 4 L x 6 h = 24 L.
TEST(DualLoadTest, RatesOverALongRun) {
  const double load = 9;
  Trace t = MustGenerate(DualLoad(30000, load, 3));
  // Whole periods only, so that the burst's share of the time is exactly one half.
  const double periods = std::floor(t.jobs.back().submit_s / 43200);
  ASSERT_GE(periods, 50);
  const double end = periods * 43200;
  int base = 0, burst = 0;
  for (const JobSpec& j : t.jobs) {
    if (j.submit_s >= end) break;
    (IsBurst(j) ? burst : base) += 1;
  }
  const double hours = end / 3600;
  // ~10,000 base and ~20,000 burst jobs: Poisson standard deviations of 1 % and 0.7 %.
  EXPECT_NEAR(base / (load * hours), 1.0, 0.04);
  EXPECT_NEAR(burst / (4 * load * hours / 2), 1.0, 0.04);
}

TEST(DualLoadTest, SameSeedSameTraceOtherSeedOther) {
  Trace a = MustGenerate(DualLoad(2000, 9, 42));
  Trace b = MustGenerate(DualLoad(2000, 9, 42));
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) ExpectSameJob(a.jobs[i], b.jobs[i]);
  Trace c = MustGenerate(DualLoad(2000, 9, 43));
  int same = 0;
  for (size_t i = 1; i < a.jobs.size(); ++i) same += a.jobs[i].submit_s == c.jobs[i].submit_s;
  EXPECT_EQ(same, 0);
  EXPECT_EQ(a.source, "generated(durations=dual-load, jobs=2000, jobs_per_hour=9, seed=42)");
}

// Blox's published default redraws every Philly job's duration as the synthetic path
// does and gives it 1 GPU.
TEST(DualLoadTest, BloxPhillyIsOneGpuWithBloxDurations) {
  GeneratorConfig c;
  ASSERT_TRUE(SetGeneratorDurations("blox-philly", "", &c).ok());
  c.num_jobs = 20000;
  c.seed = 11;
  Trace t = MustGenerate(c);
  int short_jobs = 0;
  for (const JobSpec& j : t.jobs) {
    EXPECT_EQ(j.gpus, 1);
    EXPECT_GE(j.duration_s, 60 * std::pow(10, 1.5) * (1 - 1e-12));
    EXPECT_LE(j.duration_s, 60 * 1e4 * (1 + 1e-12));
    short_jobs += j.duration_s < 60 * 1000.0;
  }
  EXPECT_NEAR(short_jobs / 20000.0, 0.80, 0.015);
}

TEST(DualLoadTest, DurationNames) {
  for (const char* name : {"blox", "philly", "gavel", "gavel-multi", "blox-philly", "dual-load"}) {
    GeneratorConfig c;
    ASSERT_TRUE(SetGeneratorDurations(name, "/data", &c).ok()) << name;
    EXPECT_STREQ(GeneratorDurationsName(c), name);
  }
  GeneratorConfig c;
  ASSERT_TRUE(SetGeneratorDurations("philly", "/data", &c).ok());
  EXPECT_EQ(c.philly_distribution_path, "/data/gavel/philly_job_distribution.csv");
  EXPECT_EQ(SetGeneratorDurations("dual", "/data", &c).message(),
            "'dual' is not one of blox, philly, gavel, gavel-multi, blox-philly, dual-load");
}

}  // namespace
}  // namespace schedkit
