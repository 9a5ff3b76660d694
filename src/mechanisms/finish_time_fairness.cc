#include "mechanisms/finish_time_fairness.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "mechanisms/lp.h"

namespace schedkit {
namespace {

// Relative excess over capacity that ends the cuts: above CLP's feasibility tolerance
// (1e-7), below which new cuts no longer move the solution.
constexpr double kCutTolerance = 1e-6;
constexpr int kMaxLpRounds = 500;

double Ratio(const FtfJob& j, double share) {
  return (j.elapsed_s + j.solo_remaining_s / share) / j.isolated_s;
}

// The share at which job j's ratio equals rho. REQUIRES: rho >= Ratio(j, 1).
double LeastShare(const FtfJob& j, double rho) {
  if (j.solo_remaining_s <= 0) return 0;
  return std::min(1.0, j.solo_remaining_s / (j.isolated_s * rho - j.elapsed_s));
}

double LeastGpus(const std::vector<FtfJob>& jobs, double rho) {
  double sum = 0;
  for (const FtfJob& j : jobs) sum += j.gpus * LeastShare(j, rho);
  return sum;
}

// When capacity binds every ratio is tight at the optimum (a job below rho* could give
// GPUs to the others), so rho* is the root of LeastGpus(rho) = capacity, which falls
// with rho. The LP's rho is within its tolerance of it; bisection from a bracket around
// it gives the last digits.
double RefineRho(const std::vector<FtfJob>& jobs, double capacity, double rho_box,
                 double rho_lp) {
  // LeastGpus(rho_box) > capacity (that is why the LP ran).
  double lo = std::max(rho_box, rho_lp * (1 - 1e-5));
  if (LeastGpus(jobs, lo) <= capacity) lo = rho_box;
  double hi = rho_lp * (1 + 1e-5);
  for (int k = 0; k < 64 && LeastGpus(jobs, hi) > capacity; ++k) hi *= 2;
  for (int k = 0; k < 200; ++k) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (LeastGpus(jobs, mid) > capacity) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;  // The least shares at hi fit.
}

// Minimises rho when the capacity constraint binds. Returns rho (a lower bound on the
// exact optimum within the cut tolerance).
Result<double> SolveBindingLp(const std::vector<FtfJob>& jobs, double capacity, double rho_box,
                              int* rounds) {
  // A cheap estimate of rho*: bisection on the tightness condition (see RefineRho).
  const double rho_seed = RefineRho(jobs, capacity, rho_box, rho_box);
  LinearProgram lp;
  const int rho = lp.AddVariable(rho_box, kLpInfinity, 1.0);
  std::vector<int> z(jobs.size(), -1), y(jobs.size(), -1);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].solo_remaining_s <= 0) continue;  // Needs no share: ratio is fixed.
    z[i] = lp.AddVariable(1.0, kLpInfinity, 0.0);
    y[i] = lp.AddVariable(0.0, kLpInfinity, 0.0);
  }
  auto add_cut = [&](size_t i, double z0) {
    const double g = jobs[i].gpus;
    lp.AddRow({{y[i], 1.0}, {z[i], g / (z0 * z0)}}, 2 * g / z0, kLpInfinity);
  };
  std::vector<LpTerm> capacity_row;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (z[i] < 0) continue;
    const FtfJob& j = jobs[i];
    lp.AddRow({{z[i], j.solo_remaining_s}, {rho, -j.isolated_s}}, -kLpInfinity, -j.elapsed_s);
    capacity_row.push_back({y[i], 1.0});
    // Seed the cuts where the optimum should be (tangents at the true optimum make the
    // LP exact at once); further cuts come only where the LP's solution violates them.
    add_cut(i, 1.0 / LeastShare(j, rho_seed));
  }
  lp.AddRow(capacity_row, -kLpInfinity, capacity);
  for (*rounds = 1; *rounds <= kMaxLpRounds; ++*rounds) {
    const LpStatus st = lp.Solve();
    if (st != LpStatus::kOptimal) {
      return Status::Internal("finish-time fairness LP: CLP status " +
                              std::to_string(static_cast<int>(st)));
    }
    // The LP may hand one job's slack in y to another, so test the true constraint.
    double gpu_sum = 0;
    std::vector<size_t> violated;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (z[i] < 0) continue;
      const double need = jobs[i].gpus / lp.Value(z[i]);
      gpu_sum += need;
      if (need > lp.Value(y[i])) violated.push_back(i);
    }
    if (gpu_sum <= capacity * (1 + kCutTolerance)) return RefineRho(jobs, capacity, rho_box, lp.Value(rho));
    for (size_t i : violated) add_cut(i, lp.Value(z[i]));
  }
  return Status::Internal("finish-time fairness LP: no convergence in " +
                          std::to_string(kMaxLpRounds) + " rounds");
}

// The centre of the optimal face when capacity is slack (see FtfSelection::kCentre).
// `slack` lists the non-binding jobs, `least` their least shares, `used` the GPUs of
// the binding jobs (share 1).
void CentreShares(const std::vector<FtfJob>& jobs, const std::vector<size_t>& slack,
                  double capacity, double used, std::vector<double>* share) {
  // For a multiplier lam = 1/(capacity slack), each share solves
  // 2/(x - l) - 1/(1 - x) = lam g, the root in (l, 1) of
  // lam g x^2 - (lam g (1 + l) + 3) x + (lam g l + l + 2) = 0.
  auto shares_at = [&](double lam) {
    double gpu_sum = used;
    for (size_t i : slack) {
      const double l = (*share)[i];  // Holds least_i until the end.
      const double a = lam * jobs[i].gpus;
      const double b = a * (1 + l) + 3;
      const double c = a * l + l + 2;
      const double x = 2 * c / (b + std::sqrt(std::max(0.0, b * b - 4 * a * c)));
      gpu_sum += jobs[i].gpus * x;
    }
    return gpu_sum;
  };
  auto excess = [&](double lam) { return (capacity - shares_at(lam)) - 1 / lam; };
  double lo = 1e-12, hi = 1.0;
  for (int k = 0; k < 200 && excess(hi) < 0; ++k) hi *= 2;
  for (int k = 0; k < 200; ++k) {
    const double mid = std::sqrt(lo * hi);
    if (excess(mid) < 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  std::vector<double> out = *share;
  for (size_t i : slack) {
    const double l = (*share)[i];
    const double a = hi * jobs[i].gpus;
    const double b = a * (1 + l) + 3;
    const double c = a * l + l + 2;
    out[i] = 2 * c / (b + std::sqrt(std::max(0.0, b * b - 4 * a * c)));
  }
  *share = std::move(out);
}

}  // namespace

Result<FtfAllocation> SolveFinishTimeFairness(const std::vector<FtfJob>& jobs, double capacity,
                                              FtfSelection selection) {
  FtfAllocation out;
  if (jobs.empty()) return out;
  // Every ratio falls as its share grows, so rho* >= max_i Ratio(i, 1) = rho_box, with
  // equality iff the least shares at rho_box fit the capacity.
  double rho_box = 0;
  for (const FtfJob& j : jobs) rho_box = std::max(rho_box, Ratio(j, 1.0));
  double least_gpus = 0;
  for (const FtfJob& j : jobs) least_gpus += j.gpus * LeastShare(j, rho_box);
  out.share.resize(jobs.size());
  if (least_gpus > capacity) {
    Result<double> rho = SolveBindingLp(jobs, capacity, rho_box, &out.lp_rounds);
    if (!rho.ok()) return rho.status();
    out.rho = *rho;
    out.capacity_bound = true;
    for (size_t i = 0; i < jobs.size(); ++i) out.share[i] = LeastShare(jobs[i], out.rho);
    return out;
  }
  out.rho = rho_box;
  std::vector<size_t> slack;
  double used = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (Ratio(jobs[i], 1.0) == rho_box) {
      out.share[i] = 1;
      used += jobs[i].gpus;
    } else {
      out.share[i] = LeastShare(jobs[i], rho_box);
      slack.push_back(i);
    }
  }
  if (selection == FtfSelection::kCentre && !slack.empty()) {
    CentreShares(jobs, slack, capacity, used, &out.share);
  }
  return out;
}

}  // namespace schedkit
