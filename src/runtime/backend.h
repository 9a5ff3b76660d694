// Where runtime jobs really run. One interface, chosen at start-up: `local` (processes on
// this machine, local_backend.cc) and `slurm` (a Slurm cluster, slurm_backend.cc). The
// engine decides; a backend only starts, stops and watches.
#ifndef SCHEDKIT_RUNTIME_BACKEND_H_
#define SCHEDKIT_RUNTIME_BACKEND_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/job_record.h"
#include "schedkit/cluster.h"
#include "schedkit/runtime.h"
#include "schedkit/status.h"

namespace schedkit::runtime {

struct JobExit {
  JobId id = 0;
  int exit_code = 0;  // 128+N when killed by signal N.
  std::string message;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  // The nodes jobs can be placed on; node i is named NodeNames()[i]. Nodes have no CPU
  // or memory capacity in the spec: backends enforce those per job, policies place GPUs.
  virtual const ClusterSpec& Cluster() const = 0;
  virtual const std::vector<std::string>& NodeNames() const = 0;
  // True iff jobs may share GPUs (co-location groups, guests): two jobs started on the
  // same GPUs both run there. False where the backend books GPUs exclusively.
  virtual bool SharesGpus() const = 0;

  // Prepares `job` (again, if it was preempted) on `placement`, held: nothing of the job
  // runs until Launch. The job gets the environment the contract promises
  // (SCHEDKIT_JOB_ID, SCHEDKIT_RESTART_COUNT, SCHEDKIT_CHECKPOINT_DIR, CUDA_VISIBLE_DEVICES,
  // AllocationEnv's SCHEDKIT_GPUS, SCHEDKIT_TIME_LIMIT_S, SCHEDKIT_TIME_LEFT_S, SCHEDKIT_EVENTS;
  // where SharesGpus(), also SCHEDKIT_GROUP, SCHEDKIT_GROUP_SIZE, SCHEDKIT_RATE and
  // SCHEDKIT_GUEST from the job's run fields, docs/runtime.md). The members of a co-location
  // group are started one by one on the same placement. Returns the backend id to store.
  // An error means the job cannot run (e.g. its program does not exist): the engine fails
  // it with the message.
  // Start and Launch are the two halves of at-most-once start: the engine commits the
  // returned id before it calls Launch, so a service killed between the two leaves a held
  // job that Adopt finds and ends, never one that runs unrecorded.
  virtual Result<std::string> Start(const JobRecord& job, const Placement& placement) = 0;
  // REQUIRES: Start(job) succeeded and job.backend_id is its id. Lets the held job run.
  // An error means it did not start (e.g. exec failed); nothing of it is left running.
  virtual Status Launch(const JobRecord& job) = 0;
  // Stops a running job so that it can resume later; it is told first (SIGTERM) and
  // forced after the grace period. Returns once the job no longer holds its resources,
  // as far as the backend can tell.
  virtual Status Preempt(const JobRecord& job) = 0;
  // Stops a job for good, with every process it left (local: its whole session); a no-op
  // for a job that never started.
  virtual Status Cancel(const JobRecord& job) = 0;
  // Of the running jobs given, those that have ended, with their exit status.
  virtual std::vector<JobExit> Poll(const std::vector<const JobRecord*>& running) = 0;

  enum class Liveness { kAlive, kEnded, kLost };
  // After a service restart, for a job the store says is running: still running
  // (re-adopt it), ended while the service was down (`exit` says how), or lost (requeue).
  // A job that was held (Start without Launch) or whose processes outlived their monitor
  // is ended here, so a lost job has nothing left running when it is started again.
  virtual Liveness Adopt(const JobRecord& job, JobExit* exit) = 0;

  // After recovery: ends whatever the backend prepared for this state directory that no
  // record names (`recorded`: every backend id the store holds), i.e. a start whose
  // service died before it could commit the id. Slurm: cancels such held submissions,
  // which would otherwise stay queued forever. Local: nothing to do (a held monitor's gate
  // closed with the service, so it exited without starting the job).
  virtual void EndUnrecorded(const std::set<std::string>& recorded) {}

  // Why a running job's GPUs cannot be changed in place on this backend, or empty if they
  // can: the engine then re-books the job on more or fewer GPUs of its node while its
  // processes keep running, and tells it through its events file (AppendAllocationEvent).
  virtual std::string ResizeRefusal() const {
    return "the " + Name() + " backend cannot change a running job's GPUs";
  }
};

// The job's allocation as its environment tells it at start (docs/runtime.md): "NAME=VALUE"
// for SCHEDKIT_GPUS (`gpus`), SCHEDKIT_GPU_TYPE (`gpu_type`: PlacementGpuTypes),
// SCHEDKIT_GPU_MILLI (the job's share of each GPU, 1000 = whole), SCHEDKIT_TIME_LIMIT_S and
// SCHEDKIT_TIME_LEFT_S (seconds; empty without a limit) and SCHEDKIT_EVENTS (EventsPath);
// for a share of one GPU also CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (the share in percent,
// rounded up).
std::vector<std::string> AllocationEnv(const std::string& state_dir, const JobRecord& job,
                                       int gpus, const std::string& gpu_type);
// The GPU type of `placement`'s nodes ("v100"); a placement across types lists each once,
// in placement order, joined by ',' ("k80,v100"); "" for no GPUs.
std::string PlacementGpuTypes(const Placement& placement, const ClusterSpec& cluster);
// The local backend's GPU slots of `placement`, "0,1,3" (CUDA_VISIBLE_DEVICES, the events
// file's gpu_ids): the host's GPUs numbered across `cluster`'s nodes in order, node i's
// GPU g being slot g + the GPUs of nodes 0..i-1 (on one node, the GPU indices themselves).
std::string GpuSlots(const Placement& placement, const ClusterSpec& cluster);
// <state_dir>/jobs/<id>/events.jsonl: one JSON object per line, appended while the job runs.
std::string EventsPath(const std::string& state_dir, JobId id);
// Run time the job has left at `now_unix` (its current run counted if it is running), at
// least 0; NaN without a limit.
double TimeLeft(const JobRecord& job, double now_unix);
// Appends {"event":EVENT,"gpus":N,"gpu_ids":"0,1","time_left_s":X|null,"time":UNIX} to the
// job's events file in one write (readers never see half a line).
Status AppendAllocationEvent(const std::string& state_dir, const JobRecord& job,
                             const std::string& event, const Placement& placement,
                             const ClusterSpec& cluster, double now_unix);

// Per-job files: <state_dir>/jobs/<id>/{stdout.log,stderr.log,checkpoint/}.
std::string JobDir(const std::string& state_dir, JobId id);

Result<std::unique_ptr<Backend>> MakeLocalBackend(const RuntimeOptions& options);
Result<std::unique_ptr<Backend>> MakeSlurmBackend(const RuntimeOptions& options);

// Runs argv (PATH lookup, no shell) and returns its exit code and stdout (stderr kept for
// the message when it fails).
struct CommandOutput {
  int exit_code = 0;
  std::string out, err;
};
Result<CommandOutput> RunCommand(const std::vector<std::string>& argv);

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_BACKEND_H_
