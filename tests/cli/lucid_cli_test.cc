// `schedkit simulate|compare --compat lucid` and `simulate --vc-config` end to end.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "test_files.h"

namespace {

using schedkit::testing::Lines;
using schedkit::testing::ReadFile;

using schedkit::testing::Outcome;
using schedkit::testing::RunCli;

const std::string kLucid = std::string(SCHEDKIT_SHARED_DIR) + "/data/lucid";
const std::string kTrace = kLucid + "/venus_synth_seed1.csv";

TEST(LucidCli, CompatLucidPrintsTheReferenceMetricsAndWritesJobsAndVcs) {
  const std::string dir = ::testing::TempDir() + "/lucid_cli_out";
  std::filesystem::remove_all(dir);
  const Outcome o = RunCli("compare --compat lucid --policies fifo,lucid --trace " + kTrace +
                                " --opt lucid_dir=" + kLucid + " --opt threads=2 --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("JCT avg (s)                     21011.688"), std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("queueing delay avg / p99.9 (s)  1705.339 / 297794.834"),
            std::string::npos)
      << o.output;
  const auto jobs = Lines(ReadFile(dir + "/lucid/jobs.csv"));
  ASSERT_EQ(jobs.size(), 23859u + 1);
  EXPECT_EQ(jobs[0],
            "job_id,vc,gpus,submit_s,start_s,end_s,queue_s,jct_s,preemptions,profiled,"
            "finished_in_profiler,colocated");
  const auto vcs = Lines(ReadFile(dir + "/fifo/vcs.csv"));
  ASSERT_EQ(vcs.size(), 1u + 15 + 1);
  EXPECT_EQ(vcs.back(), "all,23859,21011.688,13836.907,1332343.534");
  // summary.json: the run block, then the cluster-wide figures of vcs.csv's `all` row
  // (unrounded: 1705.339 there).
  const std::string summary = ReadFile(dir + "/lucid/summary.json");
  for (const std::string& line :
       {std::string("\"policy\": \"lucid\""), std::string("\"compat\": \"lucid\""),
        "\"trace\": \"" + kTrace + "\"", "\"opt.lucid_dir\": \"" + kLucid + "\"",
        std::string("\"opt.threads\": \"2\""), std::string("\"jobs\": 23859"),
        std::string("\"rejected\": 0"), std::string("\"avg_queue_s\": 1705.3387")}) {
    EXPECT_NE(summary.find(line), std::string::npos) << line << " in\n" << summary;
  }
  EXPECT_NE(ReadFile(dir + "/fifo/summary.json").find("\"avg_jct_s\": 21011.688"),
            std::string::npos);
}

TEST(LucidCli, BadInputsGiveOneLineErrors) {
  Outcome o = RunCli("simulate --compat lucid --policy srtf --trace " + kTrace +
                          " --opt lucid_dir=" + kLucid);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output,
            "schedkit: --compat lucid: unknown policy 'srtf' (expected fifo, sjf, qssf, tiresias "
            "or lucid)\n");
  o = RunCli("simulate --compat lucid --policy fifo --trace " + kTrace);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output,
            "schedkit: --compat lucid: give --opt vc_config=FILE or --opt lucid_dir=DIR (with "
            "vc_config.csv)\n");
  o = RunCli("simulate --compat lucid --policy fifo --trace " + kTrace +
                  " --opt lucid_dir=" + kLucid + " --opt colour=red");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("unknown option 'colour'"), std::string::npos) << o.output;
}

// --window-begin/--window-end pick the jobs of a dated log for any run; a window that keeps
// nothing, or one on a trace without dates, fails with one line.
TEST(LucidCli, TimeWindowSelectsJobsAndAnEmptyWindowIsAnError) {
  Outcome o = RunCli("simulate --policy fifo --trace " + kTrace +
                     " --window-begin '2020-09-25 00:00:00' --window-end '2020-09-25 01:00:00'");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find(kTrace + " (43 jobs)"), std::string::npos) << o.output;
  o = RunCli("simulate --policy fifo --trace " + kTrace + " --window-begin 2021-01-01");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output,
            "schedkit: " + kTrace + ": no job kept in the window [2021-01-01, end of log]\n");
  o = RunCli("compare --compat lucid --policies fifo --trace " + kTrace +
             " --opt lucid_dir=" + kLucid + " --window-end 2020-03-01");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output,
            "schedkit: " + kTrace + ": no job kept in the window [start of log, 2020-03-01]\n");
  o = RunCli("simulate --policy fifo --window-begin 2020-09-01");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("applies only to dated logs (format lucid)"), std::string::npos)
      << o.output;
}

TEST(LucidCli, VcConfigRunsTheCleanModelPerVc) {
  const std::string dir = ::testing::TempDir() + "/lucid_vc_out";
  std::filesystem::remove_all(dir);
  const Outcome o =
      RunCli("simulate --policy fifo --opt backfill=false --trace " + kTrace +
                  " --vc-config " + kLucid + "/vc_config.csv --threads 2 --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const auto vcs = Lines(ReadFile(dir + "/vcs.csv"));
  ASSERT_EQ(vcs.size(), 1u + 15 + 1);
  EXPECT_EQ(vcs[0], "vc,jobs,gpus,avg_jct_s,avg_queue_s,p999_queue_s,preemptions");
  EXPECT_EQ(vcs.back().rfind("all,23859,,", 0), 0u) << vcs.back();
  EXPECT_TRUE(std::filesystem::exists(dir + "/vcJsw/jobs.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/profiler.csv"));  // Not the lucid policy.
}

TEST(LucidCli, CleanModelLucidRunsTheSameProfilerPoolAsCompat) {
  // The clean model's pool is compat's code with the clock switched: on the seed-1 trace
  // it profiles, finishes and rescales exactly as --compat lucid does (21047 / 11549 /
  // 38 lendings there).
  const std::string dir = ::testing::TempDir() + "/lucid_clean_profiler";
  std::filesystem::remove_all(dir);
  const std::string base = "simulate --policy lucid --trace " + kTrace + " --vc-config " + kLucid +
                           "/vc_config.csv --opt forecast=" + kLucid +
                           "/Venus_throughput_pred.csv --threads 2";
  Outcome o = RunCli(base + " --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("profiler: 21047 jobs profiled, 11549 finished there, 38 pool changes"),
            std::string::npos)
      << o.output;
  const auto rows = Lines(ReadFile(dir + "/profiler.csv"));
  ASSERT_EQ(rows.size(), 1u + 21047);
  EXPECT_EQ(rows[0], "job_id,vc,gpus,submit_s,start_s,end_s,finished");
  const auto vcs = Lines(ReadFile(dir + "/vcs.csv"));
  EXPECT_EQ(vcs.back().rfind("all,23859,,", 0), 0u) << vcs.back();

  o = RunCli(base + " --opt profiler=false");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output.find("profiler:"), std::string::npos) << o.output;
  o = RunCli(base + " --opt profiler=maybe");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("profiler"), std::string::npos) << o.output;
}

}  // namespace
