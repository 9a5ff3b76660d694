// Fractional GPU sharing (issue 18): pods that ask for a share of one GPU, the per-GPU
// bookkeeping that places them, the fragmentation measure of FGD (Weng et al., USENIX ATC'23)
// and the reference experiment of its artifact (arrivals only, allocated GPU % against
// arrived GPU %). See docs/fgd.md.
//
// It has its own node list (SharingClusterSpec), state (SharingState) and placements
// (SharingPlacement) in the reference's units; SharingState books them on the core's
// ClusterState (schedkit/cluster.h), in milli-core CPU units. docs/fgd.md.
//
// Units: CPU in milli-cores, memory in MiB, GPU in milli-GPU (1000 = one whole GPU).
#ifndef SCHEDKIT_SHARING_H_
#define SCHEDKIT_SHARING_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit::sharing {

// kMilliPerGpu (1000 = one GPU) is schedkit's (schedkit/job.h).
// GPUs of a node are bits of a uint32_t mask and slots of a fixed array (no allocation on
// the scoring path). The openb traces have at most 8.
inline constexpr int kMaxGpusPerNode = 16;

// What a pod (task) asks for. Three kinds, told apart by (gpus, gpu_milli):
//  CPU-only      gpus == 0, gpu_milli == 0
//  fractional    gpus == 1, 0 < gpu_milli < 1000: a share of one GPU
//  whole GPUs    gpus >= 1, gpu_milli == 1000: that many fully free GPUs
struct PodSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t mem_mib = 0;
  int gpus = 0;
  int gpu_milli = 0;        // Per GPU.
  std::string gpu_models;   // Required GPU model: "" = any, "A|B" = A or B.
  // Seconds in the trace's clock, -1 when the row leaves them empty (or has no such
  // column): creation, deletion and scheduled time. `schedkit fgd run` ignores them (it
  // replays arrivals only); the simulator's openb loader reads them (docs/formats.md).
  int64_t creation_s = -1;
  int64_t deletion_s = -1;
  int64_t scheduled_s = -1;
  int line = 0;  // The file line it was read from, for errors.

  bool fractional() const { return gpus == 1 && gpu_milli < kMilliPerGpu; }
  int64_t total_gpu_milli() const { return static_cast<int64_t>(gpus) * gpu_milli; }
};

struct SharingNodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t mem_mib = 0;
  int gpus = 0;
  std::string gpu_model;  // "" for a CPU-only node.
};

struct SharingClusterSpec {
  std::string source;  // File name, for reports.
  std::vector<SharingNodeSpec> nodes;

  int TotalGpus() const;
  int64_t TotalGpuMilli() const { return static_cast<int64_t>(TotalGpus()) * kMilliPerGpu; }
};

// Returns true iff a pod asking for `pod_models` ("" or "A|B|...") may run on a node whose
// GPUs are `node_model`. A pod without a model constraint runs anywhere; a constrained pod
// never runs on a node without GPUs.
bool ModelAccepts(std::string_view pod_models, std::string_view node_model);

// The openb traces (Alibaba GPU-sharing, shared/data/alibaba/gpu-v2023; docs/fgd.md lists
// the columns). Pod lists need name, cpu_milli, memory_mib, num_gpu, gpu_milli and may have
// gpu_spec; other columns are ignored. Node lists need sn, cpu_milli, memory_mib, gpu, model.
// A bad row fails with "FILE:LINE: field 'NAME': ..."; an empty list fails too.
Result<std::vector<PodSpec>> LoadOpenbPods(const std::string& path);
Result<SharingClusterSpec> LoadOpenbNodes(const std::string& path);

// Where a pod runs. Empty (node < 0) = not placed. Every GPU in gpu_mask gives gpu_milli.
struct SharingPlacement {
  int node = -1;
  uint32_t gpu_mask = 0;  // Bit g = GPU g of the node.
  int gpu_milli = 0;
  int64_t cpu_milli = 0;
  int64_t mem_mib = 0;

  bool empty() const { return node < 0; }
  int gpus() const;
  int64_t total_gpu_milli() const { return static_cast<int64_t>(gpus()) * gpu_milli; }
};

// The free resources of one node, by value: what fragmentation is computed on, for the
// node as it is or as it would be after a placement.
struct NodeFree {
  int64_t cpu_milli = 0;
  int gpus = 0;
  std::array<int, kMaxGpusPerNode> gpu_milli{};  // Slots [0, gpus) are used.

  int64_t total_gpu_milli() const;
  // REQUIRES: placement fits. Takes the placement's CPU and per-GPU shares off.
  void Take(const SharingPlacement& p);
};

// What placement policies see of one node: its free resources and the kinds of GPU pods
// it holds (key 0 = fractional, k >= 1 = k whole GPUs: the affinity tags of GPU
// clustering).
struct NodeUse {
  NodeFree free;
  int64_t free_mem_mib = 0;
  std::map<int, int> kinds;
};

// Per-GPU free shares, CPU and memory of every node. Copyable.
//
// The booking itself is the core's: a ClusterState over the same nodes in booking units
// (1 CPU = 1 milli-core, memory in GB = MiB / 1024, exact in binary) books every placement,
// with its rules for fractional shares and its abort on an over-commit. What the policies
// score, each node's NodeFree and free memory, is read back from it after every change;
// the pod kinds on each node (who holds the GPUs, not what is free) are kept here.
class SharingState {
 public:
  // REQUIRES: spec outlives the state; every node has at most kMaxGpusPerNode GPUs.
  explicit SharingState(const SharingClusterSpec* spec);

  const SharingClusterSpec& spec() const { return *spec_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const std::vector<NodeUse>& nodes() const { return nodes_; }
  const NodeFree& free(int node) const { return nodes_[node].free; }
  int64_t free_mem_mib(int node) const { return nodes_[node].free_mem_mib; }
  int fully_free_gpus(int node) const;
  // GPU pods on the node by kind (NodeUse::kinds).
  const std::map<int, int>& gpu_pod_kinds(int node) const { return nodes_[node].kinds; }
  int64_t allocated_gpu_milli() const { return allocated_gpu_milli_; }
  int64_t total_gpu_milli() const { return total_gpu_milli_; }

  // Returns true iff the placement names a node, its GPUs exist and each has gpu_milli
  // free, the CPU and memory fit, and it gives 1-1000 milli-GPU per GPU iff it names GPUs.
  bool CanAllocate(const SharingPlacement& p) const;
  // REQUIRES: CanAllocate(p). Aborts otherwise: over-committing a GPU is a bug.
  void Allocate(const SharingPlacement& p);
  // REQUIRES: p was allocated and not yet released. Aborts if that would free more than
  // a GPU, CPU or memory holds.
  void Release(const SharingPlacement& p);
  // Aborts with a message unless every GPU's free share is in [0, 1000], CPU and memory
  // are within [0, capacity] and allocated_gpu_milli() equals what the GPUs miss.
  void CheckInvariants() const;

 private:
  // Reads node `node`'s free resources back from booked_.
  void Refresh(int node);

  const SharingClusterSpec* spec_;
  std::shared_ptr<const ClusterSpec> booking_spec_;  // spec_ in booking units; shared by copies.
  ClusterState booked_;
  std::vector<NodeUse> nodes_;
  int64_t allocated_gpu_milli_ = 0;
  int64_t total_gpu_milli_ = 0;
};

// Returns true iff `pod` can be placed on `node` now: CPU, memory, GPU model, and enough
// GPUs with gpu_milli free (fully free ones for whole-GPU pods).
bool Fits(const SharingState& state, int node, const PodSpec& pod);
// The same for node `node` of `spec` whose use is `use`.
bool Fits(const SharingNodeSpec& spec, const NodeUse& use, const PodSpec& pod);
// The number of fully free GPUs of `free`.
int FullyFreeGpus(const NodeFree& free);

// A pod shape of the target workload: what fragmentation is measured against. Memory is
// not part of it (as in the reference).
struct PodShape {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;
  int gpus = 0;
  std::string gpu_models;

  auto operator<=>(const PodShape&) const = default;
};

struct WeightedShape {
  PodShape shape;
  double weight = 0;  // Popularity p_m; the weights of a workload sum to 1.
};

// The most popular shapes of a pod list that together cover `coverage` of its pods, weights
// renormalised over the kept shapes. Shapes are ranked by count, ties by the larger shape
// (cpu, gpu_milli, gpus, models) first; shapes are added one at a time until the covered
// share reaches `coverage`. REQUIRES: pods is not empty, 0 < coverage <= 1.
std::vector<WeightedShape> TargetWorkload(const std::vector<PodSpec>& pods, double coverage = 0.95);

// FGD's fragmentation, in milli-GPU. For node n and shape m, frag_n(m) is
//  - all of n's free milli-GPU if m asks for no GPU, if m's GPU model is not n's, if n has
//    fewer than m.gpus GPUs with m.gpu_milli free, or if n has less free CPU than m asks;
//  - otherwise the free milli-GPU on GPUs whose free share is below m.gpu_milli.
// F_n = sum_m p_m frag_n(m). The cluster's fragmentation is the sum over nodes; it is kept
// incrementally: Update(node) recomputes only that node.
class Fragmentation {
 public:
  // REQUIRES: spec outlives this object.
  Fragmentation(const SharingClusterSpec* spec, std::vector<WeightedShape> workload);

  const std::vector<WeightedShape>& workload() const { return workload_; }
  // F_n of `node` if its free resources were `free`.
  double Of(int node, const NodeFree& free) const;

  // Recomputes every node from `state` (at the start of a run).
  void Reset(const SharingState& state);
  // Recomputes `node` only, after its free resources changed.
  void Update(const SharingState& state, int node) { Update(node, state.free(node)); }
  // The same, given the node's free resources now.
  void Update(int node, const NodeFree& free);
  // As of the last Reset/Update.
  double node(int n) const { return per_node_[n]; }
  double total() const { return total_; }

 private:
  const SharingClusterSpec* spec_;
  std::vector<WeightedShape> workload_;
  // accessible_[node * shapes + m]: m's GPU model constraint admits the node.
  std::vector<char> accessible_;
  std::vector<double> per_node_;
  double total_ = 0;
};

// Which node wins when several share the best score.
enum class TieBreak {
  // The reference's rule: the node ranked first in a random order of all nodes, drawn once
  // per run from the run's seed. (Its simulator prefixes every node's name with a seeded
  // random rank, "0417-name", and its scheduler gives ties to the smallest name.)
  kRankedNode,
  kFirstNode,   // The first in node-list order.
  kRandomNode,  // Uniformly at random at each placement (stock Kubernetes' selectHost).
};
// The names of --ties and of the placement modules' option: "ranked", "first", "random".
// Returns false (and leaves *ties) on any other name.
bool ParseTieBreak(std::string_view name, TieBreak* ties);

// Names of the built-in placement policies, in registration order (fgd, best-fit,
// dot-product, packing, clustering, random; docs/fgd.md).
std::vector<std::string> SharingPolicyNames();

// The reference experiment (docs/fgd.md). For each seed: the pod list is topped up with pods
// drawn uniformly (with replacement) from it until the next draw would take the total GPU
// request above `arrive_ratio` of the cluster's GPU capacity (a list that asks for more loses
// pods drawn at random until it does not), then shuffled; the pods arrive one by one and are
// placed by the policy or fail (no departures, no retries).
struct FgdExperimentConfig {
  std::vector<std::string> policies;
  std::vector<uint64_t> seeds;
  double arrive_ratio = 1.3;
  double coverage = 0.95;  // Of the target workload (TargetWorkload).
  TieBreak ties = TieBreak::kRankedNode;
};

// One sample of a run's curve, taken when the arrived GPU request first reaches each whole
// percent of capacity, and after the last pod.
struct CurvePoint {
  int pods_arrived = 0;
  int pods_placed = 0;
  double arrived_gpu_pct = 0;    // GPU request of arrived pods / capacity x 100.
  double allocated_gpu_pct = 0;  // GPU milli allocated / capacity x 100.
  double frag_gpu_pct = 0;       // Cluster fragmentation / capacity x 100.
};

struct FgdRun {
  std::string policy;
  uint64_t seed = 0;
  std::vector<CurvePoint> curve;
  double wall_seconds = 0;

  // The first point at or past `arrived_pct` (the last point if none is).
  const CurvePoint& At(double arrived_pct) const;
};

// Fails on an unknown policy name or an empty pod list or cluster. Runs in order of
// (policy, seed); each run checks SharingState::CheckInvariants after its last pod.
Result<std::vector<FgdRun>> RunFgdExperiment(const std::vector<PodSpec>& pods,
                                             const SharingClusterSpec& cluster,
                                             const FgdExperimentConfig& config);

// Writes DIR/curve.csv (every point of every run) and DIR/summary.csv (per policy and arrived
// percentage in `report_at`: the mean over seeds), creating DIR. Columns: docs/fgd.md.
Status WriteFgdResults(const std::vector<FgdRun>& runs, const std::vector<double>& report_at,
                       const std::string& dir);

}  // namespace schedkit::sharing

#endif  // SCHEDKIT_SHARING_H_
