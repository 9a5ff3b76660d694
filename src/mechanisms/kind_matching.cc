// See kind_matching.h.
#include "mechanisms/kind_matching.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "mechanisms/lp.h"
#include "mechanisms/matching.h"

namespace schedkit {
namespace {

constexpr int kMaxCutRounds = 64;
constexpr int kMaxCutsPerRound = 16;
constexpr double kViolation = 1e-6;    // An odd-set row counts as violated above this.
constexpr double kIntegrality = 1e-6;  // How far from an integer a pair count may be.

// One LP column: x_ab, the number of pairs of a node of kind a with one of kind b (a <= b).
struct PairColumn {
  int a = 0;
  int b = 0;
  int var = 0;
};

std::vector<int> NodeBlossom(const std::vector<int>& kind, int num_kinds,
                             const std::vector<double>& weight) {
  const int n = static_cast<int>(kind.size());
  std::vector<WeightedEdge> edges;
  for (int u = 0; u < n; ++u) {
    for (int v = u + 1; v < n; ++v) {
      const int a = std::min(kind[u], kind[v]);
      const int b = std::max(kind[u], kind[v]);
      const double w = weight[static_cast<size_t>(a) * num_kinds + b];
      if (w > 0) edges.push_back({u, v, w});
    }
  }
  return MaxWeightMatching(n, edges);
}

// m(U): the nodes of the kinds in set `u` (a bit mask).
int64_t NodesIn(uint32_t u, const std::vector<int>& count) {
  int64_t nodes = 0;
  for (size_t a = 0; a < count.size(); ++a) {
    if (u & (uint32_t{1} << a)) nodes += count[a];
  }
  return nodes;
}

// Sets of kinds (bit masks) whose odd-set row x(E[U]) <= (m(U) - 1) / 2 the solution `x`
// violates, most violated first (ties by mask), at most kMaxCutsPerRound.
std::vector<uint32_t> ViolatedOddSets(const std::vector<PairColumn>& columns,
                                      const std::vector<double>& x, const std::vector<int>& count,
                                      const std::vector<bool>& has_row) {
  const int k = static_cast<int>(count.size());
  const uint32_t full = (uint32_t{1} << k);
  // inside[U] = x(E[U]), summed over subsets (sum over subsets transform).
  std::vector<double> inside(full, 0.0);
  for (size_t i = 0; i < columns.size(); ++i) {
    inside[(uint32_t{1} << columns[i].a) | (uint32_t{1} << columns[i].b)] += x[i];
  }
  for (int bit = 0; bit < k; ++bit) {
    for (uint32_t u = 0; u < full; ++u) {
      if (u & (uint32_t{1} << bit)) inside[u] += inside[u ^ (uint32_t{1} << bit)];
    }
  }
  std::vector<std::pair<double, uint32_t>> violated;
  for (uint32_t u = 1; u < full; ++u) {
    if (has_row[u]) continue;
    const int64_t nodes = NodesIn(u, count);
    if (nodes % 2 == 0) continue;
    const double excess = inside[u] - static_cast<double>((nodes - 1) / 2);
    if (excess > kViolation) violated.emplace_back(-excess, u);
  }
  std::sort(violated.begin(), violated.end());
  if (violated.size() > kMaxCutsPerRound) violated.resize(kMaxCutsPerRound);
  std::vector<uint32_t> sets;
  for (const auto& [unused, u] : violated) sets.push_back(u);
  return sets;
}

// Optimal pair counts per column, or nothing if CLP fails or does not reach an integral
// optimum within kMaxCutRounds.
std::optional<std::vector<int64_t>> SolvePairCounts(const std::vector<PairColumn>& columns,
                                                    LinearProgram* lp,
                                                    const std::vector<int>& count,
                                                    KindMatchingStats* stats) {
  const int k = static_cast<int>(count.size());
  std::vector<bool> has_row(size_t{1} << k, false);
  std::vector<double> x(columns.size());
  for (int round = 0; round < kMaxCutRounds; ++round) {
    if (lp->Solve() != LpStatus::kOptimal) return std::nullopt;
    ++stats->lp_solves;
    for (size_t i = 0; i < columns.size(); ++i) x[i] = lp->Value(columns[i].var);
    const std::vector<uint32_t> cuts = ViolatedOddSets(columns, x, count, has_row);
    if (cuts.empty()) {
      std::vector<int64_t> pairs(columns.size());
      for (size_t i = 0; i < columns.size(); ++i) {
        const double r = std::round(x[i]);
        if (std::fabs(x[i] - r) > kIntegrality || r < 0) return std::nullopt;
        pairs[i] = static_cast<int64_t>(r);
      }
      return pairs;
    }
    for (uint32_t u : cuts) {
      std::vector<LpTerm> terms;
      for (const PairColumn& c : columns) {
        if ((u >> c.a & 1) && (u >> c.b & 1)) terms.push_back({c.var, 1.0});
      }
      lp->AddRow(terms, -kLpInfinity, static_cast<double>((NodesIn(u, count) - 1) / 2));
      has_row[u] = true;
      ++stats->cuts;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<int> MaxWeightMatchingByKind(const std::vector<int>& kind, int num_kinds,
                                         const std::vector<double>& weight,
                                         const KindMatchingOptions& options,
                                         KindMatchingStats* stats) {
  KindMatchingStats unused;
  if (stats == nullptr) stats = &unused;
  *stats = KindMatchingStats();
  const int n = static_cast<int>(kind.size());
  if (n < options.min_nodes_for_lp || num_kinds > std::min(options.max_kinds_for_lp, 30)) {
    return NodeBlossom(kind, num_kinds, weight);
  }

  std::vector<int> count(num_kinds, 0);
  for (int t : kind) ++count[t];
  LinearProgram lp;
  std::vector<PairColumn> columns;
  for (int a = 0; a < num_kinds; ++a) {
    for (int b = a; b < num_kinds; ++b) {
      const double w = weight[static_cast<size_t>(a) * num_kinds + b];
      const int cap = a == b ? count[a] / 2 : std::min(count[a], count[b]);
      if (!(w > 0) || cap < 1) continue;
      columns.push_back({a, b, lp.AddVariable(0, cap, -w)});
    }
  }
  std::vector<int> mate(n, -1);
  if (columns.empty()) return mate;
  for (int a = 0; a < num_kinds; ++a) {
    std::vector<LpTerm> degree;
    for (const PairColumn& c : columns) {
      if (c.a == a || c.b == a) degree.push_back({c.var, c.a == c.b ? 2.0 : 1.0});
    }
    if (!degree.empty()) lp.AddRow(degree, -kLpInfinity, count[a]);
  }
  const std::optional<std::vector<int64_t>> pairs = SolvePairCounts(columns, &lp, count, stats);
  if (!pairs) {
    stats->fell_back = true;
    return NodeBlossom(kind, num_kinds, weight);
  }
  // Hand the pairs out, kinds in column order, each kind's lowest-numbered free node first.
  std::vector<std::vector<int>> free_nodes(num_kinds);
  for (int u = n - 1; u >= 0; --u) free_nodes[kind[u]].push_back(u);  // Back = lowest.
  for (size_t i = 0; i < columns.size(); ++i) {
    for (int64_t p = 0; p < (*pairs)[i]; ++p) {
      std::vector<int>& from_a = free_nodes[columns[i].a];
      std::vector<int>& from_b = free_nodes[columns[i].b];
      if (from_a.empty() || from_b.size() < (columns[i].a == columns[i].b ? 2u : 1u)) {
        stats->fell_back = true;  // The rounded counts overran a degree: CLP's tolerance.
        return NodeBlossom(kind, num_kinds, weight);
      }
      const int u = from_a.back();
      from_a.pop_back();
      const int v = from_b.back();
      from_b.pop_back();
      mate[u] = v;
      mate[v] = u;
    }
  }
  return mate;
}

}  // namespace schedkit
