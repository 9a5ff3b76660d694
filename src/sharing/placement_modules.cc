// The six GPU-sharing policies (docs/fgd.md) as PlacementModules of the main registry:
// fgd, fgd-best-fit, fgd-dot-product, fgd-packing, fgd-clustering, fgd-random. Each wraps
// the SharingPolicy of the same name (src/sharing/policies/) and PlacePod, the mechanism
// `schedkit fgd run` uses; what this file adds is the bridge from the core ClusterState:
//
//  - The target workload (TargetWorkload) is built once, when the module is made, from
//    the run's trace (ModuleContext::trace): every job as a pod. Without a trace it is
//    empty: no node has fragmentation, fgd scores every node alike and ties decide.
//  - The per-node picture the policies score (NodeUse) and each node's fragmentation are a
//    cache of the ClusterState Place is given: a node's picture is rebuilt from the state,
//    and its fragmentation recomputed, only when its free resources differ from the cached
//    ones (the nodes an allocation or release touched since the last call). Place stays
//    const to its callers; the cache is not part of what it decides.
//  - Pod kinds (GPU clustering's affinity) are not booked by ClusterState: the module
//    counts them from the running jobs of the view Observe gives, plus the jobs it placed
//    since that the state Place is given books (CountPlacedKinds; fgd-clustering only).
//
// A job is a pod asking for its CPUs x 1000 milli-cores, its memory in MiB, its GPUs at
// its gpu_milli, and the GPU types it has a speed for; it goes on one node.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "registry/builtins.h"
#include "sharing/policy.h"

namespace schedkit::sharing {
namespace {

// A node that declares no CPUs (or memory) is not checked for them (as ShareOn does); the
// policies see the reference's largest node there (policies/policies.h's constants).
constexpr int64_t kUndeclaredCpuMilli = 128000;
constexpr int64_t kUndeclaredMemMib = int64_t{1} << 40;

PodSpec PodOf(const JobSpec& job) {
  PodSpec pod;
  pod.name = job.name;
  pod.cpu_milli = static_cast<int64_t>(job.cpus) * 1000;
  pod.mem_mib = static_cast<int64_t>(std::ceil(job.mem_gb * 1024.0));
  pod.gpus = job.gpus;
  pod.gpu_milli = job.gpus == 0 ? 0 : job.gpu_milli;
  for (const TypeSpeed& t : job.profile.type_speeds) {
    if (!(t.speed > 0)) continue;
    pod.gpu_models += (pod.gpu_models.empty() ? "" : "|") + t.gpu_type;
  }
  // Every job runs on generic nodes (schedkit/throughput.h).
  if (!pod.gpu_models.empty()) pod.gpu_models += std::string("|") + kGenericGpuType;
  return pod;
}

SharingClusterSpec SharingSpecOf(const ClusterSpec& cluster) {
  SharingClusterSpec spec;
  spec.source = cluster.source;
  for (size_t n = 0; n < cluster.nodes.size(); ++n) {
    const NodeSpec& node = cluster.nodes[n];
    // Nodes past the sharing model's 16 GPUs are offered with none (never chosen).
    const int gpus = node.gpus <= kMaxGpusPerNode ? node.gpus : 0;
    spec.nodes.push_back(SharingNodeSpec{"n" + std::to_string(n),
                                         node.cpus > 0 ? int64_t{node.cpus} * 1000 : kUndeclaredCpuMilli,
                                         node.mem_gb > 0 ? static_cast<int64_t>(node.mem_gb * 1024.0)
                                                         : kUndeclaredMemMib,
                                         gpus, node.gpu_type});
  }
  return spec;
}

class SharingPlacementModule final : public PlacementModule {
 public:
  SharingPlacementModule(std::string name, std::unique_ptr<SharingPolicy> policy,
                         std::vector<WeightedShape> workload, TieBreak ties, uint64_t seed)
      : name_(std::move(name)),
        policy_(std::move(policy)),
        workload_(std::move(workload)),
        ties_(ties),
        rng_(seed) {}

  std::string_view Name() const override { return name_; }

  void Observe(const ClusterView& view) override {
    if (!policy_->ReadsPodKinds()) return;
    kinds_.assign(view.Cluster().nodes.size(), {});
    for (JobId id : view.RunningJobs()) {
      const JobStatus s = view.Status(id);
      if (s.placement == nullptr) continue;
      for (const NodeShare& share : s.placement->shares) {
        if (share.gpu_mask != 0) ++kinds_[share.node][KindOf(share)];
      }
    }
    kinds_fresh_ = true;
    observed_ = true;
    const ClusterState& now = view.Resources();
    observed_free_.assign(now.num_nodes(), GpuShares{});
    for (int n = 0; n < now.num_nodes(); ++n) {
      const int gpus = std::min(now.spec().nodes[n].gpus, kMaxGpusPerNode);
      for (int g = 0; g < gpus; ++g) observed_free_[n][g] = now.free_gpu_milli(n, g);
    }
    booked_.clear();
    recent_.clear();
    kinds_touched_.clear();
  }

  Placement Place(const JobSpec& job, const ClusterState& free) const override {
    Sync(free);
    const PodSpec pod = PodOf(job);
    SharingView view(spec_, nodes_, *frag_);
    view.tie_rank = &rank_;
    const SharingPlacement p = PlacePod(*policy_, view, pod, ties_, rng_);
    if (p.empty()) return Placement();
    const NodeSpec& node = cluster_->nodes[p.node];
    const NodeShare share{.node = p.node,
                          .cpus = node.cpus > 0 ? job.cpus : 0,
                          .gpu_mask = p.gpu_mask,
                          .mem_gb = node.mem_gb > 0 ? job.mem_gb : 0,
                          .gpu_milli = job.gpu_milli};
    if (observed_ && share.gpu_mask != 0) {
      Placed placed{p.node, KindOf(share), nodes_[p.node].free.gpu_milli,
                    nodes_[p.node].free.gpu_milli};
      for (int g = 0; g < kMaxGpusPerNode; ++g) {
        placed.after[g] -= (p.gpu_mask >> g & 1) * p.gpu_milli;
      }
      if (recent_.size() == kRecentPlacements) recent_.erase(recent_.begin());
      recent_.push_back(placed);
    }
    return Placement{{share}};
  }

 private:
  // Brings the cached picture up to `free`: nodes whose free resources changed are rebuilt
  // and their fragmentation recomputed (all of them on the first call for a cluster).
  void Sync(const ClusterState& free) const {
    if (cluster_ != &free.spec()) {
      cluster_ = &free.spec();
      spec_ = SharingSpecOf(*cluster_);
      nodes_.assign(spec_.nodes.size(), NodeUse{});
      for (size_t n = 0; n < nodes_.size(); ++n) nodes_[n].free.gpus = -1;  // Never equal.
      frag_.emplace(&spec_, workload_);
      kinds_fresh_ = !kinds_.empty();
      if (ties_ == TieBreak::kRankedNode) rank_ = RandomNodeRanks(free.num_nodes(), rng_);
    }
    if (kinds_fresh_) {  // Copied once per Observe, not at every placement.
      for (size_t n = 0; n < nodes_.size() && n < kinds_.size(); ++n) nodes_[n].kinds = kinds_[n];
      kinds_fresh_ = false;
    }
    for (int n = 0; n < free.num_nodes(); ++n) {
      NodeUse& use = nodes_[n];
      const SharingNodeSpec& node = spec_.nodes[n];
      NodeFree now;
      now.gpus = node.gpus;
      now.cpu_milli = cluster_->nodes[n].cpus > 0 ? int64_t{free.free_cpus(n)} * 1000 : node.cpu_milli;
      for (int g = 0; g < node.gpus; ++g) now.gpu_milli[g] = free.free_gpu_milli(n, g);
      use.free_mem_mib = cluster_->nodes[n].mem_gb > 0
                             ? static_cast<int64_t>(std::floor(free.free_mem_gb(n) * 1024.0 + 1e-6))
                             : node.mem_mib;
      if (now.gpus == use.free.gpus && now.cpu_milli == use.free.cpu_milli &&
          now.gpu_milli == use.free.gpu_milli) {
        continue;
      }
      use.free = now;
      frag_->Update(n, now);
    }
    if (observed_) CountPlacedKinds();
  }

  static int KindOf(const NodeShare& share) { return share.fractional() ? 0 : share.gpus(); }

  using GpuShares = std::array<int, kMaxGpusPerNode>;  // A node's free milli-GPU per GPU.

  // A GPU job this module placed since Observe: its node's free shares before and after it.
  struct Placed {
    int node;
    int kind;
    GpuShares before, after;
  };

  // Adds to the kinds Observe counted those of the jobs this module placed since that the
  // state (nodes_, just synced) books. Placements are followed as a chain per node: the
  // newest booked ones are dropped while their node no longer shows their shares (the
  // caller dropped its scratch copy, or released), then recent placements join while one
  // explains the node's shares from the chain's last (the caller allocated it). Jobs a
  // policy preempts within a decision still count until the next Observe.
  void CountPlacedKinds() const {
    for (int n : kinds_touched_) nodes_[n].kinds = kinds_[n];
    kinds_touched_.clear();
    const auto last_on = [this](int n) {
      return std::find_if(booked_.rbegin(), booked_.rend(),
                          [n](const Placed& b) { return b.node == n; });
    };
    const auto base = [&](int n) -> const GpuShares& {
      auto last = last_on(n);
      return last == booked_.rend() ? observed_free_[n] : last->after;
    };
    for (const Placed& b : booked_) {
      if (std::find(kinds_touched_.begin(), kinds_touched_.end(), b.node) == kinds_touched_.end()) {
        kinds_touched_.push_back(b.node);
      }
    }
    for (int n : kinds_touched_) {
      for (auto last = last_on(n);
           last != booked_.rend() && last->after != nodes_[n].free.gpu_milli; last = last_on(n)) {
        booked_.erase(std::next(last).base());
      }
    }
    kinds_touched_.clear();
    for (bool joined = true; joined;) {
      joined = false;
      for (auto c = recent_.rbegin(); c != recent_.rend(); ++c) {
        const GpuShares& from = base(c->node);
        const GpuShares& now = nodes_[c->node].free.gpu_milli;
        bool explains = from != now;
        for (int g = 0; g < kMaxGpusPerNode && explains; ++g) {
          explains = from[g] - (c->before[g] - c->after[g]) == now[g];
        }
        if (!explains) continue;
        booked_.push_back(*c);
        recent_.erase(std::next(c).base());
        joined = true;
        break;
      }
    }
    for (const Placed& b : booked_) {
      ++nodes_[b.node].kinds[b.kind];
      kinds_touched_.push_back(b.node);
    }
  }

  std::string name_;
  std::unique_ptr<SharingPolicy> policy_;
  std::vector<WeightedShape> workload_;
  TieBreak ties_;
  std::vector<std::map<int, int>> kinds_;  // Per node, from the last Observe.
  mutable bool kinds_fresh_ = false;        // kinds_ not yet copied into nodes_.
  // Placements since Observe (CountPlacedKinds): the free shares Observe saw, those booked
  // (in order) and the latest returned but not yet seen booked (at most kRecentPlacements).
  static constexpr size_t kRecentPlacements = 64;
  bool observed_ = false;
  std::vector<GpuShares> observed_free_;
  mutable std::vector<Placed> booked_;
  mutable std::vector<Placed> recent_;
  mutable std::vector<int> kinds_touched_;  // Nodes whose kinds include booked_ entries.
  // The cache (see the top of the file) and the random draws of ties and fgd-random.
  mutable const ClusterSpec* cluster_ = nullptr;
  mutable SharingClusterSpec spec_;
  mutable std::vector<NodeUse> nodes_;
  mutable std::optional<Fragmentation> frag_;
  mutable std::vector<int> rank_;  // TieBreak::kRankedNode's order, drawn per cluster.
  mutable PortableRng rng_;
};

Result<std::unique_ptr<PlacementModule>> MakeModule(const std::string& module_name,
                                                    const std::string& policy_name,
                                                    ModuleContext& ctx) {
  const std::string who = "placement " + module_name + ": ";
  const double coverage = ctx.options.Double("coverage");
  if (!(coverage > 0 && coverage <= 1)) {
    return Status::InvalidArgument(who + "option 'coverage' must be in (0, 1]");
  }
  TieBreak ties = TieBreak::kFirstNode;
  if (!ParseTieBreak(ctx.options.String("ties"), &ties)) {
    return Status::InvalidArgument(who +
                                   "option 'ties' must be 'ranked', 'first' or 'random', not '" +
                                   ctx.options.String("ties") + "'");
  }
  ModuleContext none;
  Result<std::unique_ptr<SharingPolicy>> policy =
      BuiltinSharingPolicies().Find(policy_name)->factory(none);
  if (!policy.ok()) return policy.status();
  // No trace (the runtime; a policy built only to check a request): no target workload.
  std::vector<PodSpec> pods;
  if (ctx.trace != nullptr) {
    for (const JobSpec& job : ctx.trace->jobs) pods.push_back(PodOf(job));
  }
  return std::unique_ptr<PlacementModule>(std::make_unique<SharingPlacementModule>(
      module_name, std::move(policy).value(),
      pods.empty() ? std::vector<WeightedShape>{} : TargetWorkload(pods, coverage),
      ties,
      static_cast<uint64_t>(ctx.options.Int("seed"))));
}

}  // namespace

}  // namespace schedkit::sharing

namespace schedkit {

Status RegisterSharingPlacements(Registries* r) {
  for (const sharing::SharingPolicyRegistry::Entry& policy :
       sharing::BuiltinSharingPolicies().entries()) {
    PlacementRegistry::Entry e;
    e.name = policy.name == "fgd" ? "fgd" : "fgd-" + policy.name;
    e.description = "GPU sharing (docs/fgd.md): " + policy.description;
    e.options = {
        {"ties", OptionSpec::Type::kString, "first",
         "which of equally scored nodes wins: first (node order), ranked (first in a random "
         "node order drawn once per cluster, the reference's rule) or random"},
        {"coverage", OptionSpec::Type::kDouble, "0.95",
         "share of the trace's jobs the target workload's shapes cover"},
        {"seed", OptionSpec::Type::kInt, "0", "seed of random ties and of fgd-random"},
    };
    e.reads_workload = true;  // Built with the target workload of the run's trace.
    e.factory = [module = e.name, name = policy.name](ModuleContext& ctx) {
      return sharing::MakeModule(module, name, ctx);
    };
    SCHEDKIT_RETURN_IF_ERROR(r->placements.Register(std::move(e)));
  }
  return Status::Ok();
}

}  // namespace schedkit
