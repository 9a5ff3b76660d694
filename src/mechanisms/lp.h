// A linear program solved with COIN-OR CLP's simplex: minimise c^T x subject to
// lower <= row <= upper and per-variable bounds. Rows may be added after a solve; the
// next Solve() warm-starts from the previous basis (dual simplex), which is what
// cutting-plane methods need. Shared by policies that allocate by optimisation.
#ifndef SCHEDKIT_MECHANISMS_LP_H_
#define SCHEDKIT_MECHANISMS_LP_H_

#include <limits>
#include <memory>
#include <vector>

class ClpSimplex;

namespace schedkit {

inline constexpr double kLpInfinity = std::numeric_limits<double>::infinity();

struct LpTerm {
  int var;
  double coeff;
};

enum class LpStatus { kOptimal, kInfeasible, kUnbounded, kFailed };

class LinearProgram {
 public:
  LinearProgram();
  ~LinearProgram();
  LinearProgram(const LinearProgram&) = delete;
  LinearProgram& operator=(const LinearProgram&) = delete;

  // Adds a variable lower <= x <= upper (either may be +-kLpInfinity) with objective
  // coefficient `cost`; returns its index. REQUIRES: no Solve() yet.
  int AddVariable(double lower, double upper, double cost);
  // Adds the row lower <= sum(coeff x var) <= upper. Allowed before and after Solve().
  void AddRow(const std::vector<LpTerm>& terms, double lower, double upper);

  LpStatus Solve();
  // Changes row `row`'s bounds (its index in AddRow order). Allowed before and after
  // Solve(); the next Solve() warm-starts from the last basis, which stays dual feasible when
  // only row bounds move (bisections over a right-hand side).
  void SetRowBounds(int row, double lower, double upper);
  // REQUIRES: the last Solve() returned kOptimal.
  double Value(int var) const;
  double Objective() const;
  // The last optimal solve's dual value of row `row` and reduced cost of variable `var` (CLP's
  // signs). Nonzero means the row (the variable's bound) is tight at every optimum
  // (complementary slackness). REQUIRES: the last Solve() returned kOptimal.
  double RowDual(int row) const;
  double ReducedCost(int var) const;
  int rows() const;
  int variables() const;

 private:
  // Columns and rows are buffered and handed to CLP in one batch per Solve(): CLP's
  // one-at-a-time additions copy its matrix each time.
  void Flush();

  std::unique_ptr<ClpSimplex> model_;
  bool solved_ = false;
  std::vector<double> col_lower_, col_upper_, col_cost_;
  std::vector<int> row_starts_{0}, row_cols_;
  std::vector<double> row_coeffs_, row_lower_, row_upper_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_LP_H_
