// The sharing model: node specs, per-GPU free shares and the booking invariant.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "schedkit/sharing.h"

namespace schedkit::sharing {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "schedkit: sharing invariant violated: %s\n", what.c_str());
  std::abort();
}

// Affinity tag of a placement (SharingState::gpu_pod_kinds): 0 fractional, k = k GPUs.
int KindOf(const SharingPlacement& p) { return p.gpu_milli < kMilliPerGpu ? 0 : p.gpus(); }

// The booking units of SharingState's ClusterState: one CPU is one milli-core, memory in GB
// is MiB / 1024 (a multiple of 2^-10, so sums and differences stay exact).
std::shared_ptr<const ClusterSpec> BookingSpec(const SharingClusterSpec& spec) {
  auto booking = std::make_shared<ClusterSpec>();
  booking->source = spec.source;
  for (const SharingNodeSpec& n : spec.nodes) {
    if (n.gpus < 0 || n.gpus > kMaxGpusPerNode) Die("node " + n.name + " has too many GPUs");
    if (n.cpu_milli < 0 || n.cpu_milli > INT32_MAX || n.mem_mib < 0) {
      Die("node " + n.name + " has a CPU or memory capacity out of range");
    }
    NodeSpec node;
    node.gpus = n.gpus;
    node.cpus = static_cast<int>(n.cpu_milli);
    node.mem_gb = static_cast<double>(n.mem_mib) / 1024.0;
    node.gpu_type = n.gpu_model.empty() ? kGenericGpuType : n.gpu_model;
    booking->nodes.push_back(std::move(node));
  }
  return booking;
}

// `p` as a booking of SharingState's ClusterState. REQUIRES: p.node exists.
Placement BookingOf(const SharingPlacement& p) {
  return Placement{{NodeShare{.node = p.node,
                              .cpus = static_cast<int>(p.cpu_milli),
                              .gpu_mask = p.gpu_mask,
                              .mem_gb = static_cast<double>(p.mem_mib) / 1024.0,
                              .gpu_milli = p.gpu_mask == 0 ? kMilliPerGpu : p.gpu_milli}}};
}

}  // namespace

int SharingClusterSpec::TotalGpus() const {
  int total = 0;
  for (const SharingNodeSpec& n : nodes) total += n.gpus;
  return total;
}

bool ModelAccepts(std::string_view pod_models, std::string_view node_model) {
  if (pod_models.empty()) return true;
  if (node_model.empty()) return false;
  while (true) {
    const size_t bar = pod_models.find('|');
    if (pod_models.substr(0, bar) == node_model) return true;
    if (bar == std::string_view::npos) return false;
    pod_models.remove_prefix(bar + 1);
  }
}

int SharingPlacement::gpus() const { return std::popcount(gpu_mask); }

int64_t NodeFree::total_gpu_milli() const {
  int64_t total = 0;
  for (int g = 0; g < gpus; ++g) total += gpu_milli[g];
  return total;
}

void NodeFree::Take(const SharingPlacement& p) {
  cpu_milli -= p.cpu_milli;
  for (int g = 0; g < gpus; ++g) {
    if (p.gpu_mask >> g & 1) gpu_milli[g] -= p.gpu_milli;
  }
}

SharingState::SharingState(const SharingClusterSpec* spec)
    : spec_(spec), booking_spec_(BookingSpec(*spec)), booked_(booking_spec_.get()) {
  nodes_.resize(spec->nodes.size());
  for (int n = 0; n < num_nodes(); ++n) {
    nodes_[n].free.gpus = spec->nodes[n].gpus;
    Refresh(n);
    total_gpu_milli_ += static_cast<int64_t>(spec->nodes[n].gpus) * kMilliPerGpu;
  }
}

void SharingState::Refresh(int node) {
  NodeUse& use = nodes_[node];
  use.free.cpu_milli = booked_.free_cpus(node);
  for (int g = 0; g < use.free.gpus; ++g) use.free.gpu_milli[g] = booked_.free_gpu_milli(node, g);
  use.free_mem_mib = static_cast<int64_t>(booked_.free_mem_gb(node) * 1024.0);
}

int FullyFreeGpus(const NodeFree& f) {
  int n = 0;
  for (int g = 0; g < f.gpus; ++g) n += f.gpu_milli[g] == kMilliPerGpu;
  return n;
}

int SharingState::fully_free_gpus(int node) const { return FullyFreeGpus(nodes_[node].free); }

bool SharingState::CanAllocate(const SharingPlacement& p) const {
  if (p.node < 0 || p.node >= num_nodes() || p.cpu_milli < 0 || p.cpu_milli > INT32_MAX ||
      p.mem_mib < 0) {
    return false;
  }
  if (p.gpu_milli < 0 || p.gpu_milli > kMilliPerGpu) return false;
  if ((p.gpu_mask == 0) != (p.gpu_milli == 0)) return false;
  if (p.gpu_mask >> nodes_[p.node].free.gpus != 0) return false;
  return booked_.CanAllocate(BookingOf(p));
}

void SharingState::Allocate(const SharingPlacement& p) {
  if (!CanAllocate(p)) {
    Die("placement on node " + std::to_string(p.node) + " over-commits it (" +
        std::to_string(p.gpu_milli) + " milli-GPU on mask " + std::to_string(p.gpu_mask) + ")");
  }
  booked_.Allocate(BookingOf(p));
  Refresh(p.node);
  allocated_gpu_milli_ += p.total_gpu_milli();
  if (p.gpu_mask != 0) ++nodes_[p.node].kinds[KindOf(p)];
}

void SharingState::Release(const SharingPlacement& p) {
  if (p.node < 0 || p.node >= num_nodes()) Die("release on a node that does not exist");
  NodeUse& use = nodes_[p.node];
  const SharingNodeSpec& spec = spec_->nodes[p.node];
  // ClusterState aborts on releasing a GPU or share it does not book; CPU and memory it
  // does not bound, so they are checked here.
  if (use.free.cpu_milli + p.cpu_milli > spec.cpu_milli ||
      use.free_mem_mib + p.mem_mib > spec.mem_mib) {
    Die("release frees more CPU or memory than node " + spec.name + " has");
  }
  std::map<int, int>& kinds = use.kinds;
  if (p.gpu_mask != 0) {
    auto it = kinds.find(KindOf(p));
    if (it == kinds.end()) Die("release of a pod kind node " + spec.name + " does not hold");
    if (--it->second == 0) kinds.erase(it);
  }
  booked_.Release(BookingOf(p));
  Refresh(p.node);
  allocated_gpu_milli_ -= p.total_gpu_milli();
}

void SharingState::CheckInvariants() const {
  int64_t missing = 0;
  for (int n = 0; n < num_nodes(); ++n) {
    const NodeFree& f = nodes_[n].free;
    const int64_t free_mem_mib = nodes_[n].free_mem_mib;
    const SharingNodeSpec& spec = spec_->nodes[n];
    for (int g = 0; g < f.gpus; ++g) {
      if (f.gpu_milli[g] < 0 || f.gpu_milli[g] > kMilliPerGpu) {
        Die("GPU " + std::to_string(g) + " of node " + spec.name + " has " +
            std::to_string(f.gpu_milli[g]) + " milli-GPU free");
      }
      missing += kMilliPerGpu - f.gpu_milli[g];
    }
    if (f.cpu_milli < 0 || f.cpu_milli > spec.cpu_milli || free_mem_mib < 0 ||
        free_mem_mib > spec.mem_mib) {
      Die("CPU or memory of node " + spec.name + " is out of range");
    }
  }
  if (missing != allocated_gpu_milli_) Die("allocated milli-GPU does not match the GPUs' shares");
  if (const std::string bad = booked_.CheckShares(); !bad.empty()) Die(bad);
}

bool Fits(const SharingState& state, int node, const PodSpec& pod) {
  return Fits(state.spec().nodes[node], state.nodes()[node], pod);
}

bool Fits(const SharingNodeSpec& spec, const NodeUse& use, const PodSpec& pod) {
  const NodeFree& f = use.free;
  if (f.cpu_milli < pod.cpu_milli || use.free_mem_mib < pod.mem_mib) return false;
  if (pod.gpus == 0) return true;
  if (!ModelAccepts(pod.gpu_models, spec.gpu_model)) return false;
  int usable = 0;
  for (int g = 0; g < f.gpus; ++g) usable += f.gpu_milli[g] >= pod.gpu_milli;
  return usable >= pod.gpus;
}

}  // namespace schedkit::sharing
