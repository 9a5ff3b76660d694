// The target workload and FGD's fragmentation measure (schedkit/sharing.h).
#include <algorithm>
#include <map>

#include "schedkit/sharing.h"

namespace schedkit::sharing {
namespace {

PodShape ShapeOf(const PodSpec& pod) {
  return PodShape{pod.cpu_milli, pod.gpu_milli, pod.gpus, pod.gpu_models};
}

// frag_n(m) for one shape m whose model constraint admits the node.
int64_t ShapeFragment(const NodeFree& free, const PodShape& m, int64_t free_total) {
  if (m.gpu_milli == 0 || free.cpu_milli < m.cpu_milli) return free_total;
  int usable = 0;
  int64_t stranded = 0;  // Free milli-GPU on GPUs too small for m.
  for (int g = 0; g < free.gpus; ++g) {
    if (free.gpu_milli[g] >= m.gpu_milli) {
      ++usable;
    } else {
      stranded += free.gpu_milli[g];
    }
  }
  return usable >= m.gpus ? stranded : free_total;
}

}  // namespace

std::vector<WeightedShape> TargetWorkload(const std::vector<PodSpec>& pods, double coverage) {
  std::map<PodShape, int64_t> counts;
  for (const PodSpec& p : pods) ++counts[ShapeOf(p)];
  std::vector<WeightedShape> ranked;
  for (const auto& [shape, count] : counts) ranked.push_back({shape, static_cast<double>(count)});
  std::stable_sort(ranked.begin(), ranked.end(), [](const WeightedShape& a, const WeightedShape& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    return b.shape < a.shape;
  });
  const double wanted = coverage * static_cast<double>(pods.size());
  double covered = 0;
  size_t kept = 0;
  while (kept < ranked.size() && covered < wanted) covered += ranked[kept++].weight;
  ranked.resize(kept);
  for (WeightedShape& s : ranked) s.weight /= covered;
  return ranked;
}

Fragmentation::Fragmentation(const SharingClusterSpec* spec, std::vector<WeightedShape> workload)
    : spec_(spec), workload_(std::move(workload)) {
  accessible_.reserve(spec->nodes.size() * workload_.size());
  for (const SharingNodeSpec& n : spec->nodes) {
    for (const WeightedShape& s : workload_) {
      accessible_.push_back(ModelAccepts(s.shape.gpu_models, n.gpu_model));
    }
  }
  per_node_.assign(spec->nodes.size(), 0);
}

double Fragmentation::Of(int node, const NodeFree& free) const {
  const int64_t free_total = free.total_gpu_milli();
  if (free_total == 0) return 0;
  // data() + offset, not &v[offset]: with an empty workload the vector is empty.
  const char* accessible = accessible_.data() + static_cast<size_t>(node) * workload_.size();
  double f = 0;
  for (size_t m = 0; m < workload_.size(); ++m) {
    const int64_t frag =
        accessible[m] ? ShapeFragment(free, workload_[m].shape, free_total) : free_total;
    f += workload_[m].weight * static_cast<double>(frag);
  }
  return f;
}

void Fragmentation::Reset(const SharingState& state) {
  total_ = 0;
  for (int n = 0; n < state.num_nodes(); ++n) {
    per_node_[n] = Of(n, state.free(n));
    total_ += per_node_[n];
  }
}

void Fragmentation::Update(int node, const NodeFree& free) {
  const double now = Of(node, free);
  total_ += now - per_node_[node];
  per_node_[node] = now;
}

}  // namespace schedkit::sharing
