// The built-in placement modules.
//  yarn       Muri's consolidated placement: a job that fits one node goes on the first
//             node that can hold it whole; a larger job takes whole free nodes of one
//             switch (plus one node for the remainder).
//  gpu-count  Tiresias: any free GPUs will do (the speed model ignores locality); GPUs
//             are taken from the nodes with the most free GPUs first, to span few nodes.
//  best-fit   Consolidated: the node whose free GPUs fit the job most tightly; larger
//             jobs take the emptiest nodes first.
//  first-fit  Scattered: the first free GPUs in node order, across nodes (Blox).
#include <algorithm>
#include <numeric>

#include "placement/placement_util.h"
#include "registry/builtins.h"

namespace schedkit {
namespace {

std::vector<int> AllNodes(const ClusterState& free) {
  std::vector<int> nodes(free.num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  return nodes;
}

// Takes GPUs from nodes with free GPUs, most free first (ties: lower id first), as
// TakeInOrder would from the list of them all, but reads the state's index of nodes by
// free GPUs only until the job is placed: this runs for every placement, and on a large
// cluster most nodes have some GPU free.
Placement TakeEmptiestFirst(const ClusterState& free, const JobSpec& job) {
  NodeTaker taker(free, job);
  for (int c = free.max_node_gpus(); c > 0 && !taker.done(); --c) {
    for (int n = free.FirstNodeWithFree(c, 0); n >= 0 && !taker.done();
         n = free.FirstNodeWithFree(c, n + 1)) {
      taker.Take(n);
    }
  }
  return taker.Finish();
}

class YarnPlacement final : public CopyableModule<YarnPlacement, PlacementModule> {
 public:
  std::string_view Name() const override { return "yarn"; }
  bool PlacesByShape() const override { return true; }  // FitsOn, ShareOn: the shape.
  // Whole GPUs that one node holds: the first node with that many free (Place).
  bool PlacesOnOneNodeWithFreeGpus(const JobSpec& job, const ClusterState& free) const override {
    return job.gpu_milli >= kMilliPerGpu && job.gpus <= free.max_node_gpus();
  }
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    if (job.gpus <= free.max_node_gpus()) {
      // The first node in id order that holds it: only nodes with enough free GPUs.
      for (int node = free.FirstNodeWithAtLeast(job.gpus, 0); node >= 0;
           node = free.FirstNodeWithAtLeast(job.gpus, node + 1)) {
        if (FitsOn(free, job, node, job.gpus)) return Placement{{ShareOn(free, job, node, job.gpus)}};
      }
      return Placement();
    }
    for (int sw = 0; sw < free.spec().num_switches(); ++sw) {
      Placement p = PlaceInSwitch(job, free, sw);
      if (!p.empty()) return p;
    }
    return Placement();
  }

 private:
  // Whole free nodes of switch `sw` in id order, then the first other node of the switch
  // that holds the remainder. Two walks over the switch's nodes, with nothing allocated
  // but the answer: the first takes the whole nodes while they fit the GPUs still needed,
  // the second the first node not taken that holds the rest.
  static Placement PlaceInSwitch(const JobSpec& job, const ClusterState& free, int sw) {
    const std::vector<NodeSpec>& nodes = free.spec().nodes;
    Placement p;
    int needed = job.gpus;
    for (int node = 0; node < free.num_nodes(); ++node) {
      const int gpus = nodes[node].gpus;
      if (nodes[node].switch_id != sw || needed < gpus || free.free_gpus(node) != gpus ||
          !FitsOn(free, job, node, gpus)) {
        continue;
      }
      p.shares.push_back(ShareOn(free, job, node, gpus));
      needed -= gpus;
    }
    if (needed > 0) {
      size_t taken = 0;  // p.shares is in node order.
      int node = 0;
      for (; node < free.num_nodes(); ++node) {
        if (taken < p.shares.size() && p.shares[taken].node == node) {
          ++taken;
          continue;
        }
        if (nodes[node].switch_id == sw && FitsOn(free, job, node, needed)) break;
      }
      if (node == free.num_nodes()) return Placement();
      p.shares.push_back(ShareOn(free, job, node, needed));
      std::sort(p.shares.begin(), p.shares.end(),
                [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    }
    return p;
  }
};

class GpuCountPlacement final : public CopyableModule<GpuCountPlacement, PlacementModule> {
 public:
  std::string_view Name() const override { return "gpu-count"; }
  bool PlacesByShape() const override { return true; }  // FitsOn, ShareOn: the shape.
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    if (free.total_free_gpus() < job.gpus) return Placement();
    return TakeEmptiestFirst(free, job);
  }
};

class BestFitPlacement final : public CopyableModule<BestFitPlacement, PlacementModule> {
 public:
  std::string_view Name() const override { return "best-fit"; }
  bool PlacesByShape() const override { return true; }  // FitsOn, ShareOn: the shape.
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    // Both ways below take whole free GPUs only: with fewer free than asked neither can
    // place (the spread one would take every node with a free GPU before finding out).
    if (free.total_free_gpus() < job.gpus) return Placement();
    // The node with the fewest free GPUs that holds the job, the lowest id among equals:
    // nodes by free count upwards, each count in id order; the first that fits.
    for (int c = std::max(job.gpus, 0); c <= free.max_node_gpus(); ++c) {
      for (int node = free.FirstNodeWithFree(c, 0); node >= 0; node = free.FirstNodeWithFree(c, node + 1)) {
        if (FitsOn(free, job, node, job.gpus)) return Placement{{ShareOn(free, job, node, job.gpus)}};
      }
    }
    return TakeEmptiestFirst(free, job);
  }
};

class FirstFitPlacement final : public CopyableModule<FirstFitPlacement, PlacementModule> {
 public:
  std::string_view Name() const override { return "first-fit"; }
  bool PlacesByShape() const override { return true; }  // FitsOn, ShareOn: the shape.
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    return TakeInOrder(free, job, AllNodes(free));
  }
};

// A built-in module that keeps each job within one GPU type (PlaceWithinOneType).
template <typename T>
class OneGpuType final : public CopyableModule<OneGpuType<T>, PlacementModule> {
 public:
  std::string_view Name() const override { return inner_.Name(); }
  // On one GPU type Place is inner_.Place (elsewhere the job's speeds choose the type).
  bool PlacesByShape() const override { return inner_.PlacesByShape(); }
  // Elsewhere inner_ places on a copy of `free` with fewer free GPUs, on one node.
  bool PlacesOnOneNodeWithFreeGpus(const JobSpec& job, const ClusterState& free) const override {
    return inner_.PlacesOnOneNodeWithFreeGpus(job, free);
  }
  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    return PlaceWithinOneType(job, free,
                              [&](const ClusterState& f) { return inner_.Place(job, f); });
  }

 private:
  T inner_;
};

template <typename T>
PlacementRegistry::Entry Entry(std::string name, std::string description) {
  PlacementRegistry::Entry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.factory = [](ModuleContext&) -> Result<std::unique_ptr<PlacementModule>> {
    return std::unique_ptr<PlacementModule>(std::make_unique<OneGpuType<T>>());
  };
  return e;
}

}  // namespace

Status RegisterPlacements(Registries* r) {
  SCHEDKIT_RETURN_IF_ERROR(r->placements.Register(Entry<YarnPlacement>(
      "yarn", "Muri's consolidated placement: one node if it fits, else whole nodes of one switch")));
  SCHEDKIT_RETURN_IF_ERROR(r->placements.Register(Entry<GpuCountPlacement>(
      "gpu-count", "Tiresias: any free GPUs regardless of locality, fewest nodes first")));
  SCHEDKIT_RETURN_IF_ERROR(r->placements.Register(Entry<BestFitPlacement>(
      "best-fit", "Consolidated: the tightest node that holds the job, else the emptiest nodes")));
  return r->placements.Register(Entry<FirstFitPlacement>(
      "first-fit", "Scattered: the first free GPUs in node order, across nodes (Blox)"));
}

}  // namespace schedkit
