// Finish-time fairness (Themis, NSDI'20, as Gavel and Muri's simulator formulate it):
// choose each job's share x_i of its requested GPUs, 0 < x_i <= 1, with
// sum(gpus_i x_i) <= capacity, minimising the worst finish-time ratio
//
//   rho_i(x_i) = (elapsed_i + solo_remaining_i / x_i) / isolated_i
//
// (elapsed: time since submission; solo_remaining: seconds of work left at full speed;
// isolated: the finish time the job would have had on its fair share of the cluster).
//
// The problem is convex; it used to be solved as an LP with CLP (z_i = 1/x_i, tangent cuts
// for sum(gpus_i / z_i) <= capacity), but its optimum has a closed characterisation that
// a one-dimensional search finds exactly. For a target ratio rho, job i needs at least the
// share least_i(rho) = min(1, solo_remaining_i / (isolated_i rho - elapsed_i)), which
// falls with rho; rho* is the least rho >= rho_box = max_i rho_i(1) at which those least
// shares fit the capacity. When they fit at rho_box the capacity is slack and rho* =
// rho_box; otherwise it binds and rho* is found by safeguarded Newton steps and bisection
// to the last bit, in O(jobs) per step (finish_time_fairness.cc says why the result is
// the very double the LP-bracketed bisection gave).
//
// The optimal rho* is unique; the shares are not when capacity is slack: then every job
// whose ratio at x = 1 is below rho* may take any share in [least_i, 1], least_i being
// the share that puts its ratio exactly at rho*. `FtfSelection` picks one.
#ifndef SCHEDKIT_MECHANISMS_FINISH_TIME_FAIRNESS_H_
#define SCHEDKIT_MECHANISMS_FINISH_TIME_FAIRNESS_H_

#include <vector>


namespace schedkit {

struct FtfJob {
  double elapsed_s = 0;         // >= 0
  double solo_remaining_s = 0;  // >= 0
  double isolated_s = 1;        // > 0
  int gpus = 1;                 // >= 1
};

enum class FtfSelection {
  // Each job the least share that keeps its ratio at rho* (the LP vertex that maximises
  // every z_i); the jobs that attain rho* get 1.
  kLeast,
  // The analytic centre of the optimal face under the barrier an interior-point conic
  // solver follows on cvxpy's formulation (Muri's simulator uses cvxpy + ECOS): a
  // non-binding job's share maximises 2 log(x - least) + log(1 - x), coupled through
  // log(capacity - sum(gpus x)). Without coupling x = least + 2/3 (1 - least).
  kCentre,
};

struct FtfAllocation {
  double rho = 0;              // The optimal worst ratio.
  std::vector<double> share;   // x_i, in job order.
  bool capacity_bound = false; // The capacity constraint is binding (shares unique).
  int evaluations = 0;         // O(jobs) evaluations of the least shares' GPUs (0 when slack).
};

// REQUIRES: capacity >= every job's gpus.
FtfAllocation SolveFinishTimeFairness(const std::vector<FtfJob>& jobs, double capacity,
                                              FtfSelection selection);

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_FINISH_TIME_FAIRNESS_H_
