// Field-by-field descriptions of the environments' spaces (schedkit/env_spaces.h); keep in step
// with docs/learning.md. The tests check every observation against these.
#include "schedkit/env_spaces.h"

namespace schedkit {
namespace {

SpaceDoc DagSpaces() {
  SpaceDoc d;
  d.symbols =
      "n = incomplete stages of the active jobs (nodes), e = edges between them, J = active "
      "jobs, k = schedulable stages";
  d.reward =
      "minus the integral over the step of the number of jobs in the system, in ms; the "
      "episode's sum is minus the sum of the JCTs (ms)";
  d.observation = {
      {"dag_ptr", "int64", "[J + 1]", "job j's nodes are dag_ptr[j] .. dag_ptr[j+1]-1"},
      {"edge_links", "int64", "[e, 2]", "(parent node, child node) between incomplete stages"},
      {"exec_supplies", "int64", "[J]",
       "per job: executors at it + moving to it + committed to it from other pools"},
      {"job_ids", "int64", "[J]", "episode job id (arrival order) of each active job"},
      {"node_job", "int64", "[n]", "active-job index of each node"},
      {"node_stage", "int64", "[n]", "stage id of each node within its job's DAG"},
      {"nodes", "float64", "[n, 3]",
       "per node: tasks not yet launched, most recent task duration (ms), schedulable (1/0)"},
      {"num_committable_execs", "int64", "[]",
       "executors of the source pool not yet committed in this round"},
      {"num_executors", "int64", "[]", "N, executors in the cluster"},
      {"schedulable_nodes", "int64", "[k]",
       "node indices of the schedulable stages; stage_idx indexes this list"},
      {"source_job_idx", "int64", "[]",
       "active-job index of the job releasing executors; J for the common pool"},
      {"wall_time", "float64", "[]", "simulated time (ms)"},
  };
  d.action = {
      {"stage_idx", "int64", "[]",
       "index into schedulable_nodes, or -1: commit the rest of the source to the common pool"},
      {"num_exec", "int64", "[]",
       "1..num_committable_execs executors (cut to the stage's demand; ignored for -1)"},
  };
  return d;
}

SpaceDoc ClusterSpaces() {
  SpaceDoc d;
  d.symbols =
      "Q = max_queued (queued rows: the first Q queued jobs by arrival), R = max_running "
      "(running rows: the first R running jobs by start); padded rows are zero, ids -1";
  d.reward =
      "minus the integral over the step of the number of jobs in the system, in s; the "
      "episode's sum is minus the sum of the JCTs (s)";
  d.observation = {
      {"action_mask", "int64", "[Q]", "1 iff starting queued row i now is legal (it fits)"},
      {"can_wait", "int64", "[]", "1 iff the action -1 (wait) is legal"},
      {"free_gpus", "int64", "[]", "GPUs free now"},
      {"num_queued", "int64", "[]", "queued jobs, including those beyond the Q rows"},
      {"num_running", "int64", "[]", "running jobs, including those beyond the R rows"},
      {"queued", "float64", "[Q, 3]",
       "per queued job: gpus, wait_s (now - submit), remaining_s (true solo seconds left, or -1 "
       "when hidden)"},
      {"queued_ids", "int64", "[Q]", "job id of each queued row, -1 for padding"},
      {"queued_mask", "int64", "[Q]", "1 for a real queued row, 0 for padding"},
      {"running", "float64", "[R, 4]",
       "per running job: gpus, age_s (now - start), attained_gpu_s (run seconds x GPUs), "
       "remaining_s (true solo seconds left, or -1 when hidden)"},
      {"running_ids", "int64", "[R]", "job id of each running row, -1 for padding"},
      {"preempt_mask", "int64", "[R]",
       "1 iff preempting running row i (action Q + i) is legal: preemption is on and the row is "
       "real"},
      {"running_mask", "int64", "[R]", "1 for a real running row, 0 for padding"},
      {"total_gpus", "int64", "[]", "GPUs in the cluster"},
      {"wall_time", "float64", "[]", "simulated time (s)"},
  };
  d.action = {
      {"queued_idx", "int64", "[]",
       "row of `queued` to start now (action_mask must be 1), or -1: wait for the next arrival "
       "or completion, or (preemption on) Q + i: stop running row i (preempt_mask must be 1)"},
  };
  return d;
}

}  // namespace

Result<SpaceDoc> DescribeEnvironment(const std::string& name) {
  if (name == "dag") return DagSpaces();
  if (name == "cluster") return ClusterSpaces();
  return Status::NotFound("unknown environment '" + name + "' (known: dag, cluster)");
}

}  // namespace schedkit
