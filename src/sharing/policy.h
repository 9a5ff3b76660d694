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

// What a policy sees: the cluster now and its fragmentation (current per node).
struct SharingView {
  const SharingState& state;
  const Fragmentation& frag;
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
};

using SharingPolicyRegistry = Registry<SharingPolicy, ModuleContext>;

// Every built-in, registered once (src/sharing/policies.cc lists them).
const SharingPolicyRegistry& BuiltinSharingPolicies();

// The placement `policy` chooses for `pod`, or an empty one when no node fits.
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

// The node's free resources after the pod takes `gpu_mask` there.
NodeFree After(const NodeFree& free, const PodSpec& pod, uint32_t gpu_mask);

}  // namespace schedkit::sharing

#endif  // SCHEDKIT_SHARING_POLICY_H_
