// Lucid's job attributes in the native trace format (name, dataset, amp, gmem_mb,
// gpu_util): read, written back only when set, and enough to run the clean-model lucid
// policy with co-location on a user's own trace.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "schedkit/lucid.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"
#include "test_files.h"

namespace schedkit::lucid {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  return schedkit::testing::WriteTempFile(name, text);
}

std::string FirstLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

constexpr char kTrace[] =
    "job_id,submit_s,gpus,duration_s,model,batch_size,vc,name,dataset,amp,gmem_mb,gpu_util\n"
    "1,0,8,1000,A,32,v,train-a,D,0,1000,55.5\n"
    "2,10,8,500,B,32,v,\"eval,b\",D,0,1000,\n";

TEST(NativeLucidColumnsTest, ReadsWritesAndRunsLucidWithCoLocation) {
  Result<Trace> t = LoadTrace(Write("nl_trace.csv", kTrace));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->jobs[0].name, "train-a");
  EXPECT_EQ(t->jobs[1].name, "eval,b");
  EXPECT_EQ(t->jobs[0].profile.dataset, "D");
  EXPECT_FALSE(t->jobs[0].profile.amp);
  EXPECT_EQ(t->jobs[0].profile.gmem_mb, 1000);
  EXPECT_EQ(t->jobs[0].profile.gpu_util, 55.5);
  EXPECT_EQ(t->jobs[1].profile.gpu_util, 0);  // Empty field: default.

  // Written back with the Lucid columns, and read back equal.
  const std::string out = ::testing::TempDir() + "/nl_out.csv";
  ASSERT_TRUE(WriteNativeTrace(*t, out).ok());
  EXPECT_NE(FirstLine(out).find(",priority,name,dataset,amp,gmem_mb,gpu_util"), std::string::npos);
  Result<Trace> back = LoadTrace(out);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->jobs[1].name, "eval,b");
  EXPECT_EQ(back->jobs[0].profile.gpu_util, 55.5);
  // A trace that sets none of them keeps the 16 base columns.
  Trace plain;
  plain.jobs = {JobBuilder(0).Gpus(1).Duration(5).Build()};
  ASSERT_TRUE(WriteNativeTrace(plain, out).ok());
  EXPECT_EQ(FirstLine(out).find("gpu_util"), std::string::npos);

  // The clean-model lucid policy shares job 1's GPUs with job 2 at the measured speeds
  // (as in lucid_policy_test): job 2 ends at 10 + 500 / 0.5, job 1 at 1200.
  PolicyRequest lucid;
  lucid.policy = "lucid";
  lucid.options["profiler"] = "false";
  lucid.options["share_scores"] =
      Write("nl_single.csv", "model,dataset,batchsize,amp,label\nA,D,32,0,1\nB,D,32,0,1\n");
  lucid.options["colocate"] = Write(
      "nl_colo.csv",
      ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,"
      "speed2\n0,B,D,8,32,0,0.5,A,D,8,32,0,0.8\n");
  SimulatorOptions options;
  options.overheads = RestartOverheads(0);
  Result<VirtualClusterRun> r = RunVirtualClusters(*t, {{"v", 1}}, lucid, options, 1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<RecordedJob> jobs = r->per_vc[0].run.recorder->Jobs();
  EXPECT_DOUBLE_EQ(jobs[1].end_s, 1010);
  EXPECT_DOUBLE_EQ(jobs[0].end_s, 1200);
}

TEST(NativeLucidColumnsTest, BadValuesNameFileLineAndField) {
  const std::string path = Write(
      "nl_bad.csv", "job_id,submit_s,gpus,duration_s,amp,gmem_mb\n1,0,1,10,0,5\n2,0,1,10,2,5\n");
  Result<Trace> t = LoadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), path + ":3: field 'amp': '2' must be <= 1");
  Result<Trace> neg =
      LoadTrace(Write("nl_neg.csv", "job_id,submit_s,gpus,duration_s,gmem_mb\n1,0,1,10,-1\n"));
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("field 'gmem_mb'"), std::string::npos);
}

}  // namespace
}  // namespace schedkit::lucid
