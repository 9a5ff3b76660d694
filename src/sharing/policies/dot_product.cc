// DotProduct (Tetris-style alignment, as the reference configures it: GPU dimension split
// per GPU, vectors normalised by the largest node). Candidates on a node: for a pod asking
// less than one GPU, each partly used GPU that holds it, as (free CPU, that GPU's free
// share); and, if enough GPUs are fully free, those together as (free CPU, their milli-GPU).
// A candidate scores (1 - <node, pod> / 2) x 100; the node's score is its best candidate's
// (the first on ties), and that candidate names the GPU.
#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

double Alignment(int64_t node_cpu, int64_t node_gpu, const PodSpec& pod) {
  const double cpu = static_cast<double>(node_cpu) / kMaxSpecCpuMilli *
                     (static_cast<double>(pod.cpu_milli) / kMaxSpecCpuMilli);
  const double gpu = static_cast<double>(node_gpu) / kMaxSpecGpuMilli *
                     (static_cast<double>(pod.total_gpu_milli()) / kMaxSpecGpuMilli);
  return 1.0 - (cpu + gpu) / 2.0;
}

class DotProductPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "dot-product"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    const NodeFree& free = view.state.free(node);
    double best = -1;
    uint32_t gpus = 0;
    auto consider = [&](int64_t gpu_milli_left, uint32_t mask) {
      const double s = Alignment(free.cpu_milli, gpu_milli_left, pod);
      if (s > best) best = s, gpus = mask;
    };
    if (pod.total_gpu_milli() < kMilliPerGpu) {
      for (int g = 0; g < free.gpus; ++g) {
        const int left = free.gpu_milli[g];
        if (left < kMilliPerGpu && left >= pod.total_gpu_milli()) consider(left, 1u << g);
      }
    }
    const int idle = view.state.fully_free_gpus(node);
    if (pod.total_gpu_milli() <= static_cast<int64_t>(idle) * kMilliPerGpu) {
      consider(static_cast<int64_t>(idle) * kMilliPerGpu, LowestFreeGpus(free, pod));
    }
    return {static_cast<int64_t>(100.0 * best), pod.gpus == 0 ? 0u : gpus};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeDotProductPolicy() {
  return std::make_unique<DotProductPolicy>();
}

}  // namespace schedkit::sharing
