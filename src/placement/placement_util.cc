#include "placement/placement_util.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "schedkit/throughput.h"

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

Placement PlaceWithinOneType(const JobSpec& job, const ClusterState& free,
                             const std::function<Placement(const ClusterState&)>& place) {
  if (free.one_gpu_type()) return place(free);
  const ClusterSpec& spec = free.spec();
  std::vector<std::string> types = spec.GpuTypes();
  std::vector<double> speed(types.size());
  for (size_t t = 0; t < types.size(); ++t) speed[t] = SpeedOn(job, types[t]);
  std::vector<size_t> order(types.size());
  for (size_t t = 0; t < order.size(); ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return speed[a] > speed[b]; });
  for (size_t t : order) {
    if (!(speed[t] > 0)) break;
    ClusterState only = free;
    for (int node = 0; node < free.num_nodes(); ++node) {
      if (spec.nodes[node].gpu_type != types[t]) only.SetHeld(node, true);
    }
    if (only.total_free_gpus() < job.gpus) continue;
    Placement p = place(only);
    if (!p.empty()) return p;
  }
  return Placement();
}

}  // namespace schedkit
