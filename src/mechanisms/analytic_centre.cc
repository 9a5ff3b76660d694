#include "mechanisms/analytic_centre.h"

#include <algorithm>
#include <cmath>

namespace schedkit {
namespace {

constexpr int kMaxNewtonSteps = 200;
constexpr double kDecrementStop = 1e-20;
// Armijo's sufficient increase and the backtracking factor.
constexpr double kArmijo = 0.25, kBacktrack = 0.5;
// Phase I: a least slack at most this is 0; a dual beyond this is nonzero.
constexpr double kZeroSlack = 1e-9, kZeroDual = 1e-9;
// The KKT system's regularisation (-kRegularise on the equalities' diagonal), so that
// redundant equalities leave it solvable.
constexpr double kRegularise = 1e-12;

double Dot(const CentreRow& row, const std::vector<double>& x) {
  double v = 0;
  for (const LpTerm& t : row.terms) v += t.coeff * x[t.var];
  return v;
}

// Slacks b_i - a_i . x; false if one is not positive.
bool Slacks(const std::vector<CentreRow>& rows, const std::vector<double>& x,
            std::vector<double>* s) {
  s->resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    (*s)[i] = rows[i].bound - Dot(rows[i], x);
    if (!((*s)[i] > 0)) return false;
  }
  return true;
}

double Barrier(const std::vector<CentreRow>& rows, const std::vector<double>& s) {
  double f = 0;
  for (size_t i = 0; i < rows.size(); ++i) f += rows[i].weight * std::log(s[i]);
  return f;
}

// Solves K d = g in place (g becomes d) by Gaussian elimination with partial pivoting;
// false if K is singular.
bool SolveDense(std::vector<double> k, std::vector<double>* g, int n) {
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r) {
      if (std::abs(k[r * n + c]) > std::abs(k[p * n + c])) p = r;
    }
    if (!(std::abs(k[p * n + c]) > 0)) return false;
    if (p != c) {
      for (int j = 0; j < n; ++j) std::swap(k[c * n + j], k[p * n + j]);
      std::swap((*g)[c], (*g)[p]);
    }
    for (int r = c + 1; r < n; ++r) {
      const double f = k[r * n + c] / k[c * n + c];
      if (f == 0) continue;
      for (int j = c; j < n; ++j) k[r * n + j] -= f * k[c * n + j];
      (*g)[r] -= f * (*g)[c];
    }
  }
  for (int c = n - 1; c >= 0; --c) {
    double v = (*g)[c];
    for (int j = c + 1; j < n; ++j) v -= k[c * n + j] * (*g)[j];
    (*g)[c] = v / k[c * n + c];
  }
  return true;
}

// Phase I: a point with every inequality's slack >= sigma > 0 within the equalities, moving
// the inequalities that are tight on the whole polytope to `equalities`. Nullopt if none is
// left with room or the LP fails.
std::optional<std::vector<double>> Interior(int n, std::vector<CentreRow>* inequalities,
                                            std::vector<CentreRow>* equalities) {
  while (!inequalities->empty()) {
    LinearProgram lp;
    for (int v = 0; v < n; ++v) lp.AddVariable(-kLpInfinity, kLpInfinity, 0);
    const int sigma = lp.AddVariable(-kLpInfinity, 1, -1);
    for (const CentreRow& row : *equalities) lp.AddRow(row.terms, row.bound, row.bound);
    const int first = lp.rows();
    for (const CentreRow& row : *inequalities) {
      std::vector<LpTerm> terms = row.terms;
      terms.push_back({sigma, 1.0});
      lp.AddRow(terms, -kLpInfinity, row.bound);
    }
    if (lp.Solve() != LpStatus::kOptimal) return std::nullopt;
    if (lp.Value(sigma) > kZeroSlack) {
      std::vector<double> x(n);
      for (int v = 0; v < n; ++v) x[v] = lp.Value(v);
      return x;
    }
    // sigma = 0: the rows with a nonzero dual cannot all leave 0; each is tight everywhere.
    std::vector<CentreRow> keep;
    for (size_t i = 0; i < inequalities->size(); ++i) {
      CentreRow& row = (*inequalities)[i];
      if (std::abs(lp.RowDual(first + static_cast<int>(i))) > kZeroDual) {
        equalities->push_back(std::move(row));
      } else {
        keep.push_back(std::move(row));
      }
    }
    if (keep.size() == inequalities->size()) return std::nullopt;  // No progress.
    *inequalities = std::move(keep);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<double>> AnalyticCentre(int n, std::vector<CentreRow> inequalities,
                                                  std::vector<CentreRow> equalities) {
  std::optional<std::vector<double>> start = Interior(n, &inequalities, &equalities);
  if (!start) return std::nullopt;
  std::vector<double> x = std::move(*start), s;
  if (!Slacks(inequalities, x, &s)) return std::nullopt;
  // Phase II: Newton on f(x) = sum_i w_i log s_i within E x = e. With g = sum_i w_i a_i / s_i
  // (= -grad f) and M = sum_i w_i a_i a_i^T / s_i^2 (= -hess f), the ascent step d solves
  // [M E^T; E 0] [d; nu] = [-g; 0].
  double total_weight = 0;
  for (const CentreRow& row : inequalities) total_weight += row.weight;
  const int m = static_cast<int>(equalities.size()), size = n + m;
  double f = Barrier(inequalities, s);
  std::vector<double> kkt(static_cast<size_t>(size) * size), d(size), trial(n), ts;
  for (int step = 0; step < kMaxNewtonSteps; ++step) {
    std::fill(kkt.begin(), kkt.end(), 0.0);
    std::fill(d.begin(), d.end(), 0.0);
    for (size_t i = 0; i < inequalities.size(); ++i) {
      const double w = inequalities[i].weight;
      for (const LpTerm& a : inequalities[i].terms) {
        d[a.var] -= w * a.coeff / s[i];
        for (const LpTerm& b : inequalities[i].terms) {
          kkt[a.var * size + b.var] += w * a.coeff * b.coeff / (s[i] * s[i]);
        }
      }
    }
    for (int e = 0; e < m; ++e) {
      for (const LpTerm& a : equalities[e].terms) {
        kkt[(n + e) * size + a.var] += a.coeff;
        kkt[a.var * size + n + e] += a.coeff;
      }
      kkt[(n + e) * size + n + e] = -kRegularise;
    }
    std::vector<double> grad(d.begin(), d.begin() + n);  // -g.
    if (!SolveDense(kkt, &d, size)) break;
    double decrement = 0;  // grad f . d = d^T M d.
    for (int v = 0; v < n; ++v) decrement += grad[v] * d[v];
    if (!(decrement > kDecrementStop * total_weight)) break;
    // Backtrack along d until every slack stays positive and f rises enough.
    bool moved = false;
    for (double t = 1; t > 1e-12; t *= kBacktrack) {
      for (int v = 0; v < n; ++v) trial[v] = x[v] + t * d[v];
      if (!Slacks(inequalities, trial, &ts)) continue;
      const double ft = Barrier(inequalities, ts);
      if (ft >= f + kArmijo * t * decrement) {
        x.swap(trial);
        s.swap(ts);
        f = ft;
        moved = true;
        break;
      }
    }
    if (!moved) break;
  }
  return x;
}

}  // namespace schedkit
