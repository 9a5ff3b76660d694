// MaxWeightMatchingByKind: the b-matching LP with odd-set cuts against brute force on
// small graphs (LP forced) and against LEMON's node blossom on Muri-sized ones.
#include "mechanisms/kind_matching.h"

#include <gtest/gtest.h>

#include <random>

#include "mechanisms/brute_force_matching.h"
#include "mechanisms/matching.h"

namespace schedkit {
namespace {

using testing::BruteForceMatchingWeight;

constexpr KindMatchingOptions kAlwaysLp{/*min_nodes_for_lp=*/0, /*max_kinds_for_lp=*/12};

struct KindedGraph {
  std::vector<int> kind;
  int num_kinds = 0;
  std::vector<double> weight;  // Symmetric, num_kinds x num_kinds.

  double W(int u, int v) const { return weight[kind[u] * num_kinds + kind[v]]; }
  std::vector<std::vector<double>> Dense() const {
    const int n = static_cast<int>(kind.size());
    std::vector<std::vector<double>> w(n, std::vector<double>(n, 0));
    for (int u = 0; u < n; ++u) {
      for (int v = 0; v < n; ++v) w[u][v] = u == v ? 0 : std::max(0.0, W(u, v));
    }
    return w;
  }
};

// Checks `mate` is a matching along edges of positive weight; returns its weight.
double MatchingWeight(const KindedGraph& g, const std::vector<int>& mate) {
  double total = 0;
  for (int u = 0; u < static_cast<int>(mate.size()); ++u) {
    if (mate[u] < 0) continue;
    EXPECT_EQ(mate[mate[u]], u);
    EXPECT_GT(g.W(u, mate[u]), 0) << "matched along a missing edge";
    if (u < mate[u]) total += g.W(u, mate[u]);
  }
  return total;
}

KindedGraph RandomGraph(std::mt19937_64& rng, int n, int kinds, int distinct_weights) {
  KindedGraph g;
  g.num_kinds = kinds;
  for (int u = 0; u < n; ++u) g.kind.push_back(static_cast<int>(rng() % kinds));
  g.weight.assign(kinds * kinds, 0);
  for (int a = 0; a < kinds; ++a) {
    for (int b = a; b < kinds; ++b) {
      // Some missing edges, and few distinct values so that optima tie.
      const double w = rng() % 5 == 0 ? 0 : 0.5 + 0.1 * static_cast<double>(rng() % distinct_weights);
      g.weight[a * kinds + b] = g.weight[b * kinds + a] = w;
    }
  }
  return g;
}

// Three kinds of one node each, all edges 1: the LP without odd-set rows takes half of
// each edge (1.5); the row for the three kinds cuts it to one edge.
TEST(KindMatching, OddSetRowCutsTheHalfIntegralTriangle) {
  KindedGraph g{{0, 1, 2}, 3, {0, 1, 1, 1, 0, 1, 1, 1, 0}};
  KindMatchingStats stats;
  const std::vector<int> mate = MaxWeightMatchingByKind(g.kind, 3, g.weight, kAlwaysLp, &stats);
  EXPECT_DOUBLE_EQ(MatchingWeight(g, mate), 1.0);
  EXPECT_GT(stats.lp_solves, 0);
  EXPECT_GT(stats.cuts, 0);
  EXPECT_FALSE(stats.fell_back);
}

// One kind, five nodes: two pairs, and the lowest-numbered nodes are paired first.
TEST(KindMatching, SameKindPairsGoToTheLowestNodes) {
  KindedGraph g{{0, 0, 0, 0, 0}, 1, {2.0}};
  const std::vector<int> mate = MaxWeightMatchingByKind(g.kind, 1, g.weight, kAlwaysLp);
  EXPECT_EQ(mate, (std::vector<int>{1, 0, 3, 2, -1}));
}

TEST(KindMatching, NoEdgesNoPairs) {
  EXPECT_EQ(MaxWeightMatchingByKind({0, 1, 0}, 2, {0, 0, 0, 0}, kAlwaysLp),
            (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(MaxWeightMatchingByKind({}, 0, {}, kAlwaysLp), std::vector<int>{});
}

TEST(KindMatching, AgreesWithBruteForceOnSmallGraphs) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10);
    const int kinds = 1 + static_cast<int>(rng() % 5);
    const KindedGraph g = RandomGraph(rng, n, kinds, 3);
    KindMatchingStats stats;
    const std::vector<int> mate = MaxWeightMatchingByKind(g.kind, kinds, g.weight, kAlwaysLp, &stats);
    std::vector<bool> used(n, false);
    EXPECT_NEAR(MatchingWeight(g, mate), BruteForceMatchingWeight(n, g.Dense(), used, 0), 1e-9)
        << "trial " << trial;
    EXPECT_FALSE(stats.fell_back) << "trial " << trial;
  }
}

// Muri-sized candidate sets (32-160 nodes, 2-12 kinds): the same total weight as LEMON's
// blossom on the nodes, answered by the LP.
TEST(KindMatching, AgreesWithTheNodeBlossomOnLargeGraphs) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 32 + static_cast<int>(rng() % 129);
    const int kinds = 2 + static_cast<int>(rng() % 11);
    const KindedGraph g = RandomGraph(rng, n, kinds, 1 + static_cast<int>(rng() % 6));
    KindMatchingStats stats;
    const std::vector<int> mate = MaxWeightMatchingByKind(g.kind, kinds, g.weight, {}, &stats);
    std::vector<WeightedEdge> edges;
    for (int u = 0; u < n; ++u) {
      for (int v = u + 1; v < n; ++v) edges.push_back({u, v, g.W(u, v)});
    }
    const double lemon = MatchingWeight(g, MaxWeightMatching(n, edges));
    EXPECT_NEAR(MatchingWeight(g, mate), lemon, 1e-9 * lemon) << "trial " << trial;
    EXPECT_GT(stats.lp_solves, 0) << "trial " << trial;
    EXPECT_FALSE(stats.fell_back) << "trial " << trial;
  }
}

// KindMatcher on a walk of candidate sets over one set of kinds (a kind's count moves by
// one per step, as Muri's queue does per event): every answer is exactly
// MaxWeightMatchingByKind's, including where weights tie (few distinct values, so that the
// optimum is not unique and no basis may be reused); with distinct weights most answers
// come from a remembered basis.
TEST(KindMatching, MatcherAnswersExactlyAsTheLpFromScratch) {
  std::mt19937_64 rng(11);
  for (const int distinct_weights : {0, 2, 3}) {  // 0: continuous weights.
    int reused = 0, steps = 0;
    for (int walk = 0; walk < 6; ++walk) {
      const int kinds = 3 + static_cast<int>(rng() % 6);
      KindedGraph g = RandomGraph(rng, 0, kinds, std::max(distinct_weights, 1));
      if (distinct_weights == 0) {
        for (int a = 0; a < kinds; ++a) {
          for (int b = a; b < kinds; ++b) {
            const double w = 0.5 + std::uniform_real_distribution<double>(0, 1)(rng);
            g.weight[a * kinds + b] = g.weight[b * kinds + a] = w;
          }
        }
      }
      std::vector<int> count(kinds);
      for (int& c : count) c = 4 + static_cast<int>(rng() % 12);
      KindMatcher matcher(kAlwaysLp);
      for (int step = 0; step < 150; ++step) {
        const int a = static_cast<int>(rng() % kinds);
        count[a] = std::max(1, count[a] + (rng() % 2 ? 1 : -1));
        g.kind.clear();
        for (int k = 0; k < kinds; ++k) g.kind.insert(g.kind.end(), count[k], k);
        std::shuffle(g.kind.begin(), g.kind.end(), rng);
        KindMatchingStats stats;
        const std::vector<int> mate = matcher.Match(g.kind, kinds, g.weight, &stats);
        ASSERT_EQ(mate, MaxWeightMatchingByKind(g.kind, kinds, g.weight, kAlwaysLp))
            << distinct_weights << " distinct weights, walk " << walk << ", step " << step;
        reused += stats.reused;
        ++steps;
        if (step == 100) {  // A copy remembers the same bases and answers the same.
          KindMatcher copy = matcher;
          EXPECT_EQ(copy.Match(g.kind, kinds, g.weight), mate);
        }
      }
    }
    if (distinct_weights == 0) {
      EXPECT_GT(reused, steps / 2) << "remembered bases answered " << reused << " of " << steps;
    }
  }
}

// Few nodes or many kinds: the node blossom answers, no LP.
TEST(KindMatching, SmallOrManyKindGraphsUseTheNodeBlossom) {
  std::mt19937_64 rng(3);
  for (const auto& [n, kinds] : {std::pair{10, 3}, std::pair{40, 13}}) {
    const KindedGraph g = RandomGraph(rng, n, kinds, 4);
    KindMatchingStats stats;
    MaxWeightMatchingByKind(g.kind, kinds, g.weight, {}, &stats);
    EXPECT_EQ(stats.lp_solves, 0) << n << " nodes, " << kinds << " kinds";
  }
}

}  // namespace
}  // namespace schedkit
