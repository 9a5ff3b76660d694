// MuriBlossomMatching (the --compat muri matcher) against brute force on small random
// graphs: up to Muri's 1e-5 relative comparison tolerance it is a maximum-weight matching.
#include "mechanisms/muri_matching.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "mechanisms/brute_force_matching.h"

namespace schedkit {
namespace {

using testing::BruteForceMatchingWeight;

using Matrix = std::vector<std::vector<double>>;

TEST(MuriMatching, EmptyAndTrivial) {
  EXPECT_EQ(MuriBlossomMatching({}), std::vector<int>{});
  EXPECT_EQ(MuriBlossomMatching(Matrix(3, std::vector<double>(3, 0))),
            (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(MuriBlossomMatching({{0, 0.5}, {0.5, 0}}), (std::vector<int>{1, 0}));
  EXPECT_EQ(MuriBlossomMatching({{0, -0.5}, {-0.5, 0}}), (std::vector<int>{-1, -1}));
}

TEST(MuriMatching, MaximisesWeightNotGreedy) {
  const Matrix path = {{0, 1, 0, 0}, {1, 0, 1.5, 0}, {0, 1.5, 0, 1}, {0, 0, 1, 0}};
  EXPECT_EQ(MuriBlossomMatching(path), (std::vector<int>{1, 0, 3, 2}));
  const Matrix heavy = {{0, 1, 0, 0}, {1, 0, 2.5, 0}, {0, 2.5, 0, 1}, {0, 0, 1, 0}};
  EXPECT_EQ(MuriBlossomMatching(heavy), (std::vector<int>{-1, 2, 1, -1}));
}

// Odd cycles force blossoms (shrink and expand).
TEST(MuriMatching, AgreesWithBruteForceOnRandomGraphs) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 600; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10);
    std::uniform_real_distribution<double> weight(0.1, 1.0);
    Matrix w(n, std::vector<double>(n, 0));
    for (int u = 0; u < n; ++u) {
      for (int v = u + 1; v < n; ++v) {
        if (rng() % 3 == 0) continue;
        w[u][v] = w[v][u] = weight(rng);
      }
    }
    const std::vector<int> mate = MuriBlossomMatching(w);
    ASSERT_EQ(mate.size(), static_cast<size_t>(n));
    double total = 0;
    for (int u = 0; u < n; ++u) {
      if (mate[u] < 0) continue;
      ASSERT_EQ(mate[mate[u]], u) << "trial " << trial;
      ASSERT_GT(w[u][mate[u]], 0) << "trial " << trial << ": matched along a missing edge";
      if (u < mate[u]) total += w[u][mate[u]];
    }
    std::vector<bool> used(n, false);
    const double best = BruteForceMatchingWeight(n, w, used, 0);
    EXPECT_NEAR(total, best, 1e-4 * (best + 1)) << "trial " << trial << " n=" << n;
  }
}

// Muri's weights come from a few dozen job types, so most weights tie. Random matrices
// drawn from a handful of values stay maximum up to the
// 1e-5 tolerance, the flat overload agrees with the nested one, and a workspace reused
// after larger and smaller graphs answers as a fresh one (a new thread's) does.
TEST(MuriMatching, TieHeavyGraphsAndWorkspaceReuse) {
  std::mt19937_64 rng(99);
  std::vector<Matrix> graphs;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % (trial % 3 == 0 ? 60 : 10));
    const int kinds = 1 + static_cast<int>(rng() % 4);
    std::vector<double> values(kinds * kinds);
    for (int a = 0; a < kinds; ++a) {
      for (int b = a; b < kinds; ++b) {
        values[a * kinds + b] = values[b * kinds + a] = rng() % 4 == 0 ? 0 : 0.25 * (1 + rng() % 3);
      }
    }
    std::vector<int> kind(n);
    for (int& k : kind) k = static_cast<int>(rng() % kinds);
    Matrix w(n, std::vector<double>(n, 0));
    for (int u = 0; u < n; ++u) {
      for (int v = 0; v < n; ++v) {
        if (u != v) w[u][v] = values[kind[u] * kinds + kind[v]];
      }
    }
    graphs.push_back(std::move(w));
  }
  std::vector<std::vector<int>> reused;
  for (const Matrix& w : graphs) reused.push_back(MuriBlossomMatching(w));
  for (size_t i = 0; i < graphs.size(); ++i) {
    const Matrix& w = graphs[i];
    const int n = static_cast<int>(w.size());
    std::vector<int> fresh;
    std::thread([&] { fresh = MuriBlossomMatching(w); }).join();
    ASSERT_EQ(reused[i], fresh) << "graph " << i;
    std::vector<double> flat;
    for (const auto& row : w) flat.insert(flat.end(), row.begin(), row.end());
    ASSERT_EQ(MuriBlossomMatching(n, flat), fresh) << "graph " << i;
    if (n > 10) continue;
    double total = 0;
    for (int u = 0; u < n; ++u) {
      if (fresh[u] > u) total += w[u][fresh[u]];
    }
    std::vector<bool> used(n, false);
    const double best = BruteForceMatchingWeight(n, w, used, 0);
    EXPECT_NEAR(total, best, 1e-4 * (best + 1)) << "graph " << i;
  }
}

}  // namespace
}  // namespace schedkit
