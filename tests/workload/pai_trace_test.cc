// Alibaba PAI 2020's job and task tables (docs/formats.md, "Alibaba PAI 2020"), on small
// headerless files written in the upstream layout (cluster-trace-gpu-v2020).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "schedkit/trace.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

// A folder holding pai_job_table.csv and pai_task_table.csv, removed when the object dies.
class PaiTables {
 public:
  PaiTables(const std::string& jobs, const std::string& tasks) : holder_("", "keep") {
    dir_ = std::filesystem::path(holder_.path()).parent_path();
    std::ofstream(dir_ / "pai_job_table.csv", std::ios::binary) << jobs;
    std::ofstream(dir_ / "pai_task_table.csv", std::ios::binary) << tasks;
  }
  std::string jobs() const { return (dir_ / "pai_job_table.csv").string(); }
  std::string tasks() const { return (dir_ / "pai_task_table.csv").string(); }

 private:
  testing::TempFile holder_;  // Owns the folder.
  std::filesystem::path dir_;
};

// job_name, inst_id, user, status, start_time, end_time. Five jobs: two finished GPU jobs,
// one failed, one finished CPU-only job, one finished without an end time.
constexpr const char* kJobs =
    "4b3ad7ee,8ec4bc81,58540f19,Terminated,4550879.0,4551126.0\n"
    "a1b2c3d4,2aa01c3e,74deab4e,Failed,4550000.0,4550100.0\n"
    "9f8e7d6c,77ab12cd,58540f19,Terminated,4550979.0,4560979.0\n"
    "cpu00001,0011aabb,74deab4e,Terminated,4551000.0,4551500.0\n"
    "noend001,0011aacc,74deab4e,Terminated,4551000.0,\n";
// job_name, task_name, inst_num, status, start_time, end_time, plan_cpu, plan_mem, plan_gpu,
// gpu_type. Job 4b3ad7ee: one worker at 50 % of a GPU -> ceil(0.5) = 1 GPU. Job 9f8e7d6c:
// 2 workers x 100 % + 1 ps with no GPU (empty plan_gpu) + 1 evaluator at 25 % -> 225 % ->
// 3 GPUs. cpu00001 asks for none and is left out; so are the failed job's tasks.
constexpr const char* kTasks =
    "4b3ad7ee,worker,1.0,Terminated,4550879.0,4551126.0,600.0,29.296875,50.0,MISC\n"
    "a1b2c3d4,worker,8.0,Failed,4550000.0,4550100.0,600.0,29.3,100.0,V100\n"
    "9f8e7d6c,worker,2.0,Terminated,4550979.0,4560979.0,800.0,60.0,100.0,V100\n"
    "9f8e7d6c,ps,1.0,Terminated,4550979.0,4560979.0,400.0,20.0,,\n"
    "9f8e7d6c,evaluator,1.0,Terminated,4550979.0,4560979.0,100.0,10.0,25.0,T4\n"
    "cpu00001,worker,4.0,Terminated,4551000.0,4551500.0,1600.0,30.0,,\n";

TEST(PaiTrace, LoadsFinishedGpuJobsWithSummedTaskGpusRoundedUp) {
  PaiTables t(kJobs, kTasks);
  auto fmt = DetectTraceFormat(t.jobs());
  ASSERT_TRUE(fmt.ok()) << fmt.status().message();
  EXPECT_EQ(*fmt, TraceFormat::kPai);
  EXPECT_EQ(*ParseTraceFormat("pai"), TraceFormat::kPai);
  EXPECT_STREQ(TraceFormatName(TraceFormat::kPai), "pai");
  auto trace = LoadTrace(t.jobs());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 2u);
  const JobSpec& a = trace->jobs[0];
  EXPECT_EQ(a.id, 0);  // 0-based line in the job table.
  EXPECT_EQ(a.name, "4b3ad7ee");
  EXPECT_EQ(a.user, "58540f19");
  EXPECT_DOUBLE_EQ(a.submit_s, 0);
  EXPECT_DOUBLE_EQ(a.duration_s, 4551126.0 - 4550879.0);  // 247 s.
  EXPECT_EQ(a.gpus, 1);
  const JobSpec& b = trace->jobs[1];
  EXPECT_EQ(b.id, 2);
  EXPECT_DOUBLE_EQ(b.submit_s, 100);  // 4550979 - 4550879.
  EXPECT_DOUBLE_EQ(b.duration_s, 10000);
  EXPECT_EQ(b.gpus, 3);
}

TEST(PaiTrace, BadTablesNameTheFileTheLineAndTheField) {
  const std::string ok_job = "j1,i1,u1,Terminated,10.0,20.0\n";
  const std::string ok_task = "j1,worker,1.0,Terminated,10.0,20.0,600.0,29.3,100.0,V100\n";
  struct Case {
    std::string jobs, tasks, want;  // `want`: a substring of the error; FILE is replaced below.
  };
  const Case cases[] = {
      {ok_job + "j2,i2,u1,Terminated,x,20.0\n", ok_task,
       "pai_job_table.csv:2: field 'start_time': 'x' is not a number"},
      {ok_job + "j2,i2,u1,Terminated,30.0,20.0\n", ok_task,
       "pai_job_table.csv:2: field 'end_time': '20.0' is before its start_time"},
      {ok_job + "j1,i2,u1,Failed,30.0,40.0\n", ok_task,
       "pai_job_table.csv:2: field 'job_name': 'j1' duplicates the job on line 1"},
      {ok_job + "j2,i2,u1,Terminated\n", ok_task, "pai_job_table.csv:2:"},
      {ok_job, ok_task + "j1,ps,two,Terminated,10.0,20.0,600.0,29.3,100.0,V100\n",
       "pai_task_table.csv:2: field 'inst_num': 'two' is not a number"},
      {ok_job, ok_task + "j1,ps,1.5,Terminated,10.0,20.0,600.0,29.3,100.0,V100\n",
       "pai_task_table.csv:2: field 'inst_num': '1.5' is not a whole number"},
      {ok_job, ok_task + "j1,ps,1.0,Terminated,10.0,20.0,600.0,29.3,-5,V100\n",
       "pai_task_table.csv:2: field 'plan_gpu'"},
      {ok_job, "j1,worker,1.0,Terminated,10.0,20.0,600.0,29.3,,\n",
       "no Terminated job that ran for some time asks for a GPU"},
  };
  for (const Case& c : cases) {
    PaiTables t(c.jobs, c.tasks);
    auto trace = LoadTrace(t.jobs(), {.format = TraceFormat::kPai});
    ASSERT_FALSE(trace.ok()) << c.want;
    EXPECT_NE(trace.status().message().find(c.want), std::string::npos)
        << trace.status().message() << "\nwanted: " << c.want;
  }
  // The task table must be beside the job table.
  testing::TempFile lone(ok_job, "pai_job_table.csv");
  auto missing = LoadTrace(lone.path(), {.format = TraceFormat::kPai});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("pai_task_table.csv cannot be opened"),
            std::string::npos)
      << missing.status().message();
  testing::TempFile misnamed(ok_job, "jobs.csv");
  auto unnamed = LoadTrace(misnamed.path(), {.format = TraceFormat::kPai});
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.status().message().find("must contain 'job_table'"), std::string::npos);
}

}  // namespace
}  // namespace schedkit
