// `schedkit dag simulate|collect`: outputs, determinism and the error contract.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "schedkit/dag.h"
#include "cli_runner.h"
#include "test_files.h"

namespace {

using schedkit::testing::Lines;
using schedkit::testing::ReadFile;

using schedkit::testing::Outcome;
using schedkit::testing::RunCli;

const std::string kExample =
    std::string(" --workload ") + SCHEDKIT_SOURCE_DIR + "/data/dags/example.json";

TEST(DagCliTest, SimulateWritesDocumentedOutputsDeterministically) {
  const std::string a = ::testing::TempDir() + "/dag_cli_a", b = ::testing::TempDir() + "/dag_cli_b";
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
  const std::string args = "dag simulate --scheduler fifo-half --executors 6 --jobs 8 --seed 2" + kExample;
  Outcome o = RunCli(args + " --out " + a);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("8 jobs, avg JCT"), std::string::npos) << o.output;
  ASSERT_EQ(RunCli(args + " --out " + b).exit_code, 0);
  const auto j = nlohmann::json::parse(ReadFile(a + "/summary.json"));
  for (const char* key : {"jobs", "avg_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s", "makespan_s",
                          "total_reward", "tasks", "events", "decisions", "wall_s"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["jobs"], 8);
  EXPECT_EQ(j["run"]["scheduler"], "fifo-half");
  const auto jobs = Lines(ReadFile(a + "/jobs.csv"));
  ASSERT_EQ(jobs.size(), 9u);
  EXPECT_EQ(jobs[0], "job_id,dag,arrival_ms,completion_ms,jct_s,num_stages,num_tasks");
  const auto tasks = Lines(ReadFile(a + "/tasks.csv"));
  EXPECT_EQ(tasks[0], "job_id,stage,task,executor,start_ms,end_ms,duration_ms,kind");
  EXPECT_EQ(static_cast<int64_t>(tasks.size()) - 1, j["tasks"].get<int64_t>());
  EXPECT_EQ(ReadFile(a + "/jobs.csv"), ReadFile(b + "/jobs.csv"));
  EXPECT_EQ(ReadFile(a + "/tasks.csv"), ReadFile(b + "/tasks.csv"));
}

TEST(DagCliTest, EpisodesAndCollect) {
  const std::string dir = ::testing::TempDir() + "/dag_cli_episodes";
  Outcome o = RunCli("dag simulate --jobs 4 --executors 5 --episodes 3 --out " + dir + kExample);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("seeds 0..2: avg JCT mean"), std::string::npos) << o.output;
  EXPECT_EQ(Lines(ReadFile(dir + "/episodes.csv")).size(), 4u);
  const std::string pool = ::testing::TempDir() + "/dag_cli_pool.jsonl";
  o = RunCli("dag collect --scheduler fifo --jobs 3 --steps 20 --out " + pool + kExample);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(Lines(ReadFile(pool)).size(), 20u);
}

TEST(DagCliTest, DecimaSimulateCollectAndWeightsOption) {
  const std::string dir = ::testing::TempDir() + "/dag_cli_decima";
  std::filesystem::remove_all(dir);
  const std::string weights = std::string(SCHEDKIT_SOURCE_DIR) + "/data/decima/decima_tpch.json";
  Outcome o = RunCli("dag simulate --scheduler decima --jobs 10 --seed 1 --no-tasks --opt weights=" +
                     weights + " --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("dag decima seed 1: 10 jobs, avg JCT"), std::string::npos) << o.output;
  const auto j = nlohmann::json::parse(ReadFile(dir + "/summary.json"));
  EXPECT_EQ(j["run"]["scheduler"], "decima");
  EXPECT_NE(j["run"]["scheduler_options"].get<std::string>().find("weights="), std::string::npos);
  const std::string pool = ::testing::TempDir() + "/dag_cli_decima_pool.jsonl";
  o = RunCli("dag collect --scheduler decima-greedy --jobs 3 --steps 30 --out " + pool);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(Lines(ReadFile(pool)).size(), 30u);
  o = RunCli("dag simulate --scheduler decima --opt weights=/nope.json");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output, "schedkit: /nope.json: cannot open Decima weights\n");
  o = RunCli("dag simulate --scheduler fair --opt weights=x.json");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("DAG scheduler 'fair': unknown option 'weights'"), std::string::npos)
      << o.output;
}

TEST(DagCliTest, SchedulersListsEveryNameWithItsOptions) {
  const Outcome o = RunCli("dag schedulers");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  for (const std::string& name : schedkit::DagSchedulerNames()) {
    EXPECT_NE(o.output.find(name + "\n"), std::string::npos) << name << " missing:\n" << o.output;
    for (const auto& [key, help] : schedkit::DagSchedulerOptions(name)) {
      EXPECT_NE(o.output.find("--opt " + key + "=..."), std::string::npos) << o.output;
    }
  }
}

TEST(DagCliTest, BadInputFailsWithOneLine) {
  Outcome o = RunCli("dag simulate --scheduler nope");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("unknown DAG scheduler 'nope'"), std::string::npos) << o.output;
  o = RunCli("dag simulate --moving-delay -1");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("field 'moving_delay_ms'"), std::string::npos) << o.output;
  const std::string bad = schedkit::testing::WriteTempFile(
      "dag_cli_bad.json", R"({"schedkit_dag": 1, "dags": [{"name": "x", "parents": [[]],
      "stages": [{"first_wave": {"5": [1]}, "rest_wave": {}, "fresh_durations": {}}]}]})");
  o = RunCli("dag simulate --workload " + bad);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("dag_cli_bad.json: field 'dags[0].stages[0].num_tasks': missing"),
            std::string::npos)
      << o.output;
  o = RunCli("dag collect --steps 5");  // --out is required.
  EXPECT_NE(o.exit_code, 0);
}

}  // namespace
