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

// An empty model with this class's settings. Each program copies it: constructing a
// ClpSimplex builds CLP's message tables from scratch (~100,000 instructions, a fifth of a
// small cutting-plane LP's solve), which a copy shares.
const ClpSimplex& EmptyModel() {
  static thread_local const ClpSimplex empty = [] {
    ClpSimplex m;
    m.setLogLevel(0);
    m.setOptimizationDirection(1);  // Minimise.
    return m;
  }();
  return empty;
}

}  // namespace

LinearProgram::LinearProgram() : model_(std::make_unique<ClpSimplex>(EmptyModel())) {}

LinearProgram::~LinearProgram() = default;

int LinearProgram::AddVariable(double lower, double upper, double cost) {
  if (solved_) {
    std::fprintf(stderr, "schedkit: LinearProgram::AddVariable after Solve\n");
    std::abort();
  }
  col_lower_.push_back(ToCoin(lower));
  col_upper_.push_back(ToCoin(upper));
  col_cost_.push_back(cost);
  return static_cast<int>(col_cost_.size()) - 1;
}

void LinearProgram::AddRow(const std::vector<LpTerm>& terms, double lower, double upper) {
  for (const LpTerm& t : terms) {
    row_cols_.push_back(t.var);
    row_coeffs_.push_back(t.coeff);
  }
  row_starts_.push_back(static_cast<int>(row_cols_.size()));
  row_lower_.push_back(ToCoin(lower));
  row_upper_.push_back(ToCoin(upper));
}

void LinearProgram::Flush() {
  if (!col_cost_.empty()) {
    const std::vector<CoinBigIndex> empty_starts(col_cost_.size() + 1, 0);
    const int no_row = 0;
    const double no_coeff = 0;
    model_->addColumns(static_cast<int>(col_cost_.size()), col_lower_.data(), col_upper_.data(),
                       col_cost_.data(), empty_starts.data(), &no_row, &no_coeff);
    col_lower_.clear();
    col_upper_.clear();
    col_cost_.clear();
  }
  if (!row_lower_.empty()) {
    const std::vector<CoinBigIndex> starts(row_starts_.begin(), row_starts_.end());
    model_->addRows(static_cast<int>(row_lower_.size()), row_lower_.data(), row_upper_.data(),
                    starts.data(), row_cols_.data(), row_coeffs_.data());
    row_starts_.assign(1, 0);
    row_cols_.clear();
    row_coeffs_.clear();
    row_lower_.clear();
    row_upper_.clear();
  }
}

void LinearProgram::SetRowBounds(int row, double lower, double upper) {
  const int flushed = model_->numberRows();
  if (row < flushed) {
    model_->setRowBounds(row, ToCoin(lower), ToCoin(upper));
  } else {
    row_lower_[row - flushed] = ToCoin(lower);
    row_upper_[row - flushed] = ToCoin(upper);
  }
}

LpStatus LinearProgram::Solve() {
  // CLP keeps the basis between calls: after rows are added (new slacks basic) it
  // stays dual feasible, so the dual simplex restarts from it.
  Flush();
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
double LinearProgram::RowDual(int row) const { return model_->getRowPrice()[row]; }
double LinearProgram::ReducedCost(int var) const { return model_->getReducedCost()[var]; }
int LinearProgram::rows() const {
  return model_->numberRows() + static_cast<int>(row_lower_.size());
}
int LinearProgram::variables() const {
  return model_->numberColumns() + static_cast<int>(col_cost_.size());
}

}  // namespace schedkit
