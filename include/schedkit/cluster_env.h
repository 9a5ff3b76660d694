// The GPU-cluster learning environment: schedkit::Environment (env.h) over the trace-driven
// simulator (simulator.h), one job start per step. Fields of the observation and the action
// are documented in docs/learning.md ("Cluster environment").
//
// At each decision point some queued job fits the free GPUs; the agent names one of the
// first `max_queued` queued jobs (arrival order) to start now, placed by the placement
// module, or -1 to wait for the next arrival or completion. While no visible queued job fits,
// the environment advances the simulation by itself. With `preemption`, the agent may also
// stop one of the first `max_running` running jobs (it becomes queued again). The reward of
// a step is minus the integral, over the simulated time it covers, of the number of jobs in
// the system (arrived, unfinished), in seconds: summed over an episode it is minus the sum of
// the jobs' completion times (JCT = finish - submit).
#ifndef SCHEDKIT_CLUSTER_ENV_H_
#define SCHEDKIT_CLUSTER_ENV_H_

#include <memory>
#include <string>
#include <vector>

#include "schedkit/env.h"
#include "schedkit/status.h"
#include "schedkit/trace.h"

namespace schedkit {

struct ClusterEnvConfig {
  // Workload: a trace file (every episode is the whole trace, whatever the seed), or, when
  // empty, the synthetic generator with Reset's seed (GeneratorConfig::seed is ignored).
  std::string trace_path;
  TraceOptions trace_options;
  GeneratorConfig generator = DefaultGenerator();
  // Cluster spec file (cluster.h formats); empty: <data dir>/clusters/muri_n8g8.csv (64 GPUs).
  std::string cluster_path;
  std::string placement = "yarn";  // A registered placement module (`schedkit policies`).

  int max_queued = 32;   // Rows of `queued` (Q): the first Q queued jobs by arrival.
  int max_running = 64;  // Rows of `running` (R): the first R running jobs by start.
  // Let the agent preempt: actions Q .. Q+R-1 stop running row a - Q, and a decision point
  // is also any instant at which a job waits while another runs. False: jobs are never
  // preempted and the action space is -1 .. Q-1.
  bool preemption = false;
  // Publish each job's true remaining solo seconds (the simulator's truth: an oracle, as
  // SJF is). False: the `remaining_s` column is -1.
  bool expose_remaining = true;

  // 200 Blox-distributed jobs at 60 per hour on 64 GPUs: the queue grows to dozens of jobs,
  // so the order matters (SJF beats FIFO by about 15 %).
  static GeneratorConfig DefaultGenerator() {
    GeneratorConfig g;
    g.num_jobs = 200;
    g.jobs_per_hour = 60;
    return g;
  }
  // OK iff every field is in range; otherwise names the field.
  Status Validate() const;
};

// Loads the cluster (and the trace, if any) and builds the placement module. Fails with the
// loader's file:line:field message, or naming the field of `config` that is out of range,
// or naming a job (or, for the generator, an 8-GPU job) that cannot fit the empty cluster.
Result<std::unique_ptr<Environment>> MakeClusterEnvironment(const ClusterEnvConfig& config);

// Column names of the `queued` and `running` observation fields, in order.
const std::vector<std::string>& ClusterEnvQueuedColumns();
const std::vector<std::string>& ClusterEnvRunningColumns();

}  // namespace schedkit

#endif  // SCHEDKIT_CLUSTER_ENV_H_
