// Finish-time fairness (Themis, NSDI'20, as Gavel and Muri's simulator formulate it):
// choose each job's share x_i of its requested GPUs, 0 < x_i <= 1, with
// sum(gpus_i x_i) <= capacity, minimising the worst finish-time ratio
//
//   rho_i(x_i) = (elapsed_i + solo_remaining_i / x_i) / isolated_i
//
// (elapsed: time since submission; solo_remaining: seconds of work left at full speed;
// isolated: the finish time the job would have had on its fair share of the cluster).
//
// Solved as a linear program with CLP (mechanisms/lp.h): with z_i = 1/x_i (time
// dilation) the ratio rows are linear, elapsed_i + solo_remaining_i z_i <= isolated_i rho,
// and the convex capacity constraint sum(gpus_i / z_i) <= capacity is imposed through
// tangent cuts y_i >= gpus_i (2/z0 - z_i/z0^2), sum(y_i) <= capacity, added where the
// LP solution violates it (Kelley's cutting planes) until sum(gpus_i / z_i) exceeds the
// capacity by at most 1e-9 of it. When the capacity constraint is slack at the box optimum (every job at
// x = 1 except as needed) the optimum is closed-form and no LP is solved.
//
// The optimal rho* is unique; the shares are not when capacity is slack: then every job
// whose ratio at x = 1 is below rho* may take any share in [least_i, 1], least_i being
// the share that puts its ratio exactly at rho*. `FtfSelection` picks one.
#ifndef SCHEDKIT_MECHANISMS_FINISH_TIME_FAIRNESS_H_
#define SCHEDKIT_MECHANISMS_FINISH_TIME_FAIRNESS_H_

#include <vector>

#include "schedkit/status.h"

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
  int lp_rounds = 0;           // LP solves (0 when closed-form).
};

// REQUIRES: jobs non-empty, capacity >= every job's gpus. Fails only if CLP fails.
Result<FtfAllocation> SolveFinishTimeFairness(const std::vector<FtfJob>& jobs, double capacity,
                                              FtfSelection selection);

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_FINISH_TIME_FAIRNESS_H_
