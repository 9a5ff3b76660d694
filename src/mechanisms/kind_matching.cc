// See kind_matching.h.
#include "mechanisms/kind_matching.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include "mechanisms/lp.h"
#include "mechanisms/matching.h"

namespace schedkit {
namespace {

constexpr int kMaxCutRounds = 64;
constexpr int kMaxCutsPerRound = 16;
constexpr double kViolation = 1e-6;    // An odd-set row counts as violated above this.
constexpr double kIntegrality = 1e-6;  // How far from an integer a pair count may be.
// KindMatcher remembers a basis only if every nonbasic reduced cost and every tight row's
// dual is at least this far from 0 (100x CLP's default dual tolerance, 1e-7), and every
// other one within kZero of it: then the optimum is unique and CLP cannot stop at another.
constexpr double kUniqueMargin = 1e-6;
constexpr double kZero = 1e-9;
// Bounded memory: remembered bases per set of weights (the least recently used goes; when
// the oldest went, 8 answered 3,096 of trace4 Muri-S's 5,810 LP matchings, 64 3,627, 256
// 3,635), and their bytes in all (trace2 Muri-L keeps ~5 MiB; past the bound all are
// forgotten, which changes no result).
constexpr size_t kBasesPerWeights = 64;
constexpr size_t kMaxBasisBytes = size_t{16} << 20;

// One LP column: x_ab, the number of pairs of a node of kind a with one of kind b (a <= b).
struct PairColumn {
  int a = 0;
  int b = 0;
  int var = 0;
  int64_t cap = 0;  // Upper bound: m_a / 2 for a == b, else min(m_a, m_b).
  double weight = 0;
};

// One LP row: the degree row of kind `set`, or the odd-set row of the kinds in the mask `set`.
struct LpRow {
  bool degree = true;
  uint32_t set = 0;
};

// What a matching needs besides its answer, kept from one to the next (KindMatcher holds
// one): Muri matches tens of thousands of graphs, and these were a few dozen small
// allocations each.
struct Workspace {
  MaxWeightMatcher blossom;           // Its own workspace only: a copy starts empty.
  std::vector<WeightedEdge> edges;    // NodeBlossom.
  std::vector<int> count;             // Match: nodes per kind.
  std::vector<PairColumn> columns;    // Match.
  std::vector<uint64_t> key;          // Match: the remembered bases' key.
  std::vector<int64_t> pairs;         // SolveBasis: its answer.
  std::vector<double> rhs;            // SolveBasis.
  std::vector<int64_t> bound, degree;  // SolveBasis.
  std::vector<int> by_kind, start, taken;  // HandOut.
};

std::vector<int> NodeBlossom(const std::vector<int>& kind, int num_kinds,
                             const std::vector<double>& weight, Workspace* ws) {
  const int n = static_cast<int>(kind.size());
  std::vector<WeightedEdge>& edges = ws->edges;
  edges.clear();
  for (int u = 0; u < n; ++u) {
    for (int v = u + 1; v < n; ++v) {
      const int a = std::min(kind[u], kind[v]);
      const int b = std::max(kind[u], kind[v]);
      const double w = weight[static_cast<size_t>(a) * num_kinds + b];
      if (w > 0) edges.push_back({u, v, w});
    }
  }
  return ws->blossom.Match(n, edges);
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
  // nodes[U] = m(U), each from U less its lowest kind.
  std::vector<int64_t> nodes_in(full, 0);
  for (uint32_t u = 1; u < full; ++u) {
    const int lowest = __builtin_ctz(u);
    nodes_in[u] = nodes_in[u & (u - 1)] + count[lowest];
  }
  std::vector<std::pair<double, uint32_t>> violated;
  for (uint32_t u = 1; u < full; ++u) {
    if (has_row[u]) continue;
    const int64_t nodes = nodes_in[u];
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
// optimum within kMaxCutRounds. The odd-set rows it adds are appended to `rows`.
std::optional<std::vector<int64_t>> SolvePairCounts(const std::vector<PairColumn>& columns,
                                                    LinearProgram* lp,
                                                    const std::vector<int>& count,
                                                    std::vector<LpRow>* rows,
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
      rows->push_back({false, u});
      ++stats->cuts;
    }
  }
  return std::nullopt;
}

// The LP's columns for these counts (see kind_matching.h).
void PairColumns(int num_kinds, const std::vector<double>& weight, const std::vector<int>& count,
                 std::vector<PairColumn>* out) {
  std::vector<PairColumn>& columns = *out;
  columns.clear();
  for (int a = 0; a < num_kinds; ++a) {
    for (int b = a; b < num_kinds; ++b) {
      const double w = weight[static_cast<size_t>(a) * num_kinds + b];
      const int cap = a == b ? count[a] / 2 : std::min(count[a], count[b]);
      if (!(w > 0) || cap < 1) continue;
      columns.push_back({a, b, static_cast<int>(columns.size()), cap, w});
    }
  }
}

int Coefficient(const LpRow& row, const PairColumn& c) {
  if (row.degree) {
    const int a = static_cast<int>(row.set);
    return c.a == a || c.b == a ? (c.a == c.b ? 2 : 1) : 0;
  }
  return (row.set >> c.a & 1) && (row.set >> c.b & 1) ? 1 : 0;
}

// The row's right-hand side for these counts, or nothing for an odd-set row whose node
// count is even (not a row of the polytope then).
std::optional<int64_t> RowBound(const LpRow& row, const std::vector<int>& count) {
  if (row.degree) return count[row.set];
  const int64_t nodes = NodesIn(row.set, count);
  if (nodes % 2 == 0) return std::nullopt;
  return (nodes - 1) / 2;
}

// The LP branch of MaxWeightMatchingByKind: optimal pair counts, or nothing (the caller
// falls back to the node blossom). `rows` receives the LP's rows in order.
std::optional<std::vector<int64_t>> SolveByLp(const std::vector<PairColumn>& columns,
                                              const std::vector<int>& count, LinearProgram* lp,
                                              std::vector<LpRow>* rows, KindMatchingStats* stats) {
  const int num_kinds = static_cast<int>(count.size());
  for (const PairColumn& c : columns) lp->AddVariable(0, static_cast<double>(c.cap), -c.weight);
  for (int a = 0; a < num_kinds; ++a) {
    std::vector<LpTerm> degree;
    for (const PairColumn& c : columns) {
      if (c.a == a || c.b == a) degree.push_back({c.var, c.a == c.b ? 2.0 : 1.0});
    }
    if (degree.empty()) continue;
    lp->AddRow(degree, -kLpInfinity, count[a]);
    rows->push_back({true, static_cast<uint32_t>(a)});
  }
  return SolvePairCounts(columns, lp, count, rows, stats);
}

// Hands the pairs out, kinds in column order, each kind's lowest-numbered free node first;
// nothing if the counts overrun a kind (CLP's tolerance).
std::optional<std::vector<int>> HandOut(const std::vector<int>& kind,
                                        const std::vector<int>& count,
                                        const std::vector<PairColumn>& columns,
                                        const std::vector<int64_t>& pairs, Workspace* ws) {
  const int n = static_cast<int>(kind.size());
  const size_t num_kinds = count.size();
  // by_kind: the nodes grouped by kind, kind a's in ascending order from start[a];
  // taken[a]: how many of them are handed out.
  std::vector<int>& by_kind = ws->by_kind;
  std::vector<int>& start = ws->start;
  std::vector<int>& taken = ws->taken;
  start.assign(num_kinds, 0);
  for (size_t a = 1; a < num_kinds; ++a) start[a] = start[a - 1] + count[a - 1];
  taken.assign(num_kinds, 0);
  by_kind.resize(n);
  for (int u = 0; u < n; ++u) by_kind[start[kind[u]] + taken[kind[u]]++] = u;
  taken.assign(num_kinds, 0);
  std::vector<int> mate(n, -1);
  for (size_t i = 0; i < columns.size(); ++i) {
    const int a = columns[i].a;
    const int b = columns[i].b;
    for (int64_t p = 0; p < pairs[i]; ++p) {
      if (taken[a] + (a == b ? 2 : 1) > count[a] || taken[b] + 1 > count[b]) return std::nullopt;
      const int u = by_kind[start[a] + taken[a]++];
      const int v = by_kind[start[b] + taken[b]++];
      mate[u] = v;
      mate[v] = u;
    }
  }
  return mate;
}

// An optimal basis, by what it fixes: each column at 0 (-1), at its cap (+1) or solved for
// (0), and the rows held tight (their duals nonzero). The square system of the tight rows
// over the solved-for columns depends on neither the counts nor the caps (only its right-
// hand side does), so PrepareBasis inverts it once and each try is a product.
struct Basis {
  std::vector<int8_t> column_state;
  std::vector<LpRow> tight;
  std::vector<int> solved;            // The solved-for columns, in the system's order.
  std::vector<double> inverse;        // Of the system, row-major.
  std::vector<int> term_start;        // Tight row r's nonzero coefficients are terms[
  std::vector<std::pair<int, int>> terms;  // term_start[r], term_start[r + 1]): (column, coeff).
};

// What a remembered basis holds, in bytes.
size_t Bytes(const Basis& b) {
  return sizeof(Basis) + b.column_state.size() + b.tight.size() * sizeof(LpRow) +
         b.solved.size() * sizeof(int) + b.inverse.size() * sizeof(double) +
         b.term_start.size() * sizeof(int) + b.terms.size() * sizeof(std::pair<int, int>);
}

// Fills the basis' system from its column states and tight rows; false if it is not square
// or is singular.
bool PrepareBasis(const std::vector<PairColumn>& columns, Basis* basis) {
  const size_t m = basis->tight.size();
  basis->solved.clear();
  std::vector<int> unknown(columns.size(), -1);  // Column -> its index among the solved ones.
  for (size_t j = 0; j < columns.size(); ++j) {
    if (basis->column_state[j] != 0) continue;
    unknown[j] = static_cast<int>(basis->solved.size());
    basis->solved.push_back(static_cast<int>(j));
  }
  if (basis->solved.size() != m) return false;
  basis->term_start.assign(1, 0);
  basis->terms.clear();
  // [A | I] by Gauss-Jordan elimination with partial pivoting.
  const size_t w = 2 * m;
  std::vector<double> a(m * w, 0.0);
  for (size_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < columns.size(); ++j) {
      const int coeff = Coefficient(basis->tight[r], columns[j]);
      if (coeff == 0) continue;
      basis->terms.emplace_back(static_cast<int>(j), coeff);
      if (unknown[j] >= 0) a[r * w + unknown[j]] = coeff;
    }
    basis->term_start.push_back(static_cast<int>(basis->terms.size()));
    a[r * w + m + r] = 1;
  }
  for (size_t col = 0; col < m; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < m; ++r) {
      if (std::fabs(a[r * w + col]) > std::fabs(a[pivot * w + col])) pivot = r;
    }
    if (std::fabs(a[pivot * w + col]) < kZero) return false;  // Singular.
    if (pivot != col) {
      for (size_t c = 0; c < w; ++c) std::swap(a[col * w + c], a[pivot * w + c]);
    }
    const double p = a[col * w + col];
    for (size_t c = 0; c < w; ++c) a[col * w + c] /= p;
    for (size_t r = 0; r < m; ++r) {
      if (r == col || a[r * w + col] == 0) continue;
      const double f = a[r * w + col];
      for (size_t c = 0; c < w; ++c) a[r * w + c] -= f * a[col * w + c];
    }
  }
  basis->inverse.resize(m * m);
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = 0; c < m; ++c) basis->inverse[r * m + c] = a[r * w + m + c];
  }
  return true;
}

// The basis' solution for these counts, if it is an integral b-matching (see KindMatcher):
// true, with the pair counts in ws->pairs. REQUIRES: PrepareBasis(columns, &basis).
bool SolveBasis(const Basis& basis, const std::vector<PairColumn>& columns,
                const std::vector<int>& count, Workspace* ws) {
  const size_t num_columns = columns.size();
  const size_t m = basis.tight.size();
  if (basis.column_state.size() != num_columns) return false;
  std::vector<int64_t>& bound = ws->bound;
  std::vector<double>& rhs = ws->rhs;
  bound.resize(m);
  rhs.resize(m);
  for (size_t r = 0; r < m; ++r) {
    const std::optional<int64_t> b = RowBound(basis.tight[r], count);
    if (!b) return false;
    bound[r] = *b;
    double v = static_cast<double>(*b);
    for (int t = basis.term_start[r]; t < basis.term_start[r + 1]; ++t) {
      const auto [j, coeff] = basis.terms[t];
      if (basis.column_state[j] > 0) v -= coeff * static_cast<double>(columns[j].cap);
    }
    rhs[r] = v;
  }
  std::vector<int64_t>& pairs = ws->pairs;
  pairs.resize(num_columns);
  for (size_t j = 0; j < num_columns; ++j) {
    pairs[j] = basis.column_state[j] > 0 ? columns[j].cap : 0;  // The solved ones follow.
  }
  for (size_t k = 0; k < m; ++k) {
    double x = 0;
    for (size_t r = 0; r < m; ++r) x += basis.inverse[k * m + r] * rhs[r];
    const int j = basis.solved[k];
    const double rounded = std::round(x);
    if (std::fabs(x - rounded) > kIntegrality || rounded < 0 ||
        rounded > static_cast<double>(columns[j].cap)) {
      return false;
    }
    pairs[j] = static_cast<int64_t>(rounded);
  }
  // Integral, so exact from here: every degree row holds and the tight rows are tight.
  std::vector<int64_t>& degree = ws->degree;
  degree.assign(count.size(), 0);
  for (size_t j = 0; j < num_columns; ++j) {
    degree[columns[j].a] += pairs[j];
    degree[columns[j].b] += pairs[j];
  }
  for (size_t a = 0; a < count.size(); ++a) {
    if (degree[a] > count[a]) return false;
  }
  for (size_t r = 0; r < m; ++r) {
    int64_t lhs = 0;
    for (int t = basis.term_start[r]; t < basis.term_start[r + 1]; ++t) {
      lhs += basis.terms[t].second * pairs[basis.terms[t].first];
    }
    if (lhs != bound[r]) return false;
  }
  return true;
}

// The basis of `lp`'s last (optimal) solve, if its duals certify `pairs` as the unique
// optimum with kUniqueMargin to spare and the basis reproduces it.
std::optional<Basis> CertifiedBasis(const LinearProgram& lp, const std::vector<PairColumn>& columns,
                                    const std::vector<LpRow>& rows, const std::vector<int>& count,
                                    const std::vector<int64_t>& pairs, Workspace* ws) {
  Basis basis;
  basis.column_state.resize(columns.size());
  for (size_t j = 0; j < columns.size(); ++j) {
    const double d = lp.ReducedCost(columns[j].var);
    if (std::fabs(d) <= kZero) {
      basis.column_state[j] = 0;
    } else if (std::fabs(d) < kUniqueMargin) {
      return std::nullopt;  // Nearly tied: not certain enough.
    } else {
      basis.column_state[j] = d > 0 ? -1 : 1;  // Minimising -w: d > 0 holds x at 0.
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = std::fabs(lp.RowDual(static_cast<int>(i)));
    if (y <= kZero) continue;
    if (y < kUniqueMargin) return std::nullopt;
    basis.tight.push_back(rows[i]);
  }
  if (!PrepareBasis(columns, &basis)) return std::nullopt;
  if (!SolveBasis(basis, columns, count, ws) || ws->pairs != pairs) return std::nullopt;
  return basis;
}

struct WeightsHash {
  size_t operator()(const std::vector<uint64_t>& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ k.size();
    for (uint64_t v : k) h = (h ^ v) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};
struct BasisMemory {
  // By the columns and their weights' bits; the most recently found or used last.
  std::unordered_map<std::vector<uint64_t>, std::vector<Basis>, WeightsHash> by_weights;
  size_t bytes = 0;  // Of all the bases (Bytes).
};

// MaxWeightMatchingByKind, remembering certified bases in `memory` (if not null), with
// its buffers and node blossom in `ws`.
std::vector<int> Match(const std::vector<int>& kind, int num_kinds,
                       const std::vector<double>& weight, const KindMatchingOptions& options,
                       BasisMemory* memory, Workspace* ws, KindMatchingStats* stats) {
  *stats = KindMatchingStats();
  const int n = static_cast<int>(kind.size());
  if (n < options.min_nodes_for_lp || num_kinds > std::min(options.max_kinds_for_lp, 30)) {
    return NodeBlossom(kind, num_kinds, weight, ws);
  }
  std::vector<int>& count = ws->count;
  count.assign(num_kinds, 0);
  for (int t : kind) ++count[t];
  const std::vector<PairColumn>& columns = ws->columns;
  PairColumns(num_kinds, weight, count, &ws->columns);
  if (columns.empty()) return std::vector<int>(n, -1);

  std::vector<uint64_t>& key = ws->key;
  key.clear();
  std::vector<Basis>* bases = nullptr;
  if (memory != nullptr) {
    for (const PairColumn& c : columns) {
      uint64_t bits;
      static_assert(sizeof(bits) == sizeof(c.weight));
      std::memcpy(&bits, &c.weight, sizeof(bits));
      key.push_back(static_cast<uint64_t>(c.a) << 32 | static_cast<uint32_t>(c.b));
      key.push_back(bits);
    }
    auto it = memory->by_weights.find(key);
    if (it != memory->by_weights.end()) {
      bases = &it->second;
      // Any basis that answers gives the unique optimum, so the order they are tried in
      // changes no result, only how many are tried: the one that answers moves to the back,
      // tried first next time (trace2 Muri-S: 10.6 -> 4.9 tries per look-up, Muri-L 14.5 -> 5.8).
      for (auto b = bases->rbegin(); b != bases->rend(); ++b) {
        if (!SolveBasis(*b, columns, count, ws)) continue;
        std::optional<std::vector<int>> mate = HandOut(kind, count, columns, ws->pairs, ws);
        if (!mate) break;
        std::rotate(std::prev(b.base()), b.base(), bases->end());
        stats->reused = true;
        return std::move(*mate);
      }
    }
  }
  LinearProgram lp;
  std::vector<LpRow> rows;
  const std::optional<std::vector<int64_t>> pairs = SolveByLp(columns, count, &lp, &rows, stats);
  std::optional<std::vector<int>> mate;
  if (pairs) mate = HandOut(kind, count, columns, *pairs, ws);
  if (!mate) {
    stats->fell_back = true;
    return NodeBlossom(kind, num_kinds, weight, ws);
  }
  if (memory != nullptr) {
    std::optional<Basis> basis = CertifiedBasis(lp, columns, rows, count, *pairs, ws);
    if (basis) {
      if (memory->bytes + Bytes(*basis) > kMaxBasisBytes) {
        memory->by_weights.clear();
        memory->bytes = 0;
        bases = nullptr;
      }
      if (bases == nullptr) bases = &memory->by_weights[std::move(key)];
      if (bases->size() >= kBasesPerWeights) {
        memory->bytes -= Bytes(bases->front());
        bases->erase(bases->begin());
      }
      memory->bytes += Bytes(*basis);
      bases->push_back(std::move(*basis));
    }
  }
  return std::move(*mate);
}

}  // namespace

std::vector<int> MaxWeightMatchingByKind(const std::vector<int>& kind, int num_kinds,
                                         const std::vector<double>& weight,
                                         const KindMatchingOptions& options,
                                         KindMatchingStats* stats) {
  KindMatchingStats unused;
  Workspace ws;
  return Match(kind, num_kinds, weight, options, nullptr, &ws,
               stats == nullptr ? &unused : stats);
}

struct KindMatcher::Memory {
  BasisMemory bases;
  Workspace workspace;
};

KindMatcher::KindMatcher(const KindMatchingOptions& options)
    : options_(options), memory_(std::make_unique<Memory>()) {}

KindMatcher::~KindMatcher() = default;

KindMatcher::KindMatcher(const KindMatcher& other)
    : options_(other.options_), memory_(std::make_unique<Memory>(*other.memory_)) {}

KindMatcher& KindMatcher::operator=(const KindMatcher& other) {
  options_ = other.options_;
  *memory_ = *other.memory_;
  return *this;
}

std::vector<int> KindMatcher::Match(const std::vector<int>& kind, int num_kinds,
                                    const std::vector<double>& weight, KindMatchingStats* stats) {
  KindMatchingStats unused;
  return schedkit::Match(kind, num_kinds, weight, options_, &memory_->bases, &memory_->workspace,
                         stats == nullptr ? &unused : stats);
}

}  // namespace schedkit
