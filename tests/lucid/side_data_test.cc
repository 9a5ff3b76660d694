// Lucid's side files: what is read, and errors naming file, line and field.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "schedkit/lucid.h"
#include "test_files.h"

namespace schedkit::lucid {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  return schedkit::testing::WriteTempFile(name, text);
}

TEST(LucidSideDataTest, ReadsVcConfigEstimatesScoresSpeedsAndForecast) {
  auto vcs = LoadVcConfig(Write("sd_vc.csv", ",num\nvcA,3\nvcB,1\n"));
  ASSERT_TRUE(vcs.ok()) << vcs.status().message();
  ASSERT_EQ(vcs->size(), 2u);
  EXPECT_EQ((*vcs)[0].name, "vcA");
  EXPECT_EQ((*vcs)[0].nodes, 3);
  auto est = LoadEstimates(Write("sd_est.csv", "job_id,priority\n5,-20\n6,300\n"));
  ASSERT_TRUE(est.ok());
  EXPECT_EQ(est->at(5), -20);
  auto est2 = LoadEstimates(Write("sd_est2.csv", "job_id,estimate_s\n5,12.5\n"));
  ASSERT_TRUE(est2.ok());
  EXPECT_EQ(est2->at(5), 12.5);
  auto f =
      LoadThroughputForecast(Write("sd_f.csv",
                                   "time,pred_gpu_job,pred_gpu_num\n2020-09-01 00:00:00,1.5,20\n"
                                   "2020-09-01 00:10:00,2.5,30\n"));
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->time_s, (std::vector<int64_t>{0, 600}));
  EXPECT_EQ(f->pred_gpu_num[1], 30);
}

TEST(LucidSideDataTest, ErrorsNameFileLineAndField) {
  const std::string vc = Write("sd_bad_vc.csv", ",num\nvcA,3\nvcA,1\n");
  EXPECT_EQ(LoadVcConfig(vc).status().message(),
            vc + ":3: field 'column 1': 'vcA' names a VC twice");
  const std::string est = Write("sd_bad_est.csv", "job_id,priority\n5,abc\n");
  EXPECT_EQ(LoadEstimates(est).status().message(),
            est + ":2: field 'priority': 'abc' is not a number");
  const std::string f = Write("sd_bad_f.csv",
                              "time,pred_gpu_job,pred_gpu_num\n2020-09-01 00:10:00,1,1\n"
                              "2020-09-01 00:00:00,1,1\n");
  EXPECT_EQ(LoadThroughputForecast(f).status().message(),
            f + ":3: field 'time': '2020-09-01 00:00:00' is not after the previous row");
  const std::string s = Write("sd_bad_s.csv", "model,dataset,batchsize,amp,label\nA,D,32,2,1\n");
  EXPECT_EQ(LoadShareScores(s).status().message(), s + ":2: field 'amp': '2' must be <= 1");
  auto missing = ConfigFromOptions(CompatPolicy::kQssf, {{"vc_config", vc + ".nope"}});
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace schedkit::lucid
