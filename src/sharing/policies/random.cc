// Random: every node that fits is equally likely (all score 0: the tie-break draws), and a
// fractional pod takes a GPU drawn among those that hold it.
#include "sharing/policies/policies.h"

namespace schedkit::sharing {
namespace {

class RandomPolicy final : public SharingPolicy {
 public:
  std::string_view Name() const override { return "random"; }
  NodeChoice Score(const SharingView& view, int node, const PodSpec& pod,
                   PortableRng& rng) const override {
    return {0, RandomFitGpus(view.state.free(node), pod, rng)};
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> MakeRandomPolicy() { return std::make_unique<RandomPolicy>(); }

}  // namespace schedkit::sharing
