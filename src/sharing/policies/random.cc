// Random: the reference draws one of the nodes that fit and gives it the top score. Here
// each node that fits gets a random score, so the best is uniform among them whatever the
// tie-break; a fractional pod takes a GPU drawn among those that hold it.
#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

class RandomPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "random"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    const auto score = static_cast<int64_t>(rng.Index(uint64_t{1} << 62));
    return {score, RandomFitGpus(view.free(node), pod, rng)};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeRandomPolicy() { return std::make_unique<RandomPolicy>(); }

}  // namespace schedkit::sharing
