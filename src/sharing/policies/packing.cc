// GPU Packing: prefer GPUs already shared, then fully free GPUs on a used node, then idle
// nodes. The pod takes the GPUs with the least free share that hold it. Scores, as in the
// reference (integers, highest first):
//   shared GPUs only       max(100 - (sum over taken GPUs of free% ) / 10, 50)
//   some fully free GPUs   max(50 - fully free GPUs taken, 33)
//   node entirely free     max(33 - its GPUs, its GPUs)
//   CPU-only pods          0 on every node
#include <algorithm>

#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

class PackingPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "packing"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    if (pod.gpus == 0) return {0, 0};
    const NodeFree& free = view.free(node);
    const uint32_t gpus = BestFitGpus(free, pod);
    const int fully_free = view.fully_free_gpus(node);
    if (fully_free == free.gpus) return {std::max<int64_t>(33 - fully_free, fully_free), gpus};
    int fully_free_taken = 0;
    int64_t free_pct_taken = 0;
    for (int g = 0; g < free.gpus; ++g) {
      if (!(gpus >> g & 1)) continue;
      fully_free_taken += free.gpu_milli[g] == kMilliPerGpu;
      free_pct_taken += free.gpu_milli[g] * 100 / kMilliPerGpu;
    }
    if (fully_free_taken > 0) return {std::max<int64_t>(50 - fully_free_taken, 33), gpus};
    return {std::max<int64_t>(100 - free_pct_taken / 10, 50), gpus};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakePackingPolicy() { return std::make_unique<PackingPolicy>(); }

}  // namespace schedkit::sharing
