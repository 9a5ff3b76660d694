// MaxWeightMatching against brute force on small random graphs, and against LEMON on a
// ListGraph. Compiled as C++17 (CMakeLists.txt), as LEMON's headers need.
#include "mechanisms/matching.h"

#include <gtest/gtest.h>
#include <lemon/list_graph.h>
#include <lemon/matching.h>

#include "mechanisms/brute_force_matching.h"

#include <algorithm>
#include <random>

namespace schedkit {
namespace {

using testing::BruteForceMatchingWeight;

TEST(Matching, EmptyAndTrivial) {
  EXPECT_EQ(MaxWeightMatching(0, {}), std::vector<int>{});
  EXPECT_EQ(MaxWeightMatching(3, {}), (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(MaxWeightMatching(2, {{0, 1, 0.5}}), (std::vector<int>{1, 0}));
  EXPECT_EQ(MaxWeightMatching(2, {{0, 1, -0.5}}), (std::vector<int>{-1, -1}));
}

// A path a-b-c-d with weights 1, 1.5, 1: the heavy middle edge loses to the two outer ones.
TEST(Matching, MaximisesWeightNotGreedy) {
  EXPECT_EQ(MaxWeightMatching(4, {{0, 1, 1}, {1, 2, 1.5}, {2, 3, 1}}), (std::vector<int>{1, 0, 3, 2}));
  // With a heavier middle, one edge wins.
  EXPECT_EQ(MaxWeightMatching(4, {{0, 1, 1}, {1, 2, 2.5}, {2, 3, 1}}),
            (std::vector<int>{-1, 2, 1, -1}));
}

TEST(Matching, AgreesWithBruteForceOnRandomGraphs) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9);
    std::uniform_real_distribution<double> weight(0.0, 1.0);
    std::vector<std::vector<double>> w(n, std::vector<double>(n, 0));
    std::vector<WeightedEdge> edges;
    for (int u = 0; u < n; ++u) {
      for (int v = u + 1; v < n; ++v) {
        if (rng() % 3 == 0) continue;  // Sparse-ish.
        const double x = weight(rng);
        w[u][v] = w[v][u] = x;
        edges.push_back({u, v, x});
      }
    }
    const std::vector<int> mate = MaxWeightMatching(n, edges);
    double total = 0;
    for (int u = 0; u < n; ++u) {
      if (mate[u] < 0) continue;
      ASSERT_EQ(mate[mate[u]], u) << "trial " << trial;
      ASSERT_GT(w[u][mate[u]], 0) << "trial " << trial << ": matched along a missing edge";
      if (u < mate[u]) total += w[u][mate[u]];
    }
    std::vector<bool> used(n, false);
    EXPECT_NEAR(total, BruteForceMatchingWeight(n, w, used, 0), 1e-9) << "trial " << trial << " n=" << n;
  }
}

// One matcher reused over graphs of every size, in an order that grows and shrinks them,
// answers exactly what a fresh MaxWeightMatching does: the choice among tied matchings
// too (weights from a few values make ties common), and after graphs with no edges.
TEST(Matching, ReusedMatcherAnswersAsAFreshOne) {
  std::mt19937_64 rng(2026);
  MaxWeightMatcher matcher;
  int nontrivial = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int n = static_cast<int>(rng() % 24);
    const int density = 1 + static_cast<int>(rng() % 4);  // 1 in `density` pairs has no edge.
    std::vector<WeightedEdge> edges;
    for (int u = 0; u < n; ++u) {
      for (int v = u + 1; v < n; ++v) {
        if (rng() % density == 0 && density > 1) continue;
        const double w = static_cast<double>(rng() % 4) - 0.5;  // -0.5 (ignored) .. 2.5.
        edges.push_back({u, v, w});
      }
    }
    if (rng() % 2) std::shuffle(edges.begin(), edges.end(), rng);
    const std::vector<int> fresh = MaxWeightMatching(n, edges);
    ASSERT_EQ(matcher.Match(n, edges), fresh) << "trial " << trial << " n=" << n;
    nontrivial += n >= 4 && !edges.empty();
  }
  EXPECT_GT(nontrivial, 1000);
  MaxWeightMatcher copy = matcher;  // Copies start empty and answer the same.
  EXPECT_EQ(copy.Match(4, {{0, 1, 1}, {1, 2, 1.5}, {2, 3, 1}}), (std::vector<int>{1, 0, 3, 2}));
}

// The matcher runs LEMON on a SmartGraph (matching.cc says why). With the edges grouped by
// u in ascending order it must answer exactly as LEMON on a ListGraph built the plain way
// from the same edges, tied choices included: Muri's clean-model outputs were recorded
// with the ListGraph. Weights from a few values make ties common; edges within a u come in
// any order, some with u > v.
std::vector<int> OnAListGraph(int n, const std::vector<WeightedEdge>& edges) {
  using WeightMap = lemon::ListGraph::EdgeMap<double>;
  lemon::ListGraph g;
  WeightMap weight(g);
  std::vector<lemon::ListGraph::Node> nodes;
  for (int i = 0; i < n; ++i) nodes.push_back(g.addNode());
  for (const WeightedEdge& e : edges) {
    if (e.weight > 0) weight[g.addEdge(nodes[e.u], nodes[e.v])] = e.weight;
  }
  lemon::MaxWeightedMatching<lemon::ListGraph, WeightMap> matching(g, weight);
  matching.run();
  std::vector<int> mate(n, -1);
  for (int i = 0; i < n; ++i) {
    const lemon::ListGraph::Node m = matching.mate(nodes[i]);
    if (m != lemon::INVALID) mate[i] = g.id(m);
  }
  return mate;
}

TEST(Matching, RunsAsOnAListGraph) {
  std::mt19937_64 rng(29);
  MaxWeightMatcher matcher;
  int tied = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 30);
    const int kinds = 1 + static_cast<int>(rng() % 6);  // Nodes of a kind are alike (Muri).
    std::vector<int> kind(n);
    for (int& k : kind) k = static_cast<int>(rng() % kinds);
    std::vector<double> kind_weight(kinds * kinds);
    for (int a = 0; a < kinds; ++a) {
      for (int b = a; b < kinds; ++b) {
        const double w = static_cast<double>(rng() % 4) - 0.5;  // -0.5 (no edge) .. 2.5.
        kind_weight[a * kinds + b] = kind_weight[b * kinds + a] = w;
      }
    }
    std::vector<WeightedEdge> edges;
    for (int u = 0; u < n; ++u) {
      const size_t first = edges.size();
      for (int v = 0; v < n; ++v) {
        if (v == u || (v < u && rng() % 8 != 0)) continue;  // Mostly u < v; some u > v.
        edges.push_back({u, v, kind_weight[kind[u] * kinds + kind[v]]});
      }
      if (rng() % 2) std::shuffle(edges.begin() + first, edges.end(), rng);
    }
    const std::vector<int> mate = matcher.Match(n, edges);
    ASSERT_EQ(mate, OnAListGraph(n, edges)) << "trial " << trial << " n=" << n;
    tied += kinds < n / 2;
  }
  EXPECT_GT(tied, 1000);
}

}  // namespace
}  // namespace schedkit
