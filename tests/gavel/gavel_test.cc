// Gavel's allocation policies on small cases whose optimum is worked out by hand (issue 17),
// the `schedkit gavel allocate` command on the same cases, bad input, and the round
// selection core.
#include "schedkit/gavel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "cli_runner.h"
#include "test_files.h"

namespace schedkit::gavel {
namespace {

using schedkit::testing::Lines;
using schedkit::testing::RunCli;
using schedkit::testing::WriteTempFile;

// Fluent builders for problems.
struct ProblemBuilder {
  AllocationProblem p;
  ProblemBuilder& Type(std::string name, int gpus, double cost = -1) {
    p.types.push_back({std::move(name), gpus, cost});
    return *this;
  }
  ProblemBuilder& Job(std::string id, std::vector<double> tput, int sf = 1, double steps = 0,
                      double weight = 1) {
    AllocJob j;
    j.id = std::move(id);
    j.throughput = std::move(tput);
    j.scale_factor = sf;
    j.steps_left = steps;
    j.weight = weight;
    p.jobs.push_back(std::move(j));
    return *this;
  }
  AllocationProblem Get() const { return p; }
};

// The constraints every allocation must meet.
void ExpectFeasible(const AllocationProblem& p, const Allocation& a) {
  ASSERT_EQ(a.x.size(), p.jobs.size());
  std::vector<double> used(p.types.size(), 0.0);
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    double row = 0;
    for (size_t k = 0; k < p.types.size(); ++k) {
      EXPECT_GE(a.x[j][k], 0.0);
      if (!p.Runs(static_cast<int>(j), static_cast<int>(k))) {
        EXPECT_EQ(a.x[j][k], 0.0);
      }
      row += a.x[j][k];
      used[k] += p.jobs[j].scale_factor * a.x[j][k];
    }
    EXPECT_LE(row, 1 + 1e-9) << p.jobs[j].id;
  }
  for (size_t k = 0; k < p.types.size(); ++k) EXPECT_LE(used[k], p.types[k].gpus + 1e-9);
}

Allocation Solve(const std::string& policy, const AllocationProblem& p,
               const std::map<std::string, std::string>& opts = {}) {
  Result<Allocation> a = Allocate(policy, p, opts);
  EXPECT_TRUE(a.ok()) << policy << ": " << (a.ok() ? "" : a.status().message());
  if (!a.ok()) return {};
  ExpectFeasible(p, *a);
  return *a;
}

// Two single GPUs, fast and slow; a and b run 4x faster on fast, c the same on both.
//   Teq (equal split n_k/N = 1/2 each): a, b: (4+1)/2 = 2.5; c: (2+2)/2 = 2.
AllocationProblem ThreeJobs(double steps = 1000) {
  return ProblemBuilder()
      .Type("fast", 1, 3)
      .Type("slow", 1, 1)
      .Job("a", {4, 1}, 1, steps)
      .Job("b", {4, 1}, 1, steps)
      .Job("c", {2, 2}, 1, steps)
      .Get();
}

TEST(GavelMaxMin, AgnosticSharesTimeEqually) {
  // All throughputs read as 1: maximise t with each job's total time >= t and two GPUs of
  // time in all, so 3t <= 2: t = 2/3.
  // (The default point, the centre, is within 1e-7 of the unique optimum.)
  const Allocation a = Solve("max_min_fairness", ThreeJobs());
  EXPECT_NEAR(a.objective, 2.0 / 3, 1e-6);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(a.x[j][0] + a.x[j][1], 2.0 / 3, 1e-6);
}

// Agnostic max-min on one job a (1 GPU) with fast (2 GPUs) and slow (1 GPU): Teq = 1, the
// share is x_f + x_s, so t* = 1 and the optimal face is the segment x_f + x_s = 1. CLP returns
// one of its ends (point=vertex); point=centre returns the analytic centre of the face: the
// row and share constraints are tight on it (equalities), the others in the barrier:
// maximise log x_f + log x_s + log(2 - x_f) + log(1 - x_s) (bounds, then fast's and slow's
// GPUs). With x_f = u, x_s = 1 - u: 2 log u + log(1 - u) + log(2 - u), stationary where
// 2/u = 1/(1 - u) + 1/(2 - u): 4u^2 - 9u + 4 = 0, u = (9 - sqrt(17)) / 8 = 0.6096 on fast,
// 0.3904 on slow (Gavel's ECOS spreads time over the types the same way).
TEST(GavelMaxMin, AgnosticCentreIsInsideTheOptimalFace) {
  const AllocationProblem p = ProblemBuilder().Type("fast", 2).Type("slow", 1).Job("a", {1, 1}).Get();
  const Allocation vertex = Solve("max_min_fairness", p, {{"point", "vertex"}});
  EXPECT_NEAR(vertex.objective, 1.0, 1e-9);
  EXPECT_NEAR(vertex.x[0][0] + vertex.x[0][1], 1.0, 1e-9);
  EXPECT_NEAR(vertex.x[0][0] * vertex.x[0][1], 0.0, 1e-9);  // An end of the segment.
  const Allocation centre = Solve("max_min_fairness", p);  // The default.
  const double u = (9 - std::sqrt(17.0)) / 8;
  EXPECT_NEAR(centre.x[0][0], u, 1e-6);
  EXPECT_NEAR(centre.x[0][1], 1 - u, 1e-6);
  EXPECT_NEAR(centre.objective, 1.0, 1e-6);
  EXPECT_EQ(centre.lp_solves, 2);  // The LP, then the centre's phase I.
  // max_min_fairness_perf keeps the vertex unless asked; both refuse another point.
  EXPECT_EQ(Solve("max_min_fairness_perf", p).lp_solves, 1);
  EXPECT_NEAR(Solve("max_min_fairness_perf", p, {{"point", "centre"}}).x[0][1], 1 - u, 1e-6);
  EXPECT_FALSE(Allocate("max_min_fairness", p, {{"point", "middle"}}).ok());
}

TEST(GavelMaxMin, WeightsDivideTheShare) {
  // c has weight 2: maximise min(ta, tb, tc / 2) with ta + tb + tc <= 2: ta = tb = t,
  // tc = 2t, 4t = 2: t = 1/2 (and c's full time, 1, respects its row).
  AllocationProblem p = ThreeJobs();
  p.jobs[2].weight = 2;
  const Allocation a = Solve("max_min_fairness", p, {{"point", "vertex"}});
  EXPECT_NEAR(a.objective, 0.5, 1e-9);
  EXPECT_NEAR(a.x[2][0] + a.x[2][1], 1.0, 1e-9);
}

TEST(GavelMaxMin, PerfSendsEachJobWhereItGainsMost) {
  // v_a = (4 xa_f + xa_s) / 2.5, v_b alike, v_c = xc_f + xc_s. a and b gain 4x on fast, c
  // nothing, so a and b split fast (1/2 each) and also take u of slow, c the rest of slow:
  //   (2 + u) / 2.5 = 1 - 2u  ->  u = 1/12,  t = 5/6.
  // Dual check: weights 5/12 on a and b, 1/6 on c, prices fast 1.6 x 5/12 = 2/3 and slow
  // 1/6 bound the optimum by 2/3 + 1/6 = 5/6.
  const Allocation a = Solve("max_min_fairness_perf", ThreeJobs());
  EXPECT_NEAR(a.objective, 5.0 / 6, 1e-9);
  EXPECT_NEAR(a.x[0][0] + a.x[1][0], 1.0, 1e-9);  // Fast is all a and b.
  EXPECT_NEAR(a.x[2][1], 5.0 / 6, 1e-9);           // c: 1 - 2u of slow.
  EXPECT_NEAR(a.x[2][0], 0.0, 1e-9);
  // a and b cannot be told apart: they are solved as one class and get the same share.
  EXPECT_EQ(a.x[0], a.x[1]);
  EXPECT_NEAR(a.x[0][0], 0.5, 1e-9);
  EXPECT_NEAR(a.x[0][1], 1.0 / 12, 1e-9);
}

TEST(GavelMaxMin, MultiGpuJobsCountTheirGpus) {
  // Types big (2 GPUs) and one (1 GPU); d needs 2 GPUs so runs on big only (x_d,one = 0
  // though the capacity row alone would allow 0.5). Agnostic objective (sf/w) * time:
  // v_d = 2 x_d, v_e = t_e, v_f = t_f. e and f can take one GPU each (t = 1, their rows'
  // cap), leaving big with 1 free GPU of time for d: 2 x_d <= 1, v_d = 1. Optimum 1.
  const AllocationProblem p = ProblemBuilder()
                                  .Type("big", 2)
                                  .Type("one", 1)
                                  .Job("d", {1, 1}, 2)
                                  .Job("e", {1, 1})
                                  .Job("f", {1, 1})
                                  .Get();
  const Allocation a = Solve("max_min_fairness", p, {{"point", "vertex"}});
  EXPECT_NEAR(a.objective, 1.0, 1e-9);
  EXPECT_EQ(a.x[0][1], 0.0);
}

TEST(GavelMaxMin, WaterFillingRaisesWhoTheLeastShareDoesNotHold) {
  // fast and slow, 1 GPU each; a and c run on slow only (1 step/s), b on both (2 on fast, 1
  // on slow). Teq (n_k / N = 1/2): a, c 0.5, b 1.5; shares 2 R_a, 2 R_c, R_b / 1.5.
  // Level 1: a and c can only share slow, R_a + R_c <= 1, so t = 1 at most, reached with
  // a and c at 1/2 of slow and b at >= 1.5 steps/s (e.g. 3/4 of fast): max-min stops here.
  // Probes: a cannot exceed 1 with c at 1 (slow is full), nor c; b can (fast alone gives it
  // 2 steps/s, share 4/3). Level 2: b alone, a and c held at 1: b takes all of fast, 4/3.
  const AllocationProblem p = ProblemBuilder()
                                  .Type("fast", 1)
                                  .Type("slow", 1)
                                  .Job("a", {0, 1})
                                  .Job("b", {2, 1})
                                  .Job("c", {0, 1})
                                  .Get();
  const Allocation a = Solve("max_min_fairness_water_filling_perf", p);
  EXPECT_NEAR(a.objective, 1, 1e-9);  // The first level: max-min fairness's optimum.
  EXPECT_NEAR(a.x[0][1], 0.5, 1e-6);
  EXPECT_NEAR(a.x[2][1], 0.5, 1e-6);
  EXPECT_NEAR(a.x[1][0], 1, 1e-6);
  EXPECT_NEAR(a.x[1][1], 0, 1e-6);
  // 1 solve per level and 1 probe per unheld class at each (a and c, alike, are one class):
  // 1 + 2, then 1 + 1.
  EXPECT_EQ(a.lp_solves, 5);
  EXPECT_NEAR(Solve("max_min_fairness_perf", p).objective, 1, 1e-9);
  // Agnostic (every usable throughput 1): Teq_b = 1, b's share is R_b <= 1 (its row), so
  // every class is held at the first level, t = 1.
  const Allocation g = Solve("max_min_fairness_water_filling", p);
  EXPECT_NEAR(g.objective, 1, 1e-9);
  EXPECT_EQ(g.lp_solves, 3);
}

// Two entities, A = {x, y} and B = {z}, each of weight 1; x's own weight is 3, y's and z's 1.
// fast and slow, 1 GPU each; x runs at 1 step/s on both, y and z at 1 on fast only.
// Teq (n_k / N = 1/2): x 1, y and z 1/2.
AllocationProblem TwoEntities() {
  AllocationProblem p = ProblemBuilder()
                            .Type("fast", 1)
                            .Type("slow", 1)
                            .Job("x", {1, 1}, 1, 0, 3)
                            .Job("y", {1, 0})
                            .Job("z", {1, 0})
                            .Get();
  p.entities = {{"A", 1}, {"B", 1}};
  p.jobs[0].entity = p.jobs[1].entity = 0;
  p.jobs[2].entity = 1;
  return p;
}

TEST(GavelWaterFilling, AnEntitysWeightIsSplitAmongItsJobsNotYetHeld) {
  // Level 1: A's weight 1 is split 3 : 1, x 3/4 and y 1/4; z has B's 1. Shares
  // sf R / (w Teq): x R_x / (3/4) <= 4/3 (R_x <= 1, its row); y 2 f_y / (1/4) = 8 f_y and
  // z 2 f_z (f = time on fast). y and z alone on fast reach t = 8 f_y = 2 f_z with
  // f_y + f_z = 1: 8/5, above x's cap, so t_1 = 4/3: x runs all the time (slow), y and z
  // hold 1/6 and 2/3 of fast at least.
  // Probes: x cannot exceed 4/3; y can (1/3 of fast: 8/3), and z (5/6: 5/3): x alone is held.
  // Level 2: A's weight goes to y alone, w_y = 1, so y's share is 2 f_y and what it has,
  // 4/3 in the old units, is 4/3 x (1/4) / 1 = 1/3 in the new: y's row is
  // 2 f_y - t >= 1/3 - 4/3 = -1, z's 2 f_z - t >= 0. With f_y + f_z = 1: t = 3/2,
  // f_y = 1/4, f_z = 3/4. (Gavel's increments: normalised throughputs after level 1 are
  // x 1, y 1/3, z 4/3; level 2 raises y and z by the same c with weight 1 each:
  // 2 (f_y + f_z) = 1/3 + 4/3 + 2c = 2, c = 1/6: n_y = 1/2, n_z = 3/2, as above.)
  // Both are then held. Without the reweighting y would keep 1/4: 8 f_y = 2 f_z gives
  // f_y = 1/5.
  const AllocationProblem p = TwoEntities();
  const Allocation a = Solve("max_min_fairness_water_filling_perf", p);
  EXPECT_NEAR(a.objective, 4.0 / 3, 1e-9);
  EXPECT_NEAR(a.x[0][1], 1, 1e-6);  // x on slow.
  EXPECT_NEAR(a.x[0][0], 0, 1e-6);
  EXPECT_NEAR(a.x[1][0], 0.25, 1e-6);
  EXPECT_NEAR(a.x[2][0], 0.75, 1e-6);
  // Level 1: 1 + 3 probes; level 2: 1 + 2 probes.
  EXPECT_EQ(a.lp_solves, 7);
  // Without entities (each job its own, weights 3, 1, 1): x's cap R_x / 3 <= 1/3 holds the
  // first level at 1/3, then y and z split fast: 1/2 each.
  AllocationProblem none = p;
  none.entities.clear();
  for (AllocJob& j : none.jobs) j.entity = -1;
  const Allocation b = Solve("max_min_fairness_water_filling_perf", none);
  EXPECT_NEAR(b.objective, 1.0 / 3, 1e-9);
  EXPECT_NEAR(b.x[1][0], 0.5, 1e-6);
  EXPECT_NEAR(b.x[2][0], 0.5, 1e-6);
  // One entity per job with the job's weight is the same as no entity.
  AllocationProblem own = none;
  own.entities = {{"x", 3}, {"y", 1}, {"z", 1}};
  for (int j = 0; j < 3; ++j) own.jobs[j].entity = j;
  const Allocation c = Solve("max_min_fairness_water_filling_perf", own);
  EXPECT_NEAR(c.objective, b.objective, 1e-12);
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(c.x[j][k], b.x[j][k], 1e-9);
  }
}

TEST(GavelWaterFilling, AFifoEntityWeighsItsJobsInTurn) {
  // One GPU g and a second type h that no job can use; a1, a2 (entity A, fifo, weight 1) and
  // b (entity B, weight 1), 1 step/s each on g: Teq = 1/2, shares 2 R / w.
  // Level 1: a1 has A's whole weight, a2 none (out of the objective): t = 2 R_a1 = 2 R_b
  // with R_a1 + R_b <= 1: t = 1, a1 and b 1/2 each, a2 nothing. Probes: neither a1 nor b can
  // exceed 1 with the other at it: both held. Level 2: a2's turn (weight 1, nothing so far:
  // row 2 R_a2 - t >= -1): g is full (a1, b held at 1/2 each, 1e-7 below), so a2 gets no
  // more than the hair: held. Under fairness A's weight is split: a1, a2 1/4, b 1/2.
  AllocationProblem p = ProblemBuilder()
                            .Type("g", 1)
                            .Type("h", 1)
                            .Job("a1", {1, 0})
                            .Job("a2", {1, 0})
                            .Job("b", {1, 0})
                            .Get();
  p.entities = {{"A", 1, /*fifo=*/true}, {"B", 1}};
  p.jobs[0].entity = p.jobs[1].entity = 0;
  p.jobs[2].entity = 1;
  Allocation a = Solve("max_min_fairness_water_filling_perf", p);
  EXPECT_NEAR(a.objective, 1, 1e-9);
  EXPECT_NEAR(a.x[0][0], 0.5, 1e-6);
  EXPECT_NEAR(a.x[1][0], 0, 1e-6);
  EXPECT_NEAR(a.x[2][0], 0.5, 1e-6);
  // Level 1: 1 + 2 probes (a1, b); level 2: 1 + 1 (a2).
  EXPECT_EQ(a.lp_solves, 5);
  p.entities[0].fifo = false;
  a = Solve("max_min_fairness_water_filling_perf", p);
  EXPECT_NEAR(a.x[0][0], 0.25, 1e-6);
  EXPECT_NEAR(a.x[1][0], 0.25, 1e-6);
  EXPECT_NEAR(a.x[2][0], 0.5, 1e-6);
  // The command's form: name=weight:fifo.
  Result<std::vector<Entity>> e = ParseEntityWeights("A=2:fifo,B=0.5");
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_EQ(e->size(), 2u);
  EXPECT_TRUE((*e)[0].fifo);
  EXPECT_EQ((*e)[0].weight, 2);
  EXPECT_FALSE((*e)[1].fifo);
  EXPECT_FALSE(ParseEntityWeights("A=:fifo").ok());
  EXPECT_FALSE(ParseEntityWeights("A=1:lifo").ok());
}

TEST(GavelWaterFilling, EntitiesAreReadByWaterFillingOnly) {
  const AllocationProblem p = TwoEntities();
  Result<Allocation> a = Allocate("max_min_fairness_perf", p);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("job 'x' has an entity"), std::string::npos);
  EXPECT_TRUE(ReadsEntities("max_min_fairness_water_filling"));
  EXPECT_TRUE(ReadsEntities("max_min_fairness_water_filling_packed"));
  EXPECT_FALSE(ReadsEntities("max_min_fairness_water_filling_nope"));
  AllocationProblem bad = p;
  bad.entities[1].weight = 0;
  EXPECT_NE(Validate(bad).message().find("entity 'B': weight must be > 0"), std::string::npos);
  bad = p;
  bad.jobs[2].entity = 2;
  EXPECT_FALSE(Validate(bad).ok());
}

TEST(GavelWaterFilling, PackedRaisesWhomThePairDoesNotHold) {
  // g and h, 1 GPU each. a and b run on g only (1 step/s), c on h only (1 step/s); Teq =
  // 1/2 each, shares 2 R. a + b co-locate on g at 0.8 steps/s each.
  // Level 1 (max_min_fairness_packed): a and b split g, R = q + 0.8 p with 2q + p <= 1, best
  // at p = 1: R = 0.8, share 1.6; c can reach 2, so t_1 = 1.6. Probes: a cannot exceed 0.8
  // with b at 0.8 (a <= 1 - 0.2 p - q_b and q_b >= 0.8 - 0.8 p give a <= 0.2 + 0.6 p <= 0.8),
  // nor b; c can (h alone: 2). Level 2: c alone, a and b held: c takes all of h, share 2.
  AllocationProblem p = ProblemBuilder()
                            .Type("g", 1)
                            .Type("h", 1)
                            .Job("a", {1, 0})
                            .Job("b", {1, 0})
                            .Job("c", {0, 1})
                            .Get();
  p.pairs.push_back({0, 1, 0, 0.8, 0.8});
  const Allocation a = Solve("max_min_fairness_water_filling_packed", p);
  EXPECT_NEAR(a.objective, 1.6, 1e-9);
  ASSERT_EQ(a.pair_x.size(), 1u);
  EXPECT_NEAR(a.pair_x[0], 1, 1e-6);
  EXPECT_NEAR(a.x[2][1], 1, 1e-6);
  // Level 1: 1 + 3 probes (packed: every job its own class); level 2: 1 + 1.
  EXPECT_EQ(a.lp_solves, 6);
  // Max-min fairness stops at the first level: c only needs 0.8 of h there.
  EXPECT_NEAR(Solve("max_min_fairness_packed", p).objective, 1.6, 1e-9);
  // Without the pair it is water filling, solved the same way (a and b, alike, one class):
  // a and b split g (share 1), c raised to 2; 1 + 2 probes, then 1 + 1.
  AllocationProblem none = p;
  none.pairs.clear();
  const Allocation w = Solve("max_min_fairness_water_filling_packed", none);
  EXPECT_NEAR(w.objective, 1, 1e-9);
  EXPECT_NEAR(w.x[2][1], 1, 1e-6);
  EXPECT_EQ(w.lp_solves, 5);
  const Allocation plain = Solve("max_min_fairness_water_filling_perf", none);
  EXPECT_EQ(plain.objective, w.objective);
  EXPECT_EQ(plain.x, w.x);
}

TEST(GavelMaxMin, PackedCoLocatesAPairThatGainsFromIt) {
  // One GPU, a and b at 1 step/s alone (Teq = 1). Alone they split it: t = 1/2. Co-located
  // at 0.8 steps/s each: with pair time p and time alone q each (2q + p <= 1),
  // t = q + 0.8 p = 1/2 + 0.3 p, so p = 1 and t = 0.8.
  AllocationProblem p = ProblemBuilder().Type("g", 1).Job("a", {1}).Job("b", {1}).Get();
  p.pairs.push_back({0, 1, 0, 0.8, 0.8});
  Allocation a = Solve("max_min_fairness_packed", p);
  EXPECT_NEAR(a.objective, 0.8, 1e-9);
  ASSERT_EQ(a.pair_x.size(), 1u);
  EXPECT_NEAR(a.pair_x[0], 1, 1e-9);
  // At 0.4 each co-location loses (t = 1/2 - 0.1 p): p = 0, t = 1/2, as unpacked.
  p.pairs[0].throughput_a = p.pairs[0].throughput_b = 0.4;
  a = Solve("max_min_fairness_packed", p);
  EXPECT_NEAR(a.objective, 0.5, 1e-9);
  EXPECT_NEAR(a.pair_x[0], 0, 1e-9);
  // Pairs of jobs with different scale factors are refused.
  p.types[0].gpus = 2;
  p.jobs[1].scale_factor = 2;
  EXPECT_FALSE(Validate(p).ok());
}

TEST(GavelGandiva, PairsOnlyWhenJobsOutnumberGpus) {
  // One GPU, a and b (1 GPU each) listed as a pair: 2 GPUs asked > 1, so the one draw pairs
  // them: one combination, x = n / (1 x 1) = 1 co-located.
  AllocationProblem p = ProblemBuilder().Type("g", 1).Job("a", {1}).Job("b", {1}).Get();
  p.pairs.push_back({0, 1, 0, 0.8, 0.8});
  Allocation a = Solve("gandiva", p);
  EXPECT_EQ(a.objective, 1);
  EXPECT_EQ(a.pair_x, std::vector<double>{1.0});
  EXPECT_EQ(a.x[0][0] + a.x[1][0], 0.0);
  // Two GPUs: the jobs fit, no packing; each gets n / (m sf) = 2 / 2 = 1 alone.
  p.types[0].gpus = 2;
  a = Solve("gandiva", p);
  EXPECT_EQ(a.objective, 0);
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{1.0}, {1.0}}));
}

TEST(GavelGandiva, TheSeedDrawsThePairs) {
  // Four jobs on one GPU, every pair listed: the pairs formed depend on the seed only.
  // Two pairs formed: m = 2 combinations, each 1/2 of the GPU.
  AllocationProblem p = ProblemBuilder().Type("g", 1).Job("a", {1}).Job("b", {1}).Job("c", {1}).Job("d", {1}).Get();
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) p.pairs.push_back({i, j, 0, 0.6, 0.6});
  }
  std::set<std::vector<double>> seen;
  for (int seed = 0; seed < 20; ++seed) {
    const std::map<std::string, std::string> opts = {{"seed", std::to_string(seed)}};
    const Allocation a = Solve("gandiva", p, opts);
    EXPECT_EQ(a.pair_x, Solve("gandiva", p, opts).pair_x);
    if (a.objective == 2) {
      double total = 0;
      for (double v : a.pair_x) total += v;
      EXPECT_NEAR(total, 1.0, 1e-12);  // Two pairs at 1/2 each.
    }
    seen.insert(a.pair_x);
  }
  EXPECT_GT(seen.size(), 1u);
}

// Gandiva's pairs across a hand-made sequence of calls, each call's partners passed to the
// next as held_partner (as the simulated policy does). Every pair listed gains 0.6 + 0.6 =
// 1.2 >= 1 unless said otherwise.
TEST(GavelGandiva, KeepsPairsBetweenCallsUntilTheyLoseThroughput) {
  auto hold = [](AllocationProblem* p, const std::vector<int>& partner) {
    for (size_t j = 0; j < partner.size(); ++j) p->jobs[j].held_partner = partner[j];
  };
  // 1. a and b on one GPU (2 asked > 1): the one draw pairs them; one combination, x = 1.
  AllocationProblem p = ProblemBuilder().Type("g", 1).Job("a", {1}).Job("b", {1}).Get();
  p.pairs = {{0, 1, 0, 0.6, 0.6}};
  Allocation a = Solve("gandiva", p);
  EXPECT_EQ(a.partner, (std::vector<int>{1, 0}));
  EXPECT_EQ(a.pair_x, std::vector<double>{1.0});
  // 2. c arrives (pairs with a and b listed too). a+b gains, so it is kept, and c, the only
  // job left to pair, stays alone: two combinations, 1/2 each, whatever the seed (a fresh
  // draw among three could have paired c).
  p = ProblemBuilder().Type("g", 1).Job("a", {1}).Job("b", {1}).Job("c", {1}).Get();
  p.pairs = {{0, 1, 0, 0.6, 0.6}, {0, 2, 0, 0.6, 0.6}, {1, 2, 0, 0.6, 0.6}};
  hold(&p, {1, 0, -1});
  for (int seed = 0; seed < 10; ++seed) {
    a = Solve("gandiva", p, {{"seed", std::to_string(seed)}});
    EXPECT_EQ(a.objective, 1);
    EXPECT_EQ(a.partner, (std::vector<int>{1, 0, -1}));
    EXPECT_EQ(a.pair_x, (std::vector<double>{0.5, 0, 0}));
    EXPECT_EQ(a.x[2][0], 0.5);
  }
  // 3. a has finished: b has no partner any more; b and c (2 asked > 1) are drawn together.
  p = ProblemBuilder().Type("g", 1).Job("b", {1}).Job("c", {1}).Get();
  p.pairs = {{0, 1, 0, 0.6, 0.6}};
  a = Solve("gandiva", p);
  EXPECT_EQ(a.partner, (std::vector<int>{1, 0}));
  EXPECT_EQ(a.pair_x, std::vector<double>{1.0});
  // 4. A second GPU: the jobs fit, so they run alone (x = 2 / 2 = 1 each), but the pair is
  // kept for later calls.
  hold(&p, a.partner);
  p.types[0].gpus = 2;
  a = Solve("gandiva", p);
  EXPECT_EQ(a.objective, 0);
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{1.0}, {1.0}}));
  EXPECT_EQ(a.pair_x, std::vector<double>{0.0});
  EXPECT_EQ(a.partner, (std::vector<int>{1, 0}));
  // 5. Measured at 0.3 + 0.3 = 0.6 < 1 together, the pair loses throughput: broken.
  p.pairs[0].throughput_a = p.pairs[0].throughput_b = 0.3;
  a = Solve("gandiva", p);
  EXPECT_EQ(a.partner, (std::vector<int>{-1, -1}));
  // 6. Back to one GPU with the pair no longer listed (no co-located throughput): broken, and
  // no draw can pair them again; each alone gets 1/2.
  p.types[0].gpus = 1;
  p.pairs.clear();
  a = Solve("gandiva", p);
  EXPECT_EQ(a.partner, (std::vector<int>{-1, -1}));
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{0.5}, {0.5}}));
  // A kept pair must share on every type where both jobs run: with types g and h (both
  // jobs fit, so no draw) and the pair listed on g only, the held pair is broken (Gavel's
  // gandiva.py reads a zero co-located throughput on h); listed on both, it is kept.
  p = ProblemBuilder().Type("g", 1).Type("h", 1).Job("b", {1, 1}).Job("c", {1, 1}).Get();
  p.pairs = {{0, 1, 0, 0.6, 0.6}};
  hold(&p, {1, 0});
  EXPECT_EQ(Solve("gandiva", p).partner, (std::vector<int>{-1, -1}));
  p.pairs.push_back({0, 1, 1, 0.3, 0.3});  // 1.2 + 0.6 = 1.8 summed over the types.
  EXPECT_EQ(Solve("gandiva", p).partner, (std::vector<int>{1, 0}));
  // A held partner must be held back.
  p.jobs[1].held_partner = -1;
  EXPECT_FALSE(Validate(p).ok());
}

TEST(GavelThroughput, MaxThroughputFillsEachTypeWithItsBestJob) {
  // Fast: a or b at 4 steps/s; slow: c at 2. Sum 6.
  const Allocation a = Solve("max_throughput", ThreeJobs());
  EXPECT_NEAR(a.objective, 6, 1e-9);
  EXPECT_NEAR(a.x[2][1], 1, 1e-9);
}

TEST(GavelThroughput, MinCostDividesByThePrice) {
  // Gains T / cost (fast costs 3, slow 1): fast: a, b 4/3, c 2/3; slow: a, b 1, c 2.
  // Fast to a or b (4/3), slow to c (2): 10/3.
  const Allocation a = Solve("min_cost", ThreeJobs());
  EXPECT_NEAR(a.objective, 10.0 / 3, 1e-9);
  EXPECT_NEAR(a.x[2][1], 1, 1e-9);
  // Without prices min_cost refuses.
  AllocationProblem p = ThreeJobs();
  p.types[0].cost_per_hour = -1;
  const Result<Allocation> r = Allocate("min_cost", p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cost_per_hour"), std::string::npos);
}

// fast and slow, 1 GPU each (prices 3 and 1); a runs at 4 steps/s on fast and 1 on slow,
// c at 2 on both, d at 1 on both.
AllocationProblem SloJobs(double d_steps, double d_slo) {
  AllocationProblem p = ProblemBuilder()
                            .Type("fast", 1, 3)
                            .Type("slow", 1, 1)
                            .Job("a", {4, 1}, 1, 1000)
                            .Job("c", {2, 2}, 1, 1000)
                            .Job("d", {1, 1}, 1, d_steps)
                            .Get();
  p.jobs[2].slo_s = d_slo;
  return p;
}

TEST(GavelThroughput, SloRowsKeepDeadlines) {
  // Without deadlines: a on fast (4), c on slow (2), d nothing: 6 steps/s.
  // d must finish 500 steps within 1000 s: R_d >= 0.5. A unit of slow given to d gains 1
  // and costs c 2 (net -1); a unit of fast costs a 4 (net -3): d takes 1/2 of slow,
  // 4 + 0.5 x 2 + 0.5 x 1 = 5.5. (Dual: fast 4, slow 2, d's SLO row 1 bound every allocation
  // by 4 + 2 - 0.5 = 5.5.)
  Allocation a = Solve("max_throughput", SloJobs(500, 1000));
  EXPECT_NEAR(a.objective, 5.5, 1e-9);
  EXPECT_NEAR(a.x[2][1], 0.5, 1e-9);
  EXPECT_NEAR(a.x[0][0], 1, 1e-9);
  EXPECT_FALSE(a.slos_dropped);
  EXPECT_EQ(a.lp_solves, 1);
  // 1500 steps in 1000 s needs 1.5 steps/s, above d's best (1): infeasible, so (Gavel) every
  // deadline is dropped and the LP solved again: 6.
  a = Solve("max_throughput", SloJobs(1500, 1000));
  EXPECT_NEAR(a.objective, 6, 1e-9);
  EXPECT_TRUE(a.slos_dropped);
  EXPECT_EQ(a.lp_solves, 2);
  // min_cost (gains per dollar: a 4/3 on fast, 1 on slow; c 2/3, 2; d 1/3, 1): without the
  // deadline a on fast and c on slow, 4/3 + 2 = 10/3; with it d runs 1/2 of the time, on
  // fast (a loses 4/3 - 1/3 = 1 per unit) or slow (c loses 2 - 1 = 1): 10/3 - 1/2 = 17/6.
  a = Solve("min_cost", SloJobs(500, 1000));
  EXPECT_NEAR(a.objective, 17.0 / 6, 1e-9);
  EXPECT_NEAR(a.x[2][0] + a.x[2][1], 0.5, 1e-9);
  // Packed (no pairs listed): the same rows.
  a = Solve("max_throughput_packed", SloJobs(500, 1000));
  EXPECT_NEAR(a.objective, 5.5, 1e-9);
  // Other policies refuse deadlines, and a deadline needs steps.
  Result<Allocation> r = Allocate("max_min_fairness_perf", SloJobs(500, 1000));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("job 'd' has a deadline (slo_s)"), std::string::npos);
  EXPECT_FALSE(Validate(SloJobs(0, 1000)).ok());
}

TEST(GavelFinishTime, IsolatedShareHasRhoOne) {
  // With isolated_time = time_since_arrival every job's rho on the isolated share is 1.
  AllocationProblem p = ThreeJobs();
  for (AllocJob& j : p.jobs) j.time_since_arrival = j.isolated_time = 500;
  for (double rho : FinishTimeRatios(p, IsolatedShare(p))) EXPECT_NEAR(rho, 1, 1e-12);
  // m = 3 jobs > N = 2 GPUs: xiso = n_k / 3 on each type.
  EXPECT_NEAR(IsolatedShare(p)[0][0], 1.0 / 3, 1e-12);
}

TEST(GavelFinishTime, PerfMinimisesTheWorstRatio) {
  // Steps 1000 each, nothing run yet. xiso = 1/3 per type: Tiso_a = 5/3, Tiso_c = 4/3,
  // D_a = 600 s, D_c = 750 s; rho_a = (5/3) / R_a, rho_c = (4/3) / R_c. Minimising the
  // worst rho = maximising min(0.6 R_a, 0.6 R_b, 0.75 R_c): with the max-min structure
  // above, R_a = 2 + u, R_c = 2 (1 - 2u): 0.6 (2 + u) = 0.75 (2 - 4u) -> u = 1/12,
  // value 1.25, rho* = 0.8.
  const Allocation a = Solve("finish_time_fairness_perf", ThreeJobs());
  EXPECT_NEAR(a.objective, 0.8, 1e-5);
  EXPECT_GE(a.objective, 0.8 - 1e-9);
  EXPECT_GT(a.lp_solves, 5);  // A bisection.
}

TEST(GavelFinishTime, AgnosticReadsThroughputsAsOne) {
  // T = 1: Tiso = 2/3, D = 1500 s, rho = (2/3) / R_j, and 3 R <= 2: rho* = 1.
  const Allocation a = Solve("finish_time_fairness", ThreeJobs());
  EXPECT_NEAR(a.objective, 1, 1e-5);
}

TEST(GavelFinishTime, NeedsSteps) {
  const Result<Allocation> r = Allocate("finish_time_fairness_perf", ThreeJobs(0));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("steps_left must be > 0"), std::string::npos);
}

// a: 7200 steps at 2/s on fast; b: 3600 steps at 1/s anywhere. The optimum makespan is 3600 s
// (a's fastest rate bounds it; a on fast and b on slow meet it).
AllocationProblem TwoJobs() {
  return ProblemBuilder().Type("fast", 1).Type("slow", 1).Job("a", {2, 1}, 1, 7200).Job("b", {1, 1}, 1, 3600).Get();
}

TEST(GavelMakespan, GavelsBisection) {
  // Feasible iff T >= 3600. Midpoints from [100, 1e6]: 500050, 250075, ..., 4005.859375
  // feasible, 2052.9..., 3029.39..., 3517.62... infeasible, 3761.74... and 3639.68505859375
  // feasible; then 1.05 x 3517.62 >= 3639.69 stops it.
  const Allocation a = Solve("min_makespan", TwoJobs());
  EXPECT_DOUBLE_EQ(a.objective, 3639.68505859375);
  EXPECT_GE(2 * a.x[0][0] + a.x[0][1], 7200 / a.objective - 1e-9);
  EXPECT_GE(a.x[1][0] + a.x[1][1], 3600 / a.objective - 1e-9);
}

TEST(GavelMakespan, WindowMovesUpWhenNothingFits) {
  // 9e6 steps at 1 step/s: nothing in [100, 1e6] is feasible, so the window moves to
  // [1e6, 1e7]: 5.5e6, 7.75e6, 8.875e6 infeasible, 9.4375e6 and 9.15625e6 feasible, then
  // 1.05 x 8.875e6 >= 9.15625e6 stops it.
  const AllocationProblem p = ProblemBuilder().Type("g", 1).Job("z", {1}, 1, 9e6).Get();
  const Allocation a = Solve("min_makespan", p);
  EXPECT_DOUBLE_EQ(a.objective, 9.15625e6);
}

// The packed variants share one case: types fast and slow (1 GPU each); a and b, 3600 steps
// each, run at 1 step/s on fast and 0.5 on slow; beside each other on fast each does 0.9
// (the pair). With f, s the time each job runs alone on fast and slow (equal by symmetry) and
// p the pair's time:  fast 2f + p <= 1, slow 2s <= 1, each job f + s + p <= 1, and
// R = f + 0.5 s + 0.9 p. Without the pair the best least R is 0.75 (fast 1/2 and slow 1/2
// each). With it: p = 1 - 2f (fast full) and s <= f give R = 0.9 - 0.3 f at best, so f = 0,
// p = 1, R = 0.9; the dual weights 0.4 (fast) and 0.5 (each job's row) bound R by 0.9.
AllocationProblem PackedPair() {
  AllocationProblem p =
      ProblemBuilder().Type("fast", 1, 3).Type("slow", 1, 1).Job("a", {1, 0.5}, 1, 3600).Job("b", {1, 0.5}, 1, 3600).Get();
  p.pairs = {{0, 1, 0, 0.9, 0.9}};
  return p;
}

TEST(GavelPacked, MinMakespanPackedFinishesSoonerTogether) {
  // T* = 3600 / 0.75 = 4800 s apart, 3600 / 0.9 = 4000 s packed. Gavel's bisection on the
  // packed LP: midpoints 500050, ..., 7911.71875, 4005.859375 feasible, 2052.93, 3029.39,
  // 3517.62, 3761.74, 3883.80 infeasible; then 1.05 x 3883.80 >= 4005.86 stops it.
  const AllocationProblem p = PackedPair();
  const Allocation packed = Solve("min_makespan_packed", p);
  EXPECT_DOUBLE_EQ(packed.objective, 4005.859375);
  ASSERT_EQ(packed.pair_x.size(), 1u);
  for (int j : {0, 1}) {
    const double rate = packed.x[j][0] + 0.5 * packed.x[j][1] + 0.9 * packed.pair_x[0];
    EXPECT_GE(rate, 3600 / packed.objective - 1e-9);
  }
  const Allocation apart = Solve("min_makespan", p);  // Ignores the pairs.
  EXPECT_GE(apart.objective, 4800);
  EXPECT_LE(apart.objective, 4800 * 1.05);
  EXPECT_TRUE(apart.pair_x.empty());
  // Without pairs the packed variant is min_makespan.
  AllocationProblem none = p;
  none.pairs.clear();
  EXPECT_DOUBLE_EQ(Solve("min_makespan_packed", none).objective, apart.objective);
}

TEST(GavelPacked, FinishTimeFairnessPackedCountsThePair) {
  // Nothing run yet: xiso = 1/2 per type, Tiso = 0.75, D = 4800 s, rho = (3600 / R) / 4800 =
  // 0.75 / R. Apart the best least R is 0.75: rho* = 1; packed 0.9: rho* = 0.75 / 0.9 = 5/6.
  const AllocationProblem p = PackedPair();
  const Allocation packed = Solve("finish_time_fairness_packed", p);
  EXPECT_NEAR(packed.objective, 5.0 / 6, 1e-5);
  EXPECT_GE(packed.objective, 5.0 / 6 - 1e-9);
  EXPECT_NEAR(packed.pair_x[0], 1, 1e-4);
  // The objective is the worst rho of the returned allocation, the pair counted.
  const std::vector<double> rho = FinishTimeRatios(p, packed.x, packed.pair_x);
  EXPECT_DOUBLE_EQ(packed.objective, std::max(rho[0], rho[1]));
  EXPECT_NEAR(Solve("finish_time_fairness_perf", p).objective, 1, 1e-5);
}

TEST(GavelPacked, MaxThroughputPackedAddsBothJobsOfThePair) {
  // Apart: a on fast (1) and b on slow (0.5): 1.5. Packed: with the pair's time p, fast's
  // other time 1 - p goes to one job (1 step/s) and the other job's row leaves it 1 - p of
  // slow (0.5): 1.5 (1 - p) + 1.8 p = 1.5 + 0.3 p, so p = 1 and 1.8.
  const AllocationProblem p = PackedPair();
  Allocation a = Solve("max_throughput_packed", p);
  EXPECT_NEAR(a.objective, 1.8, 1e-9);
  EXPECT_NEAR(a.pair_x[0], 1, 1e-9);
  EXPECT_NEAR(Solve("max_throughput", p).objective, 1.5, 1e-9);
  // Per dollar (fast costs 3, slow 1): gains 1/3 per job on fast, 1/2 on slow, 1.8 / 3 =
  // 0.6 for the pair. Apart, a on fast and b on slow make 1/3 + 1/2 = 5/6. The dual weights
  // 1/15 (fast), 7/30 (slow) and 4/15 (each job's row) bound every allocation by 5/6; at an
  // optimum all four rows are then full, and their sum (fast + slow + 2p = 2 with fast
  // 1 - p) leaves p = 0: the pair does not pay at fast's price.
  a = Solve("min_cost_packed", p);
  EXPECT_NEAR(a.objective, 5.0 / 6, 1e-9);
  EXPECT_NEAR(a.pair_x[0], 0, 1e-9);
}

TEST(GavelPacked, FifoPackedJoinsTheQueueToPlacedJobs) {
  // fifo_perf on ThreeJobs: a takes fast, b slow, c finds no room and stops the queue; d
  // (1 step/s on both) waits behind it. Pairs: a+c on fast (3.2, 1.2): normalised 3.2/4 +
  // 1.2/2 = 1.4; b+c on slow (0.9, 1.5): 0.9/1 + 1.5/2 = 1.65; a+d on fast (3.6, 0.9):
  // 0.9 + 0.9 = 1.8. Threshold 1.5: c joins b (1.65; a+c is below), then d joins a (1.8).
  AllocationProblem p = ThreeJobs();
  p.jobs.push_back(p.jobs[2]);
  p.jobs[3].id = "d";
  p.jobs[3].throughput = {1, 1};
  p.pairs = {{0, 2, 0, 3.2, 1.2}, {1, 2, 1, 0.9, 1.5}, {0, 3, 0, 3.6, 0.9}};
  Allocation a = Solve("fifo_packed", p);
  EXPECT_EQ(a.objective, 4);
  EXPECT_EQ(a.pair_x, (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{0, 0}, {0, 0}, {0, 0}, {0, 0}}));
  // Threshold 1.7: c joins nobody (1.65 and 1.4), and the queue stops there: d, which a
  // would take at 1.8, waits behind c.
  a = Solve("fifo_packed", p, {{"packing_threshold", "1.7"}});
  EXPECT_EQ(a.objective, 2);
  EXPECT_EQ(a.pair_x, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{1, 0}, {0, 1}, {0, 0}, {0, 0}}));
  EXPECT_FALSE(Allocate("fifo_packed", p, {{"packing_threshold", "-1"}}).ok());
}

TEST(GavelPacked, ReadsPairs) {
  for (const char* name : {"max_min_fairness_packed", "finish_time_fairness_packed",
                           "min_makespan_packed", "max_throughput_packed", "min_cost_packed",
                           "fifo_packed", "gandiva"}) {
    EXPECT_TRUE(ReadsPairs(name)) << name;
  }
  for (const char* name : {"max_min_fairness_perf", "min_makespan", "fifo", "x_packed"}) {
    EXPECT_FALSE(ReadsPairs(name)) << name;
  }
}

TEST(GavelFifo, PerfTakesTheFastestTypeInArrivalOrder) {
  // a takes fast (4 > 1), b the slow GPU left, c finds no room.
  const Allocation a = Solve("fifo_perf", ThreeJobs());
  EXPECT_EQ(a.x[0][0], 1.0);
  EXPECT_EQ(a.x[1][1], 1.0);
  EXPECT_EQ(a.x[2][0] + a.x[2][1], 0.0);
  EXPECT_EQ(a.objective, 2);
}

TEST(GavelFifo, HeadOfLineBlocks) {
  // x (2 GPUs) takes A; y (2 GPUs) fits nowhere and stops the queue, so z (1 GPU) is not
  // placed though B has room.
  const AllocationProblem p = ProblemBuilder()
                                  .Type("A", 2)
                                  .Type("B", 1)
                                  .Job("x", {1, 1}, 2)
                                  .Job("y", {1, 1}, 2)
                                  .Job("z", {1, 1}, 1)
                                  .Get();
  for (const char* policy : {"fifo", "fifo_perf"}) {
    const Allocation a = Solve(policy, p);
    EXPECT_EQ(a.x[0][0], 1.0) << policy;
    EXPECT_EQ(a.x[2][0] + a.x[2][1], 0.0) << policy;
  }
}

TEST(GavelFifo, AgnosticDrawsTheTypeFromItsSeed) {
  std::set<int> first_types;
  for (int seed = 0; seed < 20; ++seed) {
    const std::map<std::string, std::string> opts = {{"seed", std::to_string(seed)}};
    const Allocation a = Solve("fifo", ThreeJobs(), opts);
    EXPECT_EQ(a.x, Solve("fifo", ThreeJobs(), opts).x);  // Same seed, same allocation.
    EXPECT_EQ(a.objective, 2);
    first_types.insert(a.x[0][0] == 1.0 ? 0 : 1);
  }
  EXPECT_EQ(first_types.size(), 2u);  // Both types drawn for a over 20 seeds.
}

TEST(GavelFifo, AgnosticKeepsHeldTypesAndPerfChoosesAfresh) {
  // ThreeJobs: one fast and one slow GPU (types 0, 1). b holds slow from an earlier call:
  // the agnostic FIFO keeps it there before the queue is served, so a, drawn among the types
  // with room, can only take fast, and c finds none. fifo_perf ignores held types: a takes
  // fast, b the slow GPU left.
  AllocationProblem p = ThreeJobs();
  p.jobs[1].held_type = 1;
  for (int seed = 0; seed < 5; ++seed) {
    const Allocation a = Solve("fifo", p, {{"seed", std::to_string(seed)}});
    EXPECT_EQ(a.x[1][1], 1.0) << seed;
    EXPECT_EQ(a.x[0][0], 1.0) << seed;
    EXPECT_EQ(a.x[2][0] + a.x[2][1], 0.0) << seed;
  }
  p.jobs[1].held_type = 0;  // Held on fast: a gets slow.
  EXPECT_EQ(Solve("fifo", p).x[0][1], 1.0);
  EXPECT_EQ(Solve("fifo_perf", p).x[0][0], 1.0);
  p.jobs[1].held_type = 2;  // No such type.
  EXPECT_FALSE(Validate(p).ok());
}

// Two single GPUs. q = steps / throughput: a (100 steps at 1 / 0.5 steps/s) 100 s fast, 200 s
// slow; b (300 at 1 / 1) 300 s both; c (50 at 1 / 0.25) 50 s fast, 200 s slow. Oldest first:
// a (30 s waiting), b (20 s), c (10 s).
AllocationProblem AlloxJobs() {
  AllocationProblem p = ProblemBuilder()
                            .Type("fast", 1)
                            .Type("slow", 1)
                            .Job("a", {1, 0.5}, 1, 100)
                            .Job("b", {1, 1}, 1, 300)
                            .Job("c", {1, 0.25}, 1, 50)
                            .Get();
  p.jobs[0].time_since_arrival = 30;
  p.jobs[1].time_since_arrival = 20;
  p.jobs[2].time_since_arrival = 10;
  return p;
}

TEST(GavelAllox, DefaultAlphaMatchesTheOldestJobsOnePerGpu) {
  // alpha 0.3: max(2 GPUs, 0.3 x 3) = 2 candidates, a and b. a fast + b slow: 100 + 300 = 400;
  // a slow + b fast: 500; both on one GPU: at best 100 + 2 x 300 or 300 + 2 x 100 = 500.
  const Allocation a = Solve("allox", AlloxJobs());
  EXPECT_NEAR(a.objective, 400, 1e-6);
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{1, 0}, {0, 1}, {0, 0}}));
}

TEST(GavelAllox, QueueHeadsRunFirst) {
  // alpha 1: all three. b alone on slow (300) and c then a on fast (c in position 2:
  // 2 x 50, a in position 1: 100) = 500; every other split costs more (a alone on slow:
  // 200 + 300 + 2 x 50 = 600; all on fast: 300 + 2 x 100 + 3 x 50 = 650; ...). c heads the
  // fast queue and b the slow one; a waits.
  const Allocation a = Solve("allox", AlloxJobs(), {{"alpha", "1"}});
  EXPECT_NEAR(a.objective, 500, 1e-6);
  EXPECT_EQ(a.x, (std::vector<std::vector<double>>{{0, 0}, {0, 1}, {1, 0}}));
  EXPECT_FALSE(Allocate("allox", AlloxJobs(), {{"alpha", "0"}}).ok());
  AllocationProblem multi = AlloxJobs();
  multi.types[0].gpus = 2;
  multi.jobs[0].scale_factor = 2;
  const Result<Allocation> r = Allocate("allox", multi);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("single-GPU jobs only"), std::string::npos);
}

TEST(GavelRegistry, UnknownPolicyAndOptionAreRefused) {
  Result<Allocation> r = Allocate("lottery", ThreeJobs());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("max_min_fairness_perf"), std::string::npos);
  r = Allocate("fifo", ThreeJobs(), {{"sede", "1"}});
  EXPECT_FALSE(r.ok());
}

TEST(GavelValidate, RefusesJobsThatRunNowhere) {
  const AllocationProblem p = ProblemBuilder().Type("g", 1).Job("big", {1}, 2).Get();
  const Status s = Validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("job 'big' runs on no GPU type"), std::string::npos);
}

// --- The command --------------------------------------------------------------------

const char kCluster[] = "type,gpus,cost_per_hour\nfast,1,3\nslow,1,1\n";
const char kJobs[] =
    "job,scale_factor,steps_left,throughput_fast,throughput_slow\n"
    "a,1,1000,4,1\nb,1,1000,4,1\nc,1,1000,2,2\n";

std::string Objective(const std::string& output) {
  for (const std::string& line : Lines(output)) {
    if (line.rfind("# objective=", 0) == 0) return line.substr(12, line.find(' ', 12) - 12);
  }
  return "";
}

TEST(GavelCli, AllocatePrintsTheAllocationAndObjective) {
  const std::string cluster = WriteTempFile("gavel_cluster.csv", kCluster);
  const std::string jobs = WriteTempFile("gavel_jobs.csv", kJobs);
  const auto run = [&](const std::string& policy) {
    return RunCli("gavel allocate --policy " + policy + " --jobs " + jobs + " --cluster " + cluster);
  };
  auto o = run("max_min_fairness_perf");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::vector<std::string> lines = Lines(o.output);
  ASSERT_EQ(lines.size(), 8u);  // Header, 3 jobs x 2 types, objective.
  EXPECT_EQ(lines[0], "job,type,fraction");
  EXPECT_EQ(lines[6].substr(0, 7), "c,slow,");
  EXPECT_NEAR(std::stod(lines[6].substr(7)), 5.0 / 6, 1e-9);
  EXPECT_NEAR(std::stod(Objective(o.output)), 5.0 / 6, 1e-9);
  o = run("max_min_fairness");  // The centre: within 1e-7 of the optimum.
  EXPECT_NEAR(std::stod(Objective(o.output)), 2.0 / 3, 1e-6);
  o = run("max_throughput");
  EXPECT_NEAR(std::stod(Objective(o.output)), 6, 1e-9);
  o = run("min_cost");
  EXPECT_NEAR(std::stod(Objective(o.output)), 10.0 / 3, 1e-9);
  o = run("finish_time_fairness_perf");
  EXPECT_NEAR(std::stod(Objective(o.output)), 0.8, 1e-5);
  o = run("fifo_perf");
  EXPECT_EQ(Objective(o.output), "2");
  o = RunCli("gavel policies");
  EXPECT_NE(o.output.find("min_makespan"), std::string::npos);
}

TEST(GavelCli, PairsFileForThePackedPolicy) {
  const std::string cluster = WriteTempFile("gavel_cluster_p.csv", "type,gpus\ng,1\n");
  const std::string jobs = WriteTempFile("gavel_jobs_p.csv", "job,scale_factor,throughput_g\na,1,1\nb,1,1\n");
  const std::string pairs = WriteTempFile(
      "gavel_pairs.csv", "job_a,job_b,type,throughput_a,throughput_b\na,b,g,0.8,0.8\n");
  auto o = RunCli("gavel allocate --policy max_min_fairness_packed --jobs " + jobs + " --cluster " +
                  cluster + " --pairs " + pairs);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("a+b,g,1\n"), std::string::npos) << o.output;
  EXPECT_NEAR(std::stod(Objective(o.output)), 0.8, 1e-9);
  o = RunCli("gavel allocate --policy max_min_fairness --jobs " + jobs + " --cluster " + cluster +
             " --pairs " + pairs);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("--pairs is read by the _packed policies and gandiva only"), std::string::npos);
  const std::string bad = WriteTempFile(
      "gavel_bad_pairs.csv", "job_a,job_b,type,throughput_a,throughput_b\na,z,g,0.8,0.8\n");
  o = RunCli("gavel allocate --policy max_min_fairness_packed --jobs " + jobs + " --cluster " +
             cluster + " --pairs " + bad);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("gavel_bad_pairs.csv:2: field 'job_b': 'z' is not a job"),
            std::string::npos)
      << o.output;
}

// The packed variants through the command, on PackedPair's files (optima worked out above).
TEST(GavelCli, PackedVariantsPrintThePairsTime) {
  const std::string cluster =
      WriteTempFile("gavel_cluster_pp.csv", "type,gpus,cost_per_hour\nfast,1,3\nslow,1,1\n");
  const std::string jobs = WriteTempFile(
      "gavel_jobs_pp.csv",
      "job,scale_factor,steps_left,throughput_fast,throughput_slow\na,1,3600,1,0.5\nb,1,3600,1,0.5\n");
  const std::string pairs = WriteTempFile(
      "gavel_pairs_pp.csv", "job_a,job_b,type,throughput_a,throughput_b\na,b,fast,0.9,0.9\n");
  const auto run = [&](const std::string& policy) {
    auto o = RunCli("gavel allocate --policy " + policy + " --jobs " + jobs + " --cluster " +
                    cluster + " --pairs " + pairs);
    EXPECT_EQ(o.exit_code, 0) << policy << ": " << o.output;
    return o.output;
  };
  std::string out = run("min_makespan_packed");
  EXPECT_EQ(Objective(out), "4005.859375");
  EXPECT_NE(out.find("\na+b,fast,"), std::string::npos) << out;
  out = run("finish_time_fairness_packed");
  EXPECT_NEAR(std::stod(Objective(out)), 5.0 / 6, 1e-5);
  out = run("max_throughput_packed");
  EXPECT_NEAR(std::stod(Objective(out)), 1.8, 1e-9);
  EXPECT_NE(out.find("\na+b,fast,1\n"), std::string::npos) << out;
  out = run("min_cost_packed");
  EXPECT_NEAR(std::stod(Objective(out)), 5.0 / 6, 1e-9);
  // fifo_packed: a takes fast, b slow (the fastest with room); nothing is left to pack.
  out = run("fifo_packed");
  EXPECT_EQ(Objective(out), "2");
  EXPECT_NE(out.find("\na+b,fast,0\n"), std::string::npos) << out;
}

// TwoEntities and SloJobs through the command (optima worked out above).
TEST(GavelCli, EntityWeightsAndDeadlines) {
  const std::string cluster = WriteTempFile("gavel_cluster_e.csv", kCluster);
  const std::string jobs = WriteTempFile(
      "gavel_jobs_e.csv",
      "job,scale_factor,weight,entity,throughput_fast,throughput_slow\n"
      "x,1,3,A,1,1\ny,1,1,A,1,0\nz,1,1,B,1,0\n");
  const auto run = [&](const std::string& policy, const std::string& weights) {
    return RunCli("gavel allocate --policy " + policy + " --jobs " + jobs + " --cluster " +
                  cluster + (weights.empty() ? "" : " --entity-weights " + weights));
  };
  auto o = run("max_min_fairness_water_filling_perf", "A=1,B=1");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NEAR(std::stod(Objective(o.output)), 4.0 / 3, 1e-9);
  const auto fraction = [&](const std::string& prefix) {
    for (const std::string& line : Lines(o.output)) {
      if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size()));
    }
    return -1.0;
  };
  EXPECT_NEAR(fraction("y,fast,"), 0.25, 1e-6) << o.output;
  EXPECT_NEAR(fraction("z,fast,"), 0.75, 1e-6) << o.output;
  EXPECT_NE(o.output.find("lp_solves=7\n"), std::string::npos) << o.output;
  // Bad entity weights, and entities where the policy does not read them: one line each.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"A=1", "gavel_jobs_e.csv:4: field 'entity': 'B' has no entity weight"},
      {"A=1,B=0", "--entity-weights: entity weights: 'B=0': the weight must be a number > 0"},
      {"A=1,B", "--entity-weights: entity weights: 'B': expected name=weight"},
      {"A=1,B=1,A=2", "'A=2': entity listed twice"},
      {"A=1,B=1,C=1", "entity weights: 'C': no job of "},
  };
  for (const auto& [weights, expect] : bad) {
    o = run("max_min_fairness_water_filling_perf", weights);
    EXPECT_EQ(o.exit_code, 1) << weights;
    EXPECT_NE(o.output.find(expect), std::string::npos) << o.output;
    EXPECT_EQ(Lines(o.output).size(), 1u) << o.output;
  }
  o = run("max_min_fairness_water_filling_perf", "");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("gavel_jobs_e.csv:2: field 'entity': 'A' has no entity weight"),
            std::string::npos) << o.output;
  o = run("max_min_fairness_perf", "A=1,B=1");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("--entity-weights is read by the water-filling policies only"),
            std::string::npos) << o.output;

  // Deadlines (SloJobs): d needs 0.5 steps/s, then 1.5 (infeasible: dropped).
  const std::string slo_jobs = [&](const std::string& d_steps) {
    return WriteTempFile("gavel_jobs_slo.csv",
                         "job,scale_factor,steps_left,slo_s,throughput_fast,throughput_slow\n"
                         "a,1,1000,,4,1\nc,1,1000,,2,2\nd,1," + d_steps + ",1000,1,1\n");
  }("500");
  const auto slo = [&](const std::string& policy, const std::string& file) {
    return RunCli("gavel allocate --policy " + policy + " --jobs " + file + " --cluster " + cluster);
  };
  o = slo("max_throughput", slo_jobs);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NEAR(std::stod(Objective(o.output)), 5.5, 1e-9);
  EXPECT_NE(o.output.find("\nd,slow,0.5\n"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(" lp_solves=1 slos=kept\n"), std::string::npos) << o.output;
  const std::string late = WriteTempFile(
      "gavel_jobs_late.csv",
      "job,scale_factor,steps_left,slo_s,throughput_fast,throughput_slow\n"
      "a,1,1000,,4,1\nc,1,1000,,2,2\nd,1,1500,1000,1,1\n");
  o = slo("max_throughput", late);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(Objective(o.output), "6");
  EXPECT_NE(o.output.find(" lp_solves=2 slos=dropped\n"), std::string::npos) << o.output;
  o = slo("max_min_fairness_perf", slo_jobs);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("job 'd' has a deadline (slo_s)"), std::string::npos) << o.output;
  const std::string zero = WriteTempFile(
      "gavel_jobs_slo0.csv",
      "job,scale_factor,steps_left,slo_s,throughput_fast,throughput_slow\na,1,1000,0,4,1\n");
  o = slo("max_throughput", zero);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("gavel_jobs_slo0.csv:2: field 'slo_s': '0' must be > 0"),
            std::string::npos) << o.output;
  const std::string no_steps = WriteTempFile(
      "gavel_jobs_slo1.csv",
      "job,scale_factor,slo_s,throughput_fast,throughput_slow\na,1,100,4,1\n");
  o = slo("max_throughput", no_steps);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("gavel_jobs_slo1.csv:2: field 'slo_s': '100' needs steps_left > 0"),
            std::string::npos) << o.output;
}

TEST(GavelCli, BadInputNamesFileLineAndField) {
  const std::string cluster = WriteTempFile("gavel_cluster2.csv", kCluster);
  const auto run = [&](const std::string& jobs_text, const std::string& cluster_path) {
    const std::string jobs = WriteTempFile("gavel_bad_jobs.csv", jobs_text);
    return RunCli("gavel allocate --policy max_min_fairness --jobs " + jobs + " --cluster " +
                  cluster_path);
  };
  struct Case {
    std::string jobs;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"job,scale_factor,throughput_fast,throughput_slow\na,1,4,x\n",
       "gavel_bad_jobs.csv:2: field 'throughput_slow': 'x'"},
      {"job,scale_factor,throughput_fast\na,1,4\n", "missing column 'throughput_slow'"},
      {"job,scale_factor,throughput_fast,throughput_slow,throughput_k80\na,1,4,1,1\n",
       "column 'throughput_k80': no GPU type 'k80'"},
      {"job,scale_factor,throughput_fast,throughput_slow\na,0,4,1\n",
       "gavel_bad_jobs.csv:2: field 'scale_factor'"},
      {"job,scale_factor,throughput_fast,throughput_slow\na,2,4,1\n",
       "gavel_bad_jobs.csv:2: field 'scale_factor': '2' the job runs on no GPU type"},
      {"job,scale_factor,throughput_fast,throughput_slow\na,1,4,1\na,1,4,1\n",
       "gavel_bad_jobs.csv:3: field 'job': 'a' is listed twice"},
      {"job,scale_factor,weight,throughput_fast,throughput_slow\na,1,0,4,1\n",
       "gavel_bad_jobs.csv:2: field 'weight'"},
      {"job,scale_factor,throughput_fast,throughput_slow\n", "no jobs"},
  };
  for (const Case& c : cases) {
    const auto o = run(c.jobs, cluster);
    EXPECT_EQ(o.exit_code, 1) << c.jobs;
    EXPECT_NE(o.output.find(c.expect), std::string::npos) << o.output;
    EXPECT_EQ(Lines(o.output).size(), 1u) << o.output;
  }
  const std::string bad_cluster = WriteTempFile("gavel_bad_cluster.csv", "type,gpus\nfast,0\n");
  auto o = run(kJobs, bad_cluster);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("gavel_bad_cluster.csv:2: field 'gpus'"), std::string::npos) << o.output;
  o = run(kJobs, "/nonexistent/cluster.csv");
  EXPECT_EQ(o.exit_code, 1);
  // A policy that needs steps on a file without them.
  const std::string no_steps = WriteTempFile(
      "gavel_no_steps.csv", "job,scale_factor,throughput_fast,throughput_slow\na,1,4,1\n");
  o = RunCli("gavel allocate --policy min_makespan --jobs " + no_steps + " --cluster " + cluster);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("min_makespan: job 'a': steps_left must be > 0"), std::string::npos);
}

// --- The round selection core -------------------------------------------------------

TEST(GavelRound, PriorityIsTheShareOfTheTypesTime) {
  // One fast, one slow GPU. Since the last reset a has run 100 s on fast, b 300 s: fast's
  // time W = 400, so a's priority is 0.5 / (100/400) = 2 and b's 0.5 / (300/400) = 0.67
  // (a share of the job's own time would tie them at 0.5 / 1). a takes fast; c (x_slow 1,
  // the only one on slow) takes slow; b waits.
  RoundInput in;
  in.x = {{0.5, 0}, {0.5, 0}, {0, 1}};
  in.received = {{100, 0}, {300, 0}, {0, 300}};
  in.scale_factors = {1, 1, 1};
  in.gpus = {1, 1};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1, 1}));
  // W given explicitly (Gavel keeps the time of jobs that have left in it): the same order.
  in.type_time = {1000, 300};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1, 1}));
  // A pair with no time yet is boosted to x * 1e9: b (0 s on fast) goes first.
  in.type_time.clear();
  in.received = {{100, 0}, {0, 0}, {0, 300}};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{-1, 0, 1}));
}

TEST(GavelRound, TiesGoToTheLargerDeficitThenAllocationThenArrival) {
  // One GPU; a and b both at priority 0.5 / (100/200) = 1.
  RoundInput in;
  in.x = {{0.5}, {0.5}};
  in.received = {{100}, {100}};
  in.scale_factors = {1, 1};
  in.gpus = {1};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1}));  // Arrival order.
  in.deficit = {{0}, {30}};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{-1, 0}));  // b is owed more.
}

TEST(GavelRound, TypesAreWalkedInOrderAndJobsFillWhatIsLeft) {
  // a (x = 0.2 fast, 0.8 slow) alone: the first type walked takes it, whatever its share.
  RoundInput in;
  in.x = {{0.2, 0.8}};
  in.received = {{50, 50}};
  in.scale_factors = {1};
  in.gpus = {1, 1};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0}));
  in.type_order = {1, 0};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{1}));
  // a and b both x = 1 on fast: b waits, unless zero-allocation pairs may fill (can_run):
  // then b takes the idle slow GPU at priority 0.
  in = RoundInput();
  in.x = {{1, 0}, {1, 0}};
  in.received = {{50, 50}, {50, 50}};
  in.scale_factors = {1, 1};
  in.gpus = {1, 1};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1}));
  in.can_run = {{true, true}, {true, true}};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, 1}));
  in.can_run = {{true, true}, {true, false}};  // b cannot run on slow.
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1}));
}

TEST(GavelRound, ACombinationIsSkippedWhenOneOfItsJobsIsTaken) {
  // Two GPUs of one type; rows a, b, c alone and the pair a+b (members 0 and 1). The pair
  // has the highest priority (0.6 / (50/200) = 2.4) and takes one GPU; a and b (priority
  // 0.2 / (50/200) = 0.8 each) are then skipped, being in it; c (0.4 / (50/200) = 1.6,
  // walked second) takes the other GPU.
  RoundInput in;
  in.x = {{0.2}, {0.2}, {0.4}, {0.6}};
  in.received = {{50}, {50}, {50}, {50}};
  in.scale_factors = {1, 1, 1, 1};
  in.gpus = {2};
  in.members = {{0}, {1}, {2}, {0, 1}};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{-1, -1, 0, 0}));
  // Without members every row is its own job: the pair and c run, then a (arrival order).
  in.members.clear();
  EXPECT_EQ(SelectRound(in), (std::vector<int>{-1, -1, 0, 0}));
  in.gpus = {3};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1, 0, 0}));
  in.members = {{0}, {1}, {2}, {0, 1}};  // With them, a and b stay out: one GPU idles.
  EXPECT_EQ(SelectRound(in), (std::vector<int>{-1, -1, 0, 0}));
}

TEST(GavelRound, AJobThatDoesNotFitIsSkipped) {
  // Three GPUs: d (2 GPUs) first, e (2 GPUs) does not fit in the one left, f (1 GPU) does.
  RoundInput in;
  in.x = {{1}, {0.9}, {0.5}};
  in.received = {{0}, {0}, {0}};
  in.scale_factors = {2, 2, 1};
  in.gpus = {3};
  EXPECT_EQ(SelectRound(in), (std::vector<int>{0, -1, 0}));
}

}  // namespace
}  // namespace schedkit::gavel
