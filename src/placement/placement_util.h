// Mechanism shared by the placement modules: per-node CPU/memory demand and GPU picking.
#ifndef SCHEDKIT_PLACEMENT_PLACEMENT_UTIL_H_
#define SCHEDKIT_PLACEMENT_PLACEMENT_UTIL_H_

#include <functional>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"

namespace schedkit {

// The CPUs and memory a job needs on a node where it holds `gpus_here` GPUs: its own
// request pro rata when it gives one, else Muri's defaults (2 CPUs for a 1-GPU job,
// 6 per GPU otherwise; 5 GB on one node, (11 + 0.1 x GPUs) GB per GPU across nodes).
// Nodes that declare no CPUs (or no memory) are not checked for them.
NodeShare ShareOn(const ClusterState& free, const JobSpec& job, int node, int gpus_here);

// True iff `node` can hold `gpus_here` GPUs of `job` with its CPUs and memory.
bool FitsOn(const ClusterState& free, const JobSpec& job, int node, int gpus_here);

// Takes GPUs from `nodes` in the given order, as many as each node can hold (CPU and
// memory permitting), until the job's demand is met. Empty if it cannot be met.
Placement TakeInOrder(const ClusterState& free, const JobSpec& job, const std::vector<int>& nodes);

// TakeInOrder one node at a time, for callers that find the nodes in order as they go
// and stop once done(): the same placement for the same order.
class NodeTaker {
 public:
  NodeTaker(const ClusterState& free, const JobSpec& job)
      : free_(free), job_(job), needed_(job.gpus) {}
  bool done() const { return needed_ == 0; }
  // Takes as many GPUs of `node` as it can hold of what is still needed.
  void Take(int node);
  // The placement, shares in node order; empty unless done().
  Placement Finish();

 private:
  static constexpr int kMaxSharesReserved = 8;  // Take's first reservation, in shares.
  const ClusterState& free_;
  const JobSpec& job_;
  int needed_;
  Placement p_;
};

// Heterogeneous clusters: places `job` with `place` on nodes of one GPU type only. On a
// one-type cluster that is `place(free)` itself. Else `place` sees, for each type the job
// can run on (SpeedOn > 0; the fastest for the job first, ties in the cluster's order), a
// copy of `free` in which the other types' nodes look fully booked; the first non-empty
// placement wins. Every built-in placement module goes through this (placements.cc); a
// policy that wants a job to span types calls a module's placement on its own view.
Placement PlaceWithinOneType(const JobSpec& job, const ClusterState& free,
                             const std::function<Placement(const ClusterState&)>& place);

}  // namespace schedkit

#endif  // SCHEDKIT_PLACEMENT_PLACEMENT_UTIL_H_
