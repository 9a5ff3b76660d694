// ComputeTraceStats and `schedkit trace stats` on a hand-made trace.
#include "schedkit/trace_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "schedkit/job.h"
#include "schedkit/trace.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

// Four jobs over one hour: 1, 2, 1 and 4 GPUs for 100, 200, 300 and 400 s of solo runtime.
// Work = 100 + 400 + 300 + 1600 = 2400 GPU-s; on 8 GPUs over 3600 s the offered load is
// 2400 / (8 x 3600) = 1/12. Arrival rate: 3 gaps in 1 h = 3 jobs/h.
Trace FourJobs() {
  Trace t;
  t.jobs = {JobBuilder(1).Submit(0).Gpus(1).Duration(100).Build(),
            JobBuilder(2).Submit(1200).Gpus(2).Duration(200).Build(),
            JobBuilder(3).Submit(2400).Gpus(1).Duration(300).Build(),
            JobBuilder(4).Submit(3600).Gpus(4).Duration(400).Build()};
  return t;
}

TEST(TraceStats, CountsRatesDemandRuntimesAndLoad) {
  const TraceStats s = ComputeTraceStats(FourJobs());
  EXPECT_EQ(s.jobs, 4);
  EXPECT_DOUBLE_EQ(s.span_s(), 3600);
  EXPECT_DOUBLE_EQ(s.arrivals_per_hour, 3);
  EXPECT_EQ(s.jobs_by_gpus, (std::map<int, int64_t>{{1, 2}, {2, 1}, {4, 1}}));
  EXPECT_DOUBLE_EQ(s.runtime_p50_s, 200);  // Nearest rank: ceil(0.5 x 4) = 2nd.
  EXPECT_DOUBLE_EQ(s.runtime_p99_s, 400);
  EXPECT_DOUBLE_EQ(s.runtime_max_s, 400);
  EXPECT_DOUBLE_EQ(s.gpu_seconds, 2400);
  EXPECT_DOUBLE_EQ(s.OfferedLoad(8), 2400.0 / (8 * 3600));
  EXPECT_TRUE(std::isnan(s.OfferedLoad(0)));
  // Hour 0 holds the submissions at 0, 1200 and 2400 s; hour 1 the one at 3600 s.
  EXPECT_EQ(s.arrivals_by_hour, (std::vector<int64_t>{3, 1}));
  // Four jobs <= kRuntimeCdfPoints: every runtime is a point of the CDF, sorted.
  EXPECT_EQ(s.runtime_cdf_s, (std::vector<double>{100, 200, 300, 400}));
}

TEST(TraceStats, TheRuntimeCdfOfALargeTraceIsItsNearestRankQuantiles) {
  Trace t;
  for (int i = 2500; i >= 1; --i) t.jobs.push_back(JobBuilder(i).Duration(i).Build());
  const TraceStats s = ComputeTraceStats(t);
  ASSERT_EQ(s.runtime_cdf_s.size(), 1000u);
  // Point k is quantile k/1000: rank ceil(2.5 k) of runtimes 1..2500.
  EXPECT_DOUBLE_EQ(s.runtime_cdf_s[0], 3);      // k = 1: ceil(2.5) = 3.
  EXPECT_DOUBLE_EQ(s.runtime_cdf_s[1], 5);      // k = 2: 5.
  EXPECT_DOUBLE_EQ(s.runtime_cdf_s[399], 1000);  // k = 400: 1000.
  EXPECT_DOUBLE_EQ(s.runtime_cdf_s[999], 2500);
  EXPECT_EQ(s.arrivals_by_hour, (std::vector<int64_t>{2500}));  // A batch: one hour.
}

TEST(TraceStats, ABatchHasNoRateAndNoLoad) {
  Trace batch;
  batch.jobs = {JobBuilder(1).Gpus(2).Duration(10).Build(), JobBuilder(2).Gpus(2).Duration(10).Build()};
  const TraceStats s = ComputeTraceStats(batch);
  EXPECT_DOUBLE_EQ(s.arrivals_per_hour, 0);
  EXPECT_TRUE(std::isnan(s.OfferedLoad(8)));
  EXPECT_NE(FormatTraceStats(s, 8).find("all jobs arrive at once"), std::string::npos);
  EXPECT_EQ(ComputeTraceStats(Trace()).jobs, 0);
}

TEST(TraceStats, CliPrintsTheOfferedLoadAndFlagsOverCapacity) {
  const std::string trace = testing::SourcePath("data/traces/tiny.csv");
  const std::string cluster = testing::SourcePath("data/clusters/tiny.csv");
  const auto o = schedkit::testing::RunCli("trace stats " + trace + " --cluster " + cluster);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("format native"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("offered load on 8 GPUs"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("over capacity"), std::string::npos) << o.output;
  const auto bad = schedkit::testing::RunCli("trace stats " + trace + " --format nope");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("unknown trace format 'nope'"), std::string::npos) << bad.output;
}

// --figures writes stats.json (the printed figures, as JSON) and the three figures drawn
// from it, PNG and PDF.
TEST(TraceStats, CliFiguresDrawTheStatsItPrints) {
  testing::TempFile trace_file("", "four.csv");
  ASSERT_TRUE(WriteNativeTrace(FourJobs(), trace_file.path()).ok());
  const std::filesystem::path dir =
      std::filesystem::path(trace_file.path()).parent_path() / "figures";
  const std::string cluster = testing::SourcePath("data/clusters/tiny.csv");
  const auto o = schedkit::testing::RunCli("trace stats " + trace_file.path() + " --cluster " +
                                           cluster + " --figures " + dir.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find(FormatTraceStats(ComputeTraceStats(FourJobs()), 8)), std::string::npos)
      << o.output;
  std::ifstream in(dir / "stats.json");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str());
  EXPECT_EQ(j["jobs"], 4);
  EXPECT_EQ(j["jobs_by_gpus"], nlohmann::json({{"1", 2}, {"2", 1}, {"4", 1}}));
  EXPECT_EQ(j["arrivals_by_hour"], nlohmann::json({3, 1}));
  EXPECT_EQ(j["runtime_cdf_s"], nlohmann::json({100, 200, 300, 400}));
  EXPECT_DOUBLE_EQ(j["arrivals_per_hour"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(j["gpu_hours"].get<double>(), 2400.0 / 3600);
  EXPECT_DOUBLE_EQ(j["offered_load"].get<double>(), 2400.0 / (8 * 3600));
  for (const char* name : {"gpu_demand", "runtime_cdf", "arrivals_per_hour"}) {
    for (const char* ext : {".png", ".pdf"}) {
      const std::filesystem::path f = dir / (std::string(name) + ext);
      ASSERT_TRUE(std::filesystem::exists(f)) << f << "\n" << o.output;
      EXPECT_GT(std::filesystem::file_size(f), 1000u) << f;
      EXPECT_NE(o.output.find(f.string()), std::string::npos) << o.output;
    }
  }
}

}  // namespace
}  // namespace schedkit
