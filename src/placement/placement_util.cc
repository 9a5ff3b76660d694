#include "placement/placement_util.h"

#include <algorithm>
#include <cmath>

namespace schedkit {

NodeShare ShareOn(const ClusterState& free, const JobSpec& job, int node, int gpus_here) {
  const NodeSpec& spec = free.spec().nodes[node];
  NodeShare share;
  share.node = node;
  share.gpu_mask = LowestBits(free.free_gpu_mask(node), gpus_here);
  const bool whole_job_here = gpus_here == job.gpus;
  if (spec.cpus > 0) {
    share.cpus = job.cpus > 0 ? (job.cpus * gpus_here + job.gpus - 1) / job.gpus
                              : (job.gpus == 1 ? 2 : 6 * gpus_here);
  }
  if (spec.mem_gb > 0) {
    share.mem_gb = job.mem_gb > 0 ? job.mem_gb * gpus_here / job.gpus
                   : whole_job_here ? 5.0
                                    : (6 + 0.1 * job.gpus + 5) * gpus_here;
  }
  return share;
}

bool FitsOn(const ClusterState& free, const JobSpec& job, int node, int gpus_here) {
  if (free.free_gpus(node) < gpus_here) return false;
  const NodeShare s = ShareOn(free, job, node, gpus_here);
  return s.cpus <= free.free_cpus(node) && s.mem_gb <= free.free_mem_gb(node) + 1e-9;
}

Placement TakeInOrder(const ClusterState& free, const JobSpec& job, const std::vector<int>& nodes) {
  Placement p;
  int needed = job.gpus;
  for (int node : nodes) {
    if (needed == 0) break;
    int take = std::min(needed, free.free_gpus(node));
    while (take > 0 && !FitsOn(free, job, node, take)) --take;
    if (take == 0) continue;
    p.shares.push_back(ShareOn(free, job, node, take));
    needed -= take;
  }
  if (needed > 0) return Placement();
  std::sort(p.shares.begin(), p.shares.end(),
            [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
  return p;
}

}  // namespace schedkit
