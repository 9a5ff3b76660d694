// GPU Clustering: keep pods of one kind (fractional, or k whole GPUs) together. Affinity
// tiers, each 25 points wide; within a tier, nodes with less free GPU (measured against the
// 8-GPU maximum, so small nodes rank high) score more. Integers, as in the reference:
//   node holds only this kind            75 + 25 x (8000 - free milli-GPU) / 8000
//   node holds this kind among others    50 + ...
//   node holds no GPU pod                25 + ...
//   node holds other kinds only           0 + ...
// CPU-only pods score 0 everywhere. The GPU: the tightest one that holds the pod.
#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

int KindOf(const PodSpec& pod) { return pod.fractional() ? 0 : pod.gpus; }

class ClusteringPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "clustering"; }
  bool ReadsPodKinds() const override { return true; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    if (pod.gpus == 0) return {0, 0};
    const NodeFree& free = view.free(node);
    const std::map<int, int>& kinds = view.gpu_pod_kinds(node);
    int64_t tier = 0;
    if (kinds.count(KindOf(pod)) > 0) {
      tier = kinds.size() == 1 ? 75 : 50;
    } else if (kinds.empty()) {
      tier = 25;
    }
    const int64_t short_of_max = kMaxSpecGpuMilli - free.total_gpu_milli();
    return {tier + 25 * short_of_max / kMaxSpecGpuMilli, BestFitGpus(free, pod)};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeClusteringPolicy() {
  return std::make_unique<ClusteringPolicy>();
}

}  // namespace schedkit::sharing
