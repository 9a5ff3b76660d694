// Gavel (Narayanan et al., OSDI'20) as a simulated policy: one of the allocation policies of
// src/gavel (the `objective`) gives every active job its fraction of time X[j][k] on each GPU
// type, re-solved at a round boundary when jobs arrived or finished, at most every
// `resolve_s` seconds; the round mechanism (SelectRound: priority = allocation / share of the
// type's time received since the last re-solve) turns the fractions into who runs where for
// each `round_s`-second round. mode=ideal grants the fractions exactly instead: each job runs
// at rate sum_k X_jk T_jk. docs/gavel.md ("The simulated policy") has the details.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mechanisms/portable_rng.h"
#include "registry/builtins.h"
#include "schedkit/gavel.h"

namespace schedkit {
namespace {

enum class GavelMode { kRounds, kIdeal };

struct GavelJob {
  std::vector<double> x;         // Its allocation over the types (0 until solved).
  bool solved = false;           // It has an allocation (it arrived before the last solve).
  // Gavel's bookkeeping per type since the last re-solve: seconds run (starting at half a
  // round, so that no share is 0), and the time owed before (the selection's tie-break).
  std::vector<double> received;
  std::vector<double> deficit;
  double executed_s = 0;         // The view's executed_s at the last round boundary.
  int type = -1;                 // The type it ran on alone in the last round (ideal: runs on), or -1.
  double granted_rate = 0;       // Ideal mode: the rate it was last started at.
  JobId partner = -1;            // The job it was last started beside (one group), or -1: alone.
  bool runs_this_round = false;  // Chosen (alone or in a pair) in the current round.
  int kind = -1;                 // Index of its (model, batch size, GPUs): pair throughputs are per kind.
  JobId held_partner = -1;       // Gandiva: the job the last allocation paired it with, or -1.
};

// Two jobs sharing GPUs (packed objectives): a combination of Gavel's round mechanism, with its
// own allocation and bookkeeping per type, like a job's.
struct GavelPair {
  JobId a = 0, b = 0;
  std::vector<double> x, received, deficit;
  std::vector<double> rate_a, rate_b;  // StartDecision::rate of each beside the other, per type.
  int type = -1;                       // The type it ran on in the last round, or -1.
};

class GavelPolicy final : public ClonablePolicy<GavelPolicy> {
 public:
  struct Options {
    GavelMode mode = GavelMode::kRounds;
    double round_s = 360, resolve_s = 1920;
    bool fill_idle = true;       // Zero-allocation jobs fill idle GPUs (all but FIFO).
    bool shuffle_types = false;  // Walk the types in a random order each round (agnostic).
    bool packed = false;         // The objective reads co-located pairs (AllocationProblem::pairs).
    // Water filling: the job field whose values are the entities ("user" or "vc"), each of
    // weight 1; empty = none (every job its own entity).
    std::string entity;
  };
  GavelPolicy(std::unique_ptr<gavel::AllocationPolicy> allocator, Options options, uint64_t seed,
              std::unique_ptr<PlacementModule> placement)
      : allocator_(std::move(allocator)),
        opt_(options),
        rng_(seed),
        placement_(std::move(placement)) {}

  std::string_view Name() const override { return "gavel"; }

  Status ModulesCloned() const override { return placement_.Check("placement"); }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    if (types_.empty()) InitTypes(view.Cluster());
    for (JobId id : events.finished) {
      const auto it = jobs_.find(id);
      if (it == jobs_.end()) continue;
      // Gandiva's pair ends with either job (Gavel's gandiva.py drops both from its pairs).
      if (it->second.held_partner >= 0) jobs_[it->second.held_partner].held_partner = -1;
      jobs_.erase(it);
      order_.erase(std::find(order_.begin(), order_.end(), id));
      std::erase_if(pairs_, [&](const GavelPair& p) { return p.a == id || p.b == id; });
      dirty_ = true;
    }
    // Jobs stopped by a node failure: ideal mode grants them again at once, rounds at the next
    // boundary; the capacity changed, so the allocation is re-solved.
    if (!events.interrupted.empty()) dirty_ = true;
    for (JobId id : events.arrived) {
      order_.push_back(id);
      GavelJob& job = jobs_[id];
      job.x.assign(types_.size(), 0);
      job.received.assign(types_.size(), opt_.round_s / 2);
      job.deficit.assign(types_.size(), 0);
      if (opt_.packed) job.kind = KindOf(view.Spec(id));
      dirty_ = true;
    }
    if (order_.empty()) {  // Idle: the next arrival starts a round at once.
      round_end_ = kNever;
      return;
    }
    const Time now = view.Now();
    if (opt_.mode == GavelMode::kIdeal) {
      if (dirty_ && Solve(view, out)) Grant(view, out);
      return;
    }
    // Mid-round, arrivals and completions wait for the boundary; a round ends early when its
    // last job has finished (Gavel's round lasts until its jobs' last lease ends).
    if (round_end_ != kNever && now < round_end_ && !view.RunningJobs().empty()) {
      out->wake_at = round_end_;
      return;
    }
    Account(view);
    if (dirty_ && (last_reset_ == kNever || now - last_reset_ >= opt_.resolve_s)) {
      Reset(now);
      if (!Solve(view, out)) return;
    }
    RunRound(view, out);
    round_end_ = now + opt_.round_s;
    out->wake_at = round_end_;
  }

 private:
  void InitTypes(const ClusterSpec& cluster) {
    for (const std::string& name : cluster.GpuTypes()) types_.push_back({name, 0, -1});
    for (const NodeSpec& node : cluster.nodes) {
      const auto it = std::find_if(types_.begin(), types_.end(),
                                   [&](const gavel::GpuType& t) { return t.name == node.gpu_type; });
      type_of_node_.push_back(static_cast<int>(it - types_.begin()));
      it->gpus += node.gpus;
    }
    type_time_.assign(types_.size(), 0.0);
  }

  // Adds the time each job ran in the round that ends now to its type's account.
  // A pair is charged the longer of its two jobs' times (the time it held its GPUs).
  void Account(const ClusterView& view) {
    for (GavelPair& pair : pairs_) {
      if (pair.type < 0) continue;
      const double t = std::max(view.Status(pair.a).executed_s - jobs_[pair.a].executed_s,
                                view.Status(pair.b).executed_s - jobs_[pair.b].executed_s);
      pair.received[pair.type] += t;
      type_time_[pair.type] += t;
    }
    for (JobId id : order_) {
      GavelJob& job = jobs_[id];
      const double executed = view.Status(id).executed_s;
      if (job.type >= 0) {
        job.received[job.type] += executed - job.executed_s;
        type_time_[job.type] += executed - job.executed_s;
      }
      job.executed_s = executed;
    }
  }

  // Before a re-solve (Gavel's _reset_time_run_so_far): each job's deficit grows by the time
  // its allocation owed it since the last reset minus the time it got; then every job
  // restarts at half a round on every type.
  void Reset(Time now) {
    const double elapsed = last_reset_ == kNever ? 0 : now - last_reset_;
    std::fill(type_time_.begin(), type_time_.end(), 0.0);
    auto reset = [&](const std::vector<double>& x, std::vector<double>& received,
                     std::vector<double>& deficit) {
      for (size_t k = 0; k < types_.size(); ++k) {
        deficit[k] += x[k] * elapsed - (received[k] - opt_.round_s / 2);
        received[k] = opt_.round_s / 2;
        type_time_[k] += received[k];
      }
    };
    for (JobId id : order_) {
      GavelJob& job = jobs_[id];
      reset(job.x, job.received, job.deficit);
    }
    for (GavelPair& pair : pairs_) reset(pair.x, pair.received, pair.deficit);
    last_reset_ = now;
  }

  // The index of `spec`'s (model, batch size, GPUs): jobs of one kind have the same pair
  // throughputs.
  int KindOf(const JobSpec& spec) {
    const std::string key = ThroughputTable::JobType(spec.profile.model, spec.profile.batch_size) +
                            "/" + std::to_string(spec.gpus);
    return kinds_.emplace(key, static_cast<int>(kinds_.size())).first->second;
  }

  // StartDecision::rate of `a` beside `b` on type k (0: the table did not measure the pair
  // there), cached per (kind, kind, type).
  double PairRate(const ClusterView& view, JobId a, JobId b, int k) {
    const int ka = jobs_[a].kind, kb = jobs_[b].kind;
    const auto key = std::make_tuple(ka, kb, k);
    const auto it = pair_rates_.find(key);
    if (it != pair_rates_.end()) return it->second;
    Result<double> rate = view.Throughputs()->ColocatedRate(view.Spec(a), view.Spec(b), types_[k].name);
    const double r = rate.ok() && *rate > 0 && std::isfinite(*rate) ? *rate : 0.0;
    pair_rates_.emplace(key, r);
    return r;
  }

  // The co-located pairs of the problem's jobs (indices into `ids`): every two jobs of equal
  // scale factor, on each type where the table measured both sides of the pair and both
  // jobs run alone, at their pair steps/s (rate x speed, in the jobs' step units).
  void AddPairs(const ClusterView& view, const std::vector<JobId>& ids,
                gavel::AllocationProblem* problem) {
    const int types = static_cast<int>(types_.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const gavel::AllocJob& ja = problem->jobs[i];
      for (size_t j = i + 1; j < ids.size(); ++j) {
        const gavel::AllocJob& jb = problem->jobs[j];
        if (ja.scale_factor != jb.scale_factor) continue;
        for (int k = 0; k < types; ++k) {
          if (!problem->Runs(static_cast<int>(i), k) || !problem->Runs(static_cast<int>(j), k)) continue;
          const double ra = PairRate(view, ids[i], ids[j], k), rb = PairRate(view, ids[j], ids[i], k);
          if (!(ra > 0) || !(rb > 0)) continue;
          problem->pairs.push_back({static_cast<int>(i), static_cast<int>(j), k,
                                    ra * ja.throughput[k], rb * jb.throughput[k]});
        }
      }
    }
  }

  // Rebuilds the pairs' rows from an allocation's pair_x (pairs with time on some type), in
  // the problem's order; a pair that had a row keeps its deficit.
  void StorePairs(const ClusterView& view, const std::vector<JobId>& ids,
                  const gavel::AllocationProblem& problem, const gavel::Allocation& alloc) {
    std::vector<GavelPair> old = std::move(pairs_);
    pairs_.clear();
    const size_t types = types_.size();
    for (size_t i = 0; i < problem.pairs.size(); ++i) {
      if (!(alloc.pair_x[i] > 0)) continue;
      const gavel::JobPair& jp = problem.pairs[i];
      const JobId a = ids[jp.a], b = ids[jp.b];
      if (pairs_.empty() || pairs_.back().a != a || pairs_.back().b != b) {
        GavelPair pair;
        pair.a = a, pair.b = b;
        pair.x.assign(types, 0.0);
        pair.received.assign(types, opt_.round_s / 2);
        pair.deficit.assign(types, 0.0);
        pair.rate_a.assign(types, 0.0);
        pair.rate_b.assign(types, 0.0);
        const auto was = std::find_if(old.begin(), old.end(), [&](const GavelPair& p) {
          return p.a == a && p.b == b;
        });
        if (was != old.end()) pair.deficit = was->deficit;
        pairs_.push_back(std::move(pair));
      }
      GavelPair& pair = pairs_.back();
      pair.x[jp.type] = alloc.pair_x[i];
      pair.rate_a[jp.type] = PairRate(view, a, b, jp.type);
      pair.rate_b[jp.type] = PairRate(view, b, a, jp.type);
    }
    // Right after Reset: every row restarts at half a round, so W_k is their sum.
    std::fill(type_time_.begin(), type_time_.end(), 0.0);
    for (JobId id : order_) {
      for (size_t k = 0; k < types; ++k) type_time_[k] += jobs_[id].received[k];
    }
    for (const GavelPair& pair : pairs_) {
      for (size_t k = 0; k < types; ++k) type_time_[k] += pair.received[k];
    }
  }

  // Throughputs are in steps/s when the job counts iterations (Gavel's traces and generator:
  // speed x V100 steps/s), else in seconds of solo work per second; steps left likewise.
  static double StepSeconds(const JobSpec& spec) {
    return spec.iterations > 0 && spec.iteration_time_s > 0 ? spec.iteration_time_s : 1.0;
  }

  // The index of the job's entity (its user or VC, weight 1) in problem->entities, added in
  // order of first appearance; -1 (its own) where the field is empty.
  int EntityOf(const JobSpec& spec, gavel::AllocationProblem* problem) const {
    const std::string& name = opt_.entity == "user" ? spec.user : spec.vc;
    if (name.empty()) return -1;
    std::vector<gavel::Entity>& entities = problem->entities;
    for (size_t e = 0; e < entities.size(); ++e) {
      if (entities[e].name == name) return static_cast<int>(e);
    }
    entities.push_back({name, 1.0});
    return static_cast<int>(entities.size()) - 1;
  }

  // Builds the problem from the view and stores each job's allocation. Jobs that fit on no
  // type (more GPUs than any one type has) get none: they stay pending.
  bool Solve(const ClusterView& view, Decisions* out) {
    dirty_ = false;
    const Time now = view.Now();
    gavel::AllocationProblem problem;
    problem.types = types_;
    std::vector<JobId> ids;
    for (JobId id : order_) {
      const JobStatus s = view.Status(id);
      const JobSpec& spec = *s.spec;
      const double step_s = StepSeconds(spec);
      gavel::AllocJob j;
      j.id = std::to_string(id);
      j.scale_factor = spec.gpus;
      if (!opt_.entity.empty()) j.entity = EntityOf(spec, &problem);
      // The engine's remaining work (an oracle in the simulator); the solo runtime where the
      // engine knows none (the runtime without estimates).
      const double remaining = std::isnan(s.remaining_s) ? spec.SoloRuntime() : s.remaining_s;
      j.steps_left = std::max(remaining, step_s * 1e-9) / step_s;
      j.time_since_arrival = now - spec.submit_s;
      j.isolated_time = j.time_since_arrival;
      bool runs = false;
      for (const gavel::GpuType& t : types_) {
        j.throughput.push_back(view.SpeedOn(id, t.name) / step_s);
        runs = runs || (j.throughput.back() > 0 && spec.gpus <= t.gpus);
      }
      std::vector<double>& x = jobs_[id].x;
      const auto one = std::find(x.begin(), x.end(), 1.0);  // FIFO's type from the last call.
      if (one != x.end()) j.held_type = static_cast<int>(one - x.begin());
      x.assign(types_.size(), 0);
      jobs_[id].solved = true;
      if (!runs) continue;
      problem.jobs.push_back(std::move(j));
      ids.push_back(id);
    }
    if (ids.empty()) {
      pairs_.clear();
      return true;
    }
    // Gandiva keeps the pairs of its last call whose jobs are both in this problem.
    std::unordered_map<JobId, int> index_of;
    for (size_t i = 0; i < ids.size(); ++i) index_of[ids[i]] = static_cast<int>(i);
    for (size_t i = 0; i < ids.size(); ++i) {
      const auto it = index_of.find(jobs_[ids[i]].held_partner);
      if (it != index_of.end()) problem.jobs[i].held_partner = it->second;
    }
    if (opt_.packed) {
      if (view.Throughputs() == nullptr) {
        out->Fail("gavel: a packed objective needs the run's throughput table (co-located "
                  "pairs; --throughputs)");
        return false;
      }
      AddPairs(view, ids, &problem);
    }
    if (Status st = gavel::Validate(problem); !st.ok()) {
      out->Fail("gavel: " + st.message());
      return false;
    }
    Result<gavel::Allocation> alloc = allocator_->Allocate(problem);
    if (!alloc.ok()) {
      out->Fail("gavel: " + alloc.status().message());
      return false;
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      jobs_[ids[i]].x = alloc->x[i];
      if (!alloc->partner.empty()) {
        jobs_[ids[i]].held_partner = alloc->partner[i] < 0 ? -1 : ids[alloc->partner[i]];
      }
    }
    if (opt_.packed) StorePairs(view, ids, problem, *alloc);
    return true;
  }

  int TypeOf(const Placement& p) const { return type_of_node_[p.shares.front().node]; }

  // A copy of `free` in which only type k's nodes are free (the placement module then
  // places within type k).
  std::vector<ClusterState> PerType(const ClusterState& free) const {
    std::vector<ClusterState> out(types_.size(), free);
    for (size_t k = 0; k < types_.size(); ++k) {
      for (int n = 0; n < free.num_nodes(); ++n) {
        if (type_of_node_[n] != static_cast<int>(k)) out[k].SetHeld(n, true);
      }
    }
    return out;
  }

  // One round: SelectRound picks (job or pair, type) among the rows with an allocation;
  // running jobs that stay on their type (a pair: together, on its GPUs) keep their GPUs;
  // the others are placed largest first (a pair's two jobs on one placement, as one group,
  // each at its co-located rate); every other running job is preempted.
  void RunRound(const ClusterView& view, Decisions* out) {
    const ClusterState capacity = view.Capacity();
    std::vector<ClusterState> free = PerType(capacity);
    gavel::RoundInput in;
    for (int k = 0; k < static_cast<int>(types_.size()); ++k) {
      int gpus = 0;
      for (int n = 0; n < capacity.num_nodes(); ++n) {
        if (type_of_node_[n] == k) gpus += capacity.free_gpus(n);
      }
      in.gpus.push_back(gpus);
      in.type_order.push_back(k);
    }
    if (opt_.shuffle_types) {  // Fisher-Yates from the run's seed.
      for (size_t i = in.type_order.size(); i > 1; --i) {
        std::swap(in.type_order[i - 1], in.type_order[rng_.Index(i)]);
      }
    }
    in.type_time = type_time_;
    std::vector<JobId> ids;  // The single-job rows of the round input, then pairs_ in order.
    std::unordered_map<JobId, int> row_of;
    for (JobId id : order_) {
      const GavelJob& job = jobs_[id];
      jobs_[id].type = -1;
      jobs_[id].runs_this_round = false;
      if (!job.solved) continue;  // Arrived since the last solve: waits for the next one.
      row_of[id] = static_cast<int>(ids.size());
      ids.push_back(id);
      in.x.push_back(job.x);
      in.received.push_back(job.received);
      in.deficit.push_back(job.deficit);
      const int sf = view.Spec(id).gpus;
      in.scale_factors.push_back(sf);
      if (!opt_.fill_idle) continue;
      in.can_run.emplace_back();
      for (const gavel::GpuType& t : types_) {
        in.can_run.back().push_back(sf <= t.gpus && view.SpeedOn(id, t.name) > 0);
      }
    }
    const size_t singles = ids.size();
    if (!pairs_.empty()) {
      for (size_t i = 0; i < singles; ++i) in.members.push_back({static_cast<int>(i)});
    }
    for (GavelPair& pair : pairs_) {
      pair.type = -1;
      in.x.push_back(pair.x);
      in.received.push_back(pair.received);
      in.deficit.push_back(pair.deficit);
      in.scale_factors.push_back(view.Spec(pair.a).gpus);
      in.members.push_back({row_of.at(pair.a), row_of.at(pair.b)});
      if (opt_.fill_idle) in.can_run.emplace_back(types_.size(), false);  // Only its allocation.
    }
    const std::vector<int> chosen = gavel::SelectRound(in);
    std::vector<size_t> to_place;  // Rows.
    for (size_t r = 0; r < chosen.size(); ++r) {
      const int k = chosen[r];
      if (k < 0) continue;
      // The row's jobs, and the partner each must already run beside to keep its GPUs.
      const JobId first = r < singles ? ids[r] : pairs_[r - singles].a;
      const JobId second = r < singles ? -1 : pairs_[r - singles].b;
      const JobStatus s = view.Status(first);
      const bool kept = s.running() && TypeOf(*s.placement) == k &&
                        jobs_[first].partner == second &&
                        (second < 0 || (view.Status(second).running() &&
                                        jobs_[second].partner == first)) &&
                        free[k].CanAllocate(*s.placement);
      if (!kept) {
        to_place.push_back(r);
        continue;
      }
      free[k].Allocate(*s.placement);
      Assign(r, singles, ids, k);
    }
    std::stable_sort(to_place.begin(), to_place.end(), [&](size_t a, size_t b) {
      return in.scale_factors[a] > in.scale_factors[b];
    });
    for (size_t r : to_place) {
      const int k = chosen[r];
      const JobId first = r < singles ? ids[r] : pairs_[r - singles].a;
      Placement p = placement_->Place(view.Spec(first), free[k]);
      if (p.empty()) continue;  // Fragmented: it waits for the next round.
      free[k].Allocate(p);
      Assign(r, singles, ids, k);
      if (r < singles) {
        out->start.push_back(StartDecision{first, std::move(p)});
        continue;
      }
      const GavelPair& pair = pairs_[r - singles];
      const int64_t group = ++last_group_;
      out->start.push_back(StartDecision{pair.a, p, pair.rate_a[k], group});
      out->start.push_back(StartDecision{pair.b, std::move(p), pair.rate_b[k], group});
    }
    for (JobId id : view.RunningJobs()) {
      const auto it = jobs_.find(id);
      if (it == jobs_.end() || !it->second.runs_this_round) out->preempt.push_back(id);
    }
    std::sort(out->preempt.begin(), out->preempt.end());
  }

  // Books row r (a single job below `singles`, else a pair) as running on type k this round.
  void Assign(size_t r, size_t singles, const std::vector<JobId>& ids, int k) {
    if (r < singles) {
      GavelJob& job = jobs_[ids[r]];
      job.type = k;
      job.partner = -1;
      job.runs_this_round = true;
      return;
    }
    GavelPair& pair = pairs_[r - singles];
    pair.type = k;
    jobs_[pair.a].partner = pair.b;
    jobs_[pair.b].partner = pair.a;
    jobs_[pair.a].runs_this_round = jobs_[pair.b].runs_this_round = true;
  }

  // Ideal mode: every job with an allocation runs, as a guest (no GPUs booked), on its
  // fastest allocated type at rate sum_k X_jk T_jk / T_k* (so it progresses at exactly
  // its allocation's throughput); jobs without one stop.
  void Grant(const ClusterView& view, Decisions* out) {
    const std::vector<ClusterState> all_free = PerType(view.Capacity());
    for (JobId id : order_) {
      GavelJob& job = jobs_[id];
      double rate = 0, best_speed = 0;
      int best = -1;
      for (size_t k = 0; k < types_.size(); ++k) {
        if (!(job.x[k] > 0)) continue;
        const double speed = view.SpeedOn(id, types_[k].name);
        rate += job.x[k] * speed;
        if (speed > best_speed) best_speed = speed, best = static_cast<int>(k);
      }
      const JobStatus s = view.Status(id);
      if (best < 0 || !(rate > 0)) {
        if (s.running()) out->preempt.push_back(id);
        continue;
      }
      if (s.running() && rate == job.granted_rate && best == job.type) continue;  // Unchanged.
      job.granted_rate = rate;
      job.type = best;
      StartDecision start{id, placement_->Place(*s.spec, all_free[best]), rate / best_speed};
      start.guest = true;
      if (start.placement.empty()) continue;  // The type's nodes are held (drained): it waits.
      out->start.push_back(std::move(start));
    }
    std::sort(out->preempt.begin(), out->preempt.end());
  }

  // Allocators keep no state between calls (Allocate is const): copies of the policy share it.
  std::shared_ptr<const gavel::AllocationPolicy> allocator_;
  Options opt_;
  PortableRng rng_;  // The type order of agnostic objectives.
  ModulePtr<PlacementModule> placement_;
  std::vector<gavel::GpuType> types_;  // The cluster's types, GPUs counted over all nodes.
  std::vector<int> type_of_node_;
  std::vector<JobId> order_;  // Unfinished jobs in arrival order (the LPs' job order).
  std::unordered_map<JobId, GavelJob> jobs_;
  std::vector<double> type_time_;  // W_k: seconds run on type k since the last reset.
  bool dirty_ = false;  // Jobs arrived or finished since the last solve.
  Time last_reset_ = kNever;
  Time round_end_ = kNever;  // End of the round in progress; kNever: none (idle).
  // Packed objectives: the pairs with an allocation, in the problem's order; the jobs' kinds;
  // the co-located rates read from the table per (kind, kind, type); the last group id.
  std::vector<GavelPair> pairs_;
  std::map<std::string, int> kinds_;
  std::map<std::tuple<int, int, int>, double> pair_rates_;
  int64_t last_group_ = 0;
};

}  // namespace

Status RegisterGavel(Registries* r) {
  PolicyRegistry::Entry entry;
  entry.name = "gavel";
  entry.description =
      "Gavel: an allocation over (job, GPU type) re-solved after arrivals and completions, "
      "granted in rounds by priority = allocation / share of the type's time (oracle for "
      "objectives that read steps left)";
  entry.default_placement = "best-fit";
  entry.default_admission = "";
  entry.takes_admission = false;
  entry.options = {
      {"objective", OptionSpec::Type::kString, "max_min_fairness_perf",
       "the allocation policy (`schedkit gavel policies`; not min_cost*; the _packed ones and "
       "gandiva co-locate the pairs of the run's throughput table)"},
      {"round_s", OptionSpec::Type::kDouble, "360", "round length in seconds"},
      {"resolve_s", OptionSpec::Type::kDouble, "1920",
       "least time between two re-solves (Gavel's minimum_time_between_allocation_resets)"},
      {"mode", OptionSpec::Type::kString, "rounds",
       "rounds (Gavel's mechanism) or ideal (each job runs at its allocation's throughput)"},
      {"point", OptionSpec::Type::kString, "",
       "max_min_fairness*: which optimum, centre or vertex (default: the objective's own, "
       "`schedkit gavel policies`)"},
      {"packing_threshold", OptionSpec::Type::kString, "",
       "fifo_packed: least normalised pair throughput to pack (default: the objective's own, "
       "1.5)"},
      {"entity", OptionSpec::Type::kString, "",
       "max_min_fairness_water_filling*: user or vc, the entities whose weight (1 each) their "
       "jobs split (default: none, every job its own)"}};
  entry.factory = [](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    if (!ctx.placement) return Status::InvalidArgument("gavel: no placement module");
    const std::string& objective = ctx.options.String("objective");
    if (objective.rfind("min_cost", 0) == 0) {
      return Status::InvalidArgument("gavel: objective '" + objective +
                                     "' needs GPU prices, which cluster specs do not carry");
    }
    const gavel::AllocationPolicyRegistry::Entry* alloc =
        gavel::BuiltinAllocationPolicies().Find(objective);
    if (alloc == nullptr) {
      return Status::InvalidArgument("gavel: option objective='" + objective +
                                     "': expected one of " +
                                     gavel::BuiltinAllocationPolicies().Names());
    }
    GavelPolicy::Options opt;
    opt.round_s = ctx.options.Double("round_s");
    opt.resolve_s = ctx.options.Double("resolve_s");
    if (!(opt.round_s > 0) || !std::isfinite(opt.round_s)) {
      return Status::InvalidArgument("gavel: option 'round_s' must be a number > 0");
    }
    if (!(opt.resolve_s >= 0) || !std::isfinite(opt.resolve_s)) {
      return Status::InvalidArgument("gavel: option 'resolve_s' must be a number >= 0");
    }
    const std::string& mode = ctx.options.String("mode");
    opt.packed = gavel::ReadsPairs(objective);
    if (mode == "ideal") {
      opt.mode = GavelMode::kIdeal;
      if (opt.packed) {
        return Status::InvalidArgument("gavel: objective '" + objective +
                                       "' co-locates pairs, which mode=ideal does not grant "
                                       "(use mode=rounds)");
      }
    } else if (mode != "rounds") {
      return Status::InvalidArgument("gavel: option mode='" + mode + "': expected rounds or ideal");
    }
    // Gavel's mechanism: FIFO runs only the jobs it placed; the policies whose Gavel name
    // lacks "Perf" (the agnostic ones, Gandiva, and every packed one: MaxMinFairness_Packing,
    // FIFO_Packing, ...) walk the types in a random order each round.
    opt.fill_idle = objective.rfind("fifo", 0) != 0;
    opt.shuffle_types = opt.packed || objective == "max_min_fairness" ||
                        objective == "max_min_fairness_water_filling" ||
                        objective == "finish_time_fairness" || objective == "fifo";
    opt.entity = ctx.options.String("entity");
    if (!opt.entity.empty()) {
      if (opt.entity != "user" && opt.entity != "vc") {
        return Status::InvalidArgument("gavel: option entity='" + opt.entity +
                                       "': expected user or vc");
      }
      if (!gavel::ReadsEntities(objective)) {
        return Status::InvalidArgument("gavel: option 'entity' is for the water-filling "
                                       "objectives, not '" + objective + "'");
      }
    }
    std::map<std::string, std::string> raw;  // The run's seed for the seeded ones (FIFO).
    for (const OptionSpec& o : alloc->options) {
      if (o.name == "seed") raw["seed"] = std::to_string(ctx.seed);
    }
    // The objective's own options, passed on where set; refused where the objective has no
    // such option (never silently ignored).
    for (const char* name : {"point", "packing_threshold"}) {
      const std::string& value = ctx.options.String(name);
      if (value.empty()) continue;
      if (std::none_of(alloc->options.begin(), alloc->options.end(),
                       [&](const OptionSpec& o) { return o.name == name; })) {
        return Status::InvalidArgument("gavel: option '" + std::string(name) +
                                       "' is not an option of objective '" + objective + "'");
      }
      raw[name] = value;
    }
    Result<OptionValues> values = OptionValues::Parse(objective, alloc->options, raw);
    if (!values.ok()) return values.status();
    ModuleContext module_ctx{*values};
    Result<std::unique_ptr<gavel::AllocationPolicy>> allocator = alloc->factory(module_ctx);
    if (!allocator.ok()) return allocator.status();
    return std::unique_ptr<Policy>(std::make_unique<GavelPolicy>(
        std::move(allocator).value(), opt, ctx.seed, std::move(ctx.placement)));
  };
  return r->policies.Register(std::move(entry));
}

}  // namespace schedkit
