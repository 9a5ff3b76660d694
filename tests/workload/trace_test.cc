#include "schedkit/trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::ExpectSameJob;
using testing::SharedPath;
using testing::SourcePath;
using testing::TempFile;

constexpr char kNativeHeader[] = "job_id,submit_s,gpus,duration_s\n";

TraceOptions WithFormat(TraceFormat f) {
  TraceOptions o;
  o.format = f;
  return o;
}

TraceOptions GavelOptions(std::string gpu_type = "v100") {
  TraceOptions o;
  o.gavel_throughputs_path = SharedPath("data/gavel/simulation_throughputs.json");
  o.gavel_gpu_type = std::move(gpu_type);
  return o;
}

// Loads `content` as a trace file and returns the error message ("" when it loads).
std::string LoadError(const std::string& content, TraceOptions options = {},
                      std::string* path_out = nullptr) {
  TempFile f(content);
  if (path_out != nullptr) *path_out = f.path();
  Result<Trace> t = LoadTrace(f.path(), options);
  return t.ok() ? "" : t.status().message();
}

// The message with the temp file's path replaced by "t.csv".
std::string LoadErrorRelative(const std::string& content, TraceOptions options = {}) {
  std::string path;
  std::string msg = LoadError(content, options, &path);
  if (msg.compare(0, path.size(), path) == 0) msg = "t.csv" + msg.substr(path.size());
  return msg;
}

void ExpectSorted(const Trace& t) {
  for (size_t i = 1; i < t.jobs.size(); ++i) {
    const JobSpec& a = t.jobs[i - 1];
    const JobSpec& b = t.jobs[i];
    ASSERT_TRUE(a.submit_s < b.submit_s || (a.submit_s == b.submit_s && a.id < b.id))
        << "jobs " << a.id << " and " << b.id << " out of order";
  }
}

// --- Format names and detection -----------------------------------------------------

TEST(TraceFormatTest, NamesRoundTrip) {
  for (TraceFormat f : {TraceFormat::kAuto, TraceFormat::kNative, TraceFormat::kMuri,
                        TraceFormat::kGavel, TraceFormat::kGavelLegacy}) {
    Result<TraceFormat> parsed = ParseTraceFormat(TraceFormatName(f));
    ASSERT_TRUE(parsed.ok()) << TraceFormatName(f);
    EXPECT_EQ(*parsed, f);
  }
  EXPECT_STREQ(TraceFormatName(TraceFormat::kGavelLegacy), "gavel-legacy");
}

TEST(TraceFormatTest, UnknownNameListsTheKnownOnes) {
  Result<TraceFormat> parsed = ParseTraceFormat("alibaba");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "unknown trace format 'alibaba' (expected one of: auto, native, muri, gavel, "
            "gavel-legacy, lucid, philly, pai, openb)");
}

TEST(DetectTraceFormatTest, RecognisesEveryShippedAndSharedFormat) {
  struct Case {
    std::string path;
    TraceFormat format;
  };
  const Case cases[] = {
      {SourcePath("data/traces/tiny.csv"), TraceFormat::kNative},
      {SourcePath("data/traces/muri_trace3.csv"), TraceFormat::kMuri},
      {SharedPath("data/muri/traces/trace1.csv"), TraceFormat::kMuri},
      {SharedPath("data/tiresias/traces/60_job.csv"), TraceFormat::kMuri},
      {SharedPath("data/gavel/traces/physical_cluster/small_test.trace"), TraceFormat::kGavel},
      {SharedPath("data/gavel/traces/msr_legacy_seed0/0e4a51.trace"), TraceFormat::kGavelLegacy},
  };
  for (const Case& c : cases) {
    Result<TraceFormat> f = DetectTraceFormat(c.path);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(*f, c.format) << c.path;
  }
}

TEST(DetectTraceFormatTest, UnknownHeaderNamesTheFile) {
  TempFile f("a,b,c\n1,2,3\n");
  Result<TraceFormat> r = DetectTraceFormat(f.path());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind(f.path() + ":1: unrecognized trace format", 0), 0u)
      << r.status().message();
}

TEST(DetectTraceFormatTest, WrongTabFieldCount) {
  TempFile f("a\tb\tc\n");
  Result<TraceFormat> r = DetectTraceFormat(f.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("3 tab-separated fields"), std::string::npos);
}

TEST(DetectTraceFormatTest, EmptyAndMissingFiles) {
  TempFile f("\n");
  EXPECT_FALSE(DetectTraceFormat(f.path()).ok());
  Result<Trace> t = LoadTrace("/nonexistent/trace.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Status::Code::kNotFound);
}

// --- Muri / Tiresias ----------------------------------------------------------------

TEST(MuriTraceTest, LoadsTrace3) {
  Result<Trace> t = LoadTrace(SourcePath("data/traces/muri_trace3.csv"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 992u);
  EXPECT_EQ(t->source, SourcePath("data/traces/muri_trace3.csv"));
  // 0,4,0,1046811,shufflenet_v2_x1_0,128,927475000,11174000,886,703,62,17,0
  const JobSpec& j = t->jobs[0];
  EXPECT_EQ(j.id, 0);
  EXPECT_EQ(j.gpus, 4);
  EXPECT_EQ(j.submit_s, 0.0);
  EXPECT_EQ(j.iterations, 1046811);
  EXPECT_EQ(j.profile.model, "shufflenet_v2_x1_0");
  EXPECT_EQ(j.profile.batch_size, 128);
  EXPECT_EQ(j.duration_s, 927475000 / 1000.0);
  EXPECT_EQ(j.iteration_time_s, 886 / 1000.0);
  EXPECT_EQ(j.profile.stage_times_s, (StageTimes{703 / 1000.0, 62 / 1000.0, 17 / 1000.0}));
  EXPECT_EQ(j.priority, 0);
  EXPECT_EQ(j.cpus, 0);
  EXPECT_EQ(j.user, "");
  EXPECT_DOUBLE_EQ(j.SoloRuntime(), 1046811 * 0.886);
  // 1,4,1456000,1005573,resnet18,128,926133000,1456000,921,723,113,73,1
  EXPECT_EQ(t->jobs[1].submit_s, 1456000 / 1000.0);
  EXPECT_EQ(t->jobs[1].priority, 1);
  ExpectSorted(*t);
}

TEST(MuriTraceTest, SharedCopyMatchesShippedCopy) {
  Result<Trace> a = LoadTrace(SourcePath("data/traces/muri_trace3.csv"));
  Result<Trace> b = LoadTrace(SharedPath("data/muri/traces/trace3.csv"));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->jobs.size(), b->jobs.size());
  for (size_t i = 0; i < a->jobs.size(); ++i) ExpectSameJob(a->jobs[i], b->jobs[i]);
}

TEST(MuriTraceTest, LoadsEverySharedMuriTrace) {
  const std::pair<const char*, size_t> files[] = {
      {"trace1.csv", 1494},    {"trace2.csv", 5755},    {"trace4.csv", 2638},
      {"trace1_pr.csv", 1494}, {"job_type_1.csv", 992}, {"testbed_cluster_trace.csv", 400},
  };
  for (const auto& [name, count] : files) {
    Result<Trace> t = LoadTrace(SharedPath(std::string("data/muri/traces/") + name));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->jobs.size(), count) << name;
    ExpectSorted(*t);
  }
}

TEST(MuriTraceTest, TiresiasVariantIsInSeconds) {
  Result<Trace> t = LoadTrace(SharedPath("data/tiresias/traces/60_job.csv"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 60u);
  // 0,1,0,606,vgg19,164,30
  const JobSpec& j = t->jobs[0];
  EXPECT_EQ(j.id, 0);
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.submit_s, 0.0);
  EXPECT_EQ(j.iterations, 606);
  EXPECT_EQ(j.profile.model, "vgg19");
  EXPECT_EQ(j.duration_s, 164.0);
  EXPECT_EQ(j.iteration_time_s, 0.0);  // Not in the file.
  EXPECT_EQ(j.SoloRuntime(), 164.0);
  // 1,8,30,133,vgg11,147,23 and the last row 59,1,1779,525,inception3,122,33 (CRLF file).
  EXPECT_EQ(t->jobs[1].gpus, 8);
  EXPECT_EQ(t->jobs[1].submit_s, 30.0);
  EXPECT_EQ(t->jobs.back().id, 59);
  EXPECT_EQ(t->jobs.back().submit_s, 1779.0);
  EXPECT_EQ(t->jobs.back().profile.model, "inception3");
}

TEST(MuriTraceTest, BadIntegerNamesFileLineAndField) {
  EXPECT_EQ(LoadErrorRelative("job_id,num_gpu,submit_time,duration\n0,1,0,5\n1,x,0,5\n"),
            "t.csv:3: field 'num_gpu': 'x' is not an integer");
}

TEST(MuriTraceTest, MissingColumn) {
  EXPECT_EQ(LoadErrorRelative("job_id,num_gpu,submit_time,iterations\n0,1,0,5\n",
                              WithFormat(TraceFormat::kMuri)),
            "t.csv:1: missing column 'duration'");
  EXPECT_EQ(
      LoadErrorRelative("job_id,submit_time,duration\n0,0,5\n", WithFormat(TraceFormat::kMuri)),
      "t.csv:1: missing column 'num_gpu'");
}

TEST(MuriTraceTest, NegativeGpusDuplicateIdsAndNoWork) {
  EXPECT_EQ(LoadErrorRelative("job_id,num_gpu,submit_time,duration\n0,-2,0,5\n"),
            "t.csv:2: field 'num_gpu': '-2' must be >= 1");
  EXPECT_EQ(LoadErrorRelative("job_id,num_gpu,submit_time,duration\n4,1,0,5\n\n4,1,0,5\n"),
            "t.csv:4: field 'job_id': '4' duplicates the job id on line 2");
  EXPECT_EQ(LoadErrorRelative("job_id,num_gpu,submit_time,duration\n0,1,-1,5\n"),
            "t.csv:2: field 'submit_time': '-1' must be >= 0");
  EXPECT_EQ(LoadErrorRelative("job_id,num_gpu,submit_time,duration\n0,1,0,0\n"),
            "t.csv:2: field 'duration': '0' gives the job no work (need duration > 0, or "
            "iterations > 0 and iteration_time > 0)");
}

// --- Gavel --------------------------------------------------------------------------

TEST(GavelTraceTest, LoadsPhysicalClusterTrace) {
  const std::string path =
      SharedPath("data/gavel/traces/physical_cluster/artifact_evaluation.trace");
  Result<Trace> t = LoadTrace(path, GavelOptions());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 15u);
  // ResNet-50 (batch size 64) ... 2931  1  1  -1.000000  0
  const JobSpec& j = t->jobs[0];
  EXPECT_EQ(j.id, 0);
  EXPECT_EQ(j.profile.model, "ResNet-50");
  EXPECT_EQ(j.profile.batch_size, 64);
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.iterations, 2931);
  EXPECT_EQ(j.submit_s, 0.0);
  EXPECT_EQ(j.priority, 1);
  EXPECT_EQ(j.iteration_time_s, 1.0 / 4.394774823323071);  // v100, isolated.
  EXPECT_EQ(j.duration_s, 0.0);
  // Transformer (batch size 16) ... 11005  2: scale factor 2 has its own throughput.
  EXPECT_EQ(t->jobs[1].profile.model, "Transformer");
  EXPECT_EQ(t->jobs[1].profile.batch_size, 16);
  EXPECT_EQ(t->jobs[1].gpus, 2);
  EXPECT_EQ(t->jobs[1].iterations, 11005);
  ExpectSorted(*t);

  Result<Trace> k80 = LoadTrace(path, GavelOptions("k80"));
  ASSERT_TRUE(k80.ok()) << k80.status().ToString();
  EXPECT_GT(k80->jobs[0].iteration_time_s, j.iteration_time_s);  // K80 is slower.
}

TEST(GavelTraceTest, LoadsEveryPhysicalClusterTrace) {
  for (const char* name :
       {"debug.trace", "debug_v2.trace", "highmem_test.trace", "max_min_fairness.trace",
        "medium_test.trace", "minimize_makespan.trace", "small_test.trace"}) {
    Result<Trace> t = LoadTrace(
        SharedPath(std::string("data/gavel/traces/physical_cluster/") + name), GavelOptions());
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_FALSE(t->jobs.empty());
  }
}

TEST(GavelTraceTest, LoadsLegacyTrace) {
  Result<Trace> t =
      LoadTrace(SharedPath("data/gavel/traces/msr_legacy_seed0/0e4a51.trace"), GavelOptions());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 1181u);
  // Transformer (batch size 128) ... -step 1 95121 0.000000 1
  const JobSpec& j = t->jobs[0];
  EXPECT_EQ(j.id, 0);
  EXPECT_EQ(j.profile.model, "Transformer");
  EXPECT_EQ(j.profile.batch_size, 128);
  EXPECT_EQ(j.iterations, 95121);
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.submit_s, 0.0);
  EXPECT_EQ(j.priority, 0);  // The legacy layout has no priority column.
  // Recommendation (batch size 8192) ... 10000 6.000000 1
  EXPECT_EQ(t->jobs[1].profile.model, "Recommendation");
  EXPECT_EQ(t->jobs[1].submit_s, 6.0);
  ExpectSorted(*t);
}

TEST(GavelTraceTest, LoadsEveryLegacyTrace) {
  for (const char* name :
       {"0e4a51", "103959", "11cb48", "23dbec", "2869ce", "51b7ef", "6214e9", "6c71a0", "795a4c",
        "7f04ca", "925e2b", "b436b2", "e13805", "ed69ec", "ee9e8c"}) {
    Result<Trace> t =
        LoadTrace(SharedPath(std::string("data/gavel/traces/msr_legacy_seed0/") + name + ".trace"),
                  GavelOptions());
    ASSERT_TRUE(t.ok()) << t.status().ToString();
  }
}

TEST(GavelTraceTest, UnmeasuredScaleFactorUsesLargestMeasuredBelow) {
  // The table has ResNet-18 at scale factors 1, 2, 4 and 8, and A3C only at 1.
  TempFile f(
      "ResNet-18 (batch size 64)\tcmd\t--num_steps\t1\t100\t0.5\t16\n"
      "ResNet-18 (batch size 64)\tcmd\t--num_steps\t1\t100\t0.5\t8\n"
      "A3C\tcmd\t--max-steps\t1\t100\t1.5\t4\n"
      "A3C\tcmd\t--max-steps\t1\t100\t2\t1\n",
      "legacy.trace");
  Result<Trace> t = LoadTrace(f.path(), GavelOptions());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 4u);
  EXPECT_EQ(t->jobs[0].gpus, 16);
  EXPECT_EQ(t->jobs[0].iteration_time_s, t->jobs[1].iteration_time_s);
  EXPECT_EQ(t->jobs[2].profile.model, "A3C");
  EXPECT_EQ(t->jobs[2].profile.batch_size, 0);
  EXPECT_EQ(t->jobs[2].submit_s, 1.5);
  EXPECT_EQ(t->jobs[2].iteration_time_s, t->jobs[3].iteration_time_s);
}

TEST(GavelTraceTest, Errors) {
  const TraceOptions o = GavelOptions();
  const std::string row_tail = "\tcmd\tdir\t--steps\t1\t100\t1\t1\t-1\t0\n";
  EXPECT_EQ(LoadErrorRelative("Foo (batch size 8)" + row_tail, o),
            "t.csv:1: field 'job_type': 'Foo (batch size 8)' has no throughput for GPU type "
            "'v100' in " +
                o.gavel_throughputs_path);
  EXPECT_EQ(LoadErrorRelative("A3C\tcmd\tdir\t--steps\t1\t100\tx\t1\t-1\t0\n", o),
            "t.csv:1: field 'scale_factor': 'x' is not an integer");
  EXPECT_EQ(LoadErrorRelative("A3C" + row_tail + "A3C\tcmd\tdir\t--steps\t1\t100\t1\t1\t-1\n", o),
            "t.csv:2: 9 fields, expected 10");
  EXPECT_EQ(LoadErrorRelative("A3C\tcmd\tdir\t--steps\t1\t100\t1\t0.5\t-1\t0\n", o),
            "t.csv:1: field 'priority_weight': '0.5' is not a whole number (schedkit priorities "
            "are integers)");
  TraceOptions bad_gpu = GavelOptions("h100");
  std::string msg = LoadErrorRelative("A3C" + row_tail, bad_gpu);
  EXPECT_EQ(msg.rfind(bad_gpu.gavel_throughputs_path + ": no GPU type 'h100' (has: ", 0), 0u)
      << msg;
}

TEST(GavelTraceTest, DefaultThroughputTableComesFromDataDir) {
  const char* old = std::getenv("SCHEDKIT_DATA_DIR");
  std::string saved = old ? old : "";
  setenv("SCHEDKIT_DATA_DIR", SourcePath("data").c_str(), 1);
  EXPECT_EQ(DataDir(), SourcePath("data"));
  Result<Trace> t = LoadTrace(SharedPath("data/gavel/traces/physical_cluster/small_test.trace"));
  if (old) {
    setenv("SCHEDKIT_DATA_DIR", saved.c_str(), 1);
  } else {
    unsetenv("SCHEDKIT_DATA_DIR");
  }
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->jobs.size(), 20u);
}

// --- Native -------------------------------------------------------------------------

TEST(NativeTraceTest, LoadsShippedTinyTrace) {
  Result<Trace> t = LoadTrace(SourcePath("data/traces/tiny.csv"));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 7u);
  ExpectSorted(*t);
  for (const JobSpec& j : t->jobs) EXPECT_GT(j.SoloRuntime(), 0) << j.id;
  // 1,0,2,,1000,0.5,vgg16,64,0.1,0.35,0.05,,,bob,vc1,0
  const JobSpec& j = t->jobs[1];
  EXPECT_EQ(j.id, 1);
  EXPECT_EQ(j.gpus, 2);
  EXPECT_EQ(j.iterations, 1000);
  EXPECT_EQ(j.iteration_time_s, 0.5);
  EXPECT_EQ(j.duration_s, 0.0);
  EXPECT_EQ(j.SoloRuntime(), 500.0);
  EXPECT_EQ(j.profile.stage_times_s, (StageTimes{0.1, 0.35, 0.05}));
  EXPECT_EQ(j.user, "bob");
  EXPECT_EQ(j.vc, "vc1");
  // 2,30,4,1200,,,bert,32,,,,24,64,carol,vc2,1
  EXPECT_EQ(t->jobs[2].cpus, 24);
  EXPECT_EQ(t->jobs[2].mem_gb, 64.0);
  EXPECT_EQ(t->jobs[2].priority, 1);
}

TEST(NativeTraceTest, MinimalColumnsAndSorting) {
  TempFile f(std::string(kNativeHeader) + "5,10,1,100\n3,10,2,50\n9,0,1,7.5\n");
  Result<Trace> t = LoadTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->jobs.size(), 3u);
  EXPECT_EQ(t->jobs[0].id, 9);
  EXPECT_EQ(t->jobs[1].id, 3);  // Same submit time: by id.
  EXPECT_EQ(t->jobs[2].id, 5);
  EXPECT_EQ(t->jobs[0].duration_s, 7.5);
}

TEST(NativeTraceTest, IterationsInsteadOfDuration) {
  TempFile f("job_id,submit_s,gpus,iterations,iteration_time_s\n0,0,1,10,0.25\n");
  Result<Trace> t = LoadTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->jobs[0].SoloRuntime(), 2.5);
}

TEST(NativeTraceTest, Errors) {
  EXPECT_EQ(LoadErrorRelative(std::string(kNativeHeader) + "0,0,1,5\n1,0,two,5\n"),
            "t.csv:3: field 'gpus': 'two' is not an integer");
  EXPECT_EQ(LoadErrorRelative(std::string(kNativeHeader) + "0,0,0,5\n"),
            "t.csv:2: field 'gpus': '0' must be >= 1");
  EXPECT_EQ(LoadErrorRelative(std::string(kNativeHeader) + "0,0,1,5\n0,1,1,5\n"),
            "t.csv:3: field 'job_id': '0' duplicates the job id on line 2");
  EXPECT_EQ(LoadErrorRelative(std::string(kNativeHeader) + "0,-0.5,1,5\n"),
            "t.csv:2: field 'submit_s': '-0.5' must be >= 0");
  EXPECT_EQ(LoadErrorRelative(std::string(kNativeHeader) + "0,0,1,0\n"),
            "t.csv:2: field 'duration_s': '0' gives the job no work (need duration_s > 0, or "
            "iterations > 0 and iteration_time_s > 0)");
  EXPECT_EQ(LoadErrorRelative("job_id,submit_s,gpus,iterations\n0,0,1,5\n",
                              WithFormat(TraceFormat::kNative)),
            "t.csv:1: missing column 'duration_s' (or both 'iterations' and "
            "'iteration_time_s')");
  EXPECT_EQ(LoadErrorRelative("job_id,submit_s,gpus,duration_s,prioirty\n0,0,1,5,1\n"),
            "t.csv:1: unknown column 'prioirty'");
  EXPECT_EQ(LoadErrorRelative("job_id,gpus,duration_s\n0,1,5\n", WithFormat(TraceFormat::kNative)),
            "t.csv:1: missing column 'submit_s'");
}

TEST(NativeTraceTest, RoundTripsHandBuiltJobsExactly) {
  Trace in;
  in.jobs = {
      JobBuilder(0).Submit(0).Gpus(1).Duration(0.1).Model("a,b").User(" spaced ").Build(),
      JobBuilder(1)
          .Submit(1.0 / 3.0)
          .Gpus(8)
          .Iterations(1046811, 0.886)
          .Stages(0.703, 0.062, 0.017)
          .Model("say \"hi\"")
          .Vc("vc,1")
          .Priority(-3)
          .Cpus(48)
          .MemGb(12.5)
          .Build(),
      JobBuilder(2).Submit(1e7 + 0.123456789).Gpus(64).Duration(6.02214076e23).Build(),
  };
  TempFile f("", "out.csv");
  ASSERT_TRUE(WriteNativeTrace(in, f.path()).ok());
  Result<Trace> out = LoadTrace(f.path());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->jobs.size(), in.jobs.size());
  for (size_t i = 0; i < in.jobs.size(); ++i) ExpectSameJob(in.jobs[i], out->jobs[i]);
}

TEST(NativeTraceTest, RoundTripsGeneratedTracesExactly) {
  for (auto durations : {GeneratorConfig::Durations::kBlox, GeneratorConfig::Durations::kPhilly}) {
    GeneratorConfig config;
    config.num_jobs = 2000;
    config.jobs_per_hour = 37.3;
    config.durations = durations;
    config.philly_distribution_path = SourcePath("data/gavel/philly_job_distribution.csv");
    config.seed = 7;
    Result<Trace> in = GenerateTrace(config);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    TempFile f("", "gen.csv");
    ASSERT_TRUE(WriteNativeTrace(*in, f.path()).ok());
    Result<Trace> out = LoadTrace(f.path(), WithFormat(TraceFormat::kNative));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->jobs.size(), in->jobs.size());
    for (size_t i = 0; i < in->jobs.size(); ++i) ExpectSameJob(in->jobs[i], out->jobs[i]);
  }
}

TEST(NativeTraceTest, MaxGpusColumnRoundTripsAndIsCheckedAgainstGpus) {
  GeneratorConfig config;
  config.num_jobs = 200;
  config.max_gpus = 4;  // Jobs of 1 and 2 GPUs become elastic up to 4; 4 and 8 stay rigid.
  config.seed = 3;
  Result<Trace> in = GenerateTrace(config);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  int elastic = 0;
  for (const JobSpec& j : in->jobs) {
    EXPECT_EQ(j.max_gpus, j.gpus < 4 ? 4 : 0) << j.id;
    elastic += j.Elastic();
  }
  EXPECT_GT(elastic, 100);
  TempFile f("", "elastic.csv");
  ASSERT_TRUE(WriteNativeTrace(*in, f.path()).ok());
  Result<Trace> out = LoadTrace(f.path(), WithFormat(TraceFormat::kNative));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->jobs.size(), in->jobs.size());
  for (size_t i = 0; i < in->jobs.size(); ++i) ExpectSameJob(in->jobs[i], out->jobs[i]);
  EXPECT_EQ(LoadErrorRelative("job_id,submit_s,gpus,duration_s,max_gpus\n0,0,4,5,8\n1,0,4,5,2\n"),
            "t.csv:3: field 'max_gpus': '2' is below the job's gpus 4 (0 or empty = rigid)");
  config.max_gpus = -1;
  EXPECT_FALSE(GenerateTrace(config).ok());
}

TEST(NativeTraceTest, RoundTripsMuriTrace) {
  Result<Trace> in = LoadTrace(SourcePath("data/traces/muri_trace3.csv"));
  ASSERT_TRUE(in.ok());
  TempFile f("", "muri.csv");
  ASSERT_TRUE(WriteNativeTrace(*in, f.path()).ok());
  Result<Trace> out = LoadTrace(f.path());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->jobs.size(), in->jobs.size());
  for (size_t i = 0; i < in->jobs.size(); ++i) ExpectSameJob(in->jobs[i], out->jobs[i]);
}

TEST(NativeTraceTest, WriteRejectsLineBreaksInStrings) {
  Trace in;
  in.jobs = {JobBuilder(0).Gpus(1).Duration(1).User("a\nb").Build()};
  TempFile f("", "out.csv");
  Status s = WriteNativeTrace(in, f.path());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
}

TEST(NativeTraceTest, WriteToUnwritablePathFails) {
  Status s = WriteNativeTrace(Trace{}, "/nonexistent/dir/out.csv");
  EXPECT_EQ(s.code(), Status::Code::kIoError);
}

}  // namespace
}  // namespace schedkit
