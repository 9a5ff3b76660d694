// Multi-resource interleaving (Muri, SIGCOMM'22): the iteration time of a group of 2-4
// jobs that share GPUs and take turns on the stages of an iteration, and the
// interleaving efficiency used as a matching edge weight. See docs/interleaving.md.
//
// Every job has three per-iteration stage times rt[0] (storage I/O + CPU
// preprocessing), rt[1] (GPU compute) and rt[2] (network), seconds.
//
// Raw period of one ordering P[0..n-1] (Muri's 4-phase recurrence, multi_resource = 4):
//   f[0..8] = 0; for i = 0..7:
//     if (i+1)%4 < n: f[i+1] = max(f[i+1], f[i]   + P[(i+1)%4].rt[2])
//     if (i+2)%4 < n: f[i+1] = max(f[i+1], f[i]   + P[(i+2)%4].rt[1])
//     if i > 0 and (i+3)%4 < n: f[i+1] = max(f[i+1], f[i-1] + P[(i+3)%4].rt[0])
//     if i >= 4 and isclose(f[i+1]-f[i-3], f[i]-f[i-4], rel 1e-3): period = f[i+1]-f[i-3], stop
//   if no period > 0 was found: period = f[8] - f[4].
// Group iteration time TT(G), |G| = n:
//   n = 1: the job's own iteration time x 1.015 (Muri's profiled solo time);
//   n >= 2: min over all orderings of the raw period (for n = 2 also the closed form
//           max(a.rt0, b.rt1 + b.rt2) + max(b.rt0, a.rt1 + a.rt2)), times the group-size
//           factor 1.33/1.015 (n = 2), 1.5/1.015 (n = 3), 1.37/1.015 (n = 4).
// Every member of a group advances one iteration per TT(G), i.e. at
//   rate = solo iteration time x 1.015 / TT(G) of its solo speed.
// Interleaving efficiency (edge weight) of G: sum_j sum_s rt_j[s] / (4 x TT(G)).
#ifndef SCHEDKIT_MECHANISMS_INTERLEAVING_H_
#define SCHEDKIT_MECHANISMS_INTERLEAVING_H_

#include <vector>

#include "schedkit/job.h"

namespace schedkit {

inline constexpr int kMaxGroupSize = 4;  // Muri's packing_num.

// Muri's iteration-time factor for a group of `n` jobs (1 <= n <= 4); 1.015 for n = 1.
double GroupSizeFactor(int n);

// The raw steady-state period of the recurrence above for the jobs in this order,
// without the group-size factor. REQUIRES: 1 <= order.size() <= 4.
double OrderedGroupPeriod(const std::vector<StageTimes>& order);

// Min over orderings (and the 2-job closed form) of the raw period, without the
// group-size factor. REQUIRES: 2 <= stages.size() <= 4.
double MinGroupPeriod(const std::vector<StageTimes>& stages);

// TT(G) of the jobs, group-size factor included. A single job's is its
// iteration_time_s x 1.015. REQUIRES: 1 <= jobs.size() <= 4.
double GroupIterationTime(const std::vector<const JobSpec*>& jobs);

// Interleaving efficiency of the group: total stage time / (4 x TT(G)).
double InterleavingEfficiency(const std::vector<const JobSpec*>& jobs);
// The same with TT(G) already known (it depends only on the set of jobs, not their order,
// so callers may cache it); the stage times are summed in member order.
double InterleavingEfficiency(const std::vector<const JobSpec*>& jobs, double group_tt);
// The same from the members' stage-time total (StageTotal of each member, added left to
// right in member order, as Muri rounds) and TT(G).
double InterleavingEfficiency(double stage_total, double group_tt);
// One job's stage times added in stage order.
double StageTotal(const JobSpec& job);

// Fraction of its solo speed at which `job` progresses in a group whose iteration time
// is `group_tt`: job.iteration_time_s x 1.015 / group_tt; 1 for a job with no iteration
// time.
double GroupRate(const JobSpec& job, double group_tt);

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_INTERLEAVING_H_
