// The simulated Gavel policy (issue 17) on a 2-type cluster: who runs in which round, and
// completion times, worked out by hand.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "schedkit/registry.h"
#include "schedkit/run.h"
#include "sim_test_util.h"
#include "test_files.h"

namespace schedkit {
namespace {

using testing::Request;
using testing::RunScenario;
using testing::WriteTempFile;

// One "fast" and one "slow" GPU, each a node of its own.
ClusterSpec FastSlow() {
  ClusterSpec c;
  c.source = "fast-slow";
  c.nodes = {NodeSpec{0, 1, 0, 0, "fast"}, NodeSpec{0, 1, 0, 0, "slow"}};
  return c;
}

// a: 280 s of work, speed 1 on fast and 0.5 on slow; b: 300 s, 1 on fast and 0.25 on slow.
// Both arrive at 0. (Jobs without iterations count seconds: throughput = speed.)
std::vector<JobSpec> TwoJobs() {
  return {JobBuilder(1).Duration(280).Speed("fast", 1).Speed("slow", 0.5).Build(),
          JobBuilder(2).Duration(300).Speed("fast", 1).Speed("slow", 0.25).Build()};
}

// max_min_fairness_perf: Teq_a = (1 + 0.5) / 2 = 0.75, Teq_b = (1 + 0.25) / 2 = 0.625. The
// optimum shares both types half and half: with b's fast share f (rows full), R_a = 1 - f/2,
// R_b = 0.25 + 0.75 f, equal normalised shares at f = 1/2, where both are 1 (a + a fast
// share above 1/2 leaves b below 1). Rounds of 100 s, every job starting at 50 s received
// per type (W = 100 per type):
//   t=0    all four priorities 0.5 / (50/100) = 1; ties in arrival order: fast's list first,
//          a takes fast, b slow.             a 100 done, b 25.
//   t=100  a: fast 150/200 -> 0.67, slow 50/200 -> 2; b: fast 2, slow 0.67: b fast, a slow.
//                                            a 150, b 125.
//   t=200  all received 150 of 300: priorities 1 again: a fast, b slow.   a 250, b 150.
//   t=300  as at 100: b fast, a slow; a needs 30 / 0.5 = 60 s: a ends at 360.   b 250 at 400.
//   t=400  re-solve (resolve_s=0) for b alone: x_b = (1, 0); b stays on fast, 50 s left: 450.
TEST(GavelPolicy, RoundsAlternateTypesByPriority) {
  const auto r = RunScenario(TwoJobs(), FastSlow(),
                             Request("gavel", {{"round_s", "100"}, {"resolve_s", "0"}}));
  EXPECT_NEAR(r.Jct(1), 360, 1e-6);
  EXPECT_NEAR(r.Jct(2), 450, 1e-6);
}

// FIFO perf: a, first, takes the fastest type with room (fast), b the rest (slow); x = 1 on
// those. a ends at 280; b has done 300 x 0.25 = 75 by the boundary at 300.
//  - resolve_s=0: the boundary at 300 re-solves: b alone takes fast, 225 s left: ends 525.
//  - resolve_s=1920 (Gavel's default): no re-solve before 1920, so b stays on slow: its
//    300 s of work take 1200 s there.
TEST(GavelPolicy, FifoPerfAndTheLeastTimeBetweenResolves) {
  auto r = RunScenario(TwoJobs(), FastSlow(),
                       Request("gavel", {{"objective", "fifo_perf"}, {"round_s", "100"},
                                         {"resolve_s", "0"}}));
  EXPECT_NEAR(r.Jct(1), 280, 1e-6);
  EXPECT_NEAR(r.Jct(2), 525, 1e-6);
  r = RunScenario(TwoJobs(), FastSlow(),
                  Request("gavel", {{"objective", "fifo_perf"}, {"round_s", "100"}}));
  EXPECT_NEAR(r.Jct(1), 280, 1e-6);
  EXPECT_NEAR(r.Jct(2), 1200, 1e-6);
}

// Ideal mode grants the allocation as a rate: R_a = 0.5 x 1 + 0.5 x 0.5 = 0.75, R_b =
// 0.5 + 0.5 x 0.25 = 0.625. a ends at 280 / 0.75 = 373.33; b has 233.33 done then, and
// alone gets x_b = (1, 0), rate 1: 66.67 s more, ending at 440.
TEST(GavelPolicy, IdealModeRunsAtTheAllocationsThroughput) {
  const auto r = RunScenario(TwoJobs(), FastSlow(), Request("gavel", {{"mode", "ideal"}}));
  EXPECT_NEAR(r.Jct(1), 280 / 0.75, 1e-6);
  EXPECT_NEAR(r.Jct(2), 440, 1e-6);
}

// A job that arrives mid-round waits for the boundary, and one that arrives after the last
// solve waits for the next solve. a (5000 s; speed 1 on fast, 0.1 on slow) alone gets x_a =
// (1, 0). c (100 s; 1 on fast, 0.9 on slow) arrives at 50.
//  - resolve_s=1920 (the default): no re-solve before 1920 s after the first (t=0), so c
//    starts at the first boundary from then, 2000, whatever the free GPUs.
//  - resolve_s=0: the boundary at 100 re-solves: Teq_a = 0.55, Teq_c = 0.95; with c's fast
//    share f and a's slow share f (rows full), R_a = 1 - 0.9 f, R_c = 0.9 + 0.1 f, equal
//    normalised shares at f = 1/2: both x = (0.5, 0.5). Every job restarts at 50 s received:
//    priorities tie at 1, arrival order: a fast, c slow; c does 90 by 200. At 200 c's fast
//    priority is 0.5 / (50/200) = 2 against a's 0.67: c takes fast, 10 s left: ends at 210.
TEST(GavelPolicy, ArrivalsWaitForTheBoundaryAndTheNextSolve) {
  const std::vector<JobSpec> jobs = {
      JobBuilder(1).Duration(5000).Speed("fast", 1).Speed("slow", 0.1).Build(),
      JobBuilder(2).Submit(50).Duration(100).Speed("fast", 1).Speed("slow", 0.9).Build()};
  auto r = RunScenario(jobs, FastSlow(), Request("gavel", {{"round_s", "100"}}));
  EXPECT_NEAR(r.Start(2), 2000, 1e-6);
  r = RunScenario(jobs, FastSlow(), Request("gavel", {{"round_s", "100"}, {"resolve_s", "0"}}));
  EXPECT_NEAR(r.Start(2), 100, 1e-6);
  EXPECT_NEAR(r.Jct(2), 160, 1e-6);
}

// On a one-type (generic) cluster every speed is 1 and the agnostic and aware objectives
// agree: two equal jobs on one GPU (x = 1/2 each) alternate rounds as their priorities swap.
TEST(GavelPolicy, OneTypeClusterTimeSlices) {
  const std::vector<JobSpec> jobs = {JobBuilder(1).Duration(250).Build(),
                                     JobBuilder(2).Duration(250).Build()};
  for (const char* objective : {"max_min_fairness", "max_min_fairness_perf",
                                "max_min_fairness_water_filling_perf"}) {
    // (On one type water filling holds both jobs at the first level: 1/2 each.)
    // Rounds of 100: a, b, a, b, a (a has 200 done at 400, ends at 450); the round ends
    // with its last job, so b, with 200 done, runs from 450 and ends at 500.
    const auto r = RunScenario(jobs, ClusterSpec::Uniform(1, 1, 1, 0, 0),
                               Request("gavel", {{"objective", objective}, {"round_s", "100"}}));
    EXPECT_NEAR(r.Jct(1), 450, 1e-6) << objective;
    EXPECT_NEAR(r.Jct(2), 500, 1e-6) << objective;
  }
}

// A measured table for the packed objectives: types fast and slow; job types A and B on one
// GPU (2 steps/s alone on fast; beside each other A does 1.6, B 1.2: co-located rates 0.8
// and 0.6), A on two GPUs (2 steps/s alone; 1.5 beside another A: rate 0.75), and C on one
// GPU (2 steps/s alone; 1.8 beside another C: rate 0.9).
std::shared_ptr<const ThroughputTable> PairTable() {
  const std::string path = WriteTempFile("gavel_pairs.json", R"json({
    "fast": {"('A', 1)": {"null": 2, "('B', 1)": [1.6, 1.2]},
             "('B', 1)": {"null": 2, "('A', 1)": [1.2, 1.6]},
             "('A', 2)": {"null": 2, "('A', 2)": [1.5, 1.5]},
             "('C', 1)": {"null": 2, "('C', 1)": [1.8, 1.8]}},
    "slow": {"('A', 1)": {"null": 1}, "('B', 1)": {"null": 1}, "('A', 2)": {"null": 1},
             "('C', 1)": {"null": 1}}})json");
  Result<ThroughputTable> t = ThroughputTable::LoadGavel(path);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::make_shared<const ThroughputTable>(*t);
}

// RunScenario with the run's throughput table (ClusterView::Throughputs).
Result<RunOutput> RunWithTable(std::vector<JobSpec> jobs, const ClusterSpec& cluster,
                               PolicyRequest request, std::shared_ptr<const ThroughputTable> table,
                               Trace* trace) {
  trace->source = "scenario";
  trace->jobs = std::move(jobs);
  SimulatorOptions options;
  options.overheads = RestartOverheads(0);
  options.throughputs = std::move(table);
  return RunSimulation(*trace, cluster, request, options);
}

double Jct(const RunOutput& run, JobId id) {
  for (const RecordedJob& r : run.recorder->Jobs()) {
    if (r.id == id) return r.jct_s();
  }
  ADD_FAILURE() << "no job " << id;
  return 0;
}

// Every job's JCT (in id order, ids 1, 2, ...) under `objective` in rounds of 100 s,
// re-solving at every boundary with a change (resolve_s = 0), with PairTable.
// `extra`: more options of the policy.
std::vector<double> PackedJcts(std::vector<JobSpec> jobs, const ClusterSpec& cluster,
                               const std::string& objective,
                               std::map<std::string, std::string> extra = {}) {
  const size_t n = jobs.size();
  Trace trace;
  extra.insert({{"objective", objective}, {"round_s", "100"}, {"resolve_s", "0"}});
  Result<RunOutput> run =
      RunWithTable(std::move(jobs), cluster, Request("gavel", extra), PairTable(), &trace);
  EXPECT_TRUE(run.ok()) << objective << ": " << run.status().message();
  std::vector<double> jct;
  for (size_t i = 0; run.ok() && i < n; ++i) jct.push_back(Jct(*run, static_cast<JobId>(i + 1)));
  return jct;
}

// max_min_fairness_packed: a (type A) and b (type B) run only on fast (no speed on slow), one
// GPU. Alone, each gets half of it: normalised share 1. With the pair (rate 0.8 for a, 0.6
// for b) and variables x_a, x_b (alone) and p (together) with x_a + x_b + p <= 1, the shares
// are 2 (x_a + 0.8 p) and 2 (x_b + 0.6 p). The optimum is x_a = 0, x_b = 1/6, p = 5/6 (both
// rows 2/3, shares 4/3; the dual weights 1/3 and 2/3 bound every variable's gain by 2/3).
// Rounds of 100 s, resolve_s = 0; every row (a, b, the pair) starts at 50 s received on fast,
// W = 150:
//   t=0    pair 5/6 / (50/150) = 2.5, b 1/6 / (1/3) = 0.5, a 0 (fills idle GPUs only):
//          the pair runs: a does 80, b 60.
//   t=100  pair 5/6 / (150/250) = 1.39, b 1/6 / (50/250) = 0.83: the pair again; a's 20 s
//          left take 25 s: a ends at 125; b runs on beside nobody at its pair rate: 120 at 200.
//   t=200  re-solve for b alone (x = 1): b is restarted alone at rate 1, 30 s left: ends 230.
//
// finish_time_fairness_packed gets the same allocation (to the bisection's 1e-6): at t=0,
// rho_j = (steps / R_j) / (steps / Tiso_j) = Tiso_j / R_j with the same Tiso = 1/2 for both
// (half of fast each), so minimising the worst rho maximises the least R_j, as above.
// max_throughput_packed: x_a + x_b + 1.4 p is largest at p = 1: the pair runs every round,
// the same runs again (after t=200, b alone has x = 1 under each objective).
TEST(GavelPolicy, PackedMaxMinFairnessCoLocatesThePair) {
  const std::vector<JobSpec> jobs = {
      JobBuilder(1).Duration(100).Model("A").Speed("fast", 1).Build(),
      JobBuilder(2).Duration(150).Model("B").Speed("fast", 1).Build()};
  for (const char* objective :
       {"max_min_fairness_packed", "finish_time_fairness_packed", "max_throughput_packed"}) {
    const std::vector<double> jct = PackedJcts(jobs, FastSlow(), objective);
    ASSERT_EQ(jct.size(), 2u);
    EXPECT_NEAR(jct[0], 125, 1e-6) << objective;
    EXPECT_NEAR(jct[1], 230, 1e-6) << objective;
  }
  // Without the pair (max_min_fairness_perf: x = 1/2 each on fast) they time-share: a, first
  // on the tie, runs the first round and ends at 100; b, alone from then, ends at 250.
  const auto plain = RunScenario(jobs, FastSlow(),
                                 Request("gavel", {{"objective", "max_min_fairness_perf"},
                                                   {"round_s", "100"}, {"resolve_s", "0"}}));
  EXPECT_NEAR(plain.Jct(1), 100, 1e-6);
  EXPECT_NEAR(plain.Jct(2), 250, 1e-6);
}

// Gandiva: a and b (type A, two GPUs each) on fast (one node of 2 GPUs) and slow (one GPU,
// too small for them). They ask for 4 GPUs of 3: Gandiva pairs them (the only draw), and the
// pair gets fast's whole time (2 / (1 combination x 2 GPUs) = 1). Both run together on fast at
// rate 0.75: a's 150 s take 200 s. At the boundary of 200 (rounds of 100, resolve_s = 0) b,
// alone, has 150 done and is restarted alone at rate 1: 150 s left, ends at 350.
TEST(GavelPolicy, GandivaPairsJobsOnTheirCoLocatedThroughput) {
  ClusterSpec cluster;
  cluster.source = "fast2-slow1";
  cluster.nodes = {NodeSpec{0, 2, 0, 0, "fast"}, NodeSpec{0, 1, 0, 0, "slow"}};
  const std::vector<JobSpec> jobs = {
      JobBuilder(1).Gpus(2).Duration(150).Model("A").Speed("fast", 1).Speed("slow", 0.5).Build(),
      JobBuilder(2).Gpus(2).Duration(300).Model("A").Speed("fast", 1).Speed("slow", 0.5).Build()};
  const std::vector<double> jct = PackedJcts(jobs, cluster, "gandiva");
  ASSERT_EQ(jct.size(), 2u);
  EXPECT_NEAR(jct[0], 200, 1e-6);
  EXPECT_NEAR(jct[1], 350, 1e-6);
}

// min_makespan_packed: a (80 s) and b (60 s), types A and B, on fast only. Apart the GPU
// needs 140 s; together (rates 0.8 and 0.6) both finish in 100 s. The LP (R_a = x_a + 0.8 p
// >= 80 / T, R_b = x_b + 0.6 p >= 60 / T, x_a + x_b + p <= 1) is feasible iff T >= 100, and
// Gavel's bisection stops at T = 103.8 (midpoints 500050, ..., 107.6, 103.8, all feasible),
// where any feasible allocation has p >= 0.9 (the rows give x_a + x_b <= 1 - p, and
// 0.8 p + x_a >= 0.77, 0.6 p + x_b >= 0.578). Rounds of 100 s from 50 s received (W = 150):
// the pair's priority 3p beats each job's 3x, so the pair runs from 0 and both end at 100.
// min_makespan (apart) keeps the GPU busy (idle GPUs are filled): the last job ends at 140.
//
// fifo_packed: a (90 s) and b (180 s), both C, on fast only. fifo_perf gives a the GPU and b
// none (slow cannot run them); packing: b joins a, 0.9 + 0.9 = 1.8 > 1.5. The pair runs at
// rate 0.9: a's 90 s take 100 s. At 100, b alone (x = 1) is restarted at rate 1 with 90 s
// left: 190. fifo_perf: a ends at 90 (the round ends with it), b runs from 90 to 270.
TEST(GavelPolicy, PackedMakespanAndFifoCoLocateThePair) {
  const auto run = [](std::vector<JobSpec> jobs, const char* objective) {
    const std::vector<double> jct = PackedJcts(std::move(jobs), FastSlow(), objective);
    EXPECT_EQ(jct.size(), 2u);
    return jct.size() == 2 ? std::make_pair(jct[0], jct[1]) : std::make_pair(0.0, 0.0);
  };
  const std::vector<JobSpec> ab = {JobBuilder(1).Duration(80).Model("A").Speed("fast", 1).Build(),
                                   JobBuilder(2).Duration(60).Model("B").Speed("fast", 1).Build()};
  auto [a, b] = run(ab, "min_makespan_packed");
  EXPECT_NEAR(a, 100, 1e-6);
  EXPECT_NEAR(b, 100, 1e-6);
  std::tie(a, b) = run(ab, "min_makespan");
  EXPECT_NEAR(std::max(a, b), 140, 1e-6);
  const std::vector<JobSpec> cc = {JobBuilder(1).Duration(90).Model("C").Speed("fast", 1).Build(),
                                   JobBuilder(2).Duration(180).Model("C").Speed("fast", 1).Build()};
  std::tie(a, b) = run(cc, "fifo_packed");
  EXPECT_NEAR(a, 100, 1e-6);
  EXPECT_NEAR(b, 190, 1e-6);
  std::tie(a, b) = run(cc, "fifo_perf");
  EXPECT_NEAR(a, 90, 1e-6);
  EXPECT_NEAR(b, 270, 1e-6);
}

// packing_threshold reaches fifo_packed: the pair of PackedMakespanAndFifoCoLocateThePair's
// a and b gains 0.9 + 0.9 = 1.8, packed above 1.5 (the default, or given) and 1.79 (a, b end at
// 100 and 190, as there), not above 1.81 or 1.9: then b waits as under fifo_perf (90 and
// 270). Other objectives refuse the option.
TEST(GavelPolicy, PackingThresholdReachesFifoPacked) {
  const std::vector<JobSpec> cc = {JobBuilder(1).Duration(90).Model("C").Speed("fast", 1).Build(),
                                   JobBuilder(2).Duration(180).Model("C").Speed("fast", 1).Build()};
  for (const auto& [threshold, a, b] : std::vector<std::tuple<std::string, double, double>>{
           {"1.5", 100, 190}, {"1.79", 100, 190}, {"1.81", 90, 270}, {"1.9", 90, 270}}) {
    const std::vector<double> jct =
        PackedJcts(cc, FastSlow(), "fifo_packed", {{"packing_threshold", threshold}});
    ASSERT_EQ(jct.size(), 2u);
    EXPECT_NEAR(jct[0], a, 1e-6) << threshold;
    EXPECT_NEAR(jct[1], b, 1e-6) << threshold;
  }
  for (const char* objective : {"max_min_fairness_perf", "fifo_perf", "gandiva"}) {
    Result<std::unique_ptr<Policy>> policy = MakePolicy(
        Request("gavel", {{"objective", objective}, {"packing_threshold", "1.5"}}));
    ASSERT_FALSE(policy.ok()) << objective;
    EXPECT_EQ(policy.status().message(),
              std::string("gavel: option 'packing_threshold' is not an option of objective '") +
                  objective + "'");
  }
  // A bad value is refused by fifo_packed's own option.
  EXPECT_FALSE(MakePolicy(Request("gavel", {{"objective", "fifo_packed"},
                                            {"packing_threshold", "-1"}}))
                   .ok());
  EXPECT_FALSE(MakePolicy(Request("gavel", {{"objective", "fifo_packed"},
                                            {"packing_threshold", "lots"}}))
                   .ok());
  EXPECT_FALSE(MakePolicy(Request("gavel", {{"objective", "fifo"}, {"point", "vertex"}})).ok());
}

// Gandiva keeps its pairs between re-solves: one fast GPU; a (360 s) and b (450 s), both C,
// at 0; c (100 s, C) at 150. Rounds of 100 s, resolve_s = 0.
//   t=0    2 GPUs asked > 1: the one draw pairs a and b (x = 1); they run at rate 0.9.
//   t=200  (c waited for the boundary) re-solve: a+b gains 0.9 + 0.9 >= 1, so it is kept and
//          c, the only job left, stays alone: pair and c 1/2 each. Every row restarts at 50 s
//          received (W = a, b, c and the pair: 200), so both have priority 0.5 / (50/200) = 2,
//          and the deficits (the pair's: 200 s owed, 200 s run) and allocations tie: c, the
//          earlier row, runs and ends at 300 (JCT 150). a and b have done 180 each.
//   t=300  re-solve without c: the pair, kept, has x = 1: a's 180 s left take 200 s: a ends
//          at 500, b has 360 done; at 500 b alone (x = 1) is restarted at rate 1: ends 590.
// Drawn afresh at 200, c could have been paired with a or b instead.
TEST(GavelPolicy, GandivaKeepsItsPairsBetweenResolves) {
  ClusterSpec cluster;
  cluster.source = "fast1";
  cluster.nodes = {NodeSpec{0, 1, 0, 0, "fast"}};
  const std::vector<JobSpec> jobs = {
      JobBuilder(1).Duration(360).Model("C").Speed("fast", 1).Build(),
      JobBuilder(2).Duration(450).Model("C").Speed("fast", 1).Build(),
      JobBuilder(3).Submit(150).Duration(100).Model("C").Speed("fast", 1).Build()};
  const std::vector<double> jct = PackedJcts(jobs, cluster, "gandiva");
  ASSERT_EQ(jct.size(), 3u);
  EXPECT_NEAR(jct[0], 500, 1e-6);
  EXPECT_NEAR(jct[1], 590, 1e-6);
  EXPECT_NEAR(jct[2], 150, 1e-6);
}

// entity=user: one GPU; a and b (user u1) and c (u2), 100 s of work each at speed 1, all at
// 0, ideal mode (each job runs at its allocation's throughput). Teq = 1, so shares are R / w:
// u1's weight 1 is split, w_a = w_b = 1/2, w_c = 1; the level t = 2 R_a = 2 R_b = R_c with
// R_a + R_b + R_c = 1 gives R_a = R_b = 1/4, R_c = 1/2. c ends at 200, when a and b have 50
// s done; then u1's weight goes to them alone: 1/2 each, 100 s more: 300. Without entities
// (every job its own) each gets 1/3: all end at 300.
TEST(GavelPolicy, WaterFillingSplitsAUsersWeightAmongItsJobs) {
  ClusterSpec one;
  one.source = "one";
  one.nodes = {NodeSpec{0, 1, 0, 0, "fast"}};
  const std::vector<JobSpec> jobs = {
      JobBuilder(1).Duration(100).Speed("fast", 1).User("u1").Vc("v").Build(),
      JobBuilder(2).Duration(100).Speed("fast", 1).User("u1").Vc("v").Build(),
      JobBuilder(3).Duration(100).Speed("fast", 1).User("u2").Vc("v").Build()};
  const std::map<std::string, std::string> base = {
      {"objective", "max_min_fairness_water_filling_perf"}, {"mode", "ideal"}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(base.begin(), base.end());
    return RunScenario(jobs, one, Request("gavel", extra));
  };
  auto r = with({{"entity", "user"}});
  EXPECT_NEAR(r.Jct(1), 300, 1e-6);
  EXPECT_NEAR(r.Jct(2), 300, 1e-6);
  EXPECT_NEAR(r.Jct(3), 200, 1e-6);
  for (const auto& options : std::vector<std::map<std::string, std::string>>{
           {}, {{"entity", "vc"}}}) {  // One VC: one entity of all three, equal shares.
    r = with(options);
    for (JobId id : {1, 2, 3}) EXPECT_NEAR(r.Jct(id), 300, 1e-6) << id;
  }
  // Only the water-filling objectives read entities; user and vc are the fields.
  EXPECT_FALSE(MakePolicy(Request("gavel", {{"objective", "max_min_fairness_perf"},
                                            {"entity", "user"}}))
                   .ok());
  EXPECT_FALSE(MakePolicy(Request("gavel", {{"objective", "max_min_fairness_water_filling"},
                                            {"entity", "team"}}))
                   .ok());
}

// A packed objective needs the run's table: the run fails naming it.
TEST(GavelPolicy, PackedObjectivesNeedTheThroughputTable) {
  Trace trace;
  Result<RunOutput> run = RunWithTable(TwoJobs(), FastSlow(),
                                       Request("gavel", {{"objective", "gandiva"}}), nullptr,
                                       &trace);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("needs the run's throughput table"), std::string::npos)
      << run.status().message();
}

TEST(GavelPolicy, RefusesBadOptions) {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"objective", "las"},
                                                        {"objective", "min_cost"},
                                                        {"objective", "min_cost_packed"},
                                                        {"round_s", "0"},
                                                        {"resolve_s", "-1"},
                                                        {"mode", "fluid"}}) {
    auto policy = MakePolicy(Request("gavel", {{key, value}}));
    EXPECT_FALSE(policy.ok()) << key << "=" << value;
  }
  // Pairs are granted in rounds only.
  EXPECT_FALSE(MakePolicy(Request("gavel", {{"objective", "gandiva"}, {"mode", "ideal"}})).ok());
}

}  // namespace
}  // namespace schedkit
