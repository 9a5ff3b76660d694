// StreamTrace (schedkit/job_source.h): a trace file's jobs row by row, the same jobs as
// LoadTrace's, the same run as over the loaded trace, and unsorted or bad files refused
// naming the file, line and field.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "schedkit/job_source.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"
#include "test_files.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::ExpectSameJob;
using testing::SharedPath;
using testing::SourcePath;
using testing::TempFile;

std::vector<JobSpec> Drain(JobSource& source) {
  std::vector<JobSpec> jobs;
  JobSpec job;
  while (source.Next(&job)) jobs.push_back(job);
  EXPECT_TRUE(source.status().ok()) << source.status().message();
  return jobs;
}

void ExpectStreamIsLoad(const std::string& path, const TraceOptions& options = {}) {
  SCOPED_TRACE(path);
  Result<Trace> loaded = LoadTrace(path, options);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  Result<std::unique_ptr<JobSource>> stream = StreamTrace(path, options);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  const std::vector<JobSpec> streamed = Drain(**stream);
  ASSERT_EQ(streamed.size(), loaded->jobs.size());
  for (size_t i = 0; i < streamed.size(); ++i) ExpectSameJob(streamed[i], loaded->jobs[i]);
}

TEST(StreamTrace, SameJobsAsLoadTraceInEveryRowFormat) {
  ExpectStreamIsLoad(SourcePath("data/traces/tiny.csv"));         // native
  ExpectStreamIsLoad(SourcePath("data/traces/muri_trace3.csv"));  // muri, times in ms
  TraceOptions gavel;
  gavel.gavel_throughputs_path = SharedPath("data/gavel/simulation_throughputs.json");
  ExpectStreamIsLoad(SharedPath("data/gavel/traces/physical_cluster/small_test.trace"), gavel);
  ExpectStreamIsLoad(SharedPath("data/gavel/traces/msr_legacy_seed0/0e4a51.trace"), gavel);
}

// jobs.csv and timeseries.csv of a run, as text.
std::string Outputs(const RunOutput& run, const std::string& name) {
  const std::string jobs = ::testing::TempDir() + "/trace_stream_" + name + "_jobs.csv";
  const std::string series = ::testing::TempDir() + "/trace_stream_" + name + "_series.csv";
  EXPECT_TRUE(WriteJobsCsv(*run.recorder, jobs).ok());
  EXPECT_TRUE(WriteTimeSeriesCsv(*run.recorder, series).ok());
  return testing::ReadFile(jobs) + testing::ReadFile(series) + " events " +
         std::to_string(run.stats.events) + " decisions " + std::to_string(run.stats.decisions);
}

// 2,500 generated jobs written as a native file: the streamed run frees the first chunks of
// the engine's store (1,024 jobs each) and still writes the loaded run's outputs.
TEST(StreamTrace, StreamedRunEqualsTheLoadedRun) {
  GeneratorConfig g;
  g.num_jobs = 2500;
  g.jobs_per_hour = 1.8;  // ~90 % of 64 GPUs: queues and preemptions.
  g.seed = 5;
  Result<Trace> trace = GenerateTrace(g);
  ASSERT_TRUE(trace.ok());
  TempFile file("");
  ASSERT_TRUE(WriteNativeTrace(*trace, file.path()).ok());
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 8, 8, 0, 0);
  SimulatorOptions options;
  options.overheads = RestartOverheads(10);
  for (const char* policy : {"fifo", "tiresias"}) {
    PolicyRequest request;
    request.policy = policy;
    Result<Trace> loaded = LoadTrace(file.path());
    ASSERT_TRUE(loaded.ok());
    Result<RunOutput> whole = RunSimulation(*loaded, cluster, request, options);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    Result<std::unique_ptr<JobSource>> stream = StreamTrace(file.path());
    ASSERT_TRUE(stream.ok());
    Result<RunOutput> streamed = RunSimulation(**stream, cluster, request, options);
    ASSERT_TRUE(streamed.ok()) << streamed.status().message();
    EXPECT_GT(whole->stats.preemptions + whole->stats.decisions, 2500) << policy;
    EXPECT_EQ(Outputs(*whole, std::string(policy) + "_whole"),
              Outputs(*streamed, std::string(policy) + "_streamed"))
        << policy;
  }
}

constexpr char kHeader[] = "job_id,submit_s,gpus,duration_s\n";

// The run's error over a streamed native file holding `rows`.
std::string StreamedRunError(const TempFile& file) {
  Result<std::unique_ptr<JobSource>> stream = StreamTrace(file.path());
  if (!stream.ok()) return stream.status().message();
  PolicyRequest fifo;
  fifo.policy = "fifo";
  Result<RunOutput> run = RunSimulation(**stream, ClusterSpec::Uniform(1, 1, 8, 0, 0), fifo, {});
  return run.ok() ? "ok" : run.status().message();
}

TEST(StreamTrace, UnsortedRowsAreRefusedNamingTheLine) {
  // Line 4 goes back in time; LoadTrace sorts such a file, a stream cannot.
  TempFile back(std::string(kHeader) + "1,0,1,10\n2,50,1,10\n3,20,1,10\n");
  EXPECT_TRUE(LoadTrace(back.path()).ok());
  EXPECT_EQ(StreamedRunError(back),
            back.path() + ":4: field 'submit_s': '20' comes after job 2 (line 3) but is not later "
                          "in (submit time, id) order; a streamed trace must be sorted (load it "
                          "without --stream, or write it sorted with WriteNativeTrace)");
  // Same submit time, smaller id: the id column is named.
  TempFile ids(std::string(kHeader) + "5,0,1,10\n4,0,1,10\n");
  EXPECT_EQ(StreamedRunError(ids),
            ids.path() + ":3: field 'job_id': '4' comes after job 5 (line 2) but is not later in "
                         "(submit time, id) order; a streamed trace must be sorted (load it "
                         "without --stream, or write it sorted with WriteNativeTrace)");
}

TEST(StreamTrace, BadRowsAndDuplicateIdsNameTheLine) {
  TempFile field(std::string(kHeader) + "1,0,1,10\n2,5,x,10\n");
  EXPECT_EQ(StreamedRunError(field), field.path() + ":3: field 'gpus': 'x' is not an integer");
  // A duplicate id comes later in time, so only the engine's id index sees it.
  TempFile twice(std::string(kHeader) + "1,0,1,10\n2,5,1,10\n1,9,1,10\n");
  EXPECT_EQ(StreamedRunError(twice), twice.path() + ":4: job 1: id given twice");
  // What the engine refuses in a job is placed at its line too.
  TempFile rigid(std::string(kHeader) + "1,0,1,10\n2,5,1,10\n3,7,1,1e30\n");
  EXPECT_EQ(StreamedRunError(rigid).rfind(rigid.path() + ":4: job 3: solo runtime", 0), 0u)
      << StreamedRunError(rigid);
}

TEST(StreamTrace, WholeFileFormatsAndWindowsAreRefused) {
  // A dated log (detected): its jobs are windowed and renumbered over the whole file.
  TempFile lucid("job_id,vc,gpu_num,submit_time,duration\n1,vc1,1,2020-09-01 00:00:00,60\n");
  Result<std::unique_ptr<JobSource>> refused = StreamTrace(lucid.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            lucid.path() + ": a lucid trace cannot be streamed (its jobs are built from the whole "
                           "file); streaming reads native, muri, gavel and gavel-legacy traces");
  TraceOptions window;
  window.window_begin = "2020-09-01 00:00:00";
  Result<std::unique_ptr<JobSource>> windowed =
      StreamTrace(SourcePath("data/traces/tiny.csv"), window);
  ASSERT_FALSE(windowed.ok());
  EXPECT_NE(windowed.status().message().find("applies only to dated logs"), std::string::npos);
}

}  // namespace
}  // namespace schedkit
