// Placement policies for GPU-sharing pods, and the one mechanism that drives them all.
//
// A policy only scores: for a pod and one node that can hold it, a score (higher is better)
// and the GPUs it would take there. PlacePod filters the nodes (Fits), asks the policy for
// each, and takes the best score; TieBreak says which of equal best nodes wins. Scores are
// integers, as in the reference, so that its ties are our ties.
#ifndef SCHEDKIT_SHARING_POLICY_H_
#define SCHEDKIT_SHARING_POLICY_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "mechanisms/portable_rng.h"
#include "schedkit/registry.h"
#include "schedkit/sharing.h"

namespace schedkit::sharing {

// What a policy sees: the nodes now and their fragmentation (current per node). Built over
// a SharingState (`schedkit fgd run`) or over the core ClusterState (the placement modules,
// src/sharing/placement_modules.cc).
struct SharingView {
  SharingView(const SharingState& state, const Fragmentation& frag)
      : spec(state.spec()), nodes(state.nodes()), frag(frag) {}
  SharingView(const SharingClusterSpec& spec, const std::vector<NodeUse>& nodes,
              const Fragmentation& frag)
      : spec(spec), nodes(nodes), frag(frag) {}

  int num_nodes() const { return static_cast<int>(nodes.size()); }
  const NodeFree& free(int node) const { return nodes[node].free; }
  int fully_free_gpus(int node) const { return FullyFreeGpus(nodes[node].free); }
  const std::map<int, int>& gpu_pod_kinds(int node) const { return nodes[node].kinds; }
  bool Fits(int node, const PodSpec& pod) const {
    return sharing::Fits(spec.nodes[node], nodes[node], pod);
  }

  const SharingClusterSpec& spec;
  const std::vector<NodeUse>& nodes;
  const Fragmentation& frag;
  // Each node's rank for TieBreak::kRankedNode (lower wins a tie); REQUIRED for it.
  const std::vector<int>* tie_rank = nullptr;
};

struct NodeChoice {
  int64_t score = 0;
  uint32_t gpu_mask = 0;  // The GPUs the pod would take on the node (0 for CPU-only pods).
};

class SharingPolicy {
 public:
  virtual ~SharingPolicy() = default;
  virtual std::string_view Name() const = 0;
  // REQUIRES: Fits(view.state, node, pod). Deterministic given `rng`'s state.
  virtual NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                           PortableRng& rng) const = 0;
  // True iff Score reads the nodes' pod kinds (NodeUse::kinds); placement modules over the
  // core state work them out only for such policies.
  virtual bool ReadsPodKinds() const { return false; }
};

using SharingPolicyRegistry = Registry<SharingPolicy, ModuleContext>;

// Every built-in, registered once (src/sharing/policies.cc lists them).
const SharingPolicyRegistry& BuiltinSharingPolicies();

// The placement `policy` chooses for `pod`, or an empty one when no node fits.
// REQUIRES: view.tie_rank holds a rank per node if ties == kRankedNode.
SharingPlacement PlacePod(const SharingPolicy& policy, const SharingView& view, const PodSpec& pod,
                          TieBreak ties, PortableRng& rng);

// GPU choices shared by the policies. Each REQUIRES: Fits(state, node, pod).
// Whole-GPU pods: the lowest-numbered fully free GPUs. Others: what the name says.
uint32_t LowestFreeGpus(const NodeFree& free, const PodSpec& pod);
// Fractional pods: the GPU with the least free share that still holds the pod (lowest
// index on ties); whole-GPU pods: LowestFreeGpus; CPU-only pods: none.
uint32_t BestFitGpus(const NodeFree& free, const PodSpec& pod);
// Fractional pods: a GPU drawn uniformly among those that hold the pod; else as BestFitGpus.
uint32_t RandomFitGpus(const NodeFree& free, const PodSpec& pod, PortableRng& rng);

// A uniformly random order of `nodes` nodes for TieBreak::kRankedNode: rank[node].
std::vector<int> RandomNodeRanks(int nodes, PortableRng& rng);

// The node's free resources after the pod takes `gpu_mask` there.
NodeFree After(const NodeFree& free, const PodSpec& pod, uint32_t gpu_mask);

}  // namespace schedkit::sharing

#endif  // SCHEDKIT_SHARING_POLICY_H_
