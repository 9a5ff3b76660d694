// MuriBlossomMatching (the --compat muri matcher) against brute force on small random
// graphs: up to Muri's 1e-5 relative comparison tolerance it is a maximum-weight matching.
#include "mechanisms/muri_matching.h"

#include <gtest/gtest.h>

#include "mechanisms/brute_force_matching.h"

#include <random>

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

}  // namespace
}  // namespace schedkit
