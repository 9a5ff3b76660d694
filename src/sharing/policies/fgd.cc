// FGD (Weng et al., ATC'23): the node, and for a fractional pod the GPU, where the node's
// fragmentation F_n grows least. Score = sigmoid((F_before - F_after) / 1000) x 100,
// truncated to an integer as in the reference; among a node's GPUs the first best wins.
#include <cmath>

#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

int64_t FragScore(double before, double after) {
  const double decrease = (before - after) / kMilliPerGpu;
  return static_cast<int64_t>(100.0 / (1.0 + std::exp(-decrease)));
}

class FgdPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "fgd"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    const NodeFree& free = view.free(node);
    const double before = view.frag.node(node);
    if (!pod.fractional()) {
      const uint32_t gpus = LowestFreeGpus(free, pod);
      return {FragScore(before, view.frag.Of(node, After(free, pod, gpus))), gpus};
    }
    NodeChoice best{-1, 0};
    for (int g = 0; g < free.gpus; ++g) {
      if (free.gpu_milli[g] < pod.gpu_milli) continue;
      const int64_t s = FragScore(before, view.frag.Of(node, After(free, pod, 1u << g)));
      if (s > best.score) best = {s, 1u << g};
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeFgdPolicy() { return std::make_unique<FgdPolicy>(); }

}  // namespace schedkit::sharing
