// The `dynamic` policy (src/policies/dynamic.cc): look-ahead, switching, switches.csv.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "schedkit/run.h"
#include "schedkit/trace.h"
#include "sim_test_util.h"
#include "test_files.h"

namespace schedkit::testing {
namespace {

struct DynamicRun {
  std::map<JobId, RecordedJob> jobs;
  std::string jobs_csv;
  std::string switches_csv;
};

DynamicRun RunDynamic(const Trace& trace, const ClusterSpec& cluster,
                      std::map<std::string, std::string> options, const std::string& tag,
                      CompatMode compat = CompatMode::kNone) {
  SimulatorOptions engine;
  engine.overheads = RestartOverheads(0);
  PolicyRequest request = Request("dynamic", std::move(options));
  request.compat = compat;
  Result<RunOutput> run = RunSimulation(trace, cluster, request, engine);
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.status().message());
  DynamicRun out;
  if (!run.ok()) return out;
  ExpectJobInvariants(trace, *run->recorder);
  for (const RecordedJob& r : run->recorder->jobs()) out.jobs[r.id] = r;
  const std::string dir = ::testing::TempDir() + "/dynamic_" + tag;
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(WriteJobsCsv(*run->recorder, dir + "/jobs.csv").ok());
  EXPECT_TRUE(run->policy->WriteOutputs(dir).ok());
  out.jobs_csv = ReadFile(dir + "/jobs.csv");
  out.switches_csv = ReadFile(dir + "/switches.csv");
  return out;
}

// Job 0 (10,000 s) at 0, jobs 1-3 (100 s each) at 100.
Trace OneLongThreeShort() {
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(10000).Build()};
  for (JobId id = 1; id <= 3; ++id) trace.jobs.push_back(JobBuilder(id).Submit(100).Duration(100).Build());
  return trace;
}

// One GPU, no restart overheads, rounds of 300 s. Job 0 (10,000 s) arrives at 0, jobs
// 1-3 (100 s each) at 100.
//  t = 0, first round: only job 0; every candidate predicts JCT 10,000: the tie goes to
//    the first candidate in option order (Blox's rule), fifo. Job 0 starts.
//  t = 100: arrivals, no round: fifo keeps job 0 running.
//  t = 300, round (4 jobs). fifo: 0 ends at 10,000, 1-3 at 10,100, 10,200, 10,300: JCTs
//    10,000, 10,000, 10,100, 10,200, average 10,075. srtf: job 0 (9,700 s left) yields;
//    1-3 end at 400, 500, 600, job 0 at 600 + 9,700 = 10,300: JCTs 10,300, 300, 400,
//    500, average 2,875. las: job 0 attained 300 GPU-s, the others 0: as srtf, 2,875.
//    srtf and las tie; srtf comes first: switch to a fresh srtf, which adopts job 0 and
//    hears of 1-3 as arrivals, and preempts job 0.
//  t = 600: only job 0 is left (it runs again from 600); all candidates tie: fifo, the
//    first, takes over and adopts it. t = 900, ...: ties again, fifo stays. Actual JCTs
//    are srtf's prediction: 10,300, 300, 400, 500.
TEST(DynamicPolicy, SwitchesToTheCandidateTheLookAheadSaysWins) {
  DynamicRun r = RunDynamic(OneLongThreeShort(), ClusterSpec::Uniform(1, 1, 1, 0, 0),
                            {{"schedulings", "fifo,srtf,las"}, {"admissions", "accept-all"},
                             {"overhead_s", "0"}},
                            "hand");
  EXPECT_EQ(r.jobs.at(0).jct_s(), 10300);
  EXPECT_EQ(r.jobs.at(1).jct_s(), 300);
  EXPECT_EQ(r.jobs.at(2).jct_s(), 400);
  EXPECT_EQ(r.jobs.at(3).jct_s(), 500);
  const std::vector<std::string> lines = Lines(r.switches_csv);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "time_s,jobs,scheduling,admission,placement,predicted_avg_jct_s,switched");
  EXPECT_EQ(lines[1], "0,1,fifo,accept-all,best-fit,10000,0");
  EXPECT_EQ(lines[2], "300,4,srtf,accept-all,best-fit,2875,1");
  EXPECT_EQ(lines[3], "600,1,fifo,accept-all,best-fit,10300,1");
  EXPECT_EQ(lines[4], "900,1,fifo,accept-all,best-fit,10300,0");
  // Rounds every 300 s while job 0 runs (600 .. 10,200), none once it is done.
  EXPECT_EQ(lines.size(), 1u + 2u + (10200 - 600) / 300 + 1u);
  EXPECT_EQ(lines.back(), "10200,1,fifo,accept-all,best-fit,10300,0");
}

// Under Blox's rounds (--compat blox: decisions at multiples of 300 s, a job's end at the
// end of its round, no restart cost) the look-ahead of a round sees the jobs that round
// picks up, as Blox adds the round's arrivals before it simulates ahead. One GPU; job 0
// (10,000 s) at 0, jobs 1-3 (100 s) at 100; candidates fifo, srtf.
//  t = 0: job 0 alone; both predict its end at 10,000, counted at 10,200: a tie, fifo.
//  t = 300: jobs 1-3 are picked up and in the look-ahead (4 jobs); job 0 has 9,700 s left.
//    fifo: 0 ends at 10,000 (10,200); 1, 2, 3 start at round ends 10,200, 10,500, 10,800
//    and end in the next rounds: JCTs 10,200, 10,400, 10,700, 11,000, average 10,575.
//    srtf: 1 runs 300-400 (counted 600), 2 from 600 (900), 3 from 900 (1,200), job 0
//    resumes at 1,200 and ends at 10,900 (11,100): JCTs 500, 800, 1,100, 11,100, average
//    3,375. srtf wins at once: the short jobs start at 300, not a round later.
TEST(DynamicPolicy, UnderBloxRoundsTheLookAheadSeesTheRoundsArrivals) {
  DynamicRun r = RunDynamic(OneLongThreeShort(), ClusterSpec::Uniform(1, 1, 1, 0, 0),
                            {{"schedulings", "fifo,srtf"}, {"admissions", "accept-all"},
                             {"placements", "first-fit"}},
                            "blox", CompatMode::kBlox);
  const std::vector<std::string> lines = Lines(r.switches_csv);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[1], "0,1,fifo,accept-all,first-fit,10200,0");
  EXPECT_EQ(lines[2], "300,4,srtf,accept-all,first-fit,3375,1");
  for (JobId id = 1; id <= 3; ++id) EXPECT_EQ(r.jobs.at(id).first_start_s, 300 * id);
  EXPECT_EQ(r.jobs.at(0).jct_s(), 11100);
  EXPECT_EQ(r.jobs.at(1).jct_s(), 500);
  EXPECT_EQ(r.jobs.at(2).jct_s(), 800);
  EXPECT_EQ(r.jobs.at(3).jct_s(), 1100);
}

// The candidates are simulated in parallel, each alone: results do not depend on how many
// threads run them.
TEST(DynamicPolicy, ResultsDoNotDependOnTheThreadCount) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 4, 0, 0);
  GeneratorConfig g;
  g.num_jobs = 24;
  g.jobs_per_hour = 3;
  g.seed = 11;
  Result<Trace> trace = GenerateTrace(g);
  ASSERT_TRUE(trace.ok());
  std::map<std::string, std::string> options = {{"round_s", "3600"}, {"overhead_s", "0"},
                                                {"placements", "best-fit,first-fit"}};
  options["threads"] = "1";
  const DynamicRun one = RunDynamic(*trace, cluster, options, "t1");
  options["threads"] = "5";
  const DynamicRun five = RunDynamic(*trace, cluster, options, "t5");
  EXPECT_EQ(one.jobs_csv, five.jobs_csv);
  EXPECT_EQ(one.switches_csv, five.switches_csv);
  // Not a trivial run: the choice changes at least once.
  EXPECT_NE(one.switches_csv.find(",1\n"), std::string::npos) << one.switches_csv;
}

TEST(DynamicPolicy, RefusesBadOptionsNamingThem) {
  auto error = [](std::map<std::string, std::string> options) {
    Result<std::unique_ptr<Policy>> p = MakePolicy(Request("dynamic", std::move(options)));
    return p.ok() ? std::string("ok") : p.status().message();
  };
  EXPECT_NE(error({{"round_s", "0"}}).find("'round_s' must be > 0"), std::string::npos);
  EXPECT_NE(error({{"threads", "0"}}).find("'threads'"), std::string::npos);
  EXPECT_NE(error({{"schedulings", "fifo,nope"}}).find("nope"), std::string::npos);
  EXPECT_NE(error({{"placements", "best-fit,nowhere"}}).find("nowhere"), std::string::npos);
  EXPECT_NE(error({{"admissions", "load-based:threshold"}}).find("NAME:KEY=VALUE"), std::string::npos);
  EXPECT_NE(error({{"admissions", "load-based:threshold=-1"}}).find("threshold"), std::string::npos);
  EXPECT_NE(error({{"schedulings", "dynamic"}}).find("cannot be 'dynamic'"), std::string::npos);
  EXPECT_NE(error({{"schedulings", "themis"}}).find("themis"), std::string::npos);  // Takes no admission.
  EXPECT_EQ(error({}), "ok");
  PolicyRequest muri = Request("dynamic");
  muri.compat = CompatMode::kMuri;
  Result<std::unique_ptr<Policy>> refused = MakePolicy(muri);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("replace-all"), std::string::npos);
}

}  // namespace
}  // namespace schedkit::testing
