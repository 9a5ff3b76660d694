// Lucid / Helios log loading: detection, filters, time window, time zone, errors.
#include <gtest/gtest.h>

#include <string>

#include "schedkit/lucid.h"
#include "schedkit/trace.h"
#include "workload/trace_formats.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::SharedPath;
using testing::TempFile;

constexpr char kFullHeader[] =
    "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,duration,dataset,model,"
    "batchsize,amp,speed,gpu_util,gmem_util,gmem\n";

std::string FullRow(int id, const std::string& vc, int gpus, const std::string& submit,
                    int duration) {
  return std::to_string(id) + ",u1," + vc + ",job" + std::to_string(id) + "," +
         std::to_string(gpus) + ",4,1,COMPLETED," + submit + "," + std::to_string(duration) +
         ",CIFAR-10,ResNet18,64,1,100.0,40.5,10.0,3000.0\n";
}

TraceOptions Window(std::string begin, std::string end) {
  TraceOptions o;
  o.window_begin = std::move(begin);
  o.window_end = std::move(end);
  return o;
}

TEST(LucidTraceTest, DetectsTheFullLogAndTheHeliosLog) {
  TempFile full(std::string(kFullHeader) + FullRow(1, "vcA", 1, "2020-04-01 00:00:00", 10));
  ASSERT_EQ(*DetectTraceFormat(full.path()), TraceFormat::kLucid);
  TempFile helios(
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
      "queue\n7,u2,vcB,2,8,1,COMPLETED,2020-04-01 00:00:05,2020-04-01 00:00:09,"
      "2020-04-01 00:01:09,60,4\n");
  ASSERT_EQ(*DetectTraceFormat(helios.path()), TraceFormat::kLucid);
  Result<Trace> t = LoadTrace(helios.path(), Window("", ""));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 1u);
  EXPECT_EQ(t->jobs[0].id, 7);
  EXPECT_EQ(t->jobs[0].gpus, 2);
  EXPECT_EQ(t->jobs[0].duration_s, 60);
  EXPECT_EQ(t->jobs[0].submit_s, 0);
  EXPECT_EQ(t->jobs[0].vc, "vcB");
  EXPECT_EQ(t->jobs[0].cpus, 8);
  EXPECT_EQ(t->epoch_unix_s, 1585699205);  // 2020-04-01 00:00:05 UTC.
}

TEST(LucidTraceTest, ReadsTheWorkloadColumns) {
  TempFile f(std::string(kFullHeader) + FullRow(3, "vcA", 8, "2020-04-01 00:00:00", 10));
  Result<Trace> t = LoadTrace(f.path(), Window("", ""));
  ASSERT_TRUE(t.ok()) << t.status().message();
  const JobSpec& j = t->jobs[0];
  EXPECT_EQ(j.name, "job3");
  EXPECT_EQ(j.user, "u1");
  EXPECT_EQ(j.profile.model, "ResNet18");
  EXPECT_EQ(j.profile.dataset, "CIFAR-10");
  EXPECT_EQ(j.profile.batch_size, 64);
  EXPECT_TRUE(j.profile.amp);
  EXPECT_EQ(j.profile.gmem_mb, 3000.0);
  EXPECT_EQ(j.profile.gpu_util, 40.5);
}

std::string WindowLog() {
  return std::string(kFullHeader) +
         FullRow(1, "vcA", 1, "2020-03-31 23:59:59", 5) +  // before the anchor
         FullRow(2, "vcA", 0, "2020-04-01 00:00:00", 5) +  // no GPU
         FullRow(3, "vcA", 1, "2020-04-01 00:00:10", 5) +  // first at or after the anchor
         FullRow(4, "vcA", 1, "2020-04-01 00:01:09", 5) +
         FullRow(5, "vcB", 2, "2020-04-01 00:01:10", 5) +
         FullRow(6, "vcA", 1, "2020-04-01 00:02:10", 5) +
         FullRow(7, "vcA", 1, "2020-04-01 00:02:11", 5);
}

// The window is absolute and inclusive; submit_s counts from its begin.
TEST(LucidTraceTest, KeepsJobsInTheInclusiveWindow) {
  TempFile f(WindowLog());
  Result<Trace> t = LoadTrace(f.path(), Window("2020-04-01 00:01:09", "2020-04-01 00:02:10"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 3u);
  EXPECT_EQ(t->jobs[0].id, 4);
  EXPECT_EQ(t->jobs[0].submit_s, 0);
  EXPECT_EQ(t->jobs[2].id, 6);
  EXPECT_EQ(t->jobs[2].submit_s, 61);
  EXPECT_EQ(t->epoch_unix_s, 1585699200 + 69);

  // No begin: from the first job kept (the GPU job before the anchor date included).
  t = LoadTrace(f.path(), Window("", "2020-04-01 00:00:10"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->jobs[0].id, 1);
  EXPECT_EQ(t->jobs[1].submit_s, 11);
  EXPECT_EQ(t->epoch_unix_s, 1585699200 - 1);
}

// Lucid's trace preparation (the anchor of the Lucid profile's experiment window): times
// are relative to the first GPU job at or after the anchor; the window is measured from
// the anchor and is inclusive; submit_s counts from the window's begin.
TEST(LucidTraceTest, AnchoredWindowMeasuresFromTheFirstJobAfterTheAnchor) {
  TempFile f(WindowLog());
  Result<Trace> t = workload::LoadLucidTrace(
      f.path(), Window("2020-04-01 00:01:00", "2020-04-01 00:02:00"), "2020-04-01 00:00:00");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->jobs[0].id, 5);
  EXPECT_EQ(t->jobs[0].submit_s, 0);
  EXPECT_EQ(t->jobs[1].id, 6);
  EXPECT_EQ(t->jobs[1].submit_s, 60);
  // submit_s = 0 is the first job's time plus (begin - anchor): 00:00:10 + 60 s.
  EXPECT_EQ(t->epoch_unix_s, 1585699200 + 70);

  TraceOptions only_a = Window("2020-04-01 00:01:00", "2020-04-01 00:02:00");
  only_a.lucid_vcs = {"vcA"};
  t = workload::LoadLucidTrace(f.path(), only_a, "2020-04-01 00:00:00");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->jobs.size(), 1u);
  EXPECT_EQ(t->jobs[0].id, 6);
}

TEST(LucidTraceTest, AWindowThatKeepsNoJobIsAnErrorNamingFileAndWindow) {
  TempFile f(WindowLog());
  Result<Trace> t = LoadTrace(f.path(), Window("2021-01-01 00:00:00", ""));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            f.path() + ": no job kept in the window [2021-01-01 00:00:00, end of log]");
  t = LoadTrace(f.path(), Window("", "2020-03-01"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            f.path() + ": no job kept in the window [start of log, 2020-03-01]");
  t = LoadTrace(f.path(), Window("2020-13-01", ""));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "window begin '2020-13-01' is not a date 'YYYY-MM-DD HH:MM:SS'");
}

TEST(LucidTraceTest, AWindowOnAnUndatedFormatIsRefused) {
  Result<Trace> t = LoadTrace(SharedPath("data/muri/traces/trace3.csv"), Window("2020-09-01", ""));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("applies only to dated logs (format lucid); this trace is "
                                      "format muri"),
            std::string::npos)
      << t.status().message();
}

TEST(LucidTraceTest, UtcOffsetShiftsTheEpochNotTheRelativeTimes) {
  TempFile f(std::string(kFullHeader) + FullRow(1, "vcA", 1, "2020-04-01 08:00:00", 5) +
             FullRow(2, "vcA", 1, "2020-04-01 09:00:00", 5));
  TraceOptions o = Window("", "");
  o.lucid_utc_offset_s = 8 * 3600;  // The log is in UTC+8: 08:00 there is 00:00 UTC.
  Result<Trace> t = LoadTrace(f.path(), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->jobs[1].submit_s, 3600);
  EXPECT_EQ(t->epoch_unix_s, 1585699200);
}

TEST(LucidTraceTest, ErrorsNameFileLineAndField) {
  TempFile bad_date(std::string(kFullHeader) + FullRow(1, "vcA", 1, "2020-04-31 00:00:00", 5));
  Result<Trace> t = LoadTrace(bad_date.path());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), bad_date.path() +
                                      ":2: field 'submit_time': '2020-04-31 00:00:00' is not a "
                                      "date 'YYYY-MM-DD HH:MM:SS'");
  TempFile dup(std::string(kFullHeader) + FullRow(1, "vcA", 1, "2020-09-01 00:00:00", 5) +
               FullRow(1, "vcA", 1, "2020-09-01 00:00:01", 5));
  t = LoadTrace(dup.path(), Window("", ""));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            dup.path() + ":3: field 'job_id': '1' duplicates the job id on line 2");
  TempFile zero(std::string(kFullHeader) + FullRow(1, "vcA", 1, "2020-09-01 00:00:00", 0));
  t = LoadTrace(zero.path(), Window("", ""));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            zero.path() + ":2: field 'duration': '0' must be >= 1 for a GPU job");
}

// The Lucid profile's default window: Venus, September 1 to 26.
TEST(LucidTraceTest, SharedSynthTraceHasTheReferenceJobCountInTheExperimentWindow) {
  Result<std::vector<lucid::VirtualCluster>> vcs =
      lucid::LoadVcConfig(SharedPath("data/lucid/vc_config.csv"));
  ASSERT_TRUE(vcs.ok()) << vcs.status().message();
  Result<Trace> t =
      lucid::LoadExperimentTrace(SharedPath("data/lucid/venus_synth_seed1.csv"), {}, *vcs);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->jobs.size(), 23859u);       // As the reference table states.
  EXPECT_EQ(t->epoch_unix_s, 1598918400);  // 2020-09-01 00:00:00 UTC.
  EXPECT_GE(t->jobs.front().submit_s, 0);
  EXPECT_LE(t->jobs.back().submit_s, 26 * 86400 - 60);

  // Without the profile, the whole log from its first job.
  Result<Trace> whole = LoadTrace(SharedPath("data/lucid/venus_synth_seed1.csv"));
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(whole->jobs.size(), 24059u);
  EXPECT_EQ(whole->epoch_unix_s, 1585699200);  // 2020-04-01 00:00:00 UTC.
}

}  // namespace
}  // namespace schedkit
