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
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <unordered_map>
#include <vector>

#include "mechanisms/flat_map.h"
#include "mechanisms/interleaving.h"
#include "mechanisms/kind_matching.h"
#include "mechanisms/muri_matching.h"
#include "registry/builtins.h"
#include "mechanisms/persistent_order.h"

namespace schedkit {
namespace {

enum class MuriKey { kRemainingGpuTime, kAttainedGpuTime };

class MuriPolicy final : public ClonablePolicy<MuriPolicy> {
 public:
  MuriPolicy(std::string name, MuriKey key, bool autopack, const PolicyKnobs& knobs,
             std::unique_ptr<PlacementModule> placement)
      : name_(std::move(name)),
        key_(key),
        autopack_(autopack),
        key_unstarted_by_trace_duration_(knobs.key_unstarted_by_trace_duration),
        reference_matching_order_(knobs.reference_matching_order),
        placement_(std::move(placement)) {}

  std::string_view Name() const override { return name_; }

  Status ModulesCloned() const override { return placement_.Check("placement"); }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    const int total_gpus = view.Cluster().TotalGpus();
    for (JobId id : events.arrived) list_.Append(id, {Key(view.Status(id)), 0, 0});
    list_.Remove(events.finished);
    for (JobId id : events.finished) current_.Erase(id);
    for (JobId id : events.interrupted) current_.Erase(id);  // Restarted like any other.
    // 1. Stable sort of the persistent list by key (ties keep their previous order).
    list_.Sort(
        view.RunningJobs(),
        [&](JobId id) {
          return PriorityKey{Key(view.Status(id)), 0, 0};
        },
        /*multi_level=*/false);
    // The whole list is walked once here; every later step reads only the candidates (the
    // queue behind them can be thousands of jobs long on trace2).
    const std::vector<PersistentOrder::Entry>& entries = list_.entries();
    const size_t num_entries = entries.size();

    // 2. Candidates: each job that fits on what earlier ones leave reserves itself and
    //    the next jobs of its size, up to kMaxGroupSize per fitting job. Jobs are named by
    //    their position in the list. The list is read only as far as the walk and those
    //    reservations need (`scanned`): on trace2 it holds thousands of jobs behind the
    //    candidates, and reading each one's spec was most of the walk's time.
    // Per GPU count, in order of first appearance (a handful): the count, its scanned jobs
    // in order, and how many of them are candidates. Slots are found by a linear search.
    std::vector<int>& gpus = scratch_.gpus;     // Per scanned position.
    gpus.clear();
    std::vector<int>& sizes = scratch_.sizes;
    std::vector<std::vector<size_t>>& by_size = scratch_.by_size;
    std::vector<size_t>& chosen = scratch_.chosen;
    sizes.clear();
    chosen.clear();
    auto slot_of = [&](int g) {
      return static_cast<size_t>(std::find(sizes.begin(), sizes.end(), g) - sizes.begin());
    };
    auto scan_next = [&] {
      const size_t i = gpus.size();
      const int g = view.Spec(entries[i].first).gpus;
      gpus.push_back(g);
      const size_t slot = slot_of(g);
      if (slot == sizes.size()) {
        sizes.push_back(g);
        chosen.push_back(0);
        if (by_size.size() < sizes.size()) by_size.emplace_back();
        by_size[slot].clear();
      }
      by_size[slot].push_back(i);
    };
    std::vector<char>& used = scratch_.used;
    used.assign(num_entries, 0);
    {
      ClusterState free = view.Capacity();
      for (size_t i = 0; i < num_entries; ++i) {
        if (i == gpus.size()) scan_next();
        if (used[i]) continue;
        if (!free.MayFit(1, 1)) break;  // Nothing more fits (ClusterState::MayFit).
        const JobSpec& spec = view.Spec(entries[i].first);
        if (!free.MayFit(spec.gpus, spec.gpu_milli)) continue;
        const Placement p = placement_->Place(spec, free);
        if (p.empty()) continue;
        free.Allocate(p);
        // By index: scanning on may add slots (and move the vectors).
        const size_t slot = slot_of(spec.gpus);  // Scanned: it has one.
        const size_t c = chosen[slot];
        while (by_size[slot].size() < c + kMaxGroupSize && gpus.size() < num_entries) scan_next();
        const std::vector<size_t>& same = by_size[slot];
        const size_t end = std::min(c + kMaxGroupSize, same.size());
        for (size_t k = c; k < end; ++k) used[same[k]] = 1;
        chosen[slot] = end;
      }
    }
    // 3. Matching rounds: groups of each size become nodes; matched pairs merge while
    //    the chosen jobs need more GPUs than the cluster has.
    // The per-decision containers below are kept in scratch_ (cleared, not freed): a
    // decision's hundreds of small allocations and the sorts' temporary buffers were a
    // sixth of the run.
    int64_t required = 0;
    FlatMap<size_t>& position = scratch_.position;  // Candidate -> its place in the list.
    position.Clear();
    std::vector<std::vector<Group>>& groups = scratch_.groups;  // Per size, in `sizes` order.
    if (groups.size() < sizes.size()) groups.resize(sizes.size());
    for (size_t si = 0; si < sizes.size(); ++si) {
      const int g = sizes[si];
      const std::vector<size_t>& same = by_size[si];
      const size_t c = chosen[si];
      required += static_cast<int64_t>(c) * g;
      std::vector<Group>& singles = groups[si];
      singles.clear();
      for (size_t k = 0; k < c; ++k) {
        singles.push_back(Single(view, entries[same[k]].first));
        position.Insert(entries[same[k]].first, same[k]);
      }
    }
    for (int round = 0; round < kMaxGroupSize; ++round) {
      if (round > 0 && required <= total_gpus) break;
      for (size_t si = 0; si < sizes.size(); ++si) {
        MatchOnce(sizes[si], total_gpus, &required, &groups[si]);
      }
    }
    // 4. Autopack: split groups slower than running their members one after another;
    //    then keep the groups whose first member fits, best key first.
    std::vector<Group>& final_groups = scratch_.final_groups;
    final_groups.clear();
    for (size_t si = 0; si < sizes.size(); ++si) {
      for (Group& p : groups[si]) final_groups.push_back(std::move(p));
    }
    auto key = [&](JobId id) { return entries[*position.Find(id)].second[0]; };
    if (autopack_) Autopack(view, key, &final_groups);
    // 5. Placement from an empty cluster, largest GPU count first (ties in list order); a
    //    group's members share the first placed member's placement.
    std::vector<std::pair<size_t, size_t>>& order = scratch_.order;  // (position, group).
    order.clear();
    for (size_t gi = 0; gi < final_groups.size(); ++gi) {
      for (JobId id : final_groups[gi].members) order.emplace_back(*position.Find(id), gi);
    }
    // By GPU count, then list order: positions are distinct, so this total order is what
    // a sort by position then a stable sort by GPU count gave, without their buffers.
    std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      if (gpus[a.first] != gpus[b.first]) return gpus[a.first] > gpus[b.first];
      return a.first < b.first;
    });
    std::vector<Placement> placed(final_groups.size());
    std::vector<MemberList> placed_members(final_groups.size());
    ClusterState free = view.Capacity();
    for (const auto& [pos, gi] : order) {
      const JobId id = entries[pos].first;
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
  // A group's members, kept inline (at most kMaxGroupSize): the candidates of a decision are
  // hundreds of one-job groups, each a heap allocation as a vector.
  class MemberList {
   public:
    MemberList() = default;
    explicit MemberList(JobId id) { push_back(id); }
    void push_back(JobId id) {
      if (size_ == kMaxGroupSize) {
        std::fprintf(stderr, "schedkit: muri: a group of more than %d jobs\n", kMaxGroupSize);
        std::abort();  // The matchings never join packs beyond kMaxGroupSize (PairWeight).
      }
      ids_[size_++] = id;
    }
    JobId* begin() { return ids_.data(); }
    JobId* end() { return ids_.data() + size_; }
    const JobId* begin() const { return ids_.data(); }
    const JobId* end() const { return ids_.data() + size_; }
    size_t size() const { return static_cast<size_t>(size_); }
    bool empty() const { return size_ == 0; }
    JobId front() const { return ids_[0]; }
    // Ascending ids. An insertion sort: at most kMaxGroupSize of them (std::sort's
    // 16-element first pass also draws a false -Warray-bounds from GCC 12 here).
    void Sort() {
      for (int i = 1; i < size_; ++i) {
        for (int j = i; j > 0 && ids_[j] < ids_[j - 1]; --j) std::swap(ids_[j], ids_[j - 1]);
      }
    }
    bool operator==(const MemberList& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

   private:
    std::array<JobId, kMaxGroupSize> ids_{};
    int size_ = 0;
  };
  using Members = std::array<int, kMaxGroupSize>;  // Type ids (TypeOf), -1 padded.
  // Members' ==, element by element: std::array's called memcmp, millions of times a run.
  static bool SameTypes(const Members& a, const Members& b) {
    for (int i = 0; i < kMaxGroupSize; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  struct Group {
    MemberList members;
    Members types;  // The members' type ids, in member order: what the matchings weigh.
  };
  // What a running job was last given: its group (an index into running_groups_) and rate.
  struct Running {
    int group = 0;
    double rate = 1;
  };
  struct RunningGroup {
    MemberList members;  // Sorted.
    Placement placement;
  };

  double Key(const JobStatus& s) const {
    const JobSpec& spec = *s.spec;
    if (key_ == MuriKey::kAttainedGpuTime) return s.attained_gpu_s;
    // Muri keys a never-run job by its trace duration (without the runtime factor).
    if (key_unstarted_by_trace_duration_ && s.first_start_s == kNever && spec.duration_s > 0) {
      return spec.duration_s * spec.gpus;
    }
    const double remaining = std::isnan(s.remaining_s) ? INFINITY : s.remaining_s;
    return remaining * spec.gpus;
  }

  // Jobs with the same stage times and iteration time are interchangeable here: group
  // iteration times and pair weights depend on nothing else. Interning them as job types
  // lets the memos below stay small (a trace has a few dozen types, and the candidate sets
  // of consecutive events share most of them) instead of growing with every job pair.
  using TypeKey = std::array<double, 4>;
  // MatchPacks codes a sorted type list in kTypeBits per member while the ids fit.
  static constexpr int kTypeBits = 64 / kMaxGroupSize;
  static constexpr size_t kCodableTypes = (size_t{1} << kTypeBits) - 1;  // Ids + 1 fit.
  struct MembersHash {
    size_t operator()(const Members& m) const {
      uint64_t h = 0x9e3779b97f4a7c15ull;
      for (int t : m) h = (h ^ static_cast<uint32_t>(t)) * 0xff51afd7ed558ccdull;
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };

  int TypeOf(const ClusterView& view, JobId id) {
    if (const int* known = type_of_.Find(id)) return *known;
    const JobSpec& spec = view.Spec(id);
    const TypeKey key{spec.profile.stage_times_s[0], spec.profile.stage_times_s[1],
                      spec.profile.stage_times_s[2], spec.iteration_time_s};
    auto [t, fresh] = type_ids_.try_emplace(key, static_cast<int>(type_specs_.size()));
    if (fresh) {
      JobSpec rep;  // Only what GroupIterationTime and StageTotal read.
      rep.profile.stage_times_s = spec.profile.stage_times_s;
      rep.iteration_time_s = spec.iteration_time_s;
      type_specs_.push_back(rep);
      type_totals_.push_back(StageTotal(rep));
    }
    type_of_.Insert(id, t->second);
    return t->second;
  }

  Group Single(const ClusterView& view, JobId id) {
    Group g{MemberList(id), {}};
    g.types.fill(-1);
    g.types[0] = TypeOf(view, id);
    return g;
  }

  // Appends `from`'s members (and their types) to `into`'s.
  static void Join(Group* into, const Group& from) {
    for (size_t i = 0; i < from.members.size(); ++i) {
      into->types[into->members.size()] = from.types[i];
      into->members.push_back(*(from.members.begin() + i));
    }
  }

  // Sorts the type ids of one member list (the -1 padding stays at the end).
  static void SortTypes(Members* types) {
    const int size = static_cast<int>(std::find(types->begin(), types->end(), -1) - types->begin());
    for (int i = 1; i < size; ++i) {  // Insertion sort (std::sort trips -Warray-bounds here).
      for (int j = i; j > 0 && (*types)[j - 1] > (*types)[j]; --j) {
        std::swap((*types)[j - 1], (*types)[j]);
      }
    }
  }

  // TT of a group given its members' types (any order), memoised by the sorted types.
  double TypeIterationTime(Members types) {
    SortTypes(&types);
    const int size = static_cast<int>(std::find(types.begin(), types.end(), -1) - types.begin());
    auto [it, inserted] = tt_cache_.try_emplace(types, 0.0);
    if (inserted) {
      std::vector<const JobSpec*> specs;
      for (int i = 0; i < size; ++i) specs.push_back(&type_specs_[types[i]]);
      it->second = GroupIterationTime(specs);
    }
    return it->second;
  }

  // Edge weight of packs with member types `a` then `b` (Muri's directed weight: the
  // stage totals are added through a's members, then b's); 0 when the union would exceed
  // kMaxGroupSize. Memoised by the two lists' ids (ListId): a candidate set's kinds recur
  // across the matchings of consecutive events, and each weight hashed its union's types.
  double PairWeight(const Members& a, const Members& b) {
    const int64_t key = static_cast<int64_t>(ListId(a)) << 32 | ListId(b);
    if (const double* known = pair_weights_.Find(key)) return *known;
    if (pair_weights_.size() >= kMaxPairWeights) pair_weights_ = FlatMap<double>();  // Bounded.
    const double w = ComputePairWeight(a, b);
    pair_weights_.Insert(key, w);
    return w;
  }

  // An id per member-type list (in its order) seen.
  int ListId(const Members& types) {
    return list_ids_.try_emplace(types, static_cast<int>(list_ids_.size())).first->second;
  }

  double ComputePairWeight(const Members& a, const Members& b) {
    Members both;
    both.fill(-1);
    int size = 0;
    double total = 0;
    for (const Members* m : {&a, &b}) {
      for (int t : *m) {
        if (t < 0) break;
        if (size == kMaxGroupSize) return 0;
        both[size++] = t;
        total += type_totals_[t];
      }
    }
    return InterleavingEfficiency(total, TypeIterationTime(both));
  }

  // The matching of `packs` (mate per pack, or -1), memoised by the packs' member types:
  // the weights, and so the deterministic matcher's answer, depend on nothing else, and
  // consecutive events often present the same candidates. In reference order the key is
  // the types in pack order (Muri's blossom answers differently for another order). In
  // the clean model any maximum-weight matching will do, so the packs are matched in a
  // canonical order (stable by member-type set) and the key is the multiset of type sets:
  // the same candidates ranked differently are a memo hit.
  // The answer is in scratch_, valid until the next call.
  const std::vector<int>& MatchPacks(const std::vector<Group>& packs) {
    const int n = static_cast<int>(packs.size());
    std::vector<int>& mate = scratch_.mate;
    mate.assign(n, -1);
    if (n < 2) return mate;  // Nothing to match (what every matcher answers).
    std::vector<Members>& types = scratch_.types;
    types.resize(n);
    for (int u = 0; u < n; ++u) {
      types[u] = packs[u].types;
      if (!reference_matching_order_) SortTypes(&types[u]);
    }
    std::vector<int>& order = scratch_.node_order;  // order[i]: the pack matched as node i.
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    if (!reference_matching_order_) {  // Stable by types: ties by pack index.
      if (type_specs_.size() < kCodableTypes) {
        // Each sorted type list as one integer in the same order (the -1 padding lowest):
        // comparing arrays element by element was most of this function's time.
        std::vector<std::pair<uint64_t, int>>& coded = scratch_.coded;
        coded.resize(n);
        for (int u = 0; u < n; ++u) {
          uint64_t code = 0;
          for (int t : types[u]) code = code << kTypeBits | static_cast<uint64_t>(t + 1);
          coded[u] = {code, u};
        }
        std::sort(coded.begin(), coded.end());
        for (int i = 0; i < n; ++i) order[i] = coded[i].second;
      } else {
        std::sort(order.begin(), order.end(), [&](int a, int b) {
          return types[a] != types[b] ? types[a] < types[b] : a < b;
        });
      }
    }
    std::vector<Members>& ordered = scratch_.ordered;
    ordered.resize(n);
    std::vector<int>& key = scratch_.key;
    key.clear();
    for (int i = 0; i < n; ++i) ordered[i] = types[order[i]];
    if (reference_matching_order_) {
      key.reserve(static_cast<size_t>(n) * kMaxGroupSize);
      for (const Members& m : ordered) key.insert(key.end(), m.begin(), m.end());
    } else {
      // Sorted, equal type sets are adjacent: each distinct set once, then its count. The
      // same multiset as the full list in far fewer ints (64-128 packs are ~8 kinds), so
      // the bounded memo below holds more matchings and hashes shorter keys.
      for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && SameTypes(ordered[j], ordered[i])) ++j;
        key.insert(key.end(), ordered[i].begin(), ordered[i].end());
        key.push_back(j - i);
        i = j;
      }
    }
    auto it = match_cache_.find(key);
    if (it == match_cache_.end()) {
      std::vector<int> node_mate = ComputeMatching(ordered);
      match_cache_ints_ += key.size() + node_mate.size();
      if (match_cache_ints_ > kMatchCacheInts) {  // Bounded memory; results do not change.
        match_cache_.clear();
        match_cache_ints_ = key.size() + node_mate.size();
      }
      it = match_cache_.emplace(key, std::move(node_mate)).first;
    }
    for (int i = 0; i < n; ++i) {
      if (it->second[i] >= 0) mate[order[i]] = order[it->second[i]];
    }
    return mate;
  }

  // Packs with the same member types have the same weights: they are one kind of node,
  // and each pair of kinds is weighed once. In reference order a kind is the member types
  // in member order (Muri adds the stage totals in that order) and the weights are spread
  // over the n x n matrix its blossom reads; otherwise a kind is the set of member types
  // (MatchPacks hands them sorted), and the matching is solved per kind
  // (mechanisms/kind_matching.h).
  std::vector<int> ComputeMatching(const std::vector<Members>& types) {
    const int n = static_cast<int>(types.size());
    std::vector<Members>& kinds = scratch_.kinds;  // Numbered in order of first appearance.
    std::vector<int>& kind = scratch_.kind;
    kinds.clear();
    kind.resize(n);
    for (int u = 0; u < n; ++u) {
      // A handful of kinds, and in the clean model equal ones are adjacent: the last first.
      int found = static_cast<int>(kinds.size()) - 1;
      while (found >= 0 && !SameTypes(kinds[found], types[u])) --found;
      if (found < 0) {
        found = static_cast<int>(kinds.size());
        kinds.push_back(types[u]);
      }
      kind[u] = found;
    }
    const int k = static_cast<int>(kinds.size());
    std::vector<double>& kind_w = scratch_.kind_w;
    kind_w.assign(static_cast<size_t>(k) * k, 0.0);
    for (int a = 0; a < k; ++a) {
      for (int b = 0; b < k; ++b) {
        // Directed in reference order (a's jobs then b's); symmetric (upper triangle) otherwise.
        kind_w[a * k + b] = reference_matching_order_ || a <= b ? PairWeight(kinds[a], kinds[b]) : kind_w[b * k + a];
      }
    }
    if (!reference_matching_order_) return kind_matcher_.Match(kind, k, kind_w);
    // Muri's own blossom: its choice among (near-)equal-weight matchings decides the groups.
    std::vector<double> w(static_cast<size_t>(n) * n, 0.0);  // Row-major.
    for (int u = 0; u < n; ++u) {
      for (int v = 0; v < n; ++v) {
        if (u != v) w[u * n + v] = kind_w[kind[u] * k + kind[v]];
      }
    }
    return MuriBlossomMatching(n, w);
  }

  void MatchOnce(int g, int total_gpus, int64_t* required,
                 std::vector<Group>* packs) {
    const int n = static_cast<int>(packs->size());
    const std::vector<int>& mate = MatchPacks(*packs);
    std::vector<Group>& next = scratch_.next_packs;
    next.clear();
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
        Join(&merged, (*packs)[u]);
        next.push_back(std::move(merged));
        *required -= g;
      }
    }
    packs->swap(next);  // The old list's storage serves the next call.
  }

  // Replaces `packs` by the groups kept (see Decide, step 4).
  template <typename KeyOf>
  void Autopack(const ClusterView& view, const KeyOf& key, std::vector<Group>* packs) {
    std::vector<Group>& split = scratch_.split;  // The groups to rank, in order.
    std::vector<std::pair<double, size_t>>& keyed = scratch_.keyed;  // (key, index in split).
    split.clear();
    keyed.clear();
    for (Group& p : *packs) {
      double solo_sum = 0;
      for (JobId id : p.members) solo_sum += view.Spec(id).iteration_time_s * GroupSizeFactor(1);
      if (p.members.size() > 1 && TypeIterationTime(p.types) / solo_sum > 1) {
        for (JobId id : p.members) {
          keyed.emplace_back(key(id), split.size());
          split.push_back(Single(view, id));
        }
      } else {
        double k = INFINITY;
        for (JobId id : p.members) k = std::min(k, key(id));
        keyed.emplace_back(k, split.size());
        split.push_back(std::move(p));
      }
    }
    // Stable by key (ties in this order): keys are never NaN, so (key, index) is a total order.
    std::sort(keyed.begin(), keyed.end());
    packs->clear();
    ClusterState free = view.Capacity();
    for (const auto& [k, i] : keyed) {
      Group& p = split[i];
      const Placement pl = placement_->Place(view.Spec(p.members.front()), free);
      if (pl.empty()) continue;
      free.Allocate(pl);
      packs->push_back(std::move(p));
    }
  }

  // Turns the planned groups into decisions: a group whose members, placement and rates
  // are unchanged keeps running; any other planned group (re)starts all its members;
  // running jobs left out are preempted.
  void Emit(const ClusterView& view, const std::vector<Group>& groups,
            std::vector<Placement>& placed, const std::vector<MemberList>& members,
            Decisions* out) {
    FlatMap<Running>& next = scratch_.next;
    std::vector<RunningGroup>& next_groups = scratch_.next_groups;
    next.Clear();
    next_groups.clear();
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      if (members[gi].empty()) continue;
      const double tt = TypeIterationTime(groups[gi].types);
      MemberList sorted = members[gi];
      sorted.Sort();
      const int slot = static_cast<int>(next_groups.size());
      bool unchanged = true;
      for (JobId id : sorted) {
        const double rate = GroupRate(view.Spec(id), tt);
        const Running* was = current_.Find(id);
        if (unchanged &&
            (was == nullptr || was->rate != rate ||
             !(running_groups_[was->group].members == sorted) ||
             !(running_groups_[was->group].placement == placed[gi]) ||
             view.PlacementOf(id) == nullptr)) {  // Not running (no whole Status).
          unchanged = false;
        }
        *next.Insert(id, Running()).first = Running{slot, rate};
      }
      if (!unchanged) {
        const int64_t group = members[gi].size() > 1 ? next_group_++ : 0;
        for (JobId id : members[gi]) {
          out->start.push_back(StartDecision{id, placed[gi], next.Find(id)->rate, group});
        }
      }
      next_groups.push_back(RunningGroup{sorted, std::move(placed[gi])});
    }
    for (JobId id : view.RunningJobs()) {
      if (next.Find(id) == nullptr) out->preempt.push_back(id);
    }
    std::sort(out->preempt.begin(), out->preempt.end());  // Deterministic order.
    std::swap(current_, next);
    running_groups_.swap(next_groups);
  }

  std::string name_;
  MuriKey key_;
  bool autopack_;
  bool key_unstarted_by_trace_duration_;
  bool reference_matching_order_;
  ModulePtr<PlacementModule> placement_;
  PersistentOrder list_;  // Admitted unfinished jobs, in the persistent sorted order.
  FlatMap<Running> current_;                 // What each running job was last given.
  std::vector<RunningGroup> running_groups_;      // The groups current_ names.
  struct Scratch {  // Per-decision buffers, kept to reuse their memory.
    std::vector<int> gpus;   // Per list position.
    std::vector<int> sizes;  // Decide: per GPU count (slot), the count ...
    std::vector<std::vector<size_t>> by_size;  // ... its scanned positions ...
    std::vector<size_t> chosen;                // ... and how many are candidates.
    std::vector<char> used;  // Per list position: a candidate.
    FlatMap<Running> next;
    FlatMap<size_t> position;                   // Decide: candidate -> list position.
    std::vector<std::vector<Group>> groups;      // Decide: the packs of each GPU count.
    std::vector<Group> final_groups;             // Decide.
    std::vector<std::pair<size_t, size_t>> order;  // Decide: (position, group) per member.
    std::vector<Group> next_packs;               // MatchOnce.
    std::vector<Members> types, ordered;         // MatchPacks.
    std::vector<int> node_order, key, mate;      // MatchPacks.
    std::vector<std::pair<uint64_t, int>> coded;  // MatchPacks.
    std::vector<Members> kinds;                  // ComputeMatching.
    std::vector<int> kind;                       // ComputeMatching.
    std::vector<double> kind_w;                  // ComputeMatching.
    std::vector<Group> split;                    // Autopack.
    std::vector<std::pair<double, size_t>> keyed;  // Autopack.
    std::vector<RunningGroup> next_groups;
  } scratch_;
  FlatMap<int> type_of_;                         // Job -> type id (TypeOf).
  std::map<TypeKey, int> type_ids_;
  std::vector<JobSpec> type_specs_;                            // One representative per type id.
  std::vector<double> type_totals_;                            // StageTotal per type id.
  std::unordered_map<Members, double, MembersHash> tt_cache_;  // Sorted types -> TT.
  std::unordered_map<Members, int, MembersHash> list_ids_;     // ListId.
  static constexpr size_t kMaxPairWeights = size_t{1} << 20;   // 24 MiB at most.
  FlatMap<double> pair_weights_;  // ListId(a) << 32 | ListId(b) -> PairWeight(a, b).
  struct KeyHash {
    size_t operator()(const std::vector<int>& k) const {
      uint64_t h = 0x9e3779b97f4a7c15ull ^ k.size();
      for (int t : k) h = (h ^ static_cast<uint32_t>(t)) * 0xff51afd7ed558ccdull;
      return static_cast<size_t>(h ^ (h >> 32));
    }
  };
  static constexpr size_t kMatchCacheInts = size_t{1} << 22;  // 16 MiB of keys and mates.
  std::unordered_map<std::vector<int>, std::vector<int>, KeyHash> match_cache_;
  size_t match_cache_ints_ = 0;
  KindMatcher kind_matcher_;  // Remembers LP bases across matchings (clean model).
  int64_t next_group_ = 1;
};

Status RegisterOne(Registries* r, const std::string& name, MuriKey key, const std::string& what) {
  PolicyRegistry::Entry entry;
  entry.name = name;
  entry.description = what;
  entry.default_placement = "yarn";
  entry.default_admission = "";
  entry.takes_admission = false;
  entry.options = {{"autopack", OptionSpec::Type::kBool, "true",
                    "split a group whose iteration time exceeds the sum of its members' "
                    "(Muri's current code: true; its paper figures: false)"}};
  entry.factory = [name, key](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    if (!ctx.placement) return Status::InvalidArgument(name + ": no placement module");
    return std::unique_ptr<Policy>(std::make_unique<MuriPolicy>(
        name, key, ctx.options.Bool("autopack"), ctx.knobs, std::move(ctx.placement)));
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
