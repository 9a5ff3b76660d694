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
  // REQUIRES: the last Solve() returned kOptimal.
  double Value(int var) const;
  double Objective() const;
  int rows() const;
  int variables() const;

 private:
  std::unique_ptr<ClpSimplex> model_;
  bool solved_ = false;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_LP_H_
