// Gavel's policy family (Narayanan et al., OSDI'20) as allocations over (job, GPU type),
// issue 17. A policy reads an explicit problem (GPU types with counts and prices, active jobs
// with their throughput on each type) and returns X[j][k], the fraction of wall time job j
// should run on type k, with
//   X >= 0,   sum_k X[j][k] <= 1,   sum_j sf_j X[j][k] <= n_k,
// and X[j][k] = 0 where the job needs more GPUs than the type has (sf_j > n_k).
// The LPs are solved with COIN-OR CLP. docs/gavel.md gives every policy's formulation, the
// input files column by column, and the `schedkit gavel allocate` command.
//
// This module knows nothing of the simulator: turning allocations into rounds is
// SelectRound (the pure core of Gavel's round-based mechanism).
#ifndef SCHEDKIT_GAVEL_H_
#define SCHEDKIT_GAVEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schedkit/registry.h"
#include "schedkit/status.h"

namespace schedkit::gavel {

struct GpuType {
  std::string name;
  int gpus = 0;                // n_k >= 1.
  double cost_per_hour = -1;   // Price of one GPU-hour; < 0 = not given (min_cost refuses).
};

// A group of jobs sharing one weight (a user, a team): water filling splits the entity's
// weight among its jobs not yet held (Gavel's multi-level fairness; docs/gavel.md).
struct Entity {
  std::string name;
  double weight = 1;  // > 0.
  // Gavel's `fifo` reweighting: the entity's whole weight goes to its first job (in the
  // problem's order) not yet held, the others wait with none. false: `fairness`, the weight
  // split among all its jobs not yet held in proportion to their own weights.
  bool fifo = false;
};

struct AllocJob {
  std::string id;
  int scale_factor = 1;            // sf_j: GPUs the job uses at once.
  double weight = 1;               // w_j > 0 (max-min fairness divides by it).
  double steps_left = 0;           // Needed (> 0) by finish_time_fairness* and min_makespan.
  double time_since_arrival = 0;   // Seconds; finish-time fairness.
  double isolated_time = 0;        // Seconds the job would have run so far on its isolated
                                   // share (LoadAllocationProblem: time_since_arrival if absent).
  // The entity (index in AllocationProblem::entities) whose weight the job shares; -1 = none
  // (the job is an entity of its own with its weight). Only the policies of ReadsEntities
  // read it.
  int entity = -1;
  // Seconds left until the job's deadline (Gavel's SLO): the throughput policies of
  // ReadsSlos add the row R_j >= steps_left / slo_s. 0 = no deadline.
  double slo_s = 0;
  std::vector<double> throughput;  // T_jk steps/s of the whole job on type k (index of types).
  // FIFO (agnostic) only: the type an earlier call of the same run gave the job, which it
  // keeps (Gavel's fifo.py keeps earlier jobs' types between calls); -1 = none.
  int held_type = -1;
  // Gandiva only: the job (index in `jobs`) an earlier call of the same run paired this one
  // with (Allocation::partner of that call), which the pair keeps unless it loses
  // throughput (docs/gavel.md); -1 = none. Symmetric: jobs[held_partner].held_partner is
  // this job.
  int held_partner = -1;
};

// Two jobs sharing the GPUs of one type (space sharing), with the throughput each gets
// there (steps/s, measured co-located). Only the policies of ReadsPairs read pairs.
struct JobPair {
  int a = 0, b = 0;  // Job indices, a != b, equal scale factors.
  int type = 0;
  double throughput_a = 0, throughput_b = 0;
};

// Jobs are in arrival order (FIFO serves them in that order).
struct AllocationProblem {
  std::vector<GpuType> types;
  std::vector<AllocJob> jobs;
  std::vector<JobPair> pairs;
  std::vector<Entity> entities;

  int total_gpus() const;
  // Returns true iff job j may be given time on type k: sf_j <= n_k and T_jk > 0.
  bool Runs(int j, int k) const;
};

// Fails naming the job or type: no types, a type without GPUs, a job whose throughput row
// does not have one entry per type, a negative or non-finite number, sf < 1, w <= 0, or a job
// that runs on no type; a pair naming a missing job or type, a job twice, jobs of different
// scale factors, or a throughput that is negative or not finite; an entity listed twice or
// with a weight that is not > 0, a job naming a missing entity; a negative or non-finite
// slo_s, or one without steps_left > 0. Allocate checks this first.
Status Validate(const AllocationProblem& problem);

struct Allocation {
  std::vector<std::vector<double>> x;  // x[j][k], jobs and types in the problem's order.
  // What the policy optimised, at the returned allocation (docs/gavel.md names each).
  double objective = 0;
  int lp_solves = 0;  // LPs solved (bisections solve several); 0 for FIFO.
  // The policies of ReadsPairs: the fraction of time pairs[i] runs co-located; x holds each
  // job's time alone. Empty for the other policies.
  std::vector<double> pair_x;
  // Gandiva: per job, the job it is paired with after this call (kept or drawn; the pair
  // may get no time when the jobs fit), -1 = none: the next call's held_partner. Empty for
  // the other policies.
  std::vector<int> partner;
  // The policies of ReadsSlos: true when the jobs' deadlines could not all be met together
  // and the allocation was solved without them (Gavel's behaviour; docs/gavel.md).
  bool slos_dropped = false;
};

// Reference throughputs shared by the policies.
// Equal split (Gavel's proportional policy): every job gets n_k / N of its time on type k
// (N = all GPUs), so Teq_j = sum_k T_jk n_k / N. Max-min fairness "perf" divides by it.
std::vector<double> EqualSplitThroughputs(const AllocationProblem& problem);
// Isolated share for finish-time fairness: job j gets 1/m of every type's GPUs (m jobs), as
// time n_k / (m sf_j) on type k, scaled down when that sums above 1:
//   xiso_jk = n_k / max(m sf_j, N),  Tiso_j = sum_k T_jk xiso_jk.
// It is a feasible allocation (IsolatedShare), so the optimum rho is at most its rho.
std::vector<std::vector<double>> IsolatedShare(const AllocationProblem& problem);
// rho_j = (time_since_arrival + steps_left / R_j) / (isolated_time + steps_left / Tiso_j),
// R_j = sum_k T_jk x_jk, plus the job's co-located throughput x pair_x[i] for every pair i
// it is in (pair_x: Allocation::pair_x; empty = no pair) (infinite where R_j = 0).
std::vector<double> FinishTimeRatios(const AllocationProblem& problem,
                                     const std::vector<std::vector<double>>& x,
                                     const std::vector<double>& pair_x = {});

class AllocationPolicy {
 public:
  virtual ~AllocationPolicy() = default;
  virtual std::string_view Name() const = 0;
  // REQUIRES: Validate(problem).ok(). Fails when the policy needs a field the problem lacks
  // (steps, prices) or the solver fails.
  virtual Result<Allocation> Allocate(const AllocationProblem& problem) const = 0;
};

using AllocationPolicyRegistry = Registry<AllocationPolicy, ModuleContext>;

// Every built-in (src/gavel/registry.cc lists them).
const AllocationPolicyRegistry& BuiltinAllocationPolicies();

// Returns true iff the policy `name` reads AllocationProblem::pairs (co-located pairs: the
// `_packed` variants and gandiva; docs/gavel.md).
bool ReadsPairs(std::string_view name);

// Returns true iff the policy `name` reads AllocJob::entity (the water-filling policies).
bool ReadsEntities(std::string_view name);
// Returns true iff the policy `name` reads AllocJob::slo_s (max_throughput, min_cost and
// their _packed variants, Gavel's `..._SLOs` policies).
bool ReadsSlos(std::string_view name);

// Builds `name` with `options` (key=value, validated), validates the problem and allocates.
// Fails when the problem has entities or deadlines and the policy does not read them.
Result<Allocation> Allocate(const std::string& name, const AllocationProblem& problem,
                            const std::map<std::string, std::string>& options = {});

// The files of `schedkit gavel allocate` (docs/gavel.md): a cluster CSV with columns
// type, gpus[, cost_per_hour] and a jobs CSV with columns job, scale_factor,
// throughput_<type> for every type, and optionally weight, steps_left, time_since_arrival,
// isolated_time, slo_s and entity (a name of `entities`, which become the problem's;
// an entity that no job names is refused). Errors name the file, line and field.
Result<AllocationProblem> LoadAllocationProblem(const std::string& jobs_path,
                                                const std::string& cluster_path,
                                                const std::vector<Entity>& entities = {});
// Parses entity weights written `name=weight,name=weight` (`--entity-weights`), an entry
// ending in `:fifo` for Gavel's fifo reweighting (Entity::fifo). Errors name the entry.
Result<std::vector<Entity>> ParseEntityWeights(const std::string& text);
// Adds the pairs of a CSV with columns job_a, job_b, type, throughput_a, throughput_b (one
// line per pair and type; jobs and types named as in `problem`). Errors name file, line, field.
Status LoadJobPairs(const std::string& path, AllocationProblem* problem);

// --- The pure core of Gavel's round-based mechanism -------------------------------------
// One round (Gavel's scheduler.py, _update_priorities and _schedule_jobs_on_workers_helper):
// given each job's allocation x[j][k], the time it has received on each type since the
// allocation was last reset, and the GPUs of each type, which jobs run this round and where.
// Priority of (j, k) = x_jk / (received_jk / W_k), W_k the time run on type k since the
// reset (all jobs together): the job's share of the type's time so far against its
// allocation. A pair with x_jk > 0 and no share yet (received_jk = 0 or W_k = 0) gets
// x_jk * kNewJobPriority instead; a pair with x_jk = 0 has priority 0. Types are walked in
// `type_order`; each type's jobs in descending (priority, deficit, x_jk), ties in arrival
// order; all types' lists are walked one after the other and a job is taken when it has not
// been taken yet and its sf GPUs of that type are still free. With `can_run` given, jobs
// with x_jk = 0 are in type k's list too (at priority 0, where can_run[j][k]), so GPUs that
// the allocation leaves idle are filled (Gavel does this for every policy but FIFO).
struct RoundInput {
  std::vector<std::vector<double>> x;         // From an Allocation.
  std::vector<std::vector<double>> received;  // Seconds job j has run on type k (see above).
  std::vector<int> scale_factors;             // sf_j.
  std::vector<int> gpus;                      // n_k.
  // Optional (empty: the default named).
  std::vector<double> type_time;              // W_k; default sum_j received_jk.
  std::vector<std::vector<double>> deficit;   // The tie-break: time owed on type k; default 0.
  std::vector<int> type_order;                // Every type once; default 0, 1, ..., K-1.
  std::vector<std::vector<bool>> can_run;     // Default: only pairs with x_jk > 0 run.
  // Space sharing: row j is a combination of the jobs members[j] (ids of the caller's
  // choosing, e.g. a single job and the pairs it is part of); a row is taken only when
  // none of its members has been taken yet (Gavel skips a combination with a job already
  // scheduled). Default: every row is a job of its own.
  std::vector<std::vector<int>> members;
};
inline constexpr double kNewJobPriority = 1e9;
// Returns, per job, the type it runs on this round or -1. REQUIRES: consistent sizes.
std::vector<int> SelectRound(const RoundInput& in);

}  // namespace schedkit::gavel

#endif  // SCHEDKIT_GAVEL_H_
