// ComputeTraceStats and `schedkit trace stats` on a hand-made trace.
#include "schedkit/trace_stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cli_runner.h"
#include "schedkit/job.h"
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

}  // namespace
}  // namespace schedkit
