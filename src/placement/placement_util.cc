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
  share.gpu_milli = job.gpu_milli;  // A fractional job takes a share of a free GPU.
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

namespace {

// Whether `node` has the CPUs and memory of `share` free (its GPUs are checked apart).
bool HostFits(const ClusterState& free, int node, const NodeShare& share) {
  return share.cpus <= free.free_cpus(node) && share.mem_gb <= free.free_mem_gb(node) + 1e-9;
}

}  // namespace

bool FitsOn(const ClusterState& free, const JobSpec& job, int node, int gpus_here) {
  if (free.free_gpus(node) < gpus_here) return false;
  return HostFits(free, node, ShareOn(free, job, node, gpus_here));
}

Placement TakeInOrder(const ClusterState& free, const JobSpec& job, const std::vector<int>& nodes) {
  NodeTaker taker(free, job);
  for (int node : nodes) {
    if (taker.done()) break;
    taker.Take(node);
  }
  return taker.Finish();
}

void NodeTaker::Take(int node) {
  // The most GPUs up to what is needed whose share the node's CPUs and memory hold
  // (FitsOn, each share computed once).
  for (int take = std::min(needed_, free_.free_gpus(node)); take > 0; --take) {
    NodeShare share = ShareOn(free_, job_, node, take);
    if (!HostFits(free_, node, share)) continue;
    // Room for a share per node the job may still span (at most one per GPU), so that a
    // job spread over nodes allocates once rather than at each doubling.
    if (p_.shares.empty()) {
      p_.shares.reserve(static_cast<size_t>(std::min(job_.gpus, kMaxSharesReserved)));
    }
    p_.shares.push_back(std::move(share));
    needed_ -= take;
    return;
  }
}

Placement NodeTaker::Finish() {
  if (needed_ > 0) return Placement();
  std::sort(p_.shares.begin(), p_.shares.end(),
            [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
  return std::move(p_);
}

Placement PlaceWithinOneType(const JobSpec& job, const ClusterState& free,
                             const std::function<Placement(const ClusterState&)>& place) {
  if (free.one_gpu_type()) return place(free);
  // No module can place more GPUs than are free: most calls (pending jobs in a busy
  // cluster) end here, before any per-type work.
  if (free.total_free_gpus() < job.gpus) return Placement();
  // One pass over the nodes finds the types (as pointers to a node's name, no copies; a
  // node usually has its predecessor's type) and their free GPUs; a type is tried (a copy
  // of the state) only if it has enough free GPUs for the job.
  const std::vector<NodeSpec>& nodes = free.spec().nodes;
  struct Type {
    const std::string* name;
    int free_gpus;
    double speed;
  };
  std::vector<Type> types;
  std::vector<int> type_of(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    size_t t = 0;
    if (n > 0 && *types[type_of[n - 1]].name == nodes[n].gpu_type) {
      t = type_of[n - 1];
    } else {
      while (t < types.size() && *types[t].name != nodes[n].gpu_type) ++t;
      if (t == types.size()) types.push_back({&nodes[n].gpu_type, 0, 0});
    }
    types[t].free_gpus += free.free_gpus(static_cast<int>(n));
    type_of[n] = static_cast<int>(t);
  }
  for (Type& t : types) t.speed = t.free_gpus >= job.gpus ? SpeedOn(job, *t.name) : 0;
  std::vector<int> order(types.size());
  for (size_t t = 0; t < order.size(); ++t) order[t] = static_cast<int>(t);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return types[a].speed > types[b].speed; });
  for (int t : order) {
    if (!(types[t].speed > 0)) break;  // The rest cannot run the job or lack GPUs.
    ClusterState only = free;
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (type_of[n] != t) only.SetHeld(static_cast<int>(n), true);
    }
    Placement p = place(only);
    if (!p.empty()) return p;
  }
  return Placement();
}

}  // namespace schedkit
