// The cluster model: switches x nodes x GPUs, with CPUs, memory and a GPU type per node,
// and ClusterState, the free-resource bookkeeping that engines and placement modules share.
#ifndef SCHEDKIT_CLUSTER_H_
#define SCHEDKIT_CLUSTER_H_

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "schedkit/status.h"

namespace schedkit {

inline constexpr int kMaxGpusPerNode = 64;  // GPUs of a node are bits of a uint64_t mask.
// The GPU type of a node whose spec names none. Every job runs on it at its solo speed
// (schedkit/throughput.h), so clusters that never name a type behave as before types
// existed.
inline constexpr char kGenericGpuType[] = "generic";

struct NodeSpec {
  int switch_id = 0;
  int gpus = 8;
  int cpus = 0;
  double mem_gb = 0;
  std::string gpu_type = kGenericGpuType;  // e.g. "v100"; the keys of job speeds.
};

struct ClusterSpec {
  std::string source;  // File name, for reports.
  std::vector<NodeSpec> nodes;  // Node i is nodes[i]; nodes of one switch are contiguous.

  int num_switches() const { return nodes.empty() ? 0 : nodes.back().switch_id + 1; }
  int TotalGpus() const;
  // The distinct GPU types of the nodes, in order of first appearance.
  std::vector<std::string> GpuTypes() const;

  // `switches` x `nodes_per_switch` identical nodes.
  static ClusterSpec Uniform(int switches, int nodes_per_switch, int gpus_per_node,
                             int cpus_per_node, double mem_gb_per_node,
                             std::string gpu_type = kGenericGpuType);
};

// Reads a cluster spec file. Three formats:
//  - Muri/Tiresias: num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node
//    (one row; every node identical; GPU type "generic").
//  - schedkit: switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type
//    (one row per group of identical nodes; see docs/formats.md).
//  - Gavel (a file whose first character is '{', e.g. msr_cluster_specs.json):
//    {"NAME": ["V:P:K", ...]}, V, P and K the numbers of v100, p100 and k80 GPUs. Each
//    GPU is a node of its own (Gavel's simulator places GPUs, not servers), one switch
//    per type. The file must hold one spec, or `path` ends in "#NAME" (its first spec)
//    or "#NAME/I" (its I-th, from 0).
// Errors name the file, line and field.
Result<ClusterSpec> LoadClusterSpec(const std::string& path);

// The share of one node that a job holds.
struct NodeShare {
  int node = 0;
  uint64_t gpu_mask = 0;  // Bit g set = local GPU g of the node.
  int cpus = 0;
  double mem_gb = 0;
  int gpus() const { return std::popcount(gpu_mask); }
};

// Where a job runs: one share per node, in ascending node order. Empty = not placed.
struct Placement {
  std::vector<NodeShare> shares;

  bool empty() const { return shares.empty(); }
  int gpus() const;
  // The placement text, the one format of jobs.csv, the runtime's store and its gRPC
  // `placement` field (docs/formats.md, "Placement text"): one "n<node>:<gpus>" per
  // share joined by ';', <gpus> the share's GPU indices in ascending order, joined by ','
  // with runs of two or more written as ranges ("n0:0-3;n1:0,2"). An empty placement is
  // "". CPUs and memory are not in the text. ParsePlacement reads it back.
  std::string ToString() const;
  // The same text with node i written as node_names[i] instead of "n<i>" (the runtime's
  // view for people: "gpu-box-2:0-3"). REQUIRES: a name for every node of the shares.
  std::string ToString(const std::vector<std::string>& node_names) const;
  bool operator==(const Placement& o) const;
};

// Reads Placement::ToString()'s text: nodes as "n<i>", or, given `node_names`, as
// ToString(node_names) writes them. Shares must name distinct nodes in ascending order,
// each GPU at most once and below kMaxGpusPerNode; CPUs and memory come back 0. Fails with
// one line naming the text and what is wrong ("placement 'n0:9-2': GPU range '9-2' is not
// ascending").
Result<Placement> ParsePlacement(const std::string& text,
                                 const std::vector<std::string>& node_names = {});

// Free resources of every node. Copyable: placement modules plan on a scratch copy.
class ClusterState {
 public:
  explicit ClusterState(const ClusterSpec* spec);

  const ClusterSpec& spec() const { return *spec_; }
  int num_nodes() const { return static_cast<int>(free_gpus_.size()); }
  uint64_t free_gpu_mask(int node) const { return free_gpu_mask_[node]; }
  int free_gpus(int node) const { return free_gpus_[node]; }
  int free_cpus(int node) const { return free_cpus_[node]; }
  double free_mem_gb(int node) const { return free_mem_gb_[node]; }
  int total_free_gpus() const { return total_free_gpus_; }
  int total_gpus() const { return total_gpus_; }  // Free or not: the cluster's size.
  // True iff every node has the same GPU type (placements need not choose one).
  bool one_gpu_type() const { return one_gpu_type_; }

  // Returns true iff the shares name distinct nodes in ascending order and every share's
  // GPUs are free and its CPUs and memory fit.
  bool CanAllocate(const Placement& p) const;
  // REQUIRES: CanAllocate(p). Aborts on violation: a double booking is an engine bug.
  void Allocate(const Placement& p);
  // REQUIRES: p was allocated and not yet released. On a held node the GPUs stay booked
  // (by the hold); CPUs and memory are freed as everywhere.
  void Release(const Placement& p);

  // Holds `node` back from new starts (absent, drained or failed) or ends the hold. While
  // held, the node's free GPUs and those released later look booked; ending the hold
  // frees them. Bookings already on the node are untouched.
  void SetHeld(int node, bool held);
  bool held(int node) const { return !held_.empty() && held_[node]; }

 private:
  const ClusterSpec* spec_;
  std::vector<uint64_t> free_gpu_mask_;
  std::vector<int> free_gpus_;
  std::vector<int> free_cpus_;
  std::vector<double> free_mem_gb_;
  int total_free_gpus_ = 0;
  int total_gpus_ = 0;
  bool one_gpu_type_ = true;
  // Per node, sized on the first SetHeld (empty while no node was ever held): whether it
  // is held, and the GPUs the hold books.
  std::vector<char> held_;
  std::vector<uint64_t> held_gpus_;
};

// The lowest `n` set bits of `mask`. REQUIRES: popcount(mask) >= n.
uint64_t LowestBits(uint64_t mask, int n);

}  // namespace schedkit

#endif  // SCHEDKIT_CLUSTER_H_
