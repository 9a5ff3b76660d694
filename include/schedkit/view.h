// ClusterView: the read-only picture of the cluster and its jobs that every engine
// (simulator, real-cluster runtime, learning environment) hands to a policy at `now`.
#ifndef SCHEDKIT_VIEW_H_
#define SCHEDKIT_VIEW_H_

#include <cmath>
#include <string>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/throughput.h"

namespace schedkit {

enum class JobState { kPending, kRunning, kFinished, kRejected };

// A job's dynamic state at the view's Now(). Cheap to copy; `spec` lives as long as the
// engine, `placement` only until the engine applies the next decisions.
struct JobStatus {
  const JobSpec* spec = nullptr;
  JobState state = JobState::kPending;
  Time first_start_s = kNever;  // kNever until the job first starts.
  Time last_start_s = kNever;   // Start of the current (or last) run.
  double executed_s = 0;        // Wall seconds spent running so far, overheads included.
  double attained_gpu_s = 0;    // executed_s x GPUs: 2D-LAS "attained service".
  int preemptions = 0;          // Times the job was stopped before finishing.
  // Seconds of solo work left, as far as the engine knows: the truth in the simulator
  // (so policies that use it are oracle policies, and say so), the user's estimate minus
  // measured progress in the runtime (each run's wall time x its rate), NaN when nothing
  // is known.
  double remaining_s = NAN;
  const Placement* placement = nullptr;  // Where it runs now; null iff not kRunning.

  bool running() const { return state == JobState::kRunning; }
};

class ClusterView {
 public:
  virtual ~ClusterView() = default;

  virtual Time Now() const = 0;
  virtual const ClusterSpec& Cluster() const = 0;
  // Free resources at Now(), before the policy's decisions are applied.
  virtual const ClusterState& Resources() const = 0;
  // What a schedule built from scratch may use: everything free, except on nodes the
  // engine holds back from new starts (the runtime's drained nodes), which look fully
  // booked. Policies that rebuild their whole schedule at each decision (Muri, Themis,
  // replace-all preemption) start from Capacity(), never from ClusterState(&Cluster()),
  // so they start nothing on a held-back node; a job running there is re-placed like any
  // other, so a rebuild moves it off a drained node.
  virtual ClusterState Capacity() const { return ClusterState(&Cluster()); }
  // Running jobs, in a deterministic but unspecified order. O(1): the vector is the engine's.
  virtual const std::vector<JobId>& RunningJobs() const = 0;
  // Pending jobs sorted by (submit time, id). O(pending log pending) per call: a
  // convenience for small policies; fast policies track arrivals from EventBatch.
  virtual std::vector<JobId> PendingJobs() const = 0;
  // REQUIRES: `id` has arrived.
  virtual JobStatus Status(JobId id) const = 0;
  // The job's static description; cheaper than Status(id).spec. REQUIRES: `id` has arrived.
  virtual const JobSpec& Spec(JobId id) const = 0;
  // Status(id).placement (null iff not running), living as long; an engine may answer it
  // without building the whole status. REQUIRES: `id` has arrived.
  virtual const Placement* PlacementOf(JobId id) const { return Status(id).placement; }

  // Heterogeneous clusters (schedkit/throughput.h): `id`'s speed alone on `gpu_type`, in
  // seconds of its solo work per wall second (0: it cannot run there). The engines
  // progress jobs by this same rule. REQUIRES: `id` has arrived.
  double SpeedOn(JobId id, const std::string& gpu_type) const {
    return schedkit::SpeedOn(Spec(id), gpu_type);
  }
  // The run's measured throughput table (co-located pairs: ThroughputTable::ColocatedRate),
  // or null when the run has none.
  virtual const ThroughputTable* Throughputs() const { return nullptr; }
};

}  // namespace schedkit

#endif  // SCHEDKIT_VIEW_H_
