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
  for (const RecordedJob& r : run->recorder->Jobs()) out.jobs[r.id] = r;
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

// forecast=recent breaks a tie that exists only because the look-ahead sees no arrivals.
// Two GPUs (one node), no restart overheads, rounds of 300 s, candidates fifo then srtf.
// Jobs 0 and 1 (1,000 s each) arrive at 0 and start; jobs 2 (5,000 s) and 3 (500 s) arrive
// at 600, when both GPUs are busy until 1,000.
//  t = 0 and 300: every job runs (at 0 the forecast replays jobs 0-1 at 300; they wait for
//    1,000 under both candidates; srtf preempts nobody: 1,000 s > the 700 s left): ties, fifo.
//  t = 600, forecast=none (jobs 0-3). Both GPUs free at 1,000, and jobs 2 and 3 take them
//    whatever the order: fifo and srtf both end 2 at 6,000 and 3 at 1,500 (srtf does not
//    preempt for job 3: 500 s > the 400 s left). JCTs 1,000, 1,000, 5,400, 900: 2,075
//    both. A tie, fifo wins by order.
//  t = 600, forecast=recent: the window (300, 600] held jobs 2 and 3; they are replayed at
//    900 as forecast jobs 4 (5,000 s) and 5 (500 s) (ids above every id in sight). At
//    1,000, four jobs want the two GPUs.
//    fifo: 2 and 3 start (oldest); 3 ends at 1,500, 4 takes its GPU, ends at 6,500; 2
//      ends at 6,000, 5 then runs to 6,500. JCTs 1,000, 1,000, 5,400, 900, 5,600, 5,600:
//      19,500 / 6 = 3,250.
//    srtf: 3 and 5 start (500 s each), end at 1,500; 2 and 4 run 1,500-6,500. JCTs 1,000,
//      1,000, 5,900, 900, 5,600, 600: 15,000 / 6 = 2,500. srtf wins.
//  Over the real jobs alone fifo would win (8,300 / 4 = 2,075 against 8,800 / 4 = 2,200:
//  fifo never lets a later arrival pass a job now in the system): the forecast jobs count
//  in the average because they stand for the jobs the decision makes wait.
TEST(DynamicPolicy, AForecastOfArrivalsBreaksATieTheNoArrivalLookAheadCannotSee) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(1000).Build(),
                JobBuilder(1).Submit(0).Duration(1000).Build(),
                JobBuilder(2).Submit(600).Duration(5000).Build(),
                JobBuilder(3).Submit(600).Duration(500).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  std::map<std::string, std::string> options = {
      {"schedulings", "fifo,srtf"}, {"admissions", "accept-all"}, {"overhead_s", "0"}};
  const DynamicRun none = RunDynamic(trace, cluster, options, "forecast_none");
  const std::vector<std::string> blind = Lines(none.switches_csv);
  ASSERT_GE(blind.size(), 4u);
  EXPECT_EQ(blind[1], "0,2,fifo,accept-all,best-fit,1000,0");
  EXPECT_EQ(blind[2], "300,2,fifo,accept-all,best-fit,1000,0");
  EXPECT_EQ(blind[3], "600,4,fifo,accept-all,best-fit,2075,0");

  options["forecast"] = "recent";
  const DynamicRun recent = RunDynamic(trace, cluster, options, "forecast_recent");
  const std::vector<std::string> seen = Lines(recent.switches_csv);
  ASSERT_GE(seen.size(), 5u);
  // At 0 the average is over jobs 0-1 and their replays (JCT 1,700 each): 1,350.
  EXPECT_EQ(seen[1], "0,2,fifo,accept-all,best-fit,1350,0");
  EXPECT_EQ(seen[2], "300,2,fifo,accept-all,best-fit,1000,0");  // Nothing arrived in (0, 300].
  EXPECT_EQ(seen[3], "600,4,srtf,accept-all,best-fit,2500,1");
  // At 900 the window (600, 900] is empty: a tie again, back to fifo.
  EXPECT_EQ(seen[4], "900,4,fifo,accept-all,best-fit,2075,1");
  // The forecast jobs never run: the real jobs are the only ones recorded.
  EXPECT_EQ(recent.jobs.size(), 4u);
}

// tie=earlier-ends breaks an exact tie that Blox's order gives to fifo, one wave of
// waiting jobs. Two GPUs (one node), no restart overheads, rounds of 300 s, candidates
// fifo then srtf. Jobs 0 (1,000 s) and 1 (1,500 s) arrive at 0 and start; job 2 (3,000 s)
// arrives at 100, job 3 (2,000 s) at 200, and wait.
//  t = 0: jobs 0 and 1 run, nothing else to decide: ends 1,000 and 1,500, average 1,250
//    for both; identical ends, so a tie under either rule: fifo, the first.
//  t = 300 (4 jobs). The GPUs free up at 1,000 and 1,500, and jobs 2 and 3 take them
//    whatever the order (srtf preempts nobody: 2,000 s > the 700 and 1,200 s left).
//    fifo: 2 (older) at 1,000, ends 4,000; 3 at 1,500, ends 3,500.
//    srtf: 3 (shorter) at 1,000, ends 3,000; 2 at 1,500, ends 4,500.
//    Ends sum to 10,000 either way: JCTs 1,000 + 1,500 + 3,900 + 3,300 = 1,000 + 1,500 +
//    4,400 + 2,800 = 9,700, average 2,425 both (the one-wave tie, docs/blox.md).
//    tie=order: fifo, the first. tie=earlier-ends: sorted ends fifo {1,000, 1,500, 3,500,
//    4,000}, srtf {1,000, 1,500, 3,000, 4,500}: srtf ends a job earlier at the first
//    difference (3,000 < 3,500): srtf. Rounds at 600 and 900 see the same: no change.
//  t = 1,000, not a round: the current candidate starts 2 (fifo) or 3 (srtf).
//  t = 1,200 (3 jobs), every candidate predicts the same: tie=order, fifo: job 1 ends 1,500,
//    2 at 4,000, 3 starts 1,500 and ends 3,500: JCTs 1,500, 3,900, 3,300, average 2,900.
//    tie=earlier-ends, after srtf: 1 at 1,500, 3 at 3,000, 2 from 1,500 to 4,500: JCTs
//    1,500, 2,800, 4,400, average 2,900, identical ends: back to fifo, which adopts 1 and 3.
//  Either run's average JCT is 2,425 (the tie was exact); earlier-ends ends job 3 at 3,000.
TEST(DynamicPolicy, EarlierEndsBreaksTheOneWaveTieThatOrderGivesToFifo) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(1000).Build(),
                JobBuilder(1).Submit(0).Duration(1500).Build(),
                JobBuilder(2).Submit(100).Duration(3000).Build(),
                JobBuilder(3).Submit(200).Duration(2000).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  std::map<std::string, std::string> options = {
      {"schedulings", "fifo,srtf"}, {"admissions", "accept-all"}, {"overhead_s", "0"}};
  const DynamicRun order = RunDynamic(trace, cluster, options, "tie_order");
  const std::vector<std::string> blox = Lines(order.switches_csv);
  ASSERT_GE(blox.size(), 6u);
  EXPECT_EQ(blox[1], "0,2,fifo,accept-all,best-fit,1250,0");
  EXPECT_EQ(blox[2], "300,4,fifo,accept-all,best-fit,2425,0");
  EXPECT_EQ(blox[5], "1200,3,fifo,accept-all,best-fit,2900,0");
  EXPECT_EQ(order.jobs.at(2).first_start_s, 1000);
  EXPECT_EQ(order.jobs.at(3).first_start_s, 1500);

  options["tie"] = "earlier-ends";
  const DynamicRun ends = RunDynamic(trace, cluster, options, "tie_earlier_ends");
  const std::vector<std::string> lines = Lines(ends.switches_csv);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[1], "0,2,fifo,accept-all,best-fit,1250,0");
  EXPECT_EQ(lines[2], "300,4,srtf,accept-all,best-fit,2425,1");
  EXPECT_EQ(lines[3], "600,4,srtf,accept-all,best-fit,2425,0");
  EXPECT_EQ(lines[4], "900,4,srtf,accept-all,best-fit,2425,0");
  EXPECT_EQ(lines[5], "1200,3,fifo,accept-all,best-fit,2900,1");
  EXPECT_EQ(ends.jobs.at(3).first_start_s, 1000);
  EXPECT_EQ(ends.jobs.at(2).first_start_s, 1500);
  EXPECT_EQ(ends.jobs.at(3).jct_s(), 2800);
  EXPECT_EQ(ends.jobs.at(2).jct_s(), 4400);
}

// tie=earlier-ends acts on equal averages only: a strictly lower average wins even when
// another candidate ends a job earlier. Two GPUs (one node), candidates srtf then fifo (so
// the order, too, would favour srtf). At 0: jobs 0 and 1 (1 GPU, 150 s each) and job 2
// (2 GPUs, 100 s) arrive, the first round.
//  srtf: 2 (100 s left) first, on both GPUs, ends 100; 0 and 1 run 100-250. Ends {100, 250,
//    250}: average JCT 600 / 3 = 200.
//  fifo: 0 and 1 first, end 150; 2 runs 150-250. Ends {150, 150, 250}: 550 / 3 = 183.33.
//  srtf ends a job first (100 < 150) but fifo's average is lower: fifo, under both rules.
TEST(DynamicPolicy, EarlierEndsNeverOverridesAStrictlyLowerAverage) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(150).Build(),
                JobBuilder(1).Submit(0).Duration(150).Build(),
                JobBuilder(2).Submit(0).Duration(100).Gpus(2).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  for (const char* tie : {"order", "earlier-ends"}) {
    SCOPED_TRACE(tie);
    const DynamicRun r = RunDynamic(trace, cluster,
                                    {{"schedulings", "srtf,fifo"},
                                     {"admissions", "accept-all"},
                                     {"overhead_s", "0"},
                                     {"tie", tie}},
                                    std::string("strict_") + tie);
    const std::vector<std::string> lines = Lines(r.switches_csv);
    ASSERT_EQ(lines.size(), 2u);  // One round: every job has ended by 300.
    EXPECT_EQ(lines[1], "0,3,fifo,accept-all,best-fit,183.33333333333334,0");
    EXPECT_EQ(r.jobs.at(2).first_start_s, 150);
    EXPECT_EQ(r.jobs.at(2).jct_s(), 250);
  }
}

// forecast=horizon replays the window's arrivals until the no-arrival look-ahead has ended
// every job in the system, not a fixed number of times. One GPU, one round (round_s =
// 1,000 s), forecast_window_s = 100 s, candidates fifo then srtf. Job 0 (300 s) arrives at
// 0, the only job of the run.
//  t = 0, the round. With no arrivals both candidates end job 0 at 300: the horizon is 300.
//    The window (-100, 0] holds job 0; its replays at 0 + k x 100 before 300 are k = 1, 2:
//    forecast jobs at 100 and 200, 300 s each (k = 3 would arrive at 300, not before it).
//    Both candidates run job 0 to 300 (srtf preempts for neither: 300 s > the 200 and 100 s
//    left), then the two replays: JCTs 300, 500, 700, average 500. A tie: fifo.
//  forecast=recent with one replay sees the one at 100 (JCTs 300, 500: 400), with three the
//    ones at 100, 200 and 300 (300, 500, 700, 900: 600); horizon is recent with two here.
//  Job 0 ends at 300 and the system is empty: no more rounds.
TEST(DynamicPolicy, AHorizonForecastReplaysUntilTheNoArrivalLookAheadEnds) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Submit(0).Duration(300).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 1, 0, 0);
  auto first_round = [&](const std::string& forecast, const std::string& windows) {
    const DynamicRun r = RunDynamic(trace, cluster,
                                    {{"schedulings", "fifo,srtf"},
                                     {"admissions", "accept-all"},
                                     {"overhead_s", "0"},
                                     {"round_s", "1000"},
                                     {"forecast", forecast},
                                     {"forecast_window_s", "100"},
                                     {"forecast_windows", windows}},
                                    "horizon_" + forecast + windows);
    const std::vector<std::string> lines = Lines(r.switches_csv);
    EXPECT_EQ(lines.size(), 2u) << r.switches_csv;
    EXPECT_EQ(r.jobs.at(0).jct_s(), 300);
    return lines.size() < 2 ? std::string() : lines[1];
  };
  EXPECT_EQ(first_round("horizon", "1"), "0,1,fifo,accept-all,best-fit,500,0");
  EXPECT_EQ(first_round("recent", "1"), "0,1,fifo,accept-all,best-fit,400,0");
  EXPECT_EQ(first_round("recent", "2"), "0,1,fifo,accept-all,best-fit,500,0");
  EXPECT_EQ(first_round("recent", "3"), "0,1,fifo,accept-all,best-fit,600,0");
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
  EXPECT_NE(error({{"forecast", "oracle"}}).find("'forecast' must be none, recent or horizon"), std::string::npos);
  EXPECT_NE(error({{"tie", "first"}}).find("'tie' must be order or earlier-ends"), std::string::npos);
  EXPECT_NE(error({{"forecast_window_s", "0"}}).find("'forecast_window_s'"), std::string::npos);
  EXPECT_NE(error({{"forecast_windows", "0"}}).find("'forecast_windows'"), std::string::npos);
  // Options that would change nothing are refused, never silently ignored.
  EXPECT_NE(error({{"forecast_window_s", "600"}}).find("'forecast_window_s' needs forecast="),
            std::string::npos);
  EXPECT_NE(error({{"forecast", "horizon"}, {"forecast_windows", "2"}})
                .find("'forecast_windows' needs forecast=recent"),
            std::string::npos);
  EXPECT_EQ(error({{"forecast", "recent"}, {"forecast_windows", "2"}, {"forecast_window_s", "600"}}),
            "ok");
  EXPECT_EQ(error({}), "ok");
  PolicyRequest blox = Request("dynamic", {{"overhead_s", "30"}});
  blox.compat = CompatMode::kBlox;
  Result<std::unique_ptr<Policy>> no_restart_costs = MakePolicy(blox);
  ASSERT_FALSE(no_restart_costs.ok());
  EXPECT_NE(no_restart_costs.status().message().find("'overhead_s' must be -1 or 0"),
            std::string::npos);
  PolicyRequest muri = Request("dynamic");
  muri.compat = CompatMode::kMuri;
  Result<std::unique_ptr<Policy>> refused = MakePolicy(muri);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("replace-all"), std::string::npos);
}

}  // namespace
}  // namespace schedkit::testing
