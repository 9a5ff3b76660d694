// AntMan (Xiao et al., OSDI'20) as Muri's simulator models it (antman_sim_jobs):
// guaranteed jobs (trace priority 0) hold GPUs exclusively, first come first served, and
// reserve GPUs while they wait for enough; opportunistic jobs (priority 1) run as guests
// (StartDecision::guest) on the least-utilised GPUs whose utilisation is below a cap,
// slowed by the guaranteed job they share a GPU with. Nothing is ever preempted.
// docs/policies.md has the details.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "registry/builtins.h"
#include "schedkit/throughput.h"

namespace schedkit {
namespace {

constexpr double kGuaranteedUtil = 0.1;     // Muri's gpu_util of a guaranteed job.
constexpr double kOpportunisticUtil = 0.9;  // ... of an opportunistic job.
constexpr double kUtilStep = 0.01;          // Added when a guaranteed job is complete.
constexpr double kWorkerMemGb = 5;          // Muri's worker_mem per placement.

enum class Tier { kGuaranteed, kOpportunistic };

// One node of the policy's model of the cluster (Muri's _Node for AntMan).
struct Node {
  int free_gpus = 0;  // GPUs not held by guaranteed jobs (reserved ones included).
  int free_cpus = 0;
  double free_mem = 0;
  std::vector<std::vector<JobId>> guaranteed, opportunistic;  // Per GPU.
  std::vector<double> util;                                    // Per GPU.
  // GPUs new placements may use (ClusterView::Capacity): all but a drained node's.
  uint64_t open_gpus = 0;
  int type = 0;  // Index of its GPU type in AntManPolicy::types_.
};

struct Holding {  // GPUs a job holds (or has reserved) on one node.
  int node;
  std::vector<int> gpus;
  int cpus = 0;
  double mem = 0;
};

struct JobBook {
  Tier tier = Tier::kGuaranteed;
  double util = kGuaranteedUtil;
  int missing_gpus = 0;  // GPUs still to reserve (Muri's remaining_gpu).
  int last_node = -1;
  int type = -1;  // The GPU type of what it holds or has reserved; -1 while it holds nothing.
  std::vector<Holding> holds;
  bool running = false;
  double rate = 1;
};

class AntManPolicy final : public ClonablePolicy<AntManPolicy> {
 public:
  AntManPolicy(double util_cap, double runtime_factor)
      : util_cap_(util_cap), runtime_factor_(runtime_factor) {}

  std::string_view Name() const override { return "antman"; }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    if (nodes_.empty()) InitNodes(view.Cluster());
    const ClusterState capacity = view.Capacity();
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
      nodes_[i].open_gpus = capacity.free_gpu_mask(i);
    }
    ReleaseFinished(events.finished);
    Requeue(view, events.interrupted);
    for (JobId id : events.arrived) Admit(view, id, out);
    // Guaranteed before opportunistic, then first come first served.
    std::stable_sort(list_.begin(), list_.end(), [&](JobId a, JobId b) {
      const JobSpec& x = view.Spec(a);
      const JobSpec& y = view.Spec(b);
      const int px = Rank(book_.at(a).tier), py = Rank(book_.at(b).tier);
      if (px != py) return px < py;
      if (x.submit_s != y.submit_s) return x.submit_s < y.submit_s;
      return a < b;
    });
    std::vector<JobId> started;
    for (JobId id : list_) {
      JobBook& b = book_.at(id);
      if (b.running) continue;
      const bool placed = b.tier == Tier::kGuaranteed ? PlaceGuaranteed(view.Spec(id), id, &b)
                                                      : PlaceOpportunistic(view.Spec(id), id, &b);
      if (placed) started.push_back(id);
    }
    for (JobId id : started) book_.at(id).running = true;
    Emit(view, started, out);
  }

 private:
  static int Rank(Tier t) { return t == Tier::kGuaranteed ? 0 : 1; }

  void InitNodes(const ClusterSpec& spec) {
    gpus_per_node_ = spec.nodes.empty() ? 0 : spec.nodes[0].gpus;
    // A spec without CPUs or memory (0) does not model them (as the placement modules).
    book_cpus_ = !spec.nodes.empty() && spec.nodes[0].cpus > 0;
    for (const NodeSpec& n : spec.nodes) {
      Node node;
      node.free_gpus = n.gpus;
      node.free_cpus = n.cpus > 0 ? n.cpus : std::numeric_limits<int>::max() / 2;
      node.free_mem = n.mem_gb > 0 ? n.mem_gb : INFINITY;
      node.guaranteed.resize(n.gpus);
      node.opportunistic.resize(n.gpus);
      node.util.assign(n.gpus, 0.0);
      node.type = static_cast<int>(std::find(types_.begin(), types_.end(), n.gpu_type) - types_.begin());
      if (node.type == static_cast<int>(types_.size())) types_.push_back(n.gpu_type);
      nodes_.push_back(std::move(node));
    }
  }

  // The GPU types `b`'s job may take GPUs of, in the order to try them: the type of what it
  // already holds; else the types it runs on, fastest first, ties in the cluster's order
  // (PlaceWithinOneType's order: every GPU of a job is of one type).
  std::vector<int> TypesFor(const JobSpec& spec, const JobBook& b) const {
    if (b.type >= 0) return {b.type};
    std::vector<int> order;
    for (int t = 0; t < static_cast<int>(types_.size()); ++t) {
      if (SpeedOn(spec, types_[t]) > 0) order.push_back(t);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int c) {
      return SpeedOn(spec, types_[a]) > SpeedOn(spec, types_[c]);
    });
    return order;
  }

  void Admit(const ClusterView& view, JobId id, Decisions* out) {
    const JobSpec& spec = view.Spec(id);
    // Muri places a guaranteed job larger than a node on whole nodes only.
    const bool ragged = spec.gpus > gpus_per_node_ && spec.gpus % gpus_per_node_ != 0;
    if (ragged && spec.priority == 0) {
      out->Reject(id, "a guaranteed job larger than a node needs whole nodes; it asks for " +
                          std::to_string(spec.gpus) + " GPUs, nodes have " +
                          std::to_string(gpus_per_node_));
      return;
    }
    JobBook b;
    b.tier = spec.priority == 0 ? Tier::kGuaranteed : Tier::kOpportunistic;
    b.util = b.tier == Tier::kGuaranteed ? kGuaranteedUtil : kOpportunisticUtil;
    b.missing_gpus = spec.gpus;
    book_.emplace(id, std::move(b));
    list_.push_back(id);
  }

  // Frees what finished jobs held, in list order (Muri's order of completions).
  void ReleaseFinished(const std::vector<JobId>& finished) {
    if (finished.empty()) return;
    std::unordered_set<JobId> done(finished.begin(), finished.end());
    std::vector<JobId> kept;
    for (JobId id : list_) {
      if (!done.count(id)) {
        kept.push_back(id);
        continue;
      }
      ReleaseHolds(id, book_.at(id));
      book_.erase(id);
      current_.erase(id);
    }
    list_ = std::move(kept);
  }

  static bool IsOpen(const Node& n, int gpu) { return (n.open_gpus >> gpu) & 1; }

  // Gives back what job `id` holds (or has reserved) on every node.
  void ReleaseHolds(JobId id, const JobBook& b) {
    for (const Holding& h : b.holds) {
      Node& n = nodes_[h.node];
      auto& lists = b.tier == Tier::kGuaranteed ? n.guaranteed : n.opportunistic;
      for (int g : h.gpus) {
        auto it = std::find(lists[g].begin(), lists[g].end(), id);
        if (it == lists[g].end()) continue;
        lists[g].erase(it);
        n.util[g] -= b.util;
      }
      if (b.tier == Tier::kGuaranteed) {
        n.free_cpus += h.cpus;
        n.free_gpus += static_cast<int>(h.gpus.size());
      }
      n.free_mem += h.mem;
    }
  }

  // The engine stopped these running jobs (their node failed): they hold nothing and wait
  // in their place in the list to be placed again.
  void Requeue(const ClusterView& view, const std::vector<JobId>& interrupted) {
    for (JobId id : interrupted) {
      JobBook& b = book_.at(id);
      ReleaseHolds(id, b);
      b.holds.clear();
      b.running = false;
      b.missing_gpus = view.Spec(id).gpus;
      b.last_node = -1;
      b.type = -1;
      current_.erase(id);
    }
  }

  std::vector<int> FreeForGuaranteed(const Node& n) const {
    std::vector<int> out;
    for (int g = 0; g < static_cast<int>(n.guaranteed.size()); ++g) {
      if (n.guaranteed[g].empty() && IsOpen(n, g)) out.push_back(g);
    }
    return out;
  }

  static int CpusFor(const JobSpec& spec, int gpus) { return spec.gpus == 1 ? 2 * gpus : 6 * gpus; }

  void Reserve(JobId id, JobBook* b, int node, const std::vector<int>& gpus, int cpus, double mem,
            bool extend_first) {
    Node& n = nodes_[node];
    b->type = n.type;
    n.free_gpus -= static_cast<int>(gpus.size());
    n.free_cpus -= cpus;
    for (int g : gpus) {
      n.guaranteed[g].push_back(id);
      n.util[g] += b->util - kUtilStep;
    }
    if (extend_first && !b->holds.empty()) {
      Holding& h = b->holds.front();
      h.gpus.insert(h.gpus.end(), gpus.begin(), gpus.end());
      h.cpus += cpus;
      h.mem += mem;
    } else {
      b->holds.push_back(Holding{node, gpus, cpus, mem});
    }
    b->missing_gpus -= static_cast<int>(gpus.size());
  }

  void CompleteGuaranteed(JobBook* b) {
    for (const Holding& h : b->holds) {
      for (int g : h.gpus) nodes_[h.node].util[g] += kUtilStep;
    }
  }

  // Muri's try_single_node_alloc_antman / try_cross_node_alloc_antman.
  bool PlaceGuaranteed(const JobSpec& spec, JobId id, JobBook* b) {
    if (spec.gpus > gpus_per_node_) return PlaceGuaranteedOnNodes(spec, id, b);
    const int need = b->missing_gpus;
    const int cpus = CpusFor(spec, need);
    if (need == spec.gpus) {  // Nothing reserved yet: first node that fits, by type.
      int best = -1;
      std::vector<int> best_gpus;
      for (const int type : TypesFor(spec, *b)) {
        for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
          if (nodes_[i].type != type) continue;
          const std::vector<int> avail = FreeForGuaranteed(nodes_[i]);
          if (static_cast<int>(avail.size()) >= need && nodes_[i].free_cpus >= cpus &&
              nodes_[i].free_mem >= kWorkerMemGb) {
            nodes_[i].free_mem -= kWorkerMemGb;
            Reserve(id, b, i, std::vector<int>(avail.begin(), avail.begin() + need), cpus, kWorkerMemGb,
                 false);
            b->last_node = i;
            CompleteGuaranteed(b);
            return true;
          }
          if (avail.size() > best_gpus.size()) {
            best = i;
            best_gpus = avail;
          }
        }
      }
      if (!best_gpus.empty()) {  // Reserve what the emptiest node has.
        nodes_[best].free_mem -= kWorkerMemGb;
        Reserve(id, b, best, best_gpus, CpusFor(spec, static_cast<int>(best_gpus.size())),
             kWorkerMemGb, false);
        b->last_node = best;
      }
      return false;
    }
    Node& n = nodes_[b->last_node];  // Continue where the reservation started.
    const std::vector<int> avail = FreeForGuaranteed(n);
    if (static_cast<int>(avail.size()) >= need && n.free_cpus >= cpus && n.free_mem >= kWorkerMemGb) {
      n.free_mem -= kWorkerMemGb;
      Reserve(id, b, b->last_node, std::vector<int>(avail.begin(), avail.begin() + need), cpus,
           kWorkerMemGb, true);
      CompleteGuaranteed(b);
      return true;
    }
    if (!avail.empty()) {
      Reserve(id, b, b->last_node, avail, 6 * static_cast<int>(avail.size()), kWorkerMemGb, true);
    }
    return false;
  }

  // Whole free nodes; reserves the ones it finds until it has enough.
  bool PlaceGuaranteedOnNodes(const JobSpec& spec, JobId id, JobBook* b) {
    const int need_nodes = b->missing_gpus / gpus_per_node_;
    const double mem_per_gpu = 6 + 0.1 * b->missing_gpus + kWorkerMemGb;
    // The whole free nodes of the first type that has enough, else of the type that has the
    // most (reserved while the job waits for the rest).
    std::vector<int> found;
    for (const int type : TypesFor(spec, *b)) {
      std::vector<int> of_type;
      for (int i = 0; i < static_cast<int>(nodes_.size()) &&
                      static_cast<int>(of_type.size()) < need_nodes;
           ++i) {
        const Node& n = nodes_[i];
        if (n.type == type && static_cast<int>(FreeForGuaranteed(n).size()) >= gpus_per_node_ &&
            n.free_cpus >= 6 * gpus_per_node_ && n.free_mem >= mem_per_gpu * gpus_per_node_) {
          of_type.push_back(i);
        }
      }
      if (of_type.size() > found.size()) found = std::move(of_type);
      if (static_cast<int>(found.size()) >= need_nodes) break;
    }
    const bool enough = static_cast<int>(found.size()) >= need_nodes;
    std::vector<int> all(gpus_per_node_);
    for (int g = 0; g < gpus_per_node_; ++g) all[g] = g;
    for (int i : found) {
      nodes_[i].free_mem -= mem_per_gpu * gpus_per_node_;
      Reserve(id, b, i, all, 6 * gpus_per_node_, mem_per_gpu * gpus_per_node_, false);
    }
    if (enough) CompleteGuaranteed(b);
    return enough;
  }

  // The least-utilised GPUs below the cap (stable by node, then GPU); all or nothing.
  bool PlaceOpportunistic(const JobSpec& spec, JobId id, JobBook* b) {
    struct Gpu {
      int node, gpu;
      double util;
    };
    std::vector<Gpu> open;  // Of the first type (TypesFor) with enough.
    for (const int type : TypesFor(spec, *b)) {
      open.clear();
      for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
        for (int g = 0; nodes_[i].type == type && g < static_cast<int>(nodes_[i].util.size()); ++g) {
          if (nodes_[i].util[g] < util_cap_ && IsOpen(nodes_[i], g)) {
            open.push_back({i, g, nodes_[i].util[g]});
          }
        }
      }
      if (static_cast<int>(open.size()) >= spec.gpus) break;
    }
    if (static_cast<int>(open.size()) < spec.gpus) return false;
    std::stable_sort(open.begin(), open.end(), [](const Gpu& x, const Gpu& y) { return x.util < y.util; });
    open.resize(spec.gpus);
    std::vector<int> node_order;  // Nodes in order of first appearance.
    std::map<int, std::vector<int>> per_node;
    for (const Gpu& x : open) {
      nodes_[x.node].util[x.gpu] += b->util;
      nodes_[x.node].opportunistic[x.gpu].push_back(id);
      b->type = nodes_[x.node].type;
      auto [it, fresh] = per_node.try_emplace(x.node);
      if (fresh) node_order.push_back(x.node);
      it->second.push_back(x.gpu);
    }
    for (int node : node_order) {
      const std::vector<int>& gpus = per_node[node];
      b->holds.push_back(
          Holding{node, gpus, CpusFor(spec, static_cast<int>(gpus.size())), kWorkerMemGb});
      nodes_[node].free_mem -= kWorkerMemGb;
    }
    b->missing_gpus = 0;
    return true;
  }

  // Solo seconds per iteration as the engine counts work (x the run's runtime factor).
  double IterationTime(const JobSpec& spec) const {
    const double it = spec.iteration_time_s > 0 ? spec.iteration_time_s : 1.0;
    return it * runtime_factor_;
  }

  // Muri's antman_calc_iter_time: an opportunistic job's iteration time next to the
  // running guaranteed jobs on its GPUs (interleaving its stages into their idle stages).
  double GuestIterationTime(const ClusterView& view, JobId id) const {
    const JobSpec& spec = view.Spec(id);
    const JobBook& b = book_.at(id);
    std::vector<JobId> hosts;
    bool other_guest = false;
    for (const Holding& h : b.holds) {
      for (int g : h.gpus) {
        for (JobId host : nodes_[h.node].guaranteed[g]) hosts.push_back(host);
        for (JobId other : nodes_[h.node].opportunistic[g]) other_guest |= other != id;
      }
    }
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    double it = IterationTime(spec);
    if (other_guest) it = std::max(it, IterationTime(spec) * 2.0);
    for (JobId host : hosts) {
      if (book_.at(host).missing_gpus > 0) continue;  // Only reserved, not running.
      const JobSpec& hs = view.Spec(host);
      it =
          std::max(it, InterleavedIterations(spec.profile.stage_times_s, hs.profile.stage_times_s) *
                           IterationTime(hs));
    }
    return it;
  }

  // How many of the host's iterations one guest iteration spans when the guest's data,
  // GPU and network stages fill the host's idle time (Muri's count, kept as is). Without
  // stage times a guest takes two host iterations.
  static double InterleavedIterations(StageTimes t, const StageTimes& c) {
    if (c[1] + c[2] <= 0 || c[0] + c[2] <= 0 || c[0] + c[1] <= 0) return 2;
    double iters = std::floor(t[0] / (c[1] + c[2]));
    const double data_extra = std::fmod(t[0], c[1] + c[2]);
    if (data_extra > 0) {
      iters += 1;
      t[1] -= std::min({t[1], c[2], c[1] + c[2] - data_extra});
    }
    iters += std::floor(t[1] / (c[0] + c[2]));
    const double gpu_extra = std::fmod(t[1], c[0] + c[2]);
    if (gpu_extra > 0) {
      iters += 1;
      if (gpu_extra < c[0]) t[2] -= std::min(t[2], c[0] + c[1] - gpu_extra);
    }
    iters += std::floor(t[2] / (c[0] + c[1]));
    if (std::fmod(t[2], c[0] + c[1]) > c[0]) iters += 1;
    return iters;
  }

  Placement ToPlacement(const JobBook& b) const {
    std::map<int, NodeShare> by_node;
    for (const Holding& h : b.holds) {
      NodeShare& s = by_node[h.node];
      s.node = h.node;
      for (int g : h.gpus) s.gpu_mask |= uint64_t{1} << g;
      if (book_cpus_) s.cpus += h.cpus;
    }
    Placement p;
    for (auto& [node, share] : by_node) p.shares.push_back(share);
    return p;
  }

  // Starts what was placed; re-rates every running guest whose hosts changed its speed
  // (a restart with the same placement at the new rate).
  void Emit(const ClusterView& view, const std::vector<JobId>& started, Decisions* out) {
    std::unordered_set<JobId> fresh(started.begin(), started.end());
    for (JobId id : list_) {
      JobBook& b = book_.at(id);
      if (!b.running) continue;
      const JobSpec& spec = view.Spec(id);
      double rate = 1;
      if (b.tier == Tier::kOpportunistic) rate = IterationTime(spec) / GuestIterationTime(view, id);
      if (!fresh.count(id) && rate == b.rate) continue;
      b.rate = rate;
      auto it = current_.find(id);
      if (it == current_.end()) it = current_.emplace(id, ToPlacement(b)).first;
      StartDecision s{id, it->second, rate};
      s.guest = b.tier == Tier::kOpportunistic;
      out->start.push_back(std::move(s));
    }
  }

  double util_cap_;
  double runtime_factor_;
  int gpus_per_node_ = 0;
  bool book_cpus_ = true;
  std::vector<Node> nodes_;
  std::vector<std::string> types_;  // The cluster's GPU types, in the order nodes first name them.
  std::vector<JobId> list_;  // Unfinished jobs, (tier, submit, id) order.
  std::unordered_map<JobId, JobBook> book_;
  std::unordered_map<JobId, Placement> current_;
};

}  // namespace

Status RegisterAntMan(Registries* r) {
  PolicyRegistry::Entry entry;
  entry.name = "antman";
  entry.description =
      "AntMan: guaranteed jobs (trace priority 0) FIFO with GPU reservations, opportunistic jobs "
      "(priority 1) co-located on GPUs below a utilisation cap; never preempts";
  // It places with its own model of per-GPU holders and utilisation (Muri's), so it
  // takes no placement or admission module.
  entry.default_placement = "";
  entry.default_admission = "";
  entry.takes_placement = false;
  entry.takes_admission = false;
  entry.options = {{"util_cap", OptionSpec::Type::kDouble, "0.8",
                    "an opportunistic job may use a GPU whose utilisation (guaranteed job 0.1, "
                    "opportunistic job 0.9) is below this; in (0, 1]"}};
  entry.factory = [](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    const double cap = ctx.options.Double("util_cap");
    if (!(cap > 0 && cap <= 1)) {
      return Status::InvalidArgument("antman: option util_cap=" + std::to_string(cap) +
                                     ": expected a value in (0, 1]");
    }
    return std::unique_ptr<Policy>(std::make_unique<AntManPolicy>(cap, ctx.knobs.runtime_factor));
  };
  return r->policies.Register(std::move(entry));
}

}  // namespace schedkit
