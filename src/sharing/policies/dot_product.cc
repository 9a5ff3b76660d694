// DotProduct (Tetris-style alignment), as the reference's experiments configure it: the
// node's free vector (free CPU, free milli-GPU over all its GPUs) and the pod's demand
// (CPU, milli-GPU), each divided by the largest node of the reference (128 cores, 8 GPUs).
// Score = (1 - <node, pod> / 2) x 100, truncated: the smaller the alignment, the better.
// The GPU: the tightest one that holds the pod.
#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

class DotProductPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "dot-product"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    const NodeFree& free = view.free(node);
    const double cpu = static_cast<double>(free.cpu_milli) / kMaxSpecCpuMilli *
                       (static_cast<double>(pod.cpu_milli) / kMaxSpecCpuMilli);
    const double gpu = static_cast<double>(free.total_gpu_milli()) / kMaxSpecGpuMilli *
                       (static_cast<double>(pod.total_gpu_milli()) / kMaxSpecGpuMilli);
    return {static_cast<int64_t>(100.0 * (1.0 - (cpu + gpu) / 2.0)), BestFitGpus(free, pod)};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeDotProductPolicy() {
  return std::make_unique<DotProductPolicy>();
}

}  // namespace schedkit::sharing
