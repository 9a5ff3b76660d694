// Philly's cluster_job_log (docs/formats.md, "Philly job logs"), on small files written in
// the upstream layout.
#include <gtest/gtest.h>

#include "schedkit/trace.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::TempFile;

// Three jobs as msr-fiddle/philly-traces writes them: one retried on two machines, one
// that never ran (no attempt), one killed after a single attempt.
constexpr const char* kLog = R"([
 {"status": "Pass", "vc": "ee9e8c", "jobid": "application_1506638472019_10238",
  "attempts": [
   {"end_time": "2017-10-03 10:10:00", "start_time": "2017-10-03 10:00:00",
    "detail": [{"ip": "m123", "gpus": ["gpu0", "gpu1"]}]},
   {"end_time": "2017-10-03 11:00:00", "start_time": "2017-10-03 10:30:00",
    "detail": [{"ip": "m124", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]},
               {"ip": "m125", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}],
  "submitted_time": "2017-10-03 09:59:00", "user": "6f5e2e"},
 {"status": "Failed", "vc": "b436b2", "jobid": "application_1506638472019_10239",
  "attempts": [], "submitted_time": "2017-10-03 09:00:00", "user": "ab12cd"},
 {"status": "Killed", "vc": "b436b2", "jobid": "application_1506638472019_10240",
  "attempts": [
   {"end_time": "2017-10-03 10:00:30", "start_time": "2017-10-03 10:00:00",
    "detail": [{"ip": "m200", "gpus": ["gpu3"]}]}],
  "submitted_time": "2017-10-03 10:00:00", "user": null}
]
)";

TEST(PhillyTrace, LoadsJobsWithSummedAttemptsAndTheLastAttemptsGpus) {
  TempFile file(kLog, "log.json");
  auto fmt = DetectTraceFormat(file.path());
  ASSERT_TRUE(fmt.ok()) << fmt.status().message();
  EXPECT_EQ(*fmt, TraceFormat::kPhilly);
  EXPECT_EQ(*ParseTraceFormat("philly"), TraceFormat::kPhilly);
  auto trace = LoadTrace(file.path());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 2u) << "the job that never ran is left out";
  const JobSpec& first = trace->jobs[0];  // Submitted at 09:59, the earliest kept.
  EXPECT_EQ(first.id, 0);
  EXPECT_EQ(first.name, "application_1506638472019_10238");
  EXPECT_DOUBLE_EQ(first.submit_s, 0);
  EXPECT_EQ(first.gpus, 8);                      // The last attempt: 4 + 4 GPUs.
  EXPECT_DOUBLE_EQ(first.duration_s, 600 + 1800);  // 10 min + 30 min.
  EXPECT_EQ(first.vc, "ee9e8c");
  EXPECT_EQ(first.user, "6f5e2e");
  const JobSpec& killed = trace->jobs[1];
  EXPECT_EQ(killed.id, 2);
  EXPECT_DOUBLE_EQ(killed.submit_s, 60);
  EXPECT_EQ(killed.gpus, 1);
  EXPECT_DOUBLE_EQ(killed.duration_s, 30);
  EXPECT_EQ(killed.user, "");
  int64_t origin = 0;
  ASSERT_TRUE(ParseDateTimeUtc("2017-10-03 09:59:00", &origin));
  EXPECT_EQ(trace->epoch_unix_s, origin);
}

TEST(PhillyTrace, BadLogsNameTheFileTheJobAndTheField) {
  const std::string job = R"({"jobid": "a1", "submitted_time": "2017-10-03 10:00:00", "attempts": [ATT]})";
  auto with = [&](const std::string& attempt) {
    std::string j = job;
    j.replace(j.find("ATT"), 3, attempt);
    return "[\n" + j + "\n]\n";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[\n{\"jobid\": \"a1\",\n \"attempts\": [}\n]\n", "log.json:3: not valid JSON"},
      {"[{\"jobid\": \"a1\", \"attempts\": []}]\n", "job 0 (jobid 'a1'): field 'submitted_time': missing"},
      {"[{\"jobid\": \"a1\", \"submitted_time\": \"yesterday\", \"attempts\": []}]\n",
       "job 0 (jobid 'a1'): field 'submitted_time': 'yesterday' is not a date"},
      {with(R"({"start_time": "2017-10-03 10:00:00", "end_time": 5, "detail": []})"),
       "job 0 (jobid 'a1'): field 'attempts[0].end_time': '5' is not a date or null"},
      {with(R"({"start_time": "2017-10-03 10:00:00", "end_time": "2017-10-03 09:00:00"})"),
       "field 'attempts[0].end_time': before its start_time"},
      {with(R"({"start_time": null, "end_time": null, "detail": [{"ip": "m1"}]})"),
       "field 'attempts[0].detail': each entry needs a 'gpus' list"},
      {with(R"({"start_time": null, "end_time": null, "detail": []})"),
       "no job ran"},
      {"{\"jobs\": []}\n", "not a JSON list of jobs"},
  };
  for (const auto& [body, expected] : cases) {
    TempFile file(body, "log.json");
    auto trace = LoadTrace(file.path(), {.format = TraceFormat::kPhilly});
    ASSERT_FALSE(trace.ok()) << body;
    EXPECT_NE(trace.status().message().find(expected), std::string::npos)
        << trace.status().message();
    EXPECT_EQ(trace.status().message().find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace schedkit
