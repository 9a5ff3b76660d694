// The run options simulate and compare share (cli/run_options.h, issue 13): validators,
// options a mode would ignore refused before anything runs, the one summary.json run
// block, and --version. Everything runs the real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "schedkit/experiment.h"
#include "schedkit/run.h"
#include "test_files.h"

namespace {

using schedkit::testing::Outcome;
using schedkit::testing::ReadFile;
using schedkit::testing::RunCli;

const std::string kSource = SCHEDKIT_SOURCE_DIR;
const std::string kTrace = kSource + "/data/traces/tiny.csv";
const std::string kCluster = kSource + "/data/clusters/tiny.csv";
const std::string kOverheadTable = kSource + "/data/muri_profile_table.csv";

// The command failed with exit 1 and exactly one line, "schedkit: ...", holding `expected`.
void ExpectOneLineError(const std::string& args, const std::string& expected) {
  const Outcome o = RunCli(args);
  EXPECT_EQ(o.exit_code, 1) << args << "\n" << o.output;
  EXPECT_EQ(o.output.rfind("schedkit: ", 0), 0u) << args << "\n" << o.output;
  EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << args << "\n" << o.output;
  EXPECT_NE(o.output.find(expected), std::string::npos) << args << "\n" << o.output;
}

TEST(RunOptions, CompatLucidRefusesEveryOptionItIgnores) {
  // A file that exists for the options that must name one: the refusal comes before any
  // input is read.
  const std::string flags[] = {"--cluster " + kCluster,
                               "--placement yarn",
                               "--admission accept-all",
                               "--seed 3",
                               "--overhead-s 5",
                               "--overhead-table " + kOverheadTable,
                               "--scaling " + kOverheadTable,
                               "--runtime-factor 1",
                               "--vc-config " + kCluster,
                               "--membership " + kCluster,
                               "--threads 2"};
  for (const std::string& flag : flags) {
    const std::string name = flag.substr(0, flag.find(' '));
    for (const char* command : {"simulate --policy fifo", "compare --policies fifo,sjf"}) {
      const std::string args = std::string(command) + " --compat lucid --trace " + kTrace +
                               " --opt lucid_dir=/nonexistent " + flag;
      if (std::string(command).rfind("compare", 0) == 0 && name == "--vc-config") continue;
      ExpectOneLineError(args, "--compat lucid ignores " + name + " (");
    }
  }
}

TEST(RunOptions, OtherModesRefuseWhatTheyIgnore) {
  const std::string tiny = " --trace " + kTrace + " --cluster " + kCluster;
  ExpectOneLineError("simulate --policy fifo --threads 2" + tiny,
                     "simulate without --vc-config ignores --threads (");
  ExpectOneLineError("simulate --policy fifo --vc-config " + kCluster + tiny,
                     "--vc-config ignores --cluster (");
  // compare gives an option to the policies that declare it; one that none does is a typo.
  ExpectOneLineError("compare --policies fifo,las --opt quantum=5" + tiny,
                     "--opt quantum: no policy of --policies takes it");
  const Outcome routed =
      RunCli("compare --policies fifo,las --opt quantum_s=5 --overhead-s 1" + tiny);
  EXPECT_EQ(routed.exit_code, 0) << routed.output;
}

// Muri-S/L, Themis and Lucid place with a module but admit every job themselves; AntMan does
// both itself. Naming a module they would drop is refused, by name, for simulate and compare.
TEST(RunOptions, PoliciesRefuseModulesTheyDoNotTake) {
  const std::string tiny = " --trace " + kTrace + " --cluster " + kCluster + " --overhead-s 1";
  for (const char* policy : {"muri-s", "muri-l", "themis", "lucid"}) {
    ExpectOneLineError(
        std::string("simulate --policy ") + policy + " --admission load-based" + tiny,
        std::string("policy '") + policy +
            "' takes no admission module (it admits jobs itself): admission "
            "'load-based' would be ignored");
    ExpectOneLineError(
        std::string("simulate --policy ") + policy + " --opt admission.threshold=2" + tiny,
        "option 'admission.threshold' would be ignored");
    const Outcome placed =
        RunCli(std::string("simulate --policy ") + policy + " --placement best-fit" + tiny);
    EXPECT_EQ(placed.exit_code, 0) << policy << "\n" << placed.output;
  }
  ExpectOneLineError("simulate --policy antman --placement yarn" + tiny,
                     "policy 'antman' takes no placement module (it places jobs itself)");
  ExpectOneLineError("compare --policies fifo,muri-s --admission load-based" + tiny,
                     "policy 'muri-s' takes no admission module");
  const Outcome list = RunCli("policies");
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find("placement: yarn (default), admission: none (admits jobs itself)"),
            std::string::npos)
      << list.output;
  EXPECT_NE(list.output.find("placement: none (places jobs itself), admission: none (admits jobs "
                             "itself)"),
            std::string::npos);
  EXPECT_NE(list.output.find("placement: yarn (default), admission: accept-all (default)"),
            std::string::npos);
}

// --membership: the changes reach the run (a drained node makes a job wait, so the
// outputs differ), and a bad file is one line naming file, line and field.
TEST(RunOptions, MembershipFileChangesTheRunAndBadOnesAreOneLine) {
  const std::string dir = ::testing::TempDir();
  const std::string good = dir + "/members_ok.csv", bad = dir + "/members_bad.csv";
  std::ofstream(good) << "time_s,node,event\n0,0,drain\n0,1,drain\n600,0,recover\n600,1,recover\n";
  std::ofstream(bad) << "time_s,node,event\n0,7,drain\n";
  const std::string tiny = "simulate --policy fifo --trace " + kTrace + " --cluster " + kCluster;
  const Outcome fixed = RunCli(tiny);
  const Outcome held = RunCli(tiny + " --membership " + good);
  ASSERT_EQ(held.exit_code, 0) << held.output;
  EXPECT_NE(fixed.output, held.output) << "no job could start before 600 s";
  ExpectOneLineError(tiny + " --membership " + bad,
                     bad + ":2: field 'node': 7 is not a node of the cluster (0..1)");
  ExpectOneLineError("simulate --policy fifo --vc-config " + kCluster + " --trace " + kTrace +
                         " --membership " + good,
                     "--vc-config ignores --membership (");
}

// Issue 16: --measure-jobs FIRST-LAST limits the summary to those job ids and is recorded
// in the run block; --compat blox refuses the restart-overhead flags (no restart cost).
TEST(RunOptions, MeasureJobsAndCompatBlox) {
  const std::string tiny = "simulate --policy fifo --trace " + kTrace + " --cluster " + kCluster;
  for (const char* bad : {"5-2", "3000", "a-b", "1-", "-1-2"}) {
    ExpectOneLineError(tiny + " --measure-jobs " + bad,
                       std::string("--measure-jobs: expected FIRST-LAST, two job ids with FIRST <= "
                                   "LAST (e.g. 3000-4000), got '") + bad + "'");
  }
  for (const char* flag : {"--overhead-s 5", "--overhead-table "}) {
    std::string given = flag;
    if (given.back() == ' ') given += kOverheadTable;
    ExpectOneLineError(tiny + " --compat blox " + given,
                       "--compat blox ignores " + given.substr(0, given.find(' ')) +
                           " (Blox's simulator has no restart cost): remove it");
  }
  const std::string dir = ::testing::TempDir() + "/measure_jobs";
  std::filesystem::remove_all(dir);
  const Outcome o = RunCli(tiny + " --measure-jobs 1-2 --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const nlohmann::json summary = nlohmann::json::parse(ReadFile(dir + "/summary.json"));
  EXPECT_EQ(summary["run"]["measured_jobs"], "1-2");
  EXPECT_EQ(summary["jobs"].get<int>(), 2);
}

TEST(RunOptions, ScalingTableDecidesHowFastElasticJobsRun) {
  // Elastic jobs (generate --max-gpus) under optimus: the shipped table (near-linear) and a
  // table where every further GPU adds a quarter of a step give different runs; a rigid
  // trace never reads the table.
  const std::string elastic = ::testing::TempDir() + "/elastic_cli.csv";
  ASSERT_EQ(RunCli("generate --jobs 40 --jobs-per-hour 20 --max-gpus 8 --seed 2 --out " + elastic)
                .exit_code,
            0);
  const std::string slow = schedkit::testing::WriteTempFile("slow_scaling.csv",
                                                            "model,alpha_ms,beta_ms\n*,1000,250\n");
  const std::string run = "simulate --policy optimus --trace " + elastic + " --cluster " + kCluster;
  const Outcome shipped = RunCli(run);
  const Outcome custom = RunCli(run + " --scaling " + slow);
  ASSERT_EQ(shipped.exit_code, 0) << shipped.output;
  ASSERT_EQ(custom.exit_code, 0) << custom.output;
  auto jct_line = [](const std::string& out) {  // Not the whole output: it holds wall time.
    const size_t at = out.find("JCT avg");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  ASSERT_FALSE(jct_line(shipped.output).empty()) << shipped.output;
  EXPECT_NE(jct_line(shipped.output), jct_line(custom.output));
}

TEST(RunOptions, ValidatorsRefuseBadValuesBeforeRunning) {
  const std::string tiny = "simulate --policy fifo --trace " + kTrace + " --cluster " + kCluster;
  for (const char* bad : {"0", "-1", "nan", "inf", "x"}) {
    ExpectOneLineError(tiny + " --runtime-factor " + bad,
                       std::string("--runtime-factor: must be a finite number > 0, got '") + bad);
  }
  for (const char* bad : {"-1", "nan", "inf"}) {
    ExpectOneLineError(tiny + " --overhead-s " + bad,
                       std::string("--overhead-s: must be a finite number >= 0, got '") + bad);
  }
  ExpectOneLineError(tiny + " --overhead-s 1 --overhead-table " + kOverheadTable, "excludes");
  ExpectOneLineError(tiny + " --compat muri2",
                     "--compat: unknown compat mode 'muri2' (expected one of: none, muri, lucid, blox)");
  ExpectOneLineError(tiny + " --format csv", "--format: unknown trace format 'csv'");
  ExpectOneLineError("simulate --trace /nonexistent/t.csv", "--trace: File does not exist");
  ExpectOneLineError("compare --cluster /nonexistent/c.csv", "--cluster: File does not exist");
  ExpectOneLineError(tiny + " --overhead-table /nonexistent.csv",
                     "--overhead-table: File does not exist");
  ExpectOneLineError(tiny + " --scaling /nonexistent.csv", "--scaling: File does not exist");
  // A table without the default row: one line naming the file.
  ExpectOneLineError(tiny + " --scaling " + kOverheadTable, "missing column 'model'");
  ExpectOneLineError("compare --threads -2", "--threads");
  ExpectOneLineError("compare --policies ,", "--policies");
}

TEST(RunOptions, VersionComesFromTheCMakeProject) {
  const std::string cmake = ReadFile(kSource + "/CMakeLists.txt");
  std::smatch project;
  ASSERT_TRUE(
      std::regex_search(cmake, project, std::regex(R"(project\(schedkit VERSION ([0-9.]+))")));
  const Outcome o = RunCli("--version");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(std::regex_match(
      o.output,
      std::regex("schedkit " + std::regex_replace(project[1].str(), std::regex("\\."), "\\.") +
                 "( \\(commit [0-9a-f]{12}\\))?\n")))
      << o.output;
}

using RunBlock = std::vector<std::pair<std::string, std::string>>;

RunBlock RunBlockOf(const std::string& summary_path) {
  const auto j = nlohmann::ordered_json::parse(ReadFile(summary_path));
  RunBlock block;
  for (const auto& [key, value] : j.at("run").items())
    block.emplace_back(key, value.get<std::string>());
  return block;
}

// simulate and a sweep run describe the same run with the same block, from the one
// builder (SummaryRunBlock); the sweep adds where the run sits in the grid.
TEST(RunOptions, SimulateAndSweepWriteTheSameRunBlock) {
  const std::string dir = ::testing::TempDir() + "/run_block";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/s.toml") << "seeds = [3]\noverhead_s = 10\nclusters = [\"" << kCluster
                                 << "\"]\ncompat = \"muri\"\n[workload]\ntraces = [\"" << kTrace
                                 << "\"]\n[[policy]]\nname = \"las\"\nlabel = \"las-60\"\n"
                                    "placement = \"yarn\"\noptions = { quantum_s = 60 }\n";
  const Outcome sweep = RunCli("sweep " + dir + "/s.toml --out " + dir + "/sweep --threads 1");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const std::string run_dir = dir + "/sweep/runs/las-60__tiny__tiny__seed3";
  const RunBlock swept = RunBlockOf(run_dir + "/summary.json");
  ASSERT_EQ(swept.size(), 10u);  // 8 from the builder, then run_id and label.
  const std::string trace = swept[4].second, cluster = swept[5].second;

  schedkit::PolicyRequest request;
  request.policy = "las";
  request.placement = "yarn";
  request.options = {{"quantum_s", "60"}};
  request.seed = 3;
  request.compat = schedkit::CompatMode::kMuri;
  RunBlock expected = schedkit::SummaryRunBlock(request, trace, cluster, std::nullopt);
  EXPECT_EQ(expected, RunBlock(swept.begin(), swept.begin() + 8));
  EXPECT_EQ(RunBlock(swept.begin() + 8, swept.end()),
            (RunBlock{{"run_id", "las-60__tiny__tiny__seed3"}, {"label", "las-60"}}));

  const Outcome simulate = RunCli(
      "simulate --policy las --placement yarn --opt quantum_s=60 --seed 3 --compat muri "
      "--overhead-s 10 --trace " +
      trace + " --cluster " + cluster + " --out " + dir + "/sim");
  ASSERT_EQ(simulate.exit_code, 0) << simulate.output;
  EXPECT_EQ(RunBlockOf(dir + "/sim/summary.json"), expected);
  EXPECT_EQ(ReadFile(dir + "/sim/jobs.csv"), ReadFile(run_dir + "/jobs.csv"));

  const Outcome factor =
      RunCli("simulate --policy srtf --runtime-factor 1.5 --overhead-s 10 --trace " + trace +
             " --cluster " + cluster + " --out " + dir + "/factor");
  ASSERT_EQ(factor.exit_code, 0) << factor.output;
  request = schedkit::PolicyRequest();
  request.policy = "srtf";
  EXPECT_EQ(RunBlockOf(dir + "/factor/summary.json"),
            schedkit::SummaryRunBlock(request, trace, cluster, 1.5));
}

}  // namespace
