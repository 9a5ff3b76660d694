#include "gavel/lp_policies.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include "mechanisms/analytic_centre.h"
#include "mechanisms/lp.h"
#include "workload/csv.h"

namespace schedkit::gavel {
namespace {

// Bisections stop when the bracket is this small relative to its top.
constexpr double kRatioTolerance = 1e-6;
// Gavel's makespan search: T in [100, 1e6] s, stop when 1.05 x lower >= upper; if no T in
// the window is feasible the window moves up tenfold. We give up past kMaxMakespan.
constexpr double kMakespanLow = 100;
constexpr double kMakespanHigh = 1e6;
constexpr double kMakespanStop = 1.05;
constexpr double kMaxMakespan = 1e15;

// Jobs that an LP cannot tell apart (same scale factor, weight and throughputs, and with
// `progress` the same steps and times) form one class. Any optimum can be averaged over a
// class's members without losing feasibility or objective (the constraints are convex and
// the objectives symmetric in them), so the LPs solve for one allocation per class: a
// workload drawn from Gavel's table (83 (job type, scale factor) pairs) has at most 83
// classes at any size.
// Jobs of different entities, or with different deadline floors (steps_left / slo_s), are
// told apart too, and every job of an entity with fifo reweighting (its jobs are weighed in
// turn) is a class of its own.
std::vector<std::vector<int>> Classes(const AllocationProblem& p, bool progress) {
  using Key =
      std::tuple<int, double, std::vector<double>, double, double, double, int, double, int>;
  std::map<Key, int> index;
  std::vector<std::vector<int>> classes;
  for (int j = 0; j < static_cast<int>(p.jobs.size()); ++j) {
    const AllocJob& job = p.jobs[j];
    Key key{job.scale_factor, job.weight, job.throughput, progress ? job.steps_left : 0,
            progress ? job.time_since_arrival : 0, progress ? job.isolated_time : 0,
            job.entity, job.slo_s > 0 ? job.steps_left / job.slo_s : 0,
            job.entity >= 0 && p.entities[job.entity].fifo ? j : -1};
    auto [it, fresh] = index.emplace(std::move(key), static_cast<int>(classes.size()));
    if (fresh) classes.emplace_back();
    classes[it->second].push_back(j);
  }
  return classes;
}

std::vector<std::vector<int>> Singletons(const AllocationProblem& p) {
  std::vector<std::vector<int>> classes(p.jobs.size());
  for (size_t j = 0; j < p.jobs.size(); ++j) classes[j] = {static_cast<int>(j)};
  return classes;
}

// The constraints every policy shares, over classes (x_ck = the allocation of each member of
// class c), with variables only where the class can run:
//   x_ck in [0, 1];  sum_k x_ck <= 1 (classes with two or more usable types);
//   sum_c |c| sf_c x_ck <= n_k.
// `cost(j, k)` is the objective coefficient of one member j (CLP minimises); the class's
// variable costs |c| times that.
struct BaseLp {
  LinearProgram lp;
  const AllocationProblem& p;
  std::vector<std::vector<int>> classes;
  std::vector<std::vector<int>> var;  // var[c][k], -1 where the class cannot run.

  std::vector<int> pair_var;           // With `packed`: one per problem.pairs entry.
  std::vector<int> class_row, type_row;  // LP row of each class's sum_k <= 1 and type's GPUs; -1: none.
  // With `packed`, per job: (pair variable, the job's throughput in the pair).
  std::vector<std::vector<std::pair<int, double>>> in_pairs;

  // `packed`: every job its own class, plus one variable per pair (its time co-located),
  // counted in both jobs' rows and once (sf GPUs) on its type; `pair_cost(pair)` is its
  // objective coefficient.
  template <typename Cost>
  BaseLp(const AllocationProblem& problem, bool progress, Cost cost, bool packed = false,
         const std::function<double(const JobPair&)>& pair_cost = nullptr)
      : p(problem),
        classes(packed ? Singletons(problem) : Classes(problem, progress)),
        var(classes.size()) {
    const int types = static_cast<int>(p.types.size());
    std::vector<std::vector<LpTerm>> per_type(types), rows(classes.size());
    for (size_t c = 0; c < classes.size(); ++c) {
      const int j = classes[c][0];
      const double members = static_cast<double>(classes[c].size());
      var[c].assign(types, -1);
      for (int k = 0; k < types; ++k) {
        if (!p.Runs(j, k)) continue;
        var[c][k] = lp.AddVariable(0, 1, members * cost(j, k));
        rows[c].push_back({var[c][k], 1.0});
        per_type[k].push_back({var[c][k], members * p.jobs[j].scale_factor});
      }
    }
    if (packed) {
      in_pairs.resize(p.jobs.size());
      for (const JobPair& pair : p.pairs) {
        pair_var.push_back(lp.AddVariable(0, 1, pair_cost ? pair_cost(pair) : 0.0));
        in_pairs[pair.a].push_back({pair_var.back(), pair.throughput_a});
        in_pairs[pair.b].push_back({pair_var.back(), pair.throughput_b});
        rows[pair.a].push_back({pair_var.back(), 1.0});
        rows[pair.b].push_back({pair_var.back(), 1.0});
        per_type[pair.type].push_back(
            {pair_var.back(), static_cast<double>(p.jobs[pair.a].scale_factor)});
      }
    }
    for (const std::vector<LpTerm>& row : rows) {
      class_row.push_back(row.size() > 1 ? lp.rows() : -1);
      if (row.size() > 1) lp.AddRow(row, -kLpInfinity, 1);
    }
    for (int k = 0; k < types; ++k) {
      type_row.push_back(per_type[k].empty() ? -1 : lp.rows());
      if (!per_type[k].empty()) lp.AddRow(per_type[k], -kLpInfinity, p.types[k].gpus);
    }
  }

  // sum_k coeff(j, k) x_ck as row terms, j = the class's first member.
  template <typename Coeff>
  std::vector<LpTerm> ClassTerms(int c, Coeff coeff) const {
    std::vector<LpTerm> terms;
    for (int k = 0; k < static_cast<int>(var[c].size()); ++k) {
      if (var[c][k] >= 0) terms.push_back({var[c][k], coeff(classes[c][0], k)});
    }
    return terms;
  }

  // scale x R_c as row terms: scale x T_jk x_ck over the types, then (packed) scale x the
  // job's co-located throughput x the time of each pair it is in, in the problem's order.
  std::vector<LpTerm> RateTerms(int c, double scale) const {
    std::vector<LpTerm> terms =
        ClassTerms(c, [&](int j, int k) { return scale * p.jobs[j].throughput[k]; });
    if (!in_pairs.empty()) {
      for (const auto& [v, throughput] : in_pairs[classes[c][0]]) terms.push_back({v, scale * throughput});
    }
    return terms;
  }

  // The pairs' times as solved (packed), clamped to [0, 1].
  std::vector<double> PairX() const {
    std::vector<double> out;
    for (int v : pair_var) out.push_back(std::clamp(lp.Value(v), 0.0, 1.0));
    return out;
  }

  // The solution per job. CLP meets rows within its primal tolerance (1e-7), so a row or a
  // type may be over by that much: such a row, then such a type, is scaled down to fit
  // exactly (the objective moves by as little). Pair variables (packed) are left as solved.
  // `values`: the variables' values (by LP index) to read instead of the LP's solution.
  std::vector<std::vector<double>> X(const std::vector<double>* values = nullptr) const {
    const size_t types = p.types.size();
    std::vector<std::vector<double>> xc(classes.size(), std::vector<double>(types, 0.0));
    std::vector<double> used(types, 0.0);
    for (size_t c = 0; c < classes.size(); ++c) {
      double row = 0;
      for (size_t k = 0; k < types; ++k) {
        if (var[c][k] >= 0) {
          const double v = values ? (*values)[var[c][k]] : lp.Value(var[c][k]);
          xc[c][k] = std::clamp(v, 0.0, 1.0);
        }
        row += xc[c][k];
      }
      if (row > 1) {
        for (double& v : xc[c]) v /= row;
      }
      const double gpus = static_cast<double>(classes[c].size()) * p.jobs[classes[c][0]].scale_factor;
      for (size_t k = 0; k < types; ++k) used[k] += gpus * xc[c][k];
    }
    std::vector<std::vector<double>> x(p.jobs.size());
    for (size_t c = 0; c < classes.size(); ++c) {
      for (size_t k = 0; k < types; ++k) {
        if (used[k] > p.types[k].gpus) xc[c][k] *= p.types[k].gpus / used[k];
      }
      for (int j : classes[c]) x[j] = xc[c];
    }
    return x;
  }
};

Status SolverFailed(std::string_view policy, LpStatus st) {
  return Status::Internal(std::string(policy) + ": the LP solver did not reach an optimum (status " +
                          std::to_string(static_cast<int>(st)) + ")");
}

Status NeedSteps(const AllocationProblem& p, std::string_view policy) {
  for (const AllocJob& job : p.jobs) {
    if (!(job.steps_left > 0)) {
      return Status::InvalidArgument(std::string(policy) + ": job " + Quoted(job.id) +
                                     ": steps_left must be > 0");
    }
  }
  return Status::Ok();
}

Allocation Empty(const AllocationProblem& p) {
  Allocation a;
  a.x.assign(p.jobs.size(), std::vector<double>(p.types.size(), 0.0));
  return a;
}

// Base LP plus one row per job, R_j = sum_k T_jk x_jk >= floor_j, and no objective: the
// feasibility problem of the makespan and finish-time-fairness bisections. Only the floors
// move between solves, so each re-solve warm-starts from the last basis.
// With `packed`, R_j also counts the job's time in the problem's pairs.
class ThroughputFloorLp {
 public:
  ThroughputFloorLp(const AllocationProblem& p, bool packed)
      : base_(p, /*progress=*/true, [](int, int) { return 0.0; }, packed) {
    for (int c = 0; c < static_cast<int>(base_.classes.size()); ++c) {
      rows_.push_back(base_.lp.rows());
      base_.lp.AddRow(base_.RateTerms(c, 1.0), 0, kLpInfinity);
    }
  }

  // Returns true iff an allocation gives every job j at least floors[j] steps/s.
  // REQUIRES: members of a class have equal floors (floors depend only on the class key).
  bool Feasible(const std::vector<double>& floors) {
    for (size_t c = 0; c < rows_.size(); ++c) {
      base_.lp.SetRowBounds(rows_[c], floors[base_.classes[c][0]], kLpInfinity);
    }
    ++solves_;
    return base_.lp.Solve() == LpStatus::kOptimal;
  }
  // The allocation (and, packed, the pairs' times). REQUIRES: the last Feasible() was true.
  void Get(Allocation* a) const {
    a->x = base_.X();
    if (!base_.pair_var.empty()) a->pair_x = base_.PairX();
  }
  int solves() const { return solves_; }

 private:
  BaseLp base_;
  std::vector<int> rows_;
  int solves_ = 0;
};

// Max-min fairness's share of job j is this times R_j: sf_j / (w Teq_j), w = the job's
// weight, or (water filling) its share of its entity's weight.
double ShareScale(const AllocationProblem& p, const std::vector<double>& teq, int j, double w) {
  return p.jobs[j].scale_factor / (w * teq[j]);
}
double ShareScale(const AllocationProblem& p, const std::vector<double>& teq, int j) {
  return ShareScale(p, teq, j, p.jobs[j].weight);
}

// A dual or reduced cost beyond this is nonzero: its row or bound is tight at every optimum.
constexpr double kTightDual = 1e-9;

class MaxMinFairness : public AllocationPolicy {
 public:
  // `packed` (perf only): pairs of jobs may also share GPUs, each at its co-located throughput.
  // `centre` (not packed): the analytic centre of the near-optimal allocations.
  MaxMinFairness(bool perf, bool packed, bool centre = false)
      : perf_(perf), packed_(packed), centre_(centre && !packed) {}
  std::string_view Name() const override {
    return packed_ ? "max_min_fairness_packed"
                   : perf_ ? "max_min_fairness_perf" : "max_min_fairness";
  }

  // maximise t  s.t.  (sf_j / w_j) R_j / Teq_j >= t  for every job j, where R_j also counts
  // the time j runs co-located at its pair throughput.
  Result<Allocation> Allocate(const AllocationProblem& problem) const override {
    if (problem.jobs.empty()) return Empty(problem);
    const AllocationProblem p = perf_ ? problem : Agnostic(problem);
    const std::vector<double> teq = EqualSplitThroughputs(p);
    auto scale = [&](int j) { return ShareScale(p, teq, j); };
    BaseLp base(p, /*progress=*/false, [](int, int) { return 0.0; }, packed_);
    const int t = base.lp.AddVariable(0, kLpInfinity, -1);
    std::vector<std::vector<LpTerm>> rows(base.classes.size());
    for (int c = 0; c < static_cast<int>(base.classes.size()); ++c) {
      rows[c] = base.RateTerms(c, scale(base.classes[c][0]));
    }
    std::vector<int> share_row;
    for (std::vector<LpTerm>& row : rows) {
      row.push_back({t, -1.0});
      share_row.push_back(base.lp.rows());
      base.lp.AddRow(row, 0, kLpInfinity);
    }
    const LpStatus st = base.lp.Solve();
    if (st != LpStatus::kOptimal) return SolverFailed(Name(), st);
    Allocation a;
    a.x = base.X();
    a.pair_x = base.PairX();
    a.objective = base.lp.Value(t);
    a.lp_solves = 1;
    if (centre_) Centre(p, base, share_row, scale, &a);
    return a;
  }

 private:
  // Replaces a's vertex by the analytic centre of the optimal face (point=centre): the LP's
  // constraints over the class variables at t = t*, those tight at every optimum (a nonzero
  // dual or reduced cost) as equalities, the others in a log barrier weighted as the problem
  // over jobs counts them (|c| per class row, share row and variable bound; 1 per type): the
  // centre of that problem restricted to allocations equal within a class, where it lies by
  // symmetry. Keeps the vertex if the face has no interior (a single point).
  template <typename Scale>
  void Centre(const AllocationProblem& p, const BaseLp& base, const std::vector<int>& share_row,
              Scale scale, Allocation* a) const {
    const LinearProgram& lp = base.lp;
    const int types = static_cast<int>(p.types.size());
    const int n = lp.variables() - 1;  // The class variables (t is the last).
    std::vector<CentreRow> inequalities, equalities;
    auto add = [&](CentreRow row, bool tight) {
      (tight ? equalities : inequalities).push_back(std::move(row));
    };
    std::vector<CentreRow> per_type(types);
    for (int k = 0; k < types; ++k) per_type[k].bound = p.types[k].gpus;
    for (int c = 0; c < static_cast<int>(base.classes.size()); ++c) {
      const int j = base.classes[c][0];
      const double members = static_cast<double>(base.classes[c].size());
      CentreRow row{{}, 1.0, members}, share{{}, -a->objective, members};
      bool row_tight = base.class_row[c] >= 0 && std::abs(lp.RowDual(base.class_row[c])) > kTightDual;
      for (int k = 0; k < types; ++k) {
        const int v = base.var[c][k];
        if (v < 0) continue;
        const bool at_bound = std::abs(lp.ReducedCost(v)) > kTightDual;
        add({{{v, -1.0}}, 0.0, members}, at_bound && lp.Value(v) < 0.5);
        // A class with one variable has its row as that variable's upper bound.
        if (base.class_row[c] < 0 && at_bound && lp.Value(v) >= 0.5) row_tight = true;
        row.terms.push_back({v, 1.0});
        share.terms.push_back({v, -scale(j) * p.jobs[j].throughput[k]});
        per_type[k].terms.push_back({v, members * p.jobs[j].scale_factor});
      }
      add(std::move(row), row_tight);
      add(std::move(share), std::abs(lp.RowDual(share_row[c])) > kTightDual);
    }
    for (int k = 0; k < types; ++k) {
      if (base.type_row[k] < 0) continue;
      add(std::move(per_type[k]), std::abs(lp.RowDual(base.type_row[k])) > kTightDual);
    }
    ++a->lp_solves;  // Phase I (at least one LP).
    const std::optional<std::vector<double>> x =
        AnalyticCentre(n, std::move(inequalities), std::move(equalities));
    if (!x) return;
    a->x = base.X(&*x);
    double least = kLpInfinity;
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      double share = 0;
      for (int k = 0; k < types; ++k) share += p.jobs[j].throughput[k] * a->x[j][k];
      least = std::min(least, scale(static_cast<int>(j)) * share);
    }
    a->objective = least;
  }

  bool perf_;
  bool packed_;
  bool centre_;
};

// A probe that reaches this far above the level is not held at it.
constexpr double kLevelTolerance = 1e-7;

// Each unheld class's weight at a level (Gavel's reweighting of entities): a job of entity e
// gets W_e w_j / (the summed w of e's jobs not yet held) (`fairness`), or, if e is fifo, W_e
// for e's first job not yet held and 0 for its others; a job of no entity its own w_j. Held
// classes (level >= 0) keep the weight they had.
void LevelWeights(const AllocationProblem& p, const std::vector<std::vector<int>>& classes,
                  const std::vector<double>& level, std::vector<double>* weight) {
  std::vector<double> unheld(p.entities.size(), 0.0);
  std::vector<int> first(p.entities.size(), -1);  // Fifo: the class that gets the weight.
  for (size_t c = 0; c < classes.size(); ++c) {
    const AllocJob& job = p.jobs[classes[c][0]];
    if (level[c] >= 0 || job.entity < 0) continue;
    unheld[job.entity] += classes[c].size() * job.weight;
    if (first[job.entity] < 0) first[job.entity] = static_cast<int>(c);
  }
  for (size_t c = 0; c < classes.size(); ++c) {
    if (level[c] >= 0) continue;
    const AllocJob& job = p.jobs[classes[c][0]];
    if (job.entity < 0) {
      (*weight)[c] = job.weight;
    } else if (const Entity& e = p.entities[job.entity]; e.fifo) {
      (*weight)[c] = first[job.entity] == static_cast<int>(c) ? e.weight : 0.0;
    } else {
      (*weight)[c] = e.weight * job.weight / unheld[job.entity];
    }
  }
}

class WaterFilling : public AllocationPolicy {
 public:
  // `packed` (perf only): pairs of jobs may also share GPUs, each at its co-located throughput.
  WaterFilling(bool perf, bool packed) : perf_(perf || packed), packed_(packed) {}
  std::string_view Name() const override {
    if (packed_) return "max_min_fairness_water_filling_packed";
    return perf_ ? "max_min_fairness_water_filling_perf" : "max_min_fairness_water_filling";
  }

  // Max-min fairness, then the least share is held and the others raised, level by level
  // (Gavel's max_min_fairness_water_filling): each level is `maximise t s.t. share_c >= t`
  // over the classes not yet held, the held ones kept at their level; a class is held at the
  // level when it cannot exceed it with every other unheld class at the level (a probe: the
  // same LP with only its own row against t). One LP with two rows per class, switched by
  // their bounds: A_c = share_c - t (>= offset_c while c is unheld and in play) and
  // B_c = share_c (>= the level: held, or the others during a probe).
  // Entities: when a class is held its entity's weight is split anew among the entity's
  // other classes, whose share then counts in new units (share x old weight / new weight);
  // offset_c = (the class's level in the new units) - t_level keeps what it already has, so
  // that the next level raises every unheld class by the same amount of its own share (as
  // Gavel's incremental objective). The LP is rebuilt with the new coefficients. A job of a
  // fifo entity waiting with weight 0 is out of the objective and the probes, its rows free
  // (Gavel: no term, a lower bound of what it has so far, 0); when its turn comes its offset
  // is -t_level (0 so far in Gavel's increments). Without entities no weight moves and every
  // offset stays 0.
  Result<Allocation> Allocate(const AllocationProblem& problem) const override {
    if (problem.jobs.empty()) return Empty(problem);
    const AllocationProblem p = perf_ ? problem : Agnostic(problem);
    const std::vector<double> teq = EqualSplitThroughputs(p);
    // Without pairs the packed variant is the unpacked one, solved over classes (a probe per
    // class, not per job).
    const bool packed = packed_ && !p.pairs.empty();
    const std::vector<std::vector<int>> class_members = packed ? Singletons(p) : Classes(p, false);
    const int classes = static_cast<int>(class_members.size());
    std::vector<double> level(classes, -1);  // -1: not held yet.
    std::vector<double> weight(classes, 0.0), offset(classes, 0.0);
    LevelWeights(p, class_members, level, &weight);
    std::unique_ptr<BaseLp> base;
    int t = -1;
    std::vector<int> a_row(classes), b_row(classes);
    auto build = [&] {
      base = std::make_unique<BaseLp>(p, /*progress=*/false, [](int, int) { return 0.0; }, packed);
      t = base->lp.AddVariable(0, kLpInfinity, -1);
      for (int c = 0; c < classes; ++c) {
        const int j = base->classes[c][0];
        // A class waiting with weight 0 (fifo) has its rows free until it gets its entity's.
        const double w = weight[c] > 0 ? weight[c] : p.entities[p.jobs[j].entity].weight;
        std::vector<LpTerm> share = base->RateTerms(c, ShareScale(p, teq, j, w));
        b_row[c] = base->lp.rows();
        base->lp.AddRow(share, -kLpInfinity, kLpInfinity);
        share.push_back({t, -1.0});
        a_row[c] = base->lp.rows();
        base->lp.AddRow(share, 0, kLpInfinity);
      }
    };
    build();
    Allocation a;
    auto solve = [&]() -> Result<double> {
      ++a.lp_solves;
      const LpStatus st = base->lp.Solve();
      if (st != LpStatus::kOptimal) return SolverFailed(Name(), st);
      return base->lp.Value(t);
    };
    for (int held = 0; held < classes;) {
      LinearProgram& lp = base->lp;
      // The next level, with every unheld class against t (but those waiting with weight 0).
      auto active = [&](int c) { return level[c] < 0 && weight[c] > 0; };
      for (int c = 0; c < classes; ++c) {
        lp.SetRowBounds(a_row[c], active(c) ? offset[c] : -kLpInfinity, kLpInfinity);
        lp.SetRowBounds(b_row[c], level[c] < 0 ? -kLpInfinity : level[c], kLpInfinity);
      }
      const Result<double> next = solve();
      if (!next.ok()) return next.status();
      const double t_level = *next;
      if (held == 0) a.objective = t_level;
      a.x = base->X();
      a.pair_x = base->PairX();
      // Probe each unheld class: can it exceed the level with the others at it?
      std::vector<int> at_level;
      int lowest = -1;
      double lowest_reach = kLpInfinity;
      // `slack`: the others' bounds are that much (relative) below the level.
      auto probe = [&](int c, double slack) {
        for (int o = 0; o < classes; ++o) {
          if (!active(o) || o == c) continue;
          lp.SetRowBounds(a_row[o], -kLpInfinity, kLpInfinity);
          lp.SetRowBounds(b_row[o], (t_level + offset[o]) * (1 - slack), kLpInfinity);
        }
        const Result<double> reach = solve();
        for (int o = 0; o < classes; ++o) {
          if (!active(o) || o == c) continue;
          lp.SetRowBounds(a_row[o], offset[o], kLpInfinity);
          lp.SetRowBounds(b_row[o], -kLpInfinity, kLpInfinity);
        }
        return reach;
      };
      for (int c = 0; c < classes; ++c) {
        if (!active(c)) continue;
        Result<double> reach = probe(c, 0);
        // The level is the solver's, within its tolerance: where the others cannot all be
        // held at it exactly, they are held a hair below, as held classes are.
        if (!reach.ok()) reach = probe(c, kLevelTolerance);
        if (!reach.ok()) return reach.status();
        if (*reach <= t_level + kLevelTolerance * std::max(1.0, t_level)) at_level.push_back(c);
        if (*reach < lowest_reach) lowest_reach = *reach, lowest = c;
      }
      if (at_level.empty()) at_level.push_back(lowest);  // Within the solver's tolerance.
      // Held a hair below the level, so that the next LP stays feasible within tolerances.
      for (int c : at_level) level[c] = (t_level + offset[c]) * (1 - kLevelTolerance);
      held += static_cast<int>(at_level.size());
      // The held classes' entities split their weight anew.
      const std::vector<double> before = weight;
      LevelWeights(p, class_members, level, &weight);
      bool moved = false;
      for (int c = 0; c < classes; ++c) {
        if (level[c] >= 0 || weight[c] == before[c] || weight[c] == 0) continue;
        offset[c] = (t_level + offset[c]) * (before[c] / weight[c]) - t_level;
        moved = true;
      }
      if (moved) build();
    }
    // The last level's allocation holds every class at its level or above.
    return a;
  }

 private:
  bool perf_;
  bool packed_;
};

class FinishTimeFairness : public AllocationPolicy {
 public:
  // `packed` (perf only): R_j also counts the job's time in the problem's pairs.
  FinishTimeFairness(bool perf, bool packed) : perf_(perf || packed), packed_(packed) {}
  std::string_view Name() const override {
    return packed_ ? "finish_time_fairness_packed"
                   : perf_ ? "finish_time_fairness_perf" : "finish_time_fairness";
  }

  // minimise max_j rho_j(x). rho_j = (a_j + s_j / R_j) / D_j is linear-fractional in x, and a
  // maximum of several such ratios is not one LP; but rho_j <= r is the linear row
  // R_j >= s_j / (r D_j - a_j) once r is fixed, so r is bisected over LP feasibility.
  Result<Allocation> Allocate(const AllocationProblem& problem) const override {
    if (Status s = NeedSteps(problem, Name()); !s.ok()) return s;
    if (problem.jobs.empty()) return Empty(problem);
    const AllocationProblem p = perf_ ? problem : Agnostic(problem);
    const size_t m = p.jobs.size();
    // D_j: the finish time on the isolated share.
    const std::vector<std::vector<double>> iso = IsolatedShare(p);
    std::vector<double> d(m);
    // Each job's fastest rate: alone on some type, or (packed) in some pair.
    std::vector<double> best(m, 0.0);
    for (size_t i = 0; packed_ && i < p.pairs.size(); ++i) {
      const JobPair& pair = p.pairs[i];
      best[pair.a] = std::max(best[pair.a], pair.throughput_a);
      best[pair.b] = std::max(best[pair.b], pair.throughput_b);
    }
    double lo = 0;
    for (size_t j = 0; j < m; ++j) {
      const AllocJob& job = p.jobs[j];
      double iso_rate = 0;
      for (size_t k = 0; k < p.types.size(); ++k) {
        iso_rate += job.throughput[k] * iso[j][k];
        if (p.Runs(static_cast<int>(j), static_cast<int>(k))) best[j] = std::max(best[j], job.throughput[k]);
      }
      d[j] = job.isolated_time + job.steps_left / iso_rate;
      // No allocation beats the job running all the time at its fastest rate.
      lo = std::max(lo, (job.time_since_arrival + job.steps_left / best[j]) / d[j]);
    }
    // The isolated share is feasible: the bracket's top.
    Allocation a;
    a.x = iso;
    const std::vector<double> rho_iso = FinishTimeRatios(p, iso);
    double hi = *std::max_element(rho_iso.begin(), rho_iso.end());
    ThroughputFloorLp lp(p, packed_);
    std::vector<double> floors(m);
    while (hi - lo > kRatioTolerance * hi) {
      const double r = 0.5 * (lo + hi);
      for (size_t j = 0; j < m; ++j) {
        floors[j] = p.jobs[j].steps_left / (r * d[j] - p.jobs[j].time_since_arrival);
      }
      if (lp.Feasible(floors)) {
        hi = r;
        lp.Get(&a);
      } else {
        lo = r;
      }
    }
    if (packed_) a.pair_x.resize(p.pairs.size(), 0.0);  // The isolated share: no pair.
    const std::vector<double> rho = FinishTimeRatios(p, a.x, a.pair_x);
    a.objective = *std::max_element(rho.begin(), rho.end());
    a.lp_solves = lp.solves();
    return a;
  }

 private:
  bool perf_;
  bool packed_;
};

class MinMakespan : public AllocationPolicy {
 public:
  // `packed`: R_j also counts the job's time in the problem's pairs.
  explicit MinMakespan(bool packed) : packed_(packed) {}
  std::string_view Name() const override { return packed_ ? "min_makespan_packed" : "min_makespan"; }

  // The smallest T (Gavel's bisection) such that every job can finish within T:
  // R_j >= s_j / T.
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    if (Status s = NeedSteps(p, Name()); !s.ok()) return s;
    if (p.jobs.empty()) return Empty(p);
    ThroughputFloorLp lp(p, packed_);
    std::vector<double> floors(p.jobs.size());
    Allocation a;
    bool found = false;
    for (double low = kMakespanLow, high = kMakespanHigh; !found; low = high, high *= 10) {
      if (low >= kMaxMakespan) {
        return Status::InvalidArgument("min_makespan: no allocation finishes every job within " +
                                       workload::FormatDouble(kMaxMakespan) + " s");
      }
      double lower = low, upper = high;
      while (kMakespanStop * lower < upper) {
        const double t = 0.5 * (lower + upper);
        for (size_t j = 0; j < p.jobs.size(); ++j) floors[j] = p.jobs[j].steps_left / t;
        if (lp.Feasible(floors)) {
          lp.Get(&a);
          a.objective = t;
          found = true;
          upper = t;
        } else {
          lower = t;
        }
      }
    }
    a.lp_solves = lp.solves();
    return a;
  }

 private:
  bool packed_;
};

class MaxThroughput : public AllocationPolicy {
 public:
  // `packed`: a pair's time adds both its jobs' co-located throughputs.
  MaxThroughput(bool per_cost, bool packed) : per_cost_(per_cost), packed_(packed) {}
  std::string_view Name() const override {
    if (packed_) return per_cost_ ? "min_cost_packed" : "max_throughput_packed";
    return per_cost_ ? "min_cost" : "max_throughput";
  }

  // maximise sum_j R_j / c (c_k = 1 for max_throughput), R_j counting pairs when packed.
  Result<Allocation> Allocate(const AllocationProblem& p) const override {
    if (per_cost_) {
      for (const GpuType& t : p.types) {
        if (!(t.cost_per_hour > 0)) {
          return Status::InvalidArgument("min_cost: GPU type " + Quoted(t.name) +
                                         " needs a cost_per_hour > 0");
        }
      }
    }
    if (p.jobs.empty()) return Empty(p);
    auto price = [&](int k) { return per_cost_ ? p.types[k].cost_per_hour : 1.0; };
    auto gain = [&](int j, int k) { return p.jobs[j].throughput[k] / price(k); };
    auto pair_gain = [&](const JobPair& pair) {
      return (pair.throughput_a + pair.throughput_b) / price(pair.type);
    };
    BaseLp base(p, /*progress=*/false, [&](int j, int k) { return -gain(j, k); }, packed_,
                [&](const JobPair& pair) { return -pair_gain(pair); });
    // Gavel's SLO rows: a job with a deadline runs fast enough to finish by it.
    std::vector<int> slo_rows;
    for (int c = 0; c < static_cast<int>(base.classes.size()); ++c) {
      const AllocJob& job = p.jobs[base.classes[c][0]];
      if (!(job.slo_s > 0)) continue;
      slo_rows.push_back(base.lp.rows());
      base.lp.AddRow(base.RateTerms(c, 1.0), job.steps_left / job.slo_s, kLpInfinity);
    }
    Allocation a;
    a.lp_solves = 1;
    LpStatus st = base.lp.Solve();
    if (st == LpStatus::kInfeasible && !slo_rows.empty()) {
      // Gavel's behaviour: the deadlines cannot all be met, so they are all dropped.
      for (int row : slo_rows) base.lp.SetRowBounds(row, -kLpInfinity, kLpInfinity);
      a.slos_dropped = true;
      ++a.lp_solves;
      st = base.lp.Solve();
    }
    if (st != LpStatus::kOptimal) return SolverFailed(Name(), st);
    a.x = base.X();
    a.pair_x = base.PairX();
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      for (size_t k = 0; k < p.types.size(); ++k) a.objective += gain(j, k) * a.x[j][k];
    }
    for (size_t i = 0; i < a.pair_x.size(); ++i) a.objective += pair_gain(p.pairs[i]) * a.pair_x[i];
    return a;
  }

 private:
  bool per_cost_;
  bool packed_;
};

}  // namespace

AllocationProblem Agnostic(const AllocationProblem& problem) {
  AllocationProblem p = problem;
  for (AllocJob& job : p.jobs) {
    for (double& t : job.throughput) t = t > 0 ? 1.0 : 0.0;
  }
  return p;
}

std::unique_ptr<AllocationPolicy> MakeMaxMinFairness(bool perf, bool centre) {
  return std::make_unique<MaxMinFairness>(perf, false, centre);
}
std::unique_ptr<AllocationPolicy> MakeWaterFilling(bool perf, bool packed) {
  return std::make_unique<WaterFilling>(perf, packed);
}
std::unique_ptr<AllocationPolicy> MakeMaxMinFairnessPacked() {
  return std::make_unique<MaxMinFairness>(true, true);
}
std::unique_ptr<AllocationPolicy> MakeFinishTimeFairness(bool perf, bool packed) {
  return std::make_unique<FinishTimeFairness>(perf, packed);
}
std::unique_ptr<AllocationPolicy> MakeMinMakespan(bool packed) {
  return std::make_unique<MinMakespan>(packed);
}
std::unique_ptr<AllocationPolicy> MakeMaxThroughput(bool per_cost, bool packed) {
  return std::make_unique<MaxThroughput>(per_cost, packed);
}

}  // namespace schedkit::gavel
