// One runtime job as the store keeps it: what was submitted and where it stands.
#ifndef SCHEDKIT_RUNTIME_JOB_RECORD_H_
#define SCHEDKIT_RUNTIME_JOB_RECORD_H_

#include <string>
#include <vector>

#include "schedkit/job.h"

namespace schedkit::runtime {

// Mirrors schedkit.v1.JobState (same numbers).
enum class RunState { kPending = 1, kRunning, kSucceeded, kFailed, kCancelled, kRejected, kTimeout };
constexpr RunState kLastRunState = RunState::kTimeout;

const char* RunStateName(RunState s);
// Returns false iff `name` is not a RunStateName.
bool ParseRunState(const std::string& name, RunState* out);
inline bool IsFinal(RunState s) { return s >= RunState::kSucceeded; }

struct JobRecord {
  JobId id = 0;
  // Submitted.
  std::vector<std::string> command;
  bool shell = false;
  int gpus = 0;
  int cpus = 0;
  double mem_gb = 0;
  double duration_s = 0;
  std::string user, vc, name, checkpoint_dir, working_dir;
  int priority = 0;
  std::string idempotency_key;  // Empty = none; else unique among the store's jobs.
  // Profile for co-location (Muri): seconds per iteration alone and that iteration's stage
  // times ([0] data + CPU, [1] GPU, [2] network); 0 = unknown.
  double iteration_time_s = 0;
  StageTimes stage_times_s{0, 0, 0};
  // Run time allowed over all runs, in seconds; 0 = no limit (docs/runtime.md, "Time limits").
  double time_limit_s = 0;
  // Elastic jobs: the most GPUs a policy may start it on alone; 0 = rigid (docs/runtime.md).
  int max_gpus = 0;
  // Share of each of its GPUs, milli-GPU (JobSpec::gpu_milli): kMilliPerGpu = whole GPUs;
  // 1-999 = a share of one GPU (docs/runtime.md, "GPU shares").
  int gpu_milli = kMilliPerGpu;
  // Speed per GPU type (JobSpec::profile.type_speeds: sorted, each > 0); empty = the same on
  // every type (docs/runtime.md, "GPU types").
  std::vector<TypeSpeed> type_speeds;
  double submit_time = 0;  // Unix seconds.
  // Progress.
  RunState state = RunState::kPending;
  double first_start_time = 0;  // Unix seconds; 0 = never.
  double last_start_time = 0;
  double finish_time = 0;
  double executed_s = 0;  // Over finished runs; the current run adds now - last_start_time.
  // Solo seconds of work done over finished runs: each run's wall time x its rate. The
  // current run adds (now - last_start_time) x rate.
  double work_done_s = 0;
  // GPU-seconds beyond the request over finished runs: a grown elastic run's wall time x
  // the GPUs it held above `gpus` (GrownGpuSeconds, schedkit/attained.h).
  double grown_gpu_s = 0;
  int restart_count = 0;
  int preemptions = 0;
  std::string placement;   // Placement::ToString() text; empty unless running.
  // How the policy started the current (or last) run (schedkit/decision.h StartDecision).
  int64_t group = 0;       // Booking shared with its co-location group; 0 for a guest.
  int group_size = 1;      // Jobs sharing that booking (1 alone).
  double rate = 1;         // Solo speed fraction the policy expects it to run at.
  bool guest = false;      // Runs on GPUs it does not book (AntMan's opportunistic jobs).
  std::string backend_id;  // Local: "pid:starttime" of the job's monitor; Slurm: the job id.
  int exit_code = 0;
  std::string message;
};

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_JOB_RECORD_H_
