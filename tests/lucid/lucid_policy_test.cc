// The clean-model `lucid` policy on the event-driven engine: co-location as an engine
// group at the measured speeds, and the forecast-driven packing switch.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "schedkit/run.h"
#include "test_files.h"

namespace schedkit {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  return schedkit::testing::WriteTempFile(name, text);
}

JobSpec Job(JobId id, double submit, double duration, const std::string& model) {
  JobSpec j = JobBuilder(id).Gpus(8).Submit(submit).Duration(duration).Model(model).Build();
  j.profile.dataset = "D";
  j.profile.batch_size = 32;
  j.profile.gmem_mb = 1000;
  return j;
}

PolicyRequest LucidRequest(const std::string& forecast) {
  PolicyRequest r;
  r.policy = "lucid";
  r.options["estimates"] = Write("lp_est.csv", "job_id,estimate_s\n1,100\n2,100\n");
  r.options["share_scores"] =
      Write("lp_single.csv", "model,dataset,batchsize,amp,label\nA,D,32,0,1\nB,D,32,0,1\n");
  r.options["colocate"] = Write(
      "lp_colo.csv",
      ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,"
      "speed2\n0,B,D,8,32,0,0.5,A,D,8,32,0,0.8\n");
  if (!forecast.empty()) r.options["forecast"] = forecast;
  return r;
}

Trace TwoJobs() {
  Trace t;
  t.jobs = {Job(1, 0, 1000, "A"), Job(2, 10, 500, "B")};
  return t;
}

TEST(LucidPolicyTest, SharesGpusAtMeasuredSpeedsAndTheSurvivorReturnsToFullSpeed) {
  // No forecast: packing on. Job 2 joins job 1's GPUs at 10: job 2 at 0.5 (500 s of work
  // take 1000 s: ends 1010), job 1 at 0.8 (10 + 800 = 810 s done by 1010), then alone at
  // full speed for the last 190 s: ends 1200. Restart overhead 0.
  SimulatorOptions options;
  options.overheads = RestartOverheads(0);
  auto run =
      RunSimulation(TwoJobs(), ClusterSpec::Uniform(1, 1, 8, 96, 512), LucidRequest(""), options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const std::vector<RecordedJob> jobs = run->recorder->Jobs();
  EXPECT_EQ(jobs[1].first_start_s, 10);
  EXPECT_DOUBLE_EQ(jobs[1].end_s, 1010);
  EXPECT_DOUBLE_EQ(jobs[0].end_s, 1200);
}

TEST(LucidPolicyTest, LowForecastTurnsPackingOffAndKeepsStrictOrder) {
  // pred_gpu_job 1 in every row: the mean of the next rows is <= 2, so nobody shares and
  // job 2 waits for the node.
  std::string rows = "time,submit_gpu_job,submit_gpu_num,pred_gpu_job,pred_gpu_num\n";
  for (int m = 0; m < 60; m += 10) {
    rows += "2020-09-01 00:" + std::string(m < 10 ? "0" : "") + std::to_string(m) + ":00,1,1,1,1\n";
  }
  SimulatorOptions options;
  options.overheads = RestartOverheads(0);
  auto run = RunSimulation(TwoJobs(), ClusterSpec::Uniform(1, 1, 8, 96, 512),
                           LucidRequest(Write("lp_forecast.csv", rows)), options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const std::vector<RecordedJob> jobs = run->recorder->Jobs();
  EXPECT_EQ(jobs[1].first_start_s, 1000);
  EXPECT_DOUBLE_EQ(jobs[1].end_s, 1500);
  EXPECT_DOUBLE_EQ(jobs[0].end_s, 1000);
  EXPECT_EQ(jobs[0].preemptions, 0);
}

}  // namespace
}  // namespace schedkit
