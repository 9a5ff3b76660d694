// Golden runs of the `schedkit` binary on the tiny shipped trace, and its error contract.
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "test_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace {
using schedkit::testing::ReadFile;

const std::string kSource = SCHEDKIT_SOURCE_DIR;

using schedkit::testing::Outcome;
using schedkit::testing::RunCli;

std::string TinyArgs(const std::string& policy) {
  return "simulate --trace " + kSource + "/data/traces/tiny.csv --cluster " + kSource +
         "/data/clusters/tiny.csv --overhead-s 10 --policy " + policy;
}

TEST(Cli, GoldenJobsCsvOnTheTinyTrace) {
  for (const char* policy : {"fifo", "srtf", "tiresias"}) {
    const std::string dir = ::testing::TempDir() + "/golden_" + policy;
    std::filesystem::remove_all(dir);
    const Outcome o = RunCli(TinyArgs(policy) + " --out " + dir);
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_NE(o.output.find("jobs finished      7"), std::string::npos) << o.output;
    const std::string golden = kSource + "/tests/golden/tiny_" + policy + "_jobs.csv";
    EXPECT_EQ(ReadFile(dir + "/jobs.csv"), ReadFile(golden))
        << "regenerate with: schedkit " << TinyArgs(policy) << " --out DIR; cp DIR/jobs.csv "
        << golden;
  }
}

TEST(Cli, SummaryJsonHasEveryDocumentedKey) {
  const std::string dir = ::testing::TempDir() + "/summary";
  const Outcome o = RunCli(TinyArgs("srtf") + " --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const auto j = nlohmann::json::parse(ReadFile(dir + "/summary.json"));
  for (const char* key : {"jobs", "avg_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s", "makespan_s",
                          "avg_queue_s", "p999_queue_s", "avg_slowdown", "p99_slowdown", "gpu_utilization", "preemptions",
                          "wall_s", "rejected", "unfinished", "events", "decisions"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["jobs"], 7);
  EXPECT_EQ(j["run"]["policy"], "srtf");
  const std::string ts = ReadFile(dir + "/timeseries.csv");
  EXPECT_EQ(ts.rfind("time_s,pending,running,busy_gpus\n", 0), 0u);
}

TEST(Cli, MainJobRunsWithNoArguments) {
  const Outcome o = RunCli("simulate --policy fifo");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("992"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("p99"), std::string::npos);
}

TEST(Cli, PoliciesListsModulesAndOptions) {
  const Outcome o = RunCli("policies");
  ASSERT_EQ(o.exit_code, 0);
  for (const char* s : {"tiresias", "thresholds", "yarn", "load-based", "threshold"}) {
    EXPECT_NE(o.output.find(s), std::string::npos) << s;
  }
}

TEST(Cli, BadInputGivesOneLineErrorAndNonZeroExit) {
  const std::string bad = ::testing::TempDir() + "/bad.csv";
  std::ofstream(bad) << "job_id,submit_s,gpus,duration_s\n1,0,2,10\n2,5,two,10\n";
  const Outcome o = RunCli("simulate --trace " + bad);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.output.find("bad.csv:3: field 'gpus': 'two'"), std::string::npos) << o.output;
  EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;

  const Outcome unknown = RunCli("simulate --policy nope");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.output.find("unknown policy 'nope'"), std::string::npos);

  const Outcome opt = RunCli("simulate --policy las --opt quantum_s");
  EXPECT_NE(opt.exit_code, 0);
  EXPECT_NE(opt.output.find("expected key=value"), std::string::npos);
}

// --runtime-factor scales every job's solo work: FIFO's makespan on the tiny trace grows
// when every job runs twice as long, and a factor that is not > 0 is refused.
TEST(Cli, RuntimeFactorScalesSoloWork) {
  const std::string dir = ::testing::TempDir() + "/factor";
  double makespan[2];
  for (int i = 0; i < 2; ++i) {
    std::filesystem::remove_all(dir);
    const Outcome o =
        RunCli(TinyArgs("fifo") + " --runtime-factor " + (i ? "2" : "1") + " --out " + dir);
    ASSERT_EQ(o.exit_code, 0) << o.output;
    const auto summary = nlohmann::json::parse(ReadFile(dir + "/summary.json"));
    makespan[i] = summary["makespan_s"];
    EXPECT_EQ(summary["run"]["runtime_factor"], i ? "2" : "1");
  }
  EXPECT_GT(makespan[1], 1.5 * makespan[0]);
  for (const char* bad : {"0", "-1", "nan"}) {
    const Outcome o = RunCli(TinyArgs("fifo") + " --runtime-factor " + bad);
    EXPECT_NE(o.exit_code, 0) << bad;
    EXPECT_NE(o.output.find("--runtime-factor: must be a finite number > 0"), std::string::npos)
        << o.output;
  }
}

TEST(Cli, CompareRunsPoliciesSideBySide) {
  const Outcome o = RunCli("compare --policies fifo,srtf,tiresias --trace " + kSource +
                           "/data/traces/tiny.csv --cluster " + kSource +
                           "/data/clusters/tiny.csv --overhead-s 10");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  for (const char* s : {"fifo", "srtf", "tiresias", "x best", "avg JCT s"}) {
    EXPECT_NE(o.output.find(s), std::string::npos) << s << "\n" << o.output;
  }
  EXPECT_NE(RunCli("compare --policies fifo,nope").exit_code, 0);
}

// compare --out writes each policy's outputs as simulate --out would, and one table of
// every run whose rows repeat each run's summary.json statistics.
TEST(Cli, CompareOutWritesEachRunAndTheTable) {
  const std::string dir = ::testing::TempDir() + "/compare_out";
  std::filesystem::remove_all(dir);
  const Outcome o = RunCli("compare --policies fifo,srtf --trace " + kSource +
                           "/data/traces/tiny.csv --cluster " + kSource +
                           "/data/clusters/tiny.csv --overhead-s 10 --threads 1 --out " + dir);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(ReadFile(dir + "/fifo/jobs.csv"), ReadFile(kSource + "/tests/golden/tiny_fifo_jobs.csv"));
  EXPECT_EQ(ReadFile(dir + "/srtf/jobs.csv"), ReadFile(kSource + "/tests/golden/tiny_srtf_jobs.csv"));
  const auto table = nlohmann::json::parse(ReadFile(dir + "/comparison.json"));
  ASSERT_EQ(table["runs"].size(), 2u);
  std::istringstream csv(ReadFile(dir + "/comparison.csv"));
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("policy,jobs,rejected,unfinished,avg_jct_s,", 0), 0u) << header;
  EXPECT_NE(header.find(",avg_slowdown,p99_slowdown,"), std::string::npos) << header;
  EXPECT_EQ(header.substr(header.rfind(',') + 1), "avg_jct_vs_best");
  double best = 1e300;
  for (const auto& run : table["runs"]) best = std::min(best, run["avg_jct_s"].get<double>());
  for (const auto& run : table["runs"]) {
    const std::string policy = run["policy"];
    const auto summary = nlohmann::json::parse(ReadFile(dir + "/" + policy + "/summary.json"));
    for (const char* key : {"jobs", "avg_jct_s", "p99_jct_s", "makespan_s", "avg_slowdown",
                            "p99_slowdown", "gpu_utilization", "preemptions"}) {
      EXPECT_EQ(run[key], summary[key]) << policy << " " << key;
    }
    EXPECT_DOUBLE_EQ(run["avg_jct_vs_best"].get<double>(), run["avg_jct_s"].get<double>() / best);
    ASSERT_TRUE(std::getline(csv, line));
    EXPECT_EQ(line.rfind(policy + "," + summary["jobs"].dump() + ",", 0), 0u) << line;
  }
}

// The tiny trace brings 18.75x what its 8 GPUs can do (TraceStats' worked example): simulate
// and compare say so on stderr and still run; the shipped default trace (0.80) does not.
TEST(Cli, OverCapacityTraceIsWarnedAbout) {
  const Outcome tiny = RunCli(TinyArgs("fifo"));
  ASSERT_EQ(tiny.exit_code, 0) << tiny.output;
  EXPECT_NE(tiny.output.find("warning: the trace offers 18.75x the GPU capacity"),
            std::string::npos)
      << tiny.output;
  const Outcome shipped = RunCli("simulate --policy fifo");
  ASSERT_EQ(shipped.exit_code, 0) << shipped.output;
  EXPECT_EQ(shipped.output.find("warning"), std::string::npos) << shipped.output;
}

// --stream reads the trace row by row: the golden outputs (the shipped Muri trace3 too) and
// the summary line, with the combinations that need the whole trace refused.
TEST(Cli, StreamedSimulateWritesTheLoadedRunsOutputs) {
  for (const std::string& args : {TinyArgs("tiresias"), std::string("simulate --policy srtf")}) {
    const std::string whole = ::testing::TempDir() + "/stream_whole";
    const std::string streamed = ::testing::TempDir() + "/stream_streamed";
    const Outcome a = RunCli(args + " --out " + whole);
    const Outcome b = RunCli(args + " --stream --out " + streamed);
    ASSERT_EQ(a.exit_code, 0) << a.output;
    ASSERT_EQ(b.exit_code, 0) << b.output;
    for (const char* file : {"/jobs.csv", "/timeseries.csv"}) {
      EXPECT_EQ(ReadFile(whole + file), ReadFile(streamed + file)) << args << file;
    }
    // The same first line ("policy P on TRACE (N jobs), cluster ..."); no load warning.
    EXPECT_EQ(a.output.substr(a.output.find("policy "), 60),
              b.output.substr(b.output.find("policy "), 60));
    EXPECT_EQ(b.output.find("warning"), std::string::npos) << b.output;
  }
  const Outcome fgd = RunCli(TinyArgs("fifo") + " --stream --placement fgd");
  EXPECT_EQ(fgd.exit_code, 1);
  EXPECT_NE(fgd.output.find("placement 'fgd' plans for the run's whole workload"),
            std::string::npos)
      << fgd.output;
  const Outcome vc = RunCli("simulate --stream --vc-config " + kSource + "/data/traces/tiny.csv");
  EXPECT_EQ(vc.exit_code, 1);
  EXPECT_NE(vc.output.find("ignores --stream"), std::string::npos) << vc.output;
}

TEST(Cli, SweepWritesResultsAndShardsResume) {
  const std::string dir = ::testing::TempDir() + "/cli_sweep";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/s.toml") << "name = \"cli\"\nseeds = [1, 2]\n[workload]\njobs = 40\n"
                                    "jobs_per_hour = [3]\n[[policy]]\nname = \"fifo\"\n"
                                    "[[policy]]\nname = \"srtf\"\n";
  const std::string base = "sweep " + dir + "/s.toml --out " + dir + "/out";
  const Outcome shard0 = RunCli(base + " --shard 0/2");
  ASSERT_EQ(shard0.exit_code, 0) << shard0.output;
  EXPECT_NE(shard0.output.find("2 runs in shard 0/2: 2 ran"), std::string::npos) << shard0.output;
  const Outcome all = RunCli(base);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("4 runs in shard 0/1: 2 ran, 2 already done"), std::string::npos)
      << all.output;
  EXPECT_NE(ReadFile(dir + "/out/results.csv").find("srtf__muri_n8g8__load3__seed2"),
            std::string::npos);
  const Outcome bad = RunCli("sweep " + dir + "/missing.toml");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("schedkit: "), std::string::npos) << bad.output;
}

// The number of finished runs (summary.json is written last, by rename) under `out`.
size_t FinishedRuns(const std::string& out) {
  std::error_code ec;
  size_t n = 0;
  for (std::filesystem::directory_iterator it(out + "/runs", ec), end; !ec && it != end; it.increment(ec)) {
    if (std::filesystem::exists(it->path() / "summary.json")) ++n;
  }
  return n;
}

TEST(Cli, SweepInterruptedBySigintKeepsFinishedRunsAndResumes) {
  const std::string dir = ::testing::TempDir() + "/cli_sigint";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // Sixteen LAS runs of ~0.4 s each on one thread; SIGINT comes once the first has finished,
  // so the test does not depend on how fast (or how loaded) the machine is.
  std::ofstream(dir + "/s.toml") << "name = \"int\"\nseeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\n"
                                    "[workload]\njobs = 1200\njobs_per_hour = [2]\n"
                                    "[[policy]]\nname = \"las\"\n";
  const std::string out = dir + "/out";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string log = dir + "/first.log";
    std::freopen(log.c_str(), "w", stdout);
    dup2(fileno(stdout), STDERR_FILENO);
    const std::string toml = dir + "/s.toml";
    execl(SCHEDKIT_CLI, SCHEDKIT_CLI, "sweep", toml.c_str(), "--out", out.c_str(), "--threads", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  while (FinishedRuns(out) == 0 && waitpid(pid, nullptr, WNOHANG) == 0) usleep(10000);
  kill(pid, SIGINT);  // A real SIGINT, as Ctrl-C would send.
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << ReadFile(dir + "/first.log");
  EXPECT_NE(ReadFile(dir + "/first.log").find("interrupted"), std::string::npos);
  const std::string partial = ReadFile(dir + "/out/results.csv");
  const size_t kept = std::count(partial.begin(), partial.end(), '\n') - 1;
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, 16u);
  const Outcome resumed = RunCli("sweep " + dir + "/s.toml --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(std::to_string(kept) + " already done"), std::string::npos)
      << resumed.output;
  const std::string full = ReadFile(dir + "/out/results.csv");
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 17);
}

}  // namespace
