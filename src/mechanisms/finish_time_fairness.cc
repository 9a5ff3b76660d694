#include "mechanisms/finish_time_fairness.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace schedkit {
namespace {

// RhoStar's Newton phase: it stops once the bracket is this narrow (relative), or after
// so many steps; bisection does the rest either way.
constexpr double kNewtonBracket = 1e-12;
constexpr int kMaxNewtonSteps = 60;
constexpr double kNoUpperEnd = std::numeric_limits<double>::infinity();

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

// LeastGpus and its slope d/drho (the unclamped terms' -g s iso / (iso rho - e)^2).
// `gpus` is summed exactly as LeastGpus sums it: it decides, the slope only guides.
struct LeastGpusAt {
  double gpus = 0, slope = 0;
};
LeastGpusAt LeastGpusWithSlope(const std::vector<FtfJob>& jobs, double rho) {
  LeastGpusAt out;
  for (const FtfJob& j : jobs) {
    const double x = LeastShare(j, rho);
    out.gpus += j.gpus * x;
    if (x > 0 && x < 1) {
      const double d = j.isolated_s * rho - j.elapsed_s;
      out.slope -= j.gpus * j.solo_remaining_s * j.isolated_s / (d * d);
    }
  }
  return out;
}

// The optimal worst ratio when capacity binds. Then every ratio is tight at the optimum (a
// job below rho* could give GPUs to the others), so rho* is the least rho >= rho_box with
// LeastGpus(rho) <= capacity; LeastGpus falls with rho. The answer is a double: the upper
// end of the adjacent pair lo < hi with LeastGpus(lo) > capacity >= LeastGpus(hi). That
// pair is unique because LeastGpus is non-increasing in floating point too (every
// operation in it rounds monotonically, and iso rho - e > 0 for rho >= rho_box), so
// bisecting any bracket of it down to adjacent doubles ends there, whatever found the
// bracket: an LP, or, as here, safeguarded Newton steps (the sum is convex between the
// kinks where a share reaches 1) that narrow it to ~1e-12 in a few evaluations, each
// O(jobs). Bisection then gives the last ~13 bits. Before 2026-11-26 the bracket came from
// a cutting-plane LP with CLP re-solved from scratch at every decision: the same doubles,
// 10-1000x slower (docs/performance.md, "Themis").
// REQUIRES: LeastGpus(rho_box) > capacity.
double RhoStar(const std::vector<FtfJob>& jobs, double capacity, double rho_box,
               int* evaluations) {
  double lo = rho_box;
  double hi = kNoUpperEnd;
  double x = lo;
  LeastGpusAt at = LeastGpusWithSlope(jobs, x);
  *evaluations = 1;
  auto step_to = [&](double next) {
    at = LeastGpusWithSlope(jobs, next);
    ++*evaluations;
    if (at.gpus > capacity) {
      lo = next;
    } else {
      hi = next;
    }
    x = next;
  };
  for (int k = 0; k < kMaxNewtonSteps && hi - lo > kNewtonBracket * lo; ++k) {
    double next = at.slope < 0 ? x - (at.gpus - capacity) / at.slope : lo;
    if (!(next > lo && next < hi)) next = hi == kNoUpperEnd ? 2 * lo : lo + (hi - lo) / 2;
    const double before = x;
    step_to(next);
    // Newton creeps up on rho* from one side: close the bracket from the other.
    if (std::abs(next - before) <= kNewtonBracket * next) {
      const double probe = at.gpus > capacity ? next * (1 + kNewtonBracket / 2)
                                              : next * (1 - kNewtonBracket / 2);
      if (probe > lo && probe < hi) step_to(probe);
    }
  }
  for (int k = 0; k < 64 && hi == kNoUpperEnd; ++k) step_to(2 * lo);  // Degenerate slopes.
  for (int k = 0; k < 200; ++k) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    ++*evaluations;
    if (LeastGpus(jobs, mid) > capacity) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
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
    const double before_lo = lo, before_hi = hi;
    if (excess(mid) < 0) {
      lo = mid;
    } else {
      hi = mid;
    }
    // A step that changes nothing repeats forever (the loop has no other state): done.
    if (lo == before_lo && hi == before_hi) break;
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

FtfAllocation SolveFinishTimeFairness(const std::vector<FtfJob>& jobs, double capacity,
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
    out.rho = RhoStar(jobs, capacity, rho_box, &out.evaluations);
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
