// PlacePod and the GPU choices the policies share (src/sharing/policy.h).
#include "sharing/policy.h"

#include <numeric>

namespace schedkit::sharing {

uint32_t LowestFreeGpus(const NodeFree& free, const PodSpec& pod) {
  uint32_t mask = 0;
  int wanted = pod.gpus;
  for (int g = 0; g < free.gpus && wanted > 0; ++g) {
    if (free.gpu_milli[g] == kMilliPerGpu) {
      mask |= 1u << g;
      --wanted;
    }
  }
  return mask;
}

uint32_t BestFitGpus(const NodeFree& free, const PodSpec& pod) {
  if (pod.gpus == 0) return 0;
  if (!pod.fractional()) return LowestFreeGpus(free, pod);
  int best = -1;
  for (int g = 0; g < free.gpus; ++g) {
    if (free.gpu_milli[g] >= pod.gpu_milli && (best < 0 || free.gpu_milli[g] < free.gpu_milli[best])) {
      best = g;
    }
  }
  return 1u << best;
}

uint32_t RandomFitGpus(const NodeFree& free, const PodSpec& pod, PortableRng& rng) {
  if (!pod.fractional()) return BestFitGpus(free, pod);
  int chosen = -1, seen = 0;
  for (int g = 0; g < free.gpus; ++g) {
    if (free.gpu_milli[g] >= pod.gpu_milli && rng.Index(++seen) == 0) chosen = g;
  }
  return 1u << chosen;
}

NodeFree After(const NodeFree& free, const PodSpec& pod, uint32_t gpu_mask) {
  NodeFree after = free;
  after.Take(SharingPlacement{0, gpu_mask, pod.gpu_milli, pod.cpu_milli, pod.mem_mib});
  return after;
}

bool ParseTieBreak(std::string_view name, TieBreak* ties) {
  if (name == "ranked") {
    *ties = TieBreak::kRankedNode;
  } else if (name == "first") {
    *ties = TieBreak::kFirstNode;
  } else if (name == "random") {
    *ties = TieBreak::kRandomNode;
  } else {
    return false;
  }
  return true;
}

std::vector<int> RandomNodeRanks(int nodes, PortableRng& rng) {
  std::vector<int> rank(nodes);
  std::iota(rank.begin(), rank.end(), 0);
  for (size_t i = rank.size(); i > 1; --i) std::swap(rank[i - 1], rank[rng.Index(i)]);
  return rank;
}

SharingPlacement PlacePod(const SharingPolicy& policy, const SharingView& view, const PodSpec& pod,
                          TieBreak ties_go_to, PortableRng& rng) {
  SharingPlacement best;
  int64_t best_score = 0;
  int ties = 0;
  for (int node = 0; node < view.num_nodes(); ++node) {
    if (!view.Fits(node, pod)) continue;
    const NodeChoice c = policy.Score(view, node, pod, rng);
    if (ties == 0 || c.score > best_score) {
      ties = 1;
    } else if (c.score < best_score) {
      continue;
    } else if (ties_go_to == TieBreak::kFirstNode ||
               (ties_go_to == TieBreak::kRankedNode &&
                (*view.tie_rank)[node] > (*view.tie_rank)[best.node]) ||
               (ties_go_to == TieBreak::kRandomNode && rng.Index(++ties) != 0)) {
      continue;  // kRandomNode: reservoir sampling keeps each of k tied nodes with chance 1/k.
    }
    best_score = c.score;
    best = SharingPlacement{node, c.gpu_mask, pod.gpu_milli, pod.cpu_milli, pod.mem_mib};
  }
  if (best.gpu_mask == 0) best.gpu_milli = 0;
  return best;
}

}  // namespace schedkit::sharing
