#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "schedkit/experiment.h"
#include "test_files.h"

namespace schedkit {
namespace {
namespace fs = std::filesystem;
using testing::Lines;
using testing::ReadFile;
using testing::WriteTempFile;




const char* kSmallSweep = R"(name = "small"
seeds = [1, 2]
overhead_s = 5

[workload]
jobs = 60
jobs_per_hour = [2, 4, 8]

[[policy]]
name = "fifo"

[[policy]]
name = "las"
label = "las-quick"
options = { quantum_s = 600 }
)";

// Each test writes its own copy: ctest runs tests as parallel processes.
SweepConfig LoadSmall() {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  auto config = LoadSweepConfig(WriteTempFile(name + ".toml", kSmallSweep));
  EXPECT_TRUE(config.ok()) << config.status().message();
  return *config;
}

TEST(Sweep, ExpandsTheFullGridWithStableUniqueIds) {
  const SweepConfig config = LoadSmall();
  const std::vector<SweepRun> grid = ExpandGrid(config);
  ASSERT_EQ(grid.size(), 1u * 3 * 2 * 2);  // clusters x loads x seeds x policies.
  std::set<std::string> ids;
  for (size_t i = 0; i < grid.size(); ++i) {
    EXPECT_EQ(grid[i].index, i);
    ids.insert(grid[i].id);
  }
  EXPECT_EQ(ids.size(), grid.size());
  EXPECT_EQ(grid[0].id, "fifo__muri_n8g8__load2__seed1");
  EXPECT_EQ(grid[1].id, "las-quick__muri_n8g8__load2__seed1");
  EXPECT_EQ(ExpandGrid(LoadSmall())[5].id, grid[5].id);
}

TEST(Sweep, ShardsCoverTheGridExactlyOnce) {
  const SweepConfig config = LoadSmall();
  const std::string out = ::testing::TempDir() + "/sharded";
  fs::remove_all(out);
  size_t total = 0;
  for (int shard = 0; shard < 3; ++shard) {
    SweepOptions options;
    options.out_dir = out;
    options.shard = shard;
    options.num_shards = 3;
    options.threads = 2;
    auto report = RunSweep(config, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->failed, 0u);
    EXPECT_EQ(report->ran, report->total);
    total += report->total;
  }
  EXPECT_EQ(total, ExpandGrid(config).size());
  // After the last shard, results.csv holds every run once.
  const std::vector<std::string> lines = Lines(ReadFile(out + "/results.csv"));
  EXPECT_EQ(lines.size(), 1 + total);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), lines.size());
}

TEST(Sweep, ResumesAfterAnInterruptionWithoutRedoingFinishedRuns) {
  const SweepConfig config = LoadSmall();
  const std::string out = ::testing::TempDir() + "/resume";
  fs::remove_all(out);
  std::atomic<bool> stop{false};
  SweepOptions options;
  options.out_dir = out;
  options.threads = 1;
  options.stop = &stop;
  options.progress = [&](size_t done, size_t, const SweepRun&) {
    if (done == 5) stop = true;  // Like Ctrl-C after the fifth run.
  };
  auto first = RunSweep(config, options);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->interrupted);
  EXPECT_EQ(first->ran, 5u);
  EXPECT_EQ(Lines(ReadFile(out + "/results.csv")).size(), 1u + 5);
  const auto finished_before = fs::last_write_time(out + "/runs/" + ExpandGrid(config)[0].id +
                                                   "/summary.json");
  stop = false;
  options.progress = nullptr;
  auto second = RunSweep(config, options);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->interrupted);
  EXPECT_EQ(second->skipped, 5u);
  EXPECT_EQ(second->ran, second->total - 5);
  EXPECT_EQ(fs::last_write_time(out + "/runs/" + ExpandGrid(config)[0].id + "/summary.json"),
            finished_before);
  EXPECT_EQ(Lines(ReadFile(out + "/results.csv")).size(), 1u + second->total);
}

TEST(Sweep, ResultsTableSchema) {
  const SweepConfig config = LoadSmall();
  const std::string out = ::testing::TempDir() + "/schema";
  fs::remove_all(out);
  SweepOptions options;
  options.out_dir = out;
  ASSERT_TRUE(RunSweep(config, options).ok());
  const std::vector<std::string> lines = Lines(ReadFile(out + "/results.csv"));
  EXPECT_EQ(lines[0],
            "run_id,policy,policy_name,placement,admission,options,cluster,trace,jobs_per_hour,"
            "seed,compat,jobs,rejected,unfinished,avg_jct_s,p50_jct_s,p95_jct_s,p99_jct_s,"
            "makespan_s,avg_queue_s,p999_queue_s,gpu_utilization,preemptions,events,wall_s");
  EXPECT_EQ(lines[2].rfind("las-quick__muri_n8g8__load2__seed1,las-quick,las,,,quantum_s=600,"
                           "muri_n8g8,generated,2,1,none,60,0,0,",
                           0),
            0u)
      << lines[2];
  for (const SweepRun& r : ExpandGrid(config)) {
    for (const char* f : {"jobs.csv", "timeseries.csv", "summary.json"}) {
      EXPECT_TRUE(fs::exists(out + "/runs/" + r.id + "/" + f)) << r.id << "/" << f;
    }
  }
}

TEST(Sweep, ConfigErrorsNameFileLineAndKey) {
  auto syntax = LoadSweepConfig(WriteTempFile("bad1.toml", "name = \"x\"\nseeds = [1,\n[workload\n"));
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("bad1.toml:"), std::string::npos);

  auto policy = LoadSweepConfig(WriteTempFile(
      "bad2.toml", "[workload]\njobs_per_hour = [1]\n\n[[policy]]\nname = \"fifo\"\n\n"
                   "[[policy]]\nname = \"nope\"\n"));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.status().message().find("bad2.toml:7: key 'policy': unknown policy 'nope'"),
            std::string::npos)
      << policy.status().message();

  auto option = LoadSweepConfig(WriteTempFile(
      "bad3.toml", "[workload]\njobs_per_hour = 2\n[[policy]]\nname = \"las\"\n"
                   "options = { quantum_s = \"soon\" }\n"));
  ASSERT_FALSE(option.ok());
  EXPECT_NE(option.status().message().find("'quantum_s': 'soon'"), std::string::npos);

  auto loads = LoadSweepConfig(WriteTempFile("bad4.toml", "[workload]\njobs_per_hour = [\"x\"]\n"));
  ASSERT_FALSE(loads.ok());
  EXPECT_NE(loads.status().message().find("bad4.toml:2: key 'jobs_per_hour'"), std::string::npos)
      << loads.status().message();

  EXPECT_FALSE(ParseShard("3/3").ok());
  EXPECT_FALSE(ParseShard("1").ok());
  EXPECT_EQ(*ParseShard("2/5"), std::make_pair(2, 5));
}

TEST(Compare, RunsPoliciesInParallelWithTheSameResultsAsAlone) {
  GeneratorConfig gen;
  gen.num_jobs = 200;
  gen.jobs_per_hour = 6;
  gen.seed = 4;
  auto trace = GenerateTrace(gen);
  ASSERT_TRUE(trace.ok());
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 4, 8, 0, 0);
  std::vector<PolicyRequest> requests;
  for (const char* p : {"fifo", "srtf", "tiresias", "las"}) {
    PolicyRequest r;
    r.policy = p;
    requests.push_back(r);
  }
  SimulatorOptions options;
  options.overheads = RestartOverheads(10);
  auto parallel = RunAll(*trace, cluster, requests, options, 4);
  ASSERT_EQ(parallel.size(), 4u);
  std::vector<std::string> labels;
  std::vector<Summary> summaries;
  for (size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(parallel[i].ok());
    auto alone = RunSimulation(*trace, cluster, requests[i], options);
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ(parallel[i]->summary.avg_jct_s, alone->summary.avg_jct_s) << requests[i].policy;
    EXPECT_EQ(parallel[i]->summary.preemptions, alone->summary.preemptions);
    labels.push_back(requests[i].policy);
    summaries.push_back(parallel[i]->summary);
  }
  const std::string table = FormatComparison(labels, summaries);
  EXPECT_NE(table.find("x best"), std::string::npos);
  EXPECT_NE(table.find(" 1.000\n"), std::string::npos) << table;  // The best one.
  EXPECT_EQ(Lines(table).size(), 5u);
}

}  // namespace
}  // namespace schedkit
