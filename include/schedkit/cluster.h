// The cluster model: switches x nodes x GPUs, with CPUs, memory and a GPU type per node,
// and ClusterState, the free-resource bookkeeping that engines and placement modules share.
#ifndef SCHEDKIT_CLUSTER_H_
#define SCHEDKIT_CLUSTER_H_

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "schedkit/inline_vector.h"
#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

inline constexpr int kMaxGpusPerNode = 64;  // GPUs of a node are bits of a uint64_t mask.

// The GPUs a mask names: std::popcount without the libgcc call it compiles to on a baseline
// x86-64 target (no POPCNT instruction). Every start and stop counts GPUs several times.
constexpr int CountGpus(uint64_t mask) {
  mask -= (mask >> 1) & 0x5555555555555555ull;
  mask = (mask & 0x3333333333333333ull) + ((mask >> 2) & 0x3333333333333333ull);
  mask = (mask + (mask >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((mask * 0x0101010101010101ull) >> 56);
}

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
//  - openb node list (header sn,cpu_milli,memory_mib,gpu,model: the Alibaba GPU-sharing
//    traces, docs/fgd.md): one node per row, all on switch 0, GPU type = model.
//  - Gavel (a file whose first character is '{', e.g. msr_cluster_specs.json):
//    {"NAME": ["V:P:K", ...]}, V, P and K the numbers of v100, p100 and k80 GPUs. Each
//    GPU is a node of its own (Gavel's simulator places GPUs, not servers), one switch
//    per type. The file must hold one spec, or `path` ends in "#NAME" (its first spec)
//    or "#NAME/I" (its I-th, from 0).
// Errors name the file, line and field.
Result<ClusterSpec> LoadClusterSpec(const std::string& path);

// NodeShare's first member, of no size: a positional NodeShare{1, 2, ...} would make it from
// an int, which does not compile. The fields were reordered once; code that listed them by
// position would have read a GPU mask as CPUs, and now fails to build instead.
struct NamedFieldsOnly {
  bool operator==(const NamedFieldsOnly&) const = default;
};

// The share of one node that a job holds. 32 bytes (a placement holds one inline); build
// one with designated initializers (NodeShare{.node = 1, .gpu_mask = 0b11}).
struct NodeShare {
  [[no_unique_address]] NamedFieldsOnly named_fields_only = {};
  int node = 0;
  int cpus = 0;
  uint64_t gpu_mask = 0;  // Bit g set = local GPU g of the node.
  double mem_gb = 0;
  // What each GPU of gpu_mask gives the job, in milli-GPU: kMilliPerGpu = the whole GPU
  // (every placement of whole-GPU jobs); 1-999 = a share of the one GPU the mask names.
  int gpu_milli = kMilliPerGpu;
  int gpus() const { return CountGpus(gpu_mask); }
  bool fractional() const { return gpu_milli < kMilliPerGpu; }
  bool operator==(const NodeShare&) const = default;
};
static_assert(sizeof(NodeShare) == 32);

// Where a job runs: one share per node, in ascending node order. Empty = not placed.
// A placement on one node (nearly all of them) is copied without an allocation.
struct Placement {
  InlineVector<NodeShare, 1> shares;

  bool empty() const { return shares.empty(); }
  int gpus() const {
    int total = 0;
    for (const NodeShare& s : shares) total += s.gpus();
    return total;
  }
  // The placement text, the one format of jobs.csv, the runtime's store and its gRPC
  // `placement` field (docs/formats.md, "Placement text"): one "n<node>:<gpus>" per
  // share joined by ';', <gpus> the share's GPU indices in ascending order, joined by ','
  // with runs of two or more written as ranges ("n0:0-3;n1:0,2"); a fractional share ends
  // with "@<milli-GPU>" ("n0:3@300"), a whole one with nothing. An empty placement is
  // "". CPUs and memory are not in the text. ParsePlacement reads it back.
  std::string ToString() const;
  // The same text with node i written as node_names[i] instead of "n<i>" (the runtime's
  // view for people: "gpu-box-2:0-3"). REQUIRES: a name for every node of the shares.
  std::string ToString(const std::vector<std::string>& node_names) const;
  bool operator==(const Placement& o) const;
};

// Reads Placement::ToString()'s text: nodes as "n<i>", or, given `node_names`, as
// ToString(node_names) writes them. Shares must name distinct nodes in ascending order,
// each GPU at most once and below kMaxGpusPerNode, a fractional share ("@1" to "@999")
// one GPU; CPUs and memory come back 0. Fails with
// one line naming the text and what is wrong ("placement 'n0:9-2': GPU range '9-2' is not
// ascending").
Result<Placement> ParsePlacement(const std::string& text,
                                 const std::vector<std::string>& node_names = {});

// Free resources of every node. Copyable: placement modules plan on a scratch copy.
//
// Fractional shares (docs/fgd.md): a GPU is in free_gpu_mask iff it is entirely free.
// Fractional bookings (NodeShare::gpu_milli < 1000) take a GPU out of the mask and add
// up on it, never past 1000 milli-GPU; a GPU partly booked by them with share left is in
// shared_gpu_mask. Whole-GPU bookings never read or write the per-GPU shares (they are
// allocated on the first fractional booking), so runs without fractional jobs cost what
// they did before shares existed.
class ClusterState {
 public:
  explicit ClusterState(const ClusterSpec* spec);

  const ClusterSpec& spec() const { return *spec_; }
  int num_nodes() const { return static_cast<int>(free_.size()); }
  uint64_t free_gpu_mask(int node) const { return free_[node].gpu_mask; }
  int free_gpus(int node) const { return free_[node].gpus; }
  int free_cpus(int node) const { return free_[node].cpus; }
  double free_mem_gb(int node) const { return free_[node].mem_gb; }
  int total_free_gpus() const { return total_free_gpus_; }
  int total_gpus() const { return total_gpus_; }  // Free or not: the cluster's size.
  // GPUs of `node` that fractional jobs book part of and that have share left: where a
  // fractional job may go besides free_gpu_mask. 0 on a held node.
  uint64_t shared_gpu_mask(int node) const {
    return shared_mask_.empty() || held(node) ? 0 : shared_mask_[node];
  }
  // Number of GPUs partly booked by fractional jobs with share left (held nodes' too).
  int total_shared_gpus() const { return total_shared_gpus_; }
  // Free milli-GPU of GPU `gpu` of `node`: kMilliPerGpu if it is in free_gpu_mask, the
  // share fractional jobs leave if it is in shared_gpu_mask, else 0.
  int free_gpu_milli(int node, int gpu) const;
  // True iff a job asking for `gpus` GPUs of `gpu_milli` each may find room: enough free
  // GPUs, or a fractional job and a shared GPU (the cheap test policies run first).
  bool MayFit(int gpus, int gpu_milli) const {
    return gpus <= total_free_gpus_ || (gpu_milli < kMilliPerGpu && total_shared_gpus_ > 0);
  }
  // True iff every node has the same GPU type (placements need not choose one).
  bool one_gpu_type() const { return one_gpu_type_; }
  // The most GPUs any node has (free or not).
  int max_node_gpus() const { return max_node_gpus_; }

  // Nodes by free GPUs, for placements that must not scan every node of a large cluster:
  // the lowest node id >= `from` whose free_gpus is exactly `count` (or, for
  // FirstNodeWithAtLeast, at least `count`), or -1 if there is none. Ascending id order
  // within one count, so a scan by count then id visits nodes in the order a scan of
  // every node would rank them.
  int FirstNodeWithFree(int count, int from) const {  // Inline: placements scan by count.
    if (count < 0 || count > max_node_gpus_ || from >= num_nodes()) return -1;
    from = from < 0 ? 0 : from;
    const uint64_t* row = &by_free_[static_cast<size_t>(count) * words_];
    int w = from / 64;
    uint64_t bits = row[w] & (~uint64_t{0} << (from % 64));
    while (bits == 0) {
      if (++w == words_) return -1;
      bits = row[w];
    }
    return w * 64 + std::countr_zero(bits);
  }
  int FirstNodeWithAtLeast(int count, int from) const;

  // Returns true iff the shares name distinct nodes in ascending order and every share's
  // GPUs are free and its CPUs and memory fit. A fractional share names one GPU of the
  // node, not held, with its gpu_milli free (free_gpu_milli).
  bool CanAllocate(const Placement& p) const;
  // REQUIRES: CanAllocate(p). Aborts on violation: a double booking is an engine bug.
  void Allocate(const Placement& p);
  // Allocate(p) if CanAllocate(p), checked once; returns whether it booked. (A stopped
  // job booked again on its own GPUs when they are still free: step 3's pass 4.)
  bool TryAllocate(const Placement& p);
  // REQUIRES: p was allocated and not yet released. On a held node the GPUs stay booked
  // (by the hold); CPUs and memory are freed as everywhere.
  void Release(const Placement& p);

  // Holds `node` back from new starts (absent, drained or failed) or ends the hold. While
  // held, the node's free GPUs and those released later look booked; ending the hold
  // frees them. Bookings already on the node are untouched.
  void SetHeld(int node, bool held);
  bool held(int node) const { return !held_.empty() && held_[node]; }

  // "" if the per-GPU shares are consistent (each GPU's fractional bookings within
  // [0, 1000] milli-GPU, a GPU in free_gpu_mask booked by none, shared_gpu_mask exactly
  // the GPUs partly booked, the free counts matching the masks and the index by free
  // GPUs), else what is wrong. The simulator checks it at the end of every run.
  std::string CheckShares() const;

 private:
  // Books p. REQUIRES: CanAllocate(p), checked by the caller.
  void Book(const Placement& p);

  const ClusterSpec* spec_;
  // What each node has free, in one array: a booking reads and writes one entry, and a
  // copy of the state (a policy's scratch, a decision's validation) is one block.
  struct NodeFree {
    uint64_t gpu_mask;  // Bit g set = local GPU g is free.
    double mem_gb;
    int gpus;  // popcount(gpu_mask).
    int cpus;
  };
  std::vector<NodeFree> free_;
  int total_free_gpus_ = 0;
  int total_gpus_ = 0;
  int max_node_gpus_ = 0;
  bool one_gpu_type_ = true;
  // One bit per node in row free_gpus (rows 0..max_node_gpus_, words_ words each): the
  // index FirstNodeWithFree reads. Every change of a node's free GPU count goes through
  // SetFreeGpus.
  int words_ = 0;
  std::vector<uint64_t> by_free_;
  void SetFreeGpus(int node, int count);
  // Per node, sized on the first SetHeld (empty while no node was ever held): whether it
  // is held, and the GPUs the hold books.
  std::vector<char> held_;
  std::vector<uint64_t> held_gpus_;
  // Fractional shares, sized on the first fractional booking (empty until then): per
  // node, the GPUs partly booked with share left; per GPU (first_gpu_[node] + g), the
  // milli-GPU fractional jobs book on it.
  std::vector<uint64_t> shared_mask_;
  std::vector<int> first_gpu_;
  std::vector<int> share_used_;
  int total_shared_gpus_ = 0;

  void AllocateFraction(const NodeShare& s);
  void ReleaseFraction(const NodeShare& s);
  bool CanAllocateFraction(const NodeShare& s) const;
  // The GPU a fractional share names has become free (every fraction released).
  void GpuFreed(int node, uint64_t bit);
};

// The lowest `n` set bits of `mask`. REQUIRES: popcount(mask) >= n.
uint64_t LowestBits(uint64_t mask, int n);

}  // namespace schedkit

#endif  // SCHEDKIT_CLUSTER_H_
