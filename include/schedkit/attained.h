// Attained service: the GPU-seconds a job has run, as JobStatus::attained_gpu_s reports
// it. One rule for every engine: the simulator and the runtime both book it with these.
#ifndef SCHEDKIT_ATTAINED_H_
#define SCHEDKIT_ATTAINED_H_

namespace schedkit {

// The GPU-seconds a run of `wall_s` seconds on `held_gpus` GPUs adds beyond the job's
// request of `requested_gpus`: > 0 for an elastic job its policy grew (JobSpec::max_gpus),
// 0 for a run on the GPUs it asked for.
inline double GrownGpuSeconds(double wall_s, int held_gpus, int requested_gpus) {
  return wall_s * (held_gpus - requested_gpus);
}

// A job's attained service: its executed seconds (overheads included) at the GPUs it
// asked for, plus `grown_gpu_s`, what its ended runs on more GPUs added, plus the current
// run's growth (`current_grown_gpu_s`, 0 when it is not running).
inline double AttainedGpuSeconds(double executed_s, int requested_gpus, double grown_gpu_s,
                                 double current_grown_gpu_s) {
  return executed_s * requested_gpus + grown_gpu_s + current_grown_gpu_s;
}

}  // namespace schedkit

#endif  // SCHEDKIT_ATTAINED_H_
