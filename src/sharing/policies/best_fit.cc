// BestFit: the node left with the least free CPU and GPU after the pod, each normalised by
// the largest node of the reference (128 cores, 8 GPUs) and weighted 0.5; score =
// (1 - leftover) x 100, truncated. The GPU: the tightest one that holds the pod.
#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

class BestFitPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "best-fit"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    const NodeFree& free = view.free(node);
    const double cpu_left = static_cast<double>(free.cpu_milli - pod.cpu_milli) / kMaxSpecCpuMilli;
    const double gpu_left =
        static_cast<double>(free.total_gpu_milli() - pod.total_gpu_milli()) / kMaxSpecGpuMilli;
    const double leftover = 0.5 * cpu_left + 0.5 * gpu_left;
    return {static_cast<int64_t>((1.0 - leftover) * 100.0), BestFitGpus(free, pod)};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeBestFitPolicy() { return std::make_unique<BestFitPolicy>(); }

}  // namespace schedkit::sharing
