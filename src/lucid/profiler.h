// Internal: Lucid's profiling pool, shared by `--compat lucid` and the clean model.
//
// Before the VC simulations, every job of <= max_gpus GPUs runs for up to time_limit_s
// in a small pool of nodes, least-GPU-first with head-of-line blocking. Jobs that end
// within the limit finish there; the others go on to their VC. The pool grows by one
// node when more than scale_up_queue jobs wait (checked every 10 s) and shrinks back
// when fewer than scale_down_queue wait, the added node is idle and the forecast mean
// pred_gpu_num is low (checked every 100 s).
#ifndef SCHEDKIT_LUCID_PROFILER_H_
#define SCHEDKIT_LUCID_PROFILER_H_

#include <utility>
#include <vector>

#include "schedkit/lucid.h"
#include "schedkit/trace.h"

namespace schedkit::lucid {

// When a node added to the pool is first used.
enum class ProfilerClock {
  kLucidTicks,  // Lucid: it is added after the tick's placement, used from t + 1.
  kEvents,      // Clean model: placement is retried at once.
};

struct ProfiledJob {
  bool profiled = false;  // Ran in the pool.
  bool finished = false;  // Its whole duration fit in the time limit.
  Time start_s = 0;       // Entered the pool.
  Time end_s = 0;         // Left it: start + min(duration, limit).
};

struct ProfilerRun {
  std::vector<ProfiledJob> jobs;                   // Trace order.
  std::vector<std::pair<Time, int>> pool_changes;  // (time, +1 node or -1 node).
};

// Takes the pool's nodes, one from each donor VC: `nodes` holds the VCs' node counts in
// `vcs` order. Errors name a donor that is not configured or has no node.
Status TakeProfilerNodes(const ProfilerConfig& cfg, const std::vector<VirtualCluster>& vcs,
                         std::vector<int>* nodes);

// Runs the pool over every job of `trace` (all VCs). Errors if a job that must be
// profiled can never fit the pool.
Result<ProfilerRun> RunProfiler(const Trace& trace, const ProfilerConfig& cfg,
                                const ThroughputForecast& forecast, ProfilerClock clock);

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_PROFILER_H_
