// Workloads and clusters with GPU types: Gavel's cluster specs, the per-type speeds of
// Gavel's traces and of the native format, and Gavel's generator.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "schedkit/cluster.h"
#include "schedkit/throughput.h"
#include "schedkit/trace.h"
#include "gavel_test_util.h"
#include "workload_test_util.h"

namespace schedkit {
namespace {

using testing::ExpectSameJob;
using testing::SharedPath;
using testing::SourcePath;
using testing::TempFile;

std::string TablePath() { return testing::GavelTablePath(); }

// --- Cluster specs -------------------------------------------------------------------

TEST(GavelClusterSpec, ReadsMsrClusterSpecs) {
  // {"philly": ["500:0:0"]}: 500 V100s, no P100 or K80.
  Result<ClusterSpec> s = LoadClusterSpec(SharedPath("data/gavel/traces/msr_cluster_specs.json"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->nodes.size(), 500u);
  EXPECT_EQ(s->TotalGpus(), 500);
  EXPECT_EQ(s->GpuTypes(), std::vector<std::string>{"v100"});
  EXPECT_EQ(s->num_switches(), 1);
}

TEST(GavelClusterSpec, ThirtySixOfEachTypeMatchesTheShippedNativeSpec) {
  TempFile f("{\"gavel\": [\"36:36:36\", \"0:0:4\"]}", "c.json");
  Result<ClusterSpec> json = LoadClusterSpec(f.path() + "#gavel/0");
  ASSERT_TRUE(json.ok()) << json.status().message();
  Result<ClusterSpec> native = LoadClusterSpec(SourcePath("data/clusters/gavel_36x3.csv"));
  ASSERT_TRUE(native.ok()) << native.status().message();
  ASSERT_EQ(json->nodes.size(), 108u);
  ASSERT_EQ(native->nodes.size(), 108u);
  for (size_t i = 0; i < 108; ++i) {
    EXPECT_EQ(json->nodes[i].gpu_type, native->nodes[i].gpu_type) << i;
    EXPECT_EQ(json->nodes[i].gpus, native->nodes[i].gpus) << i;
    EXPECT_EQ(json->nodes[i].switch_id, native->nodes[i].switch_id) << i;
  }
  EXPECT_EQ(json->GpuTypes(), (std::vector<std::string>{"v100", "p100", "k80"}));
  Result<ClusterSpec> k80 = LoadClusterSpec(f.path() + "#gavel/1");
  ASSERT_TRUE(k80.ok());
  EXPECT_EQ(k80->nodes.size(), 4u);
  EXPECT_EQ(k80->nodes[0].gpu_type, "k80");
  EXPECT_EQ(k80->nodes[0].switch_id, 0);
}

TEST(GavelClusterSpec, ErrorsNameTheFileAndTheSpec) {
  auto error = [](const std::string& json, const std::string& selector = "") {
    TempFile f(json, "c.json");
    Result<ClusterSpec> s = LoadClusterSpec(f.path() + selector);
    std::string msg = s.ok() ? "" : s.status().message();
    for (size_t at; (at = msg.find(f.path())) != std::string::npos;) {
      msg.replace(at, f.path().size(), "c.json");
    }
    return msg;
  };
  EXPECT_EQ(error("{\"a\": [\"1:0:0\"], \"b\": [\"1:0:0\"]}"),
            "c.json: holds 2 cluster specs (a, b); name one as c.json#NAME");
  EXPECT_EQ(error("{\"a\": [\"1:0:0\"]}", "#c"), "c.json: no cluster spec 'c' (has: a)");
  EXPECT_EQ(error("{\"a\": [\"1:0:0\", \"2:0:0\"]}"),
            "c.json: 'a' holds 2 specs; name one as c.json#a/INDEX");
  EXPECT_EQ(error("{\"a\": [\"1:0:0\"]}", "#a/3"), "c.json: 'a' has 1 specs, no index 3");
  EXPECT_EQ(error("{\"a\": [\"1:x:0\"]}"),
            "c.json: 'a'[0]: '1:x:0' is not V100:P100:K80 GPU counts (integers >= 0)");
  EXPECT_EQ(error("{\"a\": [\"1:2\"]}"),
            "c.json: 'a'[0]: '1:2' has 2 counts, expected 3 (V100:P100:K80)");
  EXPECT_EQ(error("{\"a\": [\"0:0:0\"]}"), "c.json: 'a'[0]: '0:0:0' has no GPU");
  EXPECT_EQ(error("{\"a\": 5}"), "c.json: 'a' is not a list of \"V:P:K\" specs");
  EXPECT_EQ(error("{oops"), "c.json: not a JSON object of Gavel cluster specs");
}

// --- Trace speeds --------------------------------------------------------------------

TEST(GavelTraceSpeeds, EveryJobGetsItsSpeedPerTypeFromTheTable) {
  TraceOptions o;
  o.gavel_throughputs_path = TablePath();
  Result<Trace> t =
      LoadTrace(SharedPath("data/gavel/traces/physical_cluster/artifact_evaluation.trace"), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  // Job 0 is ResNet-50 (batch size 64) on one GPU: 4.3948 steps/s on a V100, 0.6190 on
  // a K80, 2.6195 on a P100.
  const JobSpec& j = t->jobs[0];
  EXPECT_EQ(SpeedOn(j, "v100"), 1.0);
  EXPECT_EQ(SpeedOn(j, "k80"), 0.6190282202246573 / 4.394774823323071);
  EXPECT_EQ(SpeedOn(j, "p100"), 2.6194694075770055 / 4.394774823323071);
  for (const JobSpec& job : t->jobs) {
    EXPECT_EQ(SpeedOn(job, "v100"), 1.0) << job.id;
    EXPECT_GT(SpeedOn(job, "k80"), 0) << job.id;
  }
}

TEST(NativeTraceSpeeds, RoundTripAndErrors) {
  Trace trace;
  trace.source = "hand";
  trace.jobs = {JobBuilder(0).Duration(100).Speed("v100", 1).Speed("k80", 0.140851).Build(),
                JobBuilder(1).Submit(5).Duration(50).Build()};
  TempFile out("", "out.csv");
  ASSERT_TRUE(WriteNativeTrace(trace, out.path()).ok());
  Result<Trace> back = LoadTrace(out.path());
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->jobs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) ExpectSameJob(trace.jobs[i], back->jobs[i]);
  EXPECT_EQ(SpeedOn(back->jobs[0], "k80"), 0.140851);
  EXPECT_TRUE(back->jobs[1].profile.type_speeds.empty());

  auto error = [](const std::string& speeds) {
    TempFile f("job_id,submit_s,gpus,duration_s,type_speeds\n0,0,1,10,\"" + speeds + "\"\n");
    Result<Trace> t = LoadTrace(f.path());
    std::string msg = t.ok() ? "" : t.status().message();
    if (msg.compare(0, f.path().size(), f.path()) == 0) msg = "t.csv" + msg.substr(f.path().size());
    return msg;
  };
  EXPECT_EQ(error("v100=1;k80=0.5"), "");
  EXPECT_EQ(error("v100"),
            "t.csv:2: field 'type_speeds': 'v100' has entry 'v100', not GPU_TYPE=SPEED");
  EXPECT_EQ(error("v100=fast"),
            "t.csv:2: field 'type_speeds': 'v100=fast' has entry 'v100=fast', not GPU_TYPE=SPEED");
  EXPECT_EQ(error("k80=0"),
            "t.csv:2: field 'type_speeds': 'k80=0' gives GPU type 'k80' a speed that is not > 0");
  EXPECT_EQ(error("k80=1;k80=2"),
            "t.csv:2: field 'type_speeds': 'k80=1;k80=2' names GPU type 'k80' twice");
}

// --- Gavel's generator ---------------------------------------------------------------

GeneratorConfig GavelConfig(uint64_t seed, bool multi_gpu) {
  return testing::GavelGeneratorConfig(seed, multi_gpu, 2000, 4.8);
}

TEST(GavelGenerator, IsDeterministicPerSeed) {
  Result<Trace> a = GenerateTrace(GavelConfig(7, true));
  Result<Trace> b = GenerateTrace(GavelConfig(7, true));
  Result<Trace> c = GenerateTrace(GavelConfig(8, true));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status().message();
  ASSERT_EQ(a->jobs.size(), 2000u);
  for (size_t i = 0; i < a->jobs.size(); ++i) ExpectSameJob(a->jobs[i], b->jobs[i]);
  int same = 0;
  for (size_t i = 0; i < a->jobs.size(); ++i) same += a->jobs[i].iterations == c->jobs[i].iterations;
  EXPECT_LT(same, 100);
  EXPECT_EQ(a->source, "generated(durations=gavel-multi, jobs=2000, jobs_per_hour=4.8, seed=7)");
}

TEST(GavelGenerator, JobsFollowGavelsDistributions) {
  Result<ThroughputTable> table = ThroughputTable::LoadGavel(TablePath());
  ASSERT_TRUE(table.ok());
  for (bool multi : {false, true}) {
    Result<Trace> t = GenerateTrace(GavelConfig(0, multi));
    ASSERT_TRUE(t.ok()) << t.status().message();
    std::map<int, int> gpus;
    std::set<std::string> models;
    int long_jobs = 0;
    for (const JobSpec& j : t->jobs) {
      ++gpus[j.gpus];
      const std::string type = ThroughputTable::JobType(j.profile.model, j.profile.batch_size);
      models.insert(type);
      // steps = floor(duration x V100 steps/s); iteration time 1 / V100 steps/s.
      const double v100 = *table->Isolated("v100", type, j.gpus);
      EXPECT_EQ(j.iteration_time_s, 1 / v100);
      const double duration = j.SoloRuntime();
      EXPECT_GE(duration + 1 / v100, 60 * std::pow(10, 1.5) * (1 - 1e-12)) << j.id;
      EXPECT_LE(duration, 60 * 1e4) << j.id;
      long_jobs += duration >= 60 * 1e3;
      EXPECT_EQ(SpeedOn(j, "v100"), 1.0);
      // On a K80 at the largest scale factor measured there, or not at all (speed 0).
      Result<int> k80_sf = table->MeasuredScaleFactor("k80", type, j.gpus);
      EXPECT_EQ(SpeedOn(j, "k80"), k80_sf.ok() ? *table->Isolated("k80", type, *k80_sf) / v100 : 0.0)
          << type << " x" << j.gpus;
    }
    // 20 % long jobs; 2,000 draws: standard deviation 0.9 points.
    EXPECT_NEAR(long_jobs / 2000.0, 0.2, 0.035) << multi;
    if (multi) {
      EXPECT_NEAR(gpus[1] / 2000.0, 0.70, 0.04);
      EXPECT_NEAR(gpus[2] / 2000.0, 0.10, 0.03);
      EXPECT_NEAR(gpus[4] / 2000.0, 0.15, 0.03);
      EXPECT_NEAR(gpus[8] / 2000.0, 0.05, 0.02);
    } else {
      EXPECT_EQ(gpus.size(), 1u);
      EXPECT_EQ(gpus[1], 2000);
      EXPECT_EQ(models.size(), table->JobTypes("v100", 1).size());  // Every type drawn.
    }
  }
}

TEST(GavelGenerator, NeedsATable) {
  GeneratorConfig c = GavelConfig(0, false);
  c.gavel_throughputs_path = "";
  EXPECT_EQ(GenerateTrace(c).status().message(),
            "generator: Gavel durations need gavel_throughputs_path (e.g. "
            "<data dir>/gavel/simulation_throughputs.json)");
  c.gavel_throughputs_path = "/nonexistent.json";
  EXPECT_EQ(GenerateTrace(c).status().message(),
            "/nonexistent.json: cannot open the Gavel throughput table");
}

}  // namespace
}  // namespace schedkit
