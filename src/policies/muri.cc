// Muri-S and Muri-L (Zhao et al., SIGCOMM'22): multi-resource interleaving. Jobs of the
// same GPU count are grouped (2-4 per group) by rounds of maximum-weight matching on
// interleaving efficiency; the members of a group share one placement and each runs at
// solo iteration time / group iteration time of its solo speed (mechanisms/interleaving.h).
// Muri-S orders jobs by remaining GPU-time (an oracle key), Muri-L by attained GPU-time.
// The schedule is rebuilt from an empty cluster at every decision, as in Muri's
// simulator (multi_resource_blossom_same_sim_jobs); docs/interleaving.md walks through it.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mechanisms/interleaving.h"
#include "mechanisms/matching.h"
#include "mechanisms/muri_matching.h"
#include "registry/builtins.h"
#include "schedkit/persistent_order.h"

namespace schedkit {
namespace {

enum class MuriKey { kRemainingGpuTime, kAttainedGpuTime };

class MuriPolicy final : public Policy {
 public:
  MuriPolicy(std::string name, MuriKey key, bool autopack, CompatMode compat,
             std::unique_ptr<PlacementModule> placement)
      : name_(std::move(name)), key_(key), autopack_(autopack), compat_(compat),
        placement_(std::move(placement)) {}

  std::string_view Name() const override { return name_; }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    const int total_gpus = view.Cluster().TotalGpus();
    for (JobId id : events.arrived) {
      if (view.Spec(id).gpus > total_gpus) {
        out->reject.push_back(id);
      } else {
        list_.Append(id, {Key(view.Status(id)), 0, 0});
      }
    }
    list_.Remove(events.finished);
    for (JobId id : events.finished) current_.erase(id);
    // 1. Stable sort of the persistent list by key (ties keep their previous order).
    list_.Sort(view.RunningJobs(), [&](JobId id) { return PriorityKey{Key(view.Status(id)), 0, 0}; },
               /*multi_level=*/false);
    std::unordered_map<JobId, double> key;
    key.reserve(list_.entries().size());
    for (const auto& [id, k] : list_.entries()) key[id] = k[0];

    // 2. Candidates: each job that fits on what earlier ones leave reserves itself and
    //    the next jobs of its size, up to kMaxGroupSize per fitting job.
    std::vector<int> sizes;                    // GPU counts, in order of first appearance.
    std::map<int, std::vector<JobId>> by_size;  // Sorted jobs of each GPU count.
    for (const auto& [id, unused_key] : list_.entries()) {
      const int g = view.Spec(id).gpus;
      auto [it, fresh] = by_size.try_emplace(g);
      if (fresh) sizes.push_back(g);
      it->second.push_back(id);
    }
    std::map<int, size_t> chosen;
    std::unordered_set<JobId> used;
    {
      ClusterState free(&view.Cluster());
      for (const auto& [id, unused_key] : list_.entries()) {
        if (used.count(id)) continue;
        const JobSpec& spec = view.Spec(id);
        const Placement p = placement_->Place(spec, free);
        if (p.empty()) continue;
        free.Allocate(p);
        std::vector<JobId>& same = by_size[spec.gpus];
        size_t& c = chosen[spec.gpus];
        const size_t end = std::min(c + kMaxGroupSize, same.size());
        for (size_t i = c; i < end; ++i) used.insert(same[i]);
        c = end;
      }
    }
    // 3. Matching rounds: groups of each size become nodes; matched pairs merge while
    //    the chosen jobs need more GPUs than the cluster has.
    int64_t required = 0;
    std::vector<std::pair<int, std::vector<Group>>> groups;  // Per size, in `sizes` order.
    for (int g : sizes) {
      std::vector<JobId>& same = by_size[g];
      same.resize(chosen[g]);
      required += static_cast<int64_t>(chosen[g]) * g;
      std::vector<Group> singles;
      for (JobId id : same) singles.push_back(Group{{id}});
      groups.emplace_back(g, std::move(singles));
    }
    for (int round = 0; round < kMaxGroupSize; ++round) {
      if (round > 0 && required <= total_gpus) break;
      for (auto& [g, packs] : groups) MatchOnce(view, g, total_gpus, &required, &packs);
    }
    // 4. Autopack: split groups slower than running their members one after another;
    //    then keep the groups whose first member fits, best key first.
    std::vector<Group> final_groups;
    for (auto& [g, packs] : groups) {
      for (Group& p : packs) final_groups.push_back(std::move(p));
    }
    if (autopack_) final_groups = Autopack(view, key, std::move(final_groups));
    // 5. Placement from an empty cluster, largest GPU count first; a group's members
    //    share the first placed member's placement.
    std::unordered_map<JobId, size_t> group_of;
    for (size_t i = 0; i < final_groups.size(); ++i) {
      for (JobId id : final_groups[i].members) group_of[id] = i;
    }
    std::vector<JobId> order;
    for (const auto& [id, unused_key] : list_.entries()) order.push_back(id);
    std::stable_sort(order.begin(), order.end(),
                     [&](JobId a, JobId b) { return view.Spec(a).gpus > view.Spec(b).gpus; });
    std::vector<Placement> placed(final_groups.size());
    std::vector<std::vector<JobId>> placed_members(final_groups.size());
    ClusterState free(&view.Cluster());
    for (JobId id : order) {
      auto it = group_of.find(id);
      if (it == group_of.end()) continue;
      const size_t gi = it->second;
      if (placed[gi].empty()) {
        Placement p = placement_->Place(view.Spec(id), free);
        if (p.empty()) continue;
        free.Allocate(p);
        placed[gi] = std::move(p);
      }
      placed_members[gi].push_back(id);
    }
    Emit(view, final_groups, placed, placed_members, out);
  }

 private:
  struct Group {
    std::vector<JobId> members;
  };
  struct Running {
    std::vector<JobId> members;  // Sorted.
    Placement placement;
    double rate = 1;
  };

  double Key(const JobStatus& s) const {
    const JobSpec& spec = *s.spec;
    if (key_ == MuriKey::kAttainedGpuTime) return s.attained_gpu_s;
    // Muri keys a never-run job by its trace duration (without the 1.015 factor).
    if (compat_ == CompatMode::kMuri && s.first_start_s == kNever && spec.duration_s > 0) {
      return spec.duration_s * spec.gpus;
    }
    const double remaining = std::isnan(s.remaining_s) ? INFINITY : s.remaining_s;
    return remaining * spec.gpus;
  }

  // TT of a group, memoised by its (sorted) members: stage times never change, TT does
  // not depend on member order, and the matching asks for the same groups at every event.
  // The group is `members` followed by `more`.
  double CachedIterationTime(const ClusterView& view, const std::vector<JobId>& members,
                             const std::vector<JobId>& more = {}) const {
    std::array<JobId, kMaxGroupSize> key;
    key.fill(-1);
    const size_t size = members.size() + more.size();
    std::copy(more.begin(), more.end(), std::copy(members.begin(), members.end(), key.begin()));
    std::sort(key.begin(), key.begin() + size);
    auto [it, inserted] = tt_cache_.try_emplace(key, 0.0);
    if (inserted) {
      std::vector<JobId> all(key.begin(), key.begin() + size);
      it->second = GroupIterationTime(Specs(view, all));
    }
    return it->second;
  }

  std::vector<const JobSpec*> Specs(const ClusterView& view, const std::vector<JobId>& ids) const {
    std::vector<const JobSpec*> specs;
    specs.reserve(ids.size());
    for (JobId id : ids) specs.push_back(&view.Spec(id));
    return specs;
  }

  void MatchOnce(const ClusterView& view, int g, int total_gpus, int64_t* required,
                 std::vector<Group>* packs) const {
    const int n = static_cast<int>(packs->size());
    // Directed weights: w[u][v] sums u's jobs then v's (Muri builds both directions).
    std::vector<std::vector<double>> w(n, std::vector<double>(n, 0.0));
    std::vector<double> total(n, 0.0);  // Each pack's stage total, in member order.
    for (int u = 0; u < n; ++u) {
      for (JobId id : (*packs)[u].members) total[u] += StageTotal(view.Spec(id));
    }
    for (int u = 0; u < n; ++u) {
      for (int v = 0; v < n; ++v) {
        const auto& a = (*packs)[u].members;
        const auto& b = (*packs)[v].members;
        if (u == v || a.size() + b.size() > static_cast<size_t>(kMaxGroupSize)) continue;
        if (compat_ != CompatMode::kMuri && v < u) continue;
        double both_total = total[u];  // Continues left to right through b's members.
        for (JobId id : b) both_total += StageTotal(view.Spec(id));
        w[u][v] = InterleavingEfficiency(both_total, CachedIterationTime(view, a, b));
      }
    }
    std::vector<int> mate;
    if (compat_ == CompatMode::kMuri) {
      // Muri's own blossom: its choice among (near-)equal-weight matchings decides the groups.
      mate = MuriBlossomMatching(w);
    } else {
      std::vector<WeightedEdge> edges;
      for (int u = 0; u < n; ++u) {
        for (int v = u + 1; v < n; ++v) {
          if (w[u][v] > 0) edges.push_back({u, v, w[u][v]});
        }
      }
      mate = MaxWeightMatching(n, edges);
    }
    std::vector<Group> next;
    for (int u = 0; u < n; ++u) {
      const int v = mate[u];
      if (v > u) continue;  // A pair is listed at its larger endpoint.
      if (v < 0) {
        next.push_back(std::move((*packs)[u]));
      } else if (*required <= total_gpus) {
        next.push_back(std::move((*packs)[v]));
        next.push_back(std::move((*packs)[u]));
      } else {
        Group merged = std::move((*packs)[v]);
        merged.members.insert(merged.members.end(), (*packs)[u].members.begin(),
                              (*packs)[u].members.end());
        next.push_back(std::move(merged));
        *required -= g;
      }
    }
    *packs = std::move(next);
  }

  std::vector<Group> Autopack(const ClusterView& view, const std::unordered_map<JobId, double>& key,
                              std::vector<Group> packs) const {
    std::vector<std::pair<double, Group>> keyed;
    for (Group& p : packs) {
      const std::vector<const JobSpec*> specs = Specs(view, p.members);
      double solo_sum = 0;
      for (const JobSpec* s : specs) solo_sum += s->iteration_time_s * GroupSizeFactor(1);
      if (p.members.size() > 1 && CachedIterationTime(view, p.members) / solo_sum > 1) {
        for (JobId id : p.members) keyed.emplace_back(key.at(id), Group{{id}});
      } else {
        double k = INFINITY;
        for (JobId id : p.members) k = std::min(k, key.at(id));
        keyed.emplace_back(k, std::move(p));
      }
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Group> kept;
    ClusterState free(&view.Cluster());
    for (auto& [k, p] : keyed) {
      const Placement pl = placement_->Place(view.Spec(p.members.front()), free);
      if (pl.empty()) continue;
      free.Allocate(pl);
      kept.push_back(std::move(p));
    }
    return kept;
  }

  // Turns the planned groups into decisions: a group whose members, placement and rates
  // are unchanged keeps running; any other planned group (re)starts all its members;
  // running jobs left out are preempted.
  void Emit(const ClusterView& view, const std::vector<Group>& groups,
            const std::vector<Placement>& placed, const std::vector<std::vector<JobId>>& members,
            Decisions* out) {
    std::unordered_map<JobId, Running> next;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      if (members[gi].empty()) continue;
      const double tt = CachedIterationTime(view, groups[gi].members);
      std::vector<JobId> sorted = members[gi];
      std::sort(sorted.begin(), sorted.end());
      bool unchanged = true;
      for (JobId id : sorted) {
        const double rate = GroupRate(view.Spec(id), tt);
        auto it = current_.find(id);
        if (it == current_.end() || it->second.members != sorted ||
            !(it->second.placement == placed[gi]) || it->second.rate != rate ||
            view.Status(id).state != JobState::kRunning) {
          unchanged = false;
        }
        next[id] = Running{sorted, placed[gi], rate};
      }
      if (unchanged) continue;
      const int64_t group = members[gi].size() > 1 ? next_group_++ : 0;
      for (JobId id : members[gi]) {
        out->start.push_back(StartDecision{id, placed[gi], next[id].rate, group});
      }
    }
    for (JobId id : view.RunningJobs()) {
      if (!next.count(id)) out->preempt.push_back(id);
    }
    std::sort(out->preempt.begin(), out->preempt.end());  // Deterministic order.
    current_ = std::move(next);
  }

  std::string name_;
  MuriKey key_;
  bool autopack_;
  CompatMode compat_;
  std::unique_ptr<PlacementModule> placement_;
  PersistentOrder list_;  // Admitted unfinished jobs, in the persistent sorted order.
  std::unordered_map<JobId, Running> current_;  // What each running job was last given.
  struct GroupHash {
    size_t operator()(const std::array<JobId, kMaxGroupSize>& k) const {
      size_t h = 0;
      for (JobId id : k) h = h * 1000003u ^ std::hash<JobId>()(id);
      return h;
    }
  };
  mutable std::unordered_map<std::array<JobId, kMaxGroupSize>, double, GroupHash> tt_cache_;
  int64_t next_group_ = 1;
};

Status RegisterOne(Registries* r, const std::string& name, MuriKey key, const std::string& what) {
  PolicyRegistry::Entry entry;
  entry.name = name;
  entry.description = what;
  entry.default_placement = "yarn";
  entry.options = {{"autopack", OptionSpec::Type::kBool, "true",
                    "split a group whose iteration time exceeds the sum of its members' "
                    "(Muri's current code: true; its paper figures: false)"}};
  entry.factory = [name, key](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    if (!ctx.placement) return Status::InvalidArgument(name + ": no placement module");
    return std::unique_ptr<Policy>(std::make_unique<MuriPolicy>(
        name, key, ctx.options.Bool("autopack"), ctx.compat, std::move(ctx.placement)));
  };
  return r->policies.Register(std::move(entry));
}

}  // namespace

Status RegisterMuri(Registries* r) {
  SCHEDKIT_RETURN_IF_ERROR(RegisterOne(
      r, "muri-s", MuriKey::kRemainingGpuTime,
      "Muri-S: multi-resource interleaving groups, shortest remaining GPU-time (oracle) first"));
  return RegisterOne(r, "muri-l", MuriKey::kAttainedGpuTime,
                     "Muri-L: multi-resource interleaving groups, least attained GPU-time first");
}

}  // namespace schedkit
