#include "mechanisms/lp.h"

#include <coin/ClpSimplex.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace schedkit {
namespace {

double ToCoin(double v) {
  if (v == kLpInfinity) return COIN_DBL_MAX;
  if (v == -kLpInfinity) return -COIN_DBL_MAX;
  return v;
}

}  // namespace

LinearProgram::LinearProgram() : model_(std::make_unique<ClpSimplex>()) {
  model_->setLogLevel(0);
  model_->setOptimizationDirection(1);  // Minimise.
}

LinearProgram::~LinearProgram() = default;

int LinearProgram::AddVariable(double lower, double upper, double cost) {
  if (solved_) {
    std::fprintf(stderr, "schedkit: LinearProgram::AddVariable after Solve\n");
    std::abort();
  }
  model_->addColumn(0, nullptr, nullptr, ToCoin(lower), ToCoin(upper), cost);
  return model_->numberColumns() - 1;
}

void LinearProgram::AddRow(const std::vector<LpTerm>& terms, double lower, double upper) {
  std::vector<int> cols;
  std::vector<double> coeffs;
  cols.reserve(terms.size());
  coeffs.reserve(terms.size());
  for (const LpTerm& t : terms) {
    cols.push_back(t.var);
    coeffs.push_back(t.coeff);
  }
  model_->addRow(static_cast<int>(cols.size()), cols.data(), coeffs.data(), ToCoin(lower),
                 ToCoin(upper));
}

LpStatus LinearProgram::Solve() {
  // CLP keeps the basis between calls: after rows are added (new slacks basic) it
  // stays dual feasible, so the dual simplex restarts from it.
  model_->dual();
  solved_ = true;
  switch (model_->status()) {
    case 0:
      return LpStatus::kOptimal;
    case 1:
      return LpStatus::kInfeasible;
    case 2:
      return LpStatus::kUnbounded;
    default:
      return LpStatus::kFailed;
  }
}

double LinearProgram::Value(int var) const { return model_->getColSolution()[var]; }
double LinearProgram::Objective() const { return model_->objectiveValue(); }
int LinearProgram::rows() const { return model_->numberRows(); }
int LinearProgram::variables() const { return model_->numberColumns(); }

}  // namespace schedkit
