#include "schedkit/cluster.h"

#include <bit>

#include <cstdio>
#include <cstdlib>

namespace schedkit {

int ClusterSpec::TotalGpus() const {
  int total = 0;
  for (const NodeSpec& n : nodes) total += n.gpus;
  return total;
}

ClusterSpec ClusterSpec::Uniform(int switches, int nodes_per_switch, int gpus_per_node,
                                 int cpus_per_node, double mem_gb_per_node, std::string gpu_type) {
  ClusterSpec spec;
  spec.source = "uniform";
  for (int s = 0; s < switches; ++s) {
    for (int n = 0; n < nodes_per_switch; ++n) {
      spec.nodes.push_back(NodeSpec{s, gpus_per_node, cpus_per_node, mem_gb_per_node, gpu_type});
    }
  }
  return spec;
}

int Placement::gpus() const {
  int total = 0;
  for (const NodeShare& s : shares) total += s.gpus();
  return total;
}

std::string Placement::ToString() const {
  // Node shares as "n<node>:<gpu ranges>", e.g. "n0:0-3;n1:0,2".
  std::string out;
  for (const NodeShare& s : shares) {
    if (!out.empty()) out += ';';
    out += 'n' + std::to_string(s.node) + ':';
    bool first = true;
    for (int g = 0; g < kMaxGpusPerNode; ++g) {
      if (!(s.gpu_mask >> g & 1)) continue;
      int end = g;
      while (end + 1 < kMaxGpusPerNode && (s.gpu_mask >> (end + 1) & 1)) ++end;
      if (!first) out += ',';
      first = false;
      out += std::to_string(g);
      if (end > g) out += '-' + std::to_string(end);
      g = end;
    }
  }
  return out;
}

bool Placement::operator==(const Placement& o) const {
  if (shares.size() != o.shares.size()) return false;
  for (size_t i = 0; i < shares.size(); ++i) {
    const NodeShare& a = shares[i];
    const NodeShare& b = o.shares[i];
    if (a.node != b.node || a.gpu_mask != b.gpu_mask || a.cpus != b.cpus || a.mem_gb != b.mem_gb) {
      return false;
    }
  }
  return true;
}

ClusterState::ClusterState(const ClusterSpec* spec) : spec_(spec) {
  const size_t n = spec->nodes.size();
  free_gpu_mask_.reserve(n);
  free_gpus_.reserve(n);
  free_cpus_.reserve(n);
  free_mem_gb_.reserve(n);
  for (const NodeSpec& n : spec->nodes) {
    free_gpu_mask_.push_back(n.gpus >= 64 ? ~uint64_t{0} : (uint64_t{1} << n.gpus) - 1);
    free_gpus_.push_back(n.gpus);
    free_cpus_.push_back(n.cpus);
    free_mem_gb_.push_back(n.mem_gb);
    total_free_gpus_ += n.gpus;
  }
  total_gpus_ = total_free_gpus_;
}

bool ClusterState::CanAllocate(const Placement& p) const {
  int previous_node = -1;
  for (const NodeShare& s : p.shares) {
    // Shares name each node once, in ascending order (so no GPU is counted twice).
    if (s.node <= previous_node || s.node >= num_nodes()) return false;
    previous_node = s.node;
    if ((s.gpu_mask & free_gpu_mask_[s.node]) != s.gpu_mask) return false;
    if (s.cpus > free_cpus_[s.node] || s.mem_gb > free_mem_gb_[s.node] + 1e-9) return false;
  }
  return true;
}

void ClusterState::Allocate(const Placement& p) {
  if (!CanAllocate(p)) {
    std::fprintf(stderr, "schedkit: internal error: double booking of %s\n", p.ToString().c_str());
    std::abort();
  }
  for (const NodeShare& s : p.shares) {
    free_gpu_mask_[s.node] &= ~s.gpu_mask;
    free_gpus_[s.node] -= s.gpus();
    free_cpus_[s.node] -= s.cpus;
    free_mem_gb_[s.node] -= s.mem_gb;
    total_free_gpus_ -= s.gpus();
  }
}

void ClusterState::Release(const Placement& p) {
  for (const NodeShare& s : p.shares) {
    if ((free_gpu_mask_[s.node] & s.gpu_mask) != 0) {
      std::fprintf(stderr, "schedkit: internal error: releasing free GPUs %s\n",
                   p.ToString().c_str());
      std::abort();
    }
    free_cpus_[s.node] += s.cpus;
    free_mem_gb_[s.node] += s.mem_gb;
    if (held(s.node)) {
      held_gpus_[s.node] |= s.gpu_mask;  // The hold keeps them.
      continue;
    }
    free_gpu_mask_[s.node] |= s.gpu_mask;
    free_gpus_[s.node] += s.gpus();
    total_free_gpus_ += s.gpus();
  }
}

void ClusterState::SetHeld(int node, bool held_now) {
  if (held(node) == held_now) return;
  if (held_.empty()) {
    held_.assign(free_gpus_.size(), 0);
    held_gpus_.assign(free_gpus_.size(), 0);
  }
  const uint64_t gpus = held_now ? free_gpu_mask_[node] : held_gpus_[node];
  const int count = std::popcount(gpus);
  free_gpu_mask_[node] = held_now ? free_gpu_mask_[node] & ~gpus : free_gpu_mask_[node] | gpus;
  free_gpus_[node] += held_now ? -count : count;
  total_free_gpus_ += held_now ? -count : count;
  held_gpus_[node] = held_now ? gpus : 0;
  held_[node] = held_now;
}

uint64_t LowestBits(uint64_t mask, int n) {
  uint64_t out = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t bit = mask & (~mask + 1);
    out |= bit;
    mask &= mask - 1;
  }
  return out;
}

}  // namespace schedkit
