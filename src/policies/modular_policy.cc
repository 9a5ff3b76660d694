#include "policies/modular_policy.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <span>

#include "mechanisms/exact_fmod.h"
#include "schedkit/throughput.h"

namespace schedkit {
namespace {

// Bounds on how far a key the engine reports strays from the straight line
// ModularPolicyConfig::running_key_rate draws through the key read now: a relative
// error of the key (a key is booked and extrapolated in a few rounded operations per
// event that touched the job: ~1e-16 each, so this allows ~1e5 such events), and one
// of the clock (a time's rounding, ~1e-16 of it, times the rate).
constexpr double kKeyRelError = 1e-11;
constexpr double kClockRelError = 1e-13;

// `lo` is ahead of `hi` at `now` (lo[0] <= hi[0]); their key[0] grow at lo_rate and
// hi_rate per second (0: pending). The earliest time at which the engine's keys could
// compare the other way: the first t >= now at which the gap on the line,
// (hi[0] - lo[0]) - (lo_rate - hi_rate)(t - now), is within the error bounds above at t
// (they grow with the keys and the clock). now if it already is (a tie, or keys equal
// to the rounding); kNever if it never is.
// `lo_abs` >= |lo| stands for |lo| in the error bound (a bound for a whole rate class).
Time AheadUntil(double lo, double lo_abs, double lo_rate, double hi, double hi_rate, Time now) {
  const double rates = lo_rate + hi_rate;
  const double slack = kKeyRelError * (lo_abs + std::abs(hi)) +
                       kClockRelError * rates * std::abs(now);
  const double gap = hi - lo;
  if (!(gap > slack)) return now;
  const double closing = (lo_rate - hi_rate) + (kKeyRelError + kClockRelError) * rates;
  if (!(closing > 0)) return kNever;
  return now + (gap - slack) / closing;
}

// How far a running job's key[0] now may stray from its line read earlier, key[0] =
// base + rate x now (base: the key read then, moved back to time 0): the bounds above,
// with the rounding of base and of rate x now.
double LineError(double base, double rate, Time now) {
  const double line = std::abs(base) + rate * std::abs(now);
  return (kKeyRelError + 8 * DBL_EPSILON) * line + kClockRelError * rate * std::abs(now);
}

// Moves `*at`, an entry of `set`, to `key`: the node is reused (no allocation), and
// inserted first just before its old successor, where a key that kept its place goes
// (constant time), else wherever it belongs.
// Returns its new place.
std::set<QueuedJob>::iterator Rekey(std::set<QueuedJob>* set, std::set<QueuedJob>::iterator at,
                                    const QueuedJob& key) {
  auto next = std::next(at);
  auto node = set->extract(at);
  node.value() = key;
  return set->insert(next, std::move(node));
}

// Moves `*at`, an entry of `set`, down to `key` (REQUIRES: key < *at). If `key` is still
// above the entry before it, it is written in place: the set's order is unchanged (key
// is above its predecessor, and below the old key, hence below its successor), and the
// order is all the tree reads of an entry (its elements are const only through its
// iterators: the node holds a plain value). Else the entry moves (Rekey), and `*at`
// becomes its new place. Returns true iff it was written in place.
bool Lower(std::set<QueuedJob>* set, std::set<QueuedJob>::iterator* at, const QueuedJob& key) {
  if (*at == set->begin() || *std::prev(*at) < key) {
    const_cast<QueuedJob&>(**at) = key;
    return true;
  }
  *at = Rekey(set, *at, key);
  return false;
}

}  // namespace

ModularPolicy::ModularPolicy(ModularPolicyConfig config)
    : config_(std::move(config)),
      arrivals_may_skip_queue_(!config_.replace_all && !config_.tail_preemption &&
                               config_.preemption == PreemptionMode::kPriority),
      running_index_(config_.replace_all || config_.tail_preemption ||
                             config_.preemption != PreemptionMode::kPriority
                         ? RunningIndex::kNone
                     : config_.running_keys_never_grow      ? RunningIndex::kUpperBounds
                     : config_.running_keys_change_at_wakeups ? RunningIndex::kExact
                     : config_.running_key_rate && config_.periodic_key_changes
                         ? RunningIndex::kLinear
                         : RunningIndex::kNone) {
  assert(config_.admission && config_.scheduling && config_.placement);
  index_kept_ = !IndexDropsWhileIdle();
}

// Running jobs, greatest exact key at Now() first. kUpperBounds and kExact: down
// running_.by_key (NextExactBelow). kLinear: jobs of one rate keep their order while they
// run, so each rate class is read down its set and the classes' greatest are merged. Two
// jobs of a class whose bases are within the lines' error of each other may compare
// either way now: a class reads on down its set until the next job's base is below the
// base of one it has read by more than that error, and gives its read jobs in exact order.
class ModularPolicy::RunningWalk {
 public:
  RunningWalk(ModularPolicy* policy, const ClusterView& view)
      : policy_(policy), view_(view), now_(view.Now()), cursor_(policy->running_.by_key.end()),
        storage_(policy->running_walk_) {
    if (storage_.walking) {
      std::fprintf(stderr, "schedkit: ModularPolicy: a running walk inside another\n");
      std::abort();  // They would share storage_.
    }
    storage_.walking = true;
    storage_.in_use = 0;
    if (policy->running_index_ != RunningIndex::kLinear) return;
    std::vector<Class>& classes = storage_.classes;
    for (const auto& [rate, jobs] : policy->running_.by_rate) {
      if (storage_.in_use == classes.size()) classes.emplace_back();
      Class& c = classes[storage_.in_use++];
      c.rate = rate;
      c.next = jobs.rbegin();
      c.end = jobs.rend();
      c.lowest_base = jobs.begin()->key[0];
      c.read.clear();
      c.filled = false;
    }
  }
  ~RunningWalk() { storage_.walking = false; }
  RunningWalk(const RunningWalk&) = delete;
  RunningWalk& operator=(const RunningWalk&) = delete;

  // The greatest running job not yet given; false if none is left.
  bool Next(RunningTop* out) {
    if (policy_->running_index_ != RunningIndex::kLinear) {
      cursor_ = policy_->NextExactBelow(view_, cursor_, &out->placement, &out->floor);
      if (cursor_ == policy_->running_.by_key.end()) return false;
      out->entry = *cursor_;
      out->rate = 0;
      return true;
    }
    Class* best = nullptr;
    for (Class& c : classes()) {
      Fill(&c);
      if (c.read.empty()) continue;
      if (best == nullptr || best->read.back().exact < c.read.back().exact) best = &c;
    }
    if (best == nullptr) return false;
    const Read& top = best->read.back();
    *out = RunningTop{top.exact, best->rate, top.exact.key[0], top.placement};
    best->read.pop_back();
    best->filled = false;  // Its greatest base may have gone: Fill may read on.
    return true;
  }

  // kLinear: f(top, abs) for each rate class with jobs not yet given: `top` its greatest,
  // `abs` a bound on |key[0]| over them (AheadUntil's lo_abs).
  template <class F>
  void ForEachClassTop(F f) {
    for (Class& c : classes()) {
      Fill(&c);
      if (c.read.empty()) continue;
      const Read& read = c.read.back();
      const RunningTop top{read.exact, c.rate, read.exact.key[0], read.placement};
      const double bottom = c.lowest_base + c.rate * now_;
      f(top, std::max(std::abs(top.entry.key[0]),
                      std::abs(bottom) + LineError(c.lowest_base, c.rate, now_)));
    }
  }

 private:
  using Read = WalkRead;
  using Class = WalkClass;
  std::span<Class> classes() { return {storage_.classes.data(), storage_.in_use}; }

  // Reads until some job read is surely ahead of every job not read.
  void Fill(Class* c) {
    if (c->filled) return;
    c->filled = true;  // Below: what reads as far as it must.
    while (c->next != c->end) {
      const double next_base = c->next->key[0];
      if (!c->read.empty()) {
        double top_base = c->read.front().base;
        for (const Read& r : c->read) top_base = std::max(top_base, r.base);
        const double error =
            LineError(top_base, c->rate, now_) + LineError(next_base, c->rate, now_);
        if (top_base - next_base > 2 * error) return;
      }
      const QueueEntry& e = *c->next++;
      const JobStatus s = view_.Status(e.id);
      const Read r{policy_->EntryOf(s, now_), e.key[0], s.placement};
      auto at = std::upper_bound(c->read.begin(), c->read.end(), r,
                                 [](const Read& a, const Read& b) { return a.exact < b.exact; });
      c->read.insert(at, r);
    }
  }

  ModularPolicy* policy_;
  const ClusterView& view_;
  const Time now_;
  std::set<QueueEntry>::iterator cursor_;  // kUpperBounds, kExact: the last given.
  WalkStorage& storage_;  // kLinear: the classes.
};
ModularPolicy::~ModularPolicy() = default;

ModularPolicy::RunningSets::RunningSets(const RunningSets& other)
    : by_key(other.by_key), by_rate(other.by_rate), read(other.read) {
  auto repoint = [&](std::set<QueueEntry>* set) {
    for (auto it = set->begin(); it != set->end(); ++it) read.Find(it->id)->pos = it;
  };
  repoint(&by_key);
  for (auto& [rate, jobs] : by_rate) repoint(&jobs);
}

ModularPolicy::WakeIndex::WakeIndex(const WakeIndex& other)
    : by_time(other.by_time), by_phase(other.by_phase), of(other.of) {
  for (auto it = by_time.begin(); it != by_time.end(); ++it) of.Find(it->second)->in_time = it;
  for (auto it = by_phase.begin(); it != by_phase.end(); ++it) of.Find(it->second)->in_phase = it;
}

void ModularPolicy::RunningSets::Clear() {
  by_key.clear();
  by_rate.clear();
  read.Clear();
}

Status ModularPolicy::ModulesCloned() const {
  SCHEDKIT_RETURN_IF_ERROR(config_.admission.Check("admission"));
  SCHEDKIT_RETURN_IF_ERROR(config_.scheduling.Check("scheduling"));
  return config_.placement.Check("placement");
}

std::unique_ptr<Policy> MakeModularPolicy(ModularPolicyConfig config) {
  return std::make_unique<ModularPolicy>(std::move(config));
}

void ModularPolicy::Decide(const ClusterView& view, const EventBatch& events, Decisions* out) {
  if (!adopted_) AdoptRunning(view);
  for (JobId id : events.finished) {
    adopted_ids_.erase(id);
    // The simulator only finishes running jobs; the runtime also ends pending ones
    // (cancelled), which must leave the waiting list or the queue.
    auto waiting = std::find(waiting_.begin(), waiting_.end(), id);
    if (waiting != waiting_.end()) {
      waiting_.erase(waiting);
      continue;
    }
    admitted_gpu_demand_ -= view.Spec(id).gpus;
    ForgetWake(id);
    UntrackRunning(id);
    QueueRemove(id, view.Spec(id));
  }
  if (config_.replace_all) list_.Remove(events.finished);
  for (JobId id : events.interrupted) Requeue(view, id);
  AdmitArrivals(view, events, out);
  watch_order_ = running_index_ == RunningIndex::kLinear;
  order_holds_until_ = kNever;
  if (running_index_ != RunningIndex::kNone) SyncRunning(view);
  if (running_index_ == RunningIndex::kExact) RekeyWoken(view);
  config_.placement->Observe(view);
  if (config_.tail_preemption) {
    DecideTailPreemption(view, out);
  } else if (config_.replace_all) {
    DecideReplaceAll(view, out);
  } else if (config_.preemption == PreemptionMode::kNever) {
    DecideKeepRunning(view, out);
  } else if (PlaceAllPending(view, out)) {
    // Fast path: every pending job fits beside the running ones, so every job runs
    // whatever the keys say; keys only matter when someone must wait.
  } else {
    std::optional<RunningWalk> walk;  // One walk of the running jobs for both steps.
    if (RunningAllAheadOfPending(view, &walk)) {
      // Nobody pending outranks anybody running: no preemption, just backfill.
      walk.reset();
      DecideKeepRunning(view, out);
    } else {
      if (running_index_ != RunningIndex::kNone) {
        TopFrontier(view, &walk, &frontier_);
      } else {
        FullFrontier(view, &frontier_);
      }
      walk.reset();
      DecidePriority(view, &frontier_, out);
    }
  }
  BookDecisions(view, out);
}

void ModularPolicy::AdoptRunning(const ClusterView& view) {
  adopted_ = true;
  // replace_all keeps its own list, which adopted jobs join when the runtime announces
  // them after their preemption (docs/runtime.md, Limits).
  if (config_.replace_all) return;
  for (JobId id : view.RunningJobs()) {
    const JobStatus s = view.Status(id);
    admitted_gpu_demand_ += s.spec->gpus;
    adopted_ids_.insert(id);
    SetWake(s, config_.scheduling->NextKeyChange(s, view.Now()), view.Now());
  }
}

bool ModularPolicy::PlaceAllPending(const ClusterView& view, Decisions* out) {
  if (queue_.empty() && arrivals_.empty()) return true;
  std::vector<StartDecision>& starts = all_starts_;
  starts.clear();
  if (!PlaceAllInOrder(view, &starts)) {
    FlushArrivals();
    return false;
  }
  arrivals_.clear();
  out->start.swap(starts);  // Both vectors keep their storage for later decisions.
  return true;
}

bool ModularPolicy::PlaceAllInOrder(const ClusterView& view, std::vector<StartDecision>* starts) {
  // Each whole-GPU job takes at least its GPU count of free GPUs: on a busy cluster this
  // ends most calls before any placement.
  int64_t whole_gpus = queued_whole_gpus_;
  for (const Arrival& a : arrivals_) {
    if (a.spec->gpu_milli >= kMilliPerGpu) whole_gpus += a.spec->gpus;
  }
  if (whole_gpus > view.Resources().total_free_gpus()) return false;
  std::sort(arrivals_.begin(), arrivals_.end(),
            [](const Arrival& a, const Arrival& b) { return a.entry < b.entry; });
  // The walk's remembered misfits change nothing here: the first misfit ends the call.
  PlacementWalk walk(*config_.placement, &view.Resources(), &walk_scratch_);
  auto q = queue_.begin();
  auto a = arrivals_.begin();
  while (q != queue_.end() || a != arrivals_.end()) {
    const bool take_arrival = q == queue_.end() || (a != arrivals_.end() && a->entry < *q);
    const JobId id = take_arrival ? (a++)->entry.id : (q++)->id;
    const JobSpec& spec = view.Spec(id);
    if (!walk.MayFit(spec.gpus, spec.gpu_milli)) return false;
    Placement p = walk.Place(spec);
    if (p.empty()) return false;
    walk.Allocate(p);
    starts->push_back(StartDecision{id, std::move(p)});
  }
  return true;
}

void ModularPolicy::AdmitArrivals(const ClusterView& view, const EventBatch& events,
                                  Decisions* out) {
  for (JobId id : events.arrived) {
    if (adopted_ids_.empty() || adopted_ids_.erase(id) == 0) waiting_.push_back(id);
  }
  if (waiting_.empty()) return;
  std::vector<JobId>& admitted = admitted_;
  admitted.clear();
  config_.admission->Admit(view, waiting_, admitted_gpu_demand_, &admitted);
  if (admitted.empty()) return;
  std::vector<JobId>& in = admitted_sorted_;
  in.assign(admitted.begin(), admitted.end());
  std::sort(in.begin(), in.end());
  std::erase_if(waiting_, [&](JobId id) { return std::binary_search(in.begin(), in.end(), id); });
  for (JobId id : admitted) {
    const JobStatus s = view.Status(id);
    admitted_gpu_demand_ += s.spec->gpus;
    if (arrivals_may_skip_queue_) {
      arrivals_.push_back(Arrival{EntryOf(s, view.Now()), s.spec});
    } else {
      Enqueue(s, view.Now());
    }
  }
}

ModularPolicy::QueueEntry ModularPolicy::EntryOf(const JobStatus& job, Time now) const {
  return {config_.scheduling->Key(job, now), job.spec->submit_s, job.spec->id, job.spec->gpus};
}

void ModularPolicy::Enqueue(const JobStatus& pending, Time now) {
  if (config_.replace_all) {
    list_.Append(pending.spec->id, config_.scheduling->Key(pending, now));
    return;
  }
  QueueInsert(EntryOf(pending, now), *pending.spec);
}

void ModularPolicy::FlushArrivals() {
  for (const Arrival& a : arrivals_) QueueInsert(a.entry, *a.spec);
  arrivals_.clear();
}

bool ModularPolicy::RunningAllAheadOfPending(const ClusterView& view,
                                             std::optional<RunningWalk>* walk) {
  if (queue_.empty()) return true;
  const QueueEntry& best_pending = *queue_.begin();
  if (running_index_ == RunningIndex::kLinear) {
    KeepIndex(view);  // TopFrontier, called only after this, reads it too.
    // Each class's greatest job bounds the class: the others are further behind, and
    // AheadUntil's bound falls with the gap and grows with |key| (lo_abs). The walk only
    // peeks (it gives no job), so TopFrontier goes on from it.
    bool ahead = true;
    walk->emplace(this, view);
    (*walk)->ForEachClassTop([&](const RunningTop& top, double abs) {
      if (!(top.entry < best_pending)) ahead = false;
      if (ahead && watch_order_) {
        KeepsAhead(top.entry.key[0], abs, top.rate, best_pending.key[0], 0, view.Now());
      }
    });
    return ahead;
  }
  if (running_index_ != RunningIndex::kNone) {
    KeepIndex(view);  // As above.
    RunningTop top;
    return !RunningWalk(this, view).Next(&top) ||
           RunningAhead(view, &top.entry, &top.floor, &top.placement, best_pending);
  }
  for (JobId id : view.RunningJobs()) {
    const JobStatus s = view.Status(id);
    const QueueEntry e = EntryOf(s, view.Now());
    // Behind stays behind: a running key only grows, a pending one stands.
    if (!(e < best_pending)) return false;
  }
  return true;
}

void ModularPolicy::KeepsAhead(double lo, double lo_abs, double lo_rate, double hi,
                               double hi_rate, Time now) {
  order_holds_until_ =
      std::min(order_holds_until_, AheadUntil(lo, lo_abs, lo_rate, hi, hi_rate, now));
}

void ModularPolicy::TopKeepsAhead(const RunningTop& lo, const RunningTop& hi, Time now) {
  KeepsAhead(lo.entry.key[0], std::abs(lo.entry.key[0]), lo.rate, hi.entry.key[0], hi.rate, now);
}

std::vector<ModularPolicy::Candidate> ModularPolicy::RunningInOrder(const ClusterView& view) const {
  const std::vector<JobId>& ids = view.RunningJobs();
  std::vector<Candidate> running;
  running.reserve(ids.size());
  for (JobId id : ids) {
    const JobStatus s = view.Status(id);
    const QueueEntry e = EntryOf(s, view.Now());
    running.push_back(Candidate{e, e.key[0], 0, s.placement});
  }
  std::sort(running.begin(), running.end(),
            [](const Candidate& a, const Candidate& b) { return a.order < b.order; });
  return running;
}

void ModularPolicy::FullFrontier(const ClusterView& view, Frontier* f) const {
  f->running = RunningInOrder(view);
  f->chosen_pending.clear();
  f->fewest_chosen_gpus = std::numeric_limits<int>::max();
  f->next_pending = queue_.begin();
  f->budget = view.Resources().total_gpus();
}

ClusterState* ModularPolicy::ScratchFree(const ClusterView& view) {
  std::optional<ClusterState>& state = walk_scratch_.state;
  if (state) {
    *state = view.Resources();  // Keeps its storage.
  } else {
    state.emplace(view.Resources());
  }
  return &*state;
}

// Walking the merged order, the jobs up to a running job r are all chosen if their GPUs
// together fit the cluster (none is skipped, so the budget never runs out before r). So
// running jobs are taken from the top down, r_1 > r_2 > ..., until one, r_m, passes that
// test: then only r_1..r_{m-1} and the pending jobs after r_m need the walk, and the
// rest of the running jobs need neither a key nor a sort.
void ModularPolicy::TopFrontier(const ClusterView& view, std::optional<RunningWalk>* walk_made,
                                Frontier* out) {
  const int64_t total = view.Resources().total_gpus();
  const Time now = view.Now();
  auto& before = frontier_before_;  // Pending jobs before r.
  before.clear();
  int64_t before_gpus = 0;
  auto q = queue_.begin();
  // r_1, r_2, ...: descending in exact key order (kUpperBounds: a key not read may be
  // only bounded, and is read if a comparison needs it: RunningAhead). Each job is read
  // into its place here, r last (and dropped once found), then copied into f.running.
  auto& top = frontier_top_;
  top.clear();
  int64_t top_gpus = 0;
  Frontier& f = *out;
  f.running.clear();
  f.chosen_pending.clear();
  f.fewest_chosen_gpus = std::numeric_limits<int>::max();
  if (!walk_made->has_value()) walk_made->emplace(this, view);
  RunningWalk& walk = **walk_made;
  bool found = false;
  // With watch_order_, every comparison below that running time could reverse is bounded
  // (KeepsAhead): r_1 > r_2 > ... > r_m, r_m > every other running job, and each running
  // job found ahead of a pending one. Then a later decision builds the same frontier.
  while (!found) {
    RunningTop& r = top.emplace_back();
    if (!walk.Next(&r)) {  // No running job is chosen for sure.
      top.pop_back();
      break;
    }
    if (watch_order_ && top.size() > 1) TopKeepsAhead(r, top[top.size() - 2], now);
    while (!before.empty() &&
           RunningAhead(view, &r.entry, &r.floor, &r.placement, *before.back().first)) {
      if (watch_order_) TopKeepsAhead(r, RunningTop{*before.back().first}, now);
      before_gpus -= before.back().second;
      q = before.back().first;
      before.pop_back();
    }
    // Up to r: the running jobs not in `top` (r included) and the pending jobs before r.
    const int64_t room = total - (running_gpus_ - top_gpus);
    found = before_gpus <= room;
    for (; found && q != queue_.end() && !RunningAhead(view, &r.entry, &r.floor, &r.placement, *q);
         ++q) {
      const int gpus = q->gpus;
      if (before_gpus + gpus > room) found = false;
      if (!found) break;
      before_gpus += gpus;
      before.emplace_back(q, gpus);
    }
    if (found) {
      if (watch_order_ && q != queue_.end()) TopKeepsAhead(r, RunningTop{*q}, now);
      f.budget = room - before_gpus;
      for (const auto& [pending, gpus] : before) {
        f.chosen_pending.push_back(pending->id);
        f.fewest_chosen_gpus = std::min(f.fewest_chosen_gpus, gpus);
      }
      f.next_pending = q;
      if (watch_order_) {
        walk.ForEachClassTop([&](const RunningTop& rest, double abs) {
          KeepsAhead(rest.entry.key[0], abs, rest.rate, r.entry.key[0], r.rate, now);
        });
      }
      top.pop_back();  // r: chosen for sure, so not in the frontier's running jobs.
    } else {
      top_gpus += r.entry.gpus;
    }
  }
  if (!found) {
    f.budget = total;
    f.next_pending = queue_.begin();
  }
  // Placements not read: DecidePriority reads those of the jobs it stops.
  for (auto it = top.rbegin(); it != top.rend(); ++it) {
    f.running.emplace_back(it->entry, it->floor, it->rate, it->placement);
  }
}

std::set<QueuedJob>::iterator ModularPolicy::NextExactBelow(const ClusterView& view,
                                                           std::set<QueueEntry>::iterator cursor,
                                                           const Placement** placement,
                                                           double* floor) {
  *placement = nullptr;  // None re-read yet.
  if (running_index_ == RunningIndex::kExact) {
    if (cursor == running_.by_key.begin()) return running_.by_key.end();
    --cursor;
    *floor = cursor->key[0];
    return cursor;
  }
  const Time now = view.Now();
  JobStatus s;  // The last job whose key was re-read here (spec null: none yet).
  // The placement of the job returned, if its key was re-read here.
  auto read_here = [&](std::set<QueueEntry>::iterator it) {
    return s.spec != nullptr && s.spec->id == it->id ? s.placement : nullptr;
  };
  while (cursor != running_.by_key.begin()) {
    auto it = std::prev(cursor);
    ReadKey& read = *running_.read.Find(it->id);
    if (read.at == now) {
      *placement = read_here(it);
      *floor = it->key[0];
      return it;
    }
    // Unread, it is the greatest below `cursor` if its key cannot have fallen to the next
    // entry's, which bounds every key below it from above.
    const double lowest = FloorNow(*it, read, now);
    if (it == running_.by_key.begin() || std::prev(it)->key[0] < lowest) {
      *floor = lowest;
      return it;
    }
    // Kept its place: still the greatest below `cursor`, now exact (the keys below it
    // are upper bounds of their jobs' and below its own). Moved: the next one down is
    // another entry.
    QueueEntry exact;
    if (Reread(view, &read, &s, &exact)) {
      *placement = s.placement;
      *floor = exact.key[0];
      return it;
    }
  }
  return running_.by_key.end();
}

void ModularPolicy::AbortIfGrown(const QueueEntry& read, const QueueEntry& now) const {
  if (!(read < now)) return;
  std::fprintf(stderr,
               "schedkit: internal error: policy %s: the key of running job %lld grew, "
               "but its policy says running keys never grow\n",
               config_.name.c_str(), static_cast<long long>(read.id));
  std::abort();
}

double ModularPolicy::FloorNow(const QueueEntry& e, const ReadKey& read, Time now) {
  // Both reads stray from the true keys by the engine's rounding (LineError's bounds).
  return e.key[0] - read.rate * (now - read.at) - 2 * LineError(e.key[0], read.rate, now);
}

bool ModularPolicy::Reread(const ClusterView& view, ReadKey* read, JobStatus* status,
                           QueueEntry* exact) {
  *status = view.Status(read->pos->id);
  *exact = EntryOf(*status, view.Now());
  AbortIfGrown(*read->pos, *exact);
  read->at = view.Now();
  return !(*exact < *read->pos) || Lower(&running_.by_key, &read->pos, *exact);
}

void ModularPolicy::ReadExact(const ClusterView& view, QueueEntry* order, double* floor,
                              const Placement** placement) {
  JobStatus status;
  QueueEntry exact;
  // The walk found it above every entry below it by its floor, so it keeps its place.
  Reread(view, running_.read.Find(order->id), &status, &exact);
  *order = exact;
  *floor = exact.key[0];
  *placement = status.placement;
}

double ModularPolicy::KeyFallRate(const ClusterView& view, const JobStatus& running,
                                  double start_rate) const {
  constexpr double kNoBound = std::numeric_limits<double>::infinity();
  // Progress on other than the GPUs asked for follows the engine's scaling model.
  if (!config_.running_key_fall || !(start_rate > 0) ||
      running.placement->gpus() != running.spec->gpus) {
    return kNoBound;
  }
  const double speed = PlacementSpeed(*running.spec, *running.placement, view.Cluster());
  const double rate = config_.running_key_fall(running) * start_rate * speed;
  return rate >= 0 ? rate : kNoBound;
}

void ModularPolicy::TrackRunning(const ClusterView& view, JobId id, const JobStatus& running,
                                 double start_rate) {
  if (!index_kept_) return;
  const Time now = view.Now();
  if (ReadKey* read = running_.read.Find(id)) {
    // Moved: its key read earlier still bounds it, and falls from now on at most as fast
    // as on its new placement.
    if (running_index_ == RunningIndex::kUpperBounds) {
      read->rate = std::max(read->rate, KeyFallRate(view, running, start_rate));
    }
    return;
  }
  QueueEntry e = EntryOf(running, now);
  double rate = 0;
  std::set<QueueEntry>::iterator pos;
  if (running_index_ == RunningIndex::kLinear) {
    rate = config_.running_key_rate(running);
    e.key[0] -= rate * now;
    pos = running_.spare.Insert(&running_.by_rate[rate], e).first;
  } else {
    if (running_index_ == RunningIndex::kUpperBounds) {
      rate = KeyFallRate(view, running, start_rate);
    }
    pos = running_.spare.Insert(&running_.by_key, e).first;
  }
  running_.read.Insert(id, ReadKey{now, rate, pos});
  running_gpus_ += running.spec->gpus;
}

void ModularPolicy::UntrackRunning(JobId id) {
  const ReadKey* read = running_.read.Find(id);
  if (read == nullptr) return;
  running_gpus_ -= read->pos->gpus;
  if (running_index_ == RunningIndex::kLinear) {
    auto rate_class = running_.by_rate.find(read->rate);
    running_.spare.Erase(&rate_class->second, read->pos);
    if (rate_class->second.empty()) running_.by_rate.erase(rate_class);
  } else {
    running_.spare.Erase(&running_.by_key, read->pos);
  }
  running_.read.Erase(id);
}

void ModularPolicy::RekeyWoken(const ClusterView& view) {
  const Time now = view.Now();
  for (auto w = wakes_.by_time.begin(); w != wakes_.by_time.end() && !(w->first > now); ++w) {
    ReadKey* read = running_.read.Find(w->second);
    if (read == nullptr) continue;
    const JobStatus s = view.Status(w->second);
    const QueueEntry e = EntryOf(s, now);
    read->pos = Rekey(&running_.by_key, read->pos, e);
    read->at = now;
  }
}

void ModularPolicy::SyncRunning(const ClusterView& view) {
  if (!index_kept_) return;
  const std::vector<JobId>& running = view.RunningJobs();
  if (running.size() == running_.read.size()) return;
  running_.Clear();
  running_gpus_ = 0;
  // Their start rates are not known here (some may be adopted): no fall bounds.
  for (JobId id : running) TrackRunning(view, id, view.Status(id), NAN);
}

void ModularPolicy::KeepIndex(const ClusterView& view) {
  index_idle_ = 0;
  if (index_kept_) return;
  index_kept_ = true;
  SyncRunning(view);
  wakes_.of.ForEachUnordered([&](JobId id, WakeIndex::At& w) {  // Into ordered sets: order-free.
    w.in_time = wakes_.spare.Insert(&wakes_.by_time, {w.at, id}).first;
    if (running_index_ == RunningIndex::kLinear) {
      w.in_phase = wakes_.spare.Insert(&wakes_.by_phase, {w.phase, id}).first;
    }
  });
}

void ModularPolicy::UpkeepIndex(bool idle) {
  if (!IndexDropsWhileIdle() || keep_index_while_idle_ || !index_kept_) return;
  if (!idle) {
    index_idle_ = 0;
    return;
  }
  // Rebuilding costs about one insertion per running job, and so does keeping the index
  // through about as many idle decisions (a start or a finish each): dropped then, the
  // upkeep while idle costs at most one rebuild more than dropping it at once, and a
  // queue that empties and fills again at once does not rebuild it each time.
  if (++index_idle_ <= static_cast<int64_t>(running_.read.size())) return;
  index_kept_ = false;
  index_idle_ = 0;
  running_.Clear();
  running_gpus_ = 0;
  wakes_.by_time.clear();
  wakes_.by_phase.clear();
}

void ModularPolicy::QueueInsert(const QueueEntry& e, const JobSpec& spec) {
  queue_.Insert(e);
  DemandPart& part = queue_by_demand_[DemandOf(spec)];
  const PlacementWalk::Shape shape = PlacementWalk::ShapeOf(spec);
  if (part.jobs.empty()) part.shape = shape;
  part.spare.Insert(&part.jobs, e);
  if (shape == part.shape) ++part.of_shape;
  if (spec.gpu_milli >= kMilliPerGpu) queued_whole_gpus_ += spec.gpus;
}

void ModularPolicy::QueueRemove(JobId id, const JobSpec& spec) {
  const std::optional<QueueEntry> entry = queue_.Remove(id);
  if (!entry) return;
  if (spec.gpu_milli >= kMilliPerGpu) queued_whole_gpus_ -= spec.gpus;
  DemandPart& part = queue_by_demand_.find(DemandOf(spec))->second;
  part.spare.Erase(&part.jobs, *entry);
  // An emptied part stays (with its storage) for the class's next job; its count of the
  // first shape is 0 then, as a new part's.
  if (PlacementWalk::ShapeOf(spec) == part.shape) --part.of_shape;
}

void ModularPolicy::PlacePending(const ClusterView& view, PlacementWalk* walk, Decisions* out,
                                 const std::vector<JobId>& skip) {
  if (config_.backfill) {
    BackfillPending(view, walk, out, skip);
    return;
  }
  for (const QueueEntry& e : queue_) {  // Head-of-line blocking: the first misfit ends it.
    if (!walk->MayFit(1, 1)) break;  // No GPU has any share free.
    if (std::binary_search(skip.begin(), skip.end(), e.id)) continue;
    const JobSpec& spec = view.Spec(e.id);
    if (!walk->MayFit(spec.gpus, spec.gpu_milli)) break;
    Placement p = walk->Place(spec);
    if (p.empty()) break;
    walk->Allocate(p);
    out->start.push_back(StartDecision{e.id, std::move(p)});
  }
}

// The loop above with backfill, over the parts of the queue by demand: a job that fails
// MayFit is skipped there, MayFit reads only the job's demand class, and the free state
// only shrinks during the walk, so once a class fails, all its later jobs would be
// skipped too. The parts that may still fit are merged in queue order: the same jobs
// are tried in the same order on the same states, without stepping over the others (on
// a busy cluster, the large jobs that wait for room pile up ahead of the small ones).
// Likewise, on a walk whose module answers by shape, a part whose jobs all have one shape
// is done once one of them finds no place, until the next allocation: each of its later
// jobs would get the same answer (the walk's remembered misfits), only after being read.
void ModularPolicy::BackfillPending(const ClusterView& view, PlacementWalk* walk, Decisions* out,
                                    const std::vector<JobId>& skip) {
  std::vector<BackfillPart>& parts = backfill_parts_;
  parts.clear();
  for (const auto& [demand, part] : queue_by_demand_) {
    if (part.jobs.empty()) continue;
    parts.push_back(BackfillPart{part.jobs.begin(), part.jobs.end(), demand.first,
                         demand.second ? 1 : kMilliPerGpu, part.one_shape()});
  }
  auto may_fit = [walk](BackfillPart& p) {
    if (p.checked_at != walk->allocations()) {
      p.may_fit = walk->MayFit(p.gpus, p.gpu_milli);
      p.checked_at = walk->allocations();
    }
    return p.may_fit;
  };
  while (walk->MayFit(1, 1)) {  // Else no GPU has any share free.
    BackfillPart* first = nullptr;
    for (BackfillPart& p : parts) {
      if (p.next == p.end || !may_fit(p)) continue;
      if (first == nullptr || *p.next < *first->next) first = &p;
    }
    if (first == nullptr) break;
    const QueueEntry& e = *first->next++;
    if (!skip.empty() && std::binary_search(skip.begin(), skip.end(), e.id)) continue;
    Placement p = walk->Place(view.Spec(e.id));
    if (p.empty()) {
      // Its part's later jobs, of the same shape, would get the same no on this state.
      if (first->one_shape && walk->places_by_shape()) first->may_fit = false;
      continue;
    }
    walk->Allocate(p);
    out->start.push_back(StartDecision{e.id, std::move(p)});
  }
}

void ModularPolicy::DecideKeepRunning(const ClusterView& view, Decisions* out) {
  PlaceOnView(view, out, {});
}

void ModularPolicy::PlaceOnView(const ClusterView& view, Decisions* out,
                                const std::vector<JobId>& skip) {
  // Copied into the scratch state if it places a job.
  PlacementWalk walk(*config_.placement, &view.Resources(), &walk_scratch_);
  PlacePending(view, &walk, out, skip);
}

bool ModularPolicy::StopsUndoneExactly(const ClusterView& view,
                                       const std::vector<const Candidate*>& stopped) {
  const ClusterState& free = view.Resources();
  for (const Candidate* c : stopped) {
    for (const NodeShare& s : c->placement->shares) {
      if (s.fractional() || free.held(s.node) || s.mem_gb != 0 || free.free_mem_gb(s.node) < 0) {
        return false;
      }
    }
  }
  return true;
}

bool ModularPolicy::ChosenMayBePlaced(const ClusterView& view,
                                      const std::vector<const Candidate*>& stopped,
                                      const std::vector<JobId>& chosen, int fewest) {
  const ClusterState& free = view.Resources();
  // The cheap test first: a node with room for the smallest (no spec read).
  if (free.FirstNodeWithAtLeast(fewest, 0) >= 0) return true;
  for (JobId id : chosen) {
    if (!config_.placement->PlacesOnOneNodeWithFreeGpus(view.Spec(id), free)) return true;
  }
  // The GPUs the stopped jobs release on each node they hold (whole GPUs: the releases
  // are undone exactly), gathered in a per-node scratch that is all zero between calls.
  std::vector<uint64_t>& released = released_gpus_;
  released.resize(free.num_nodes());
  for (const Candidate* c : stopped) {
    for (const NodeShare& s : c->placement->shares) released[s.node] |= s.gpu_mask;
  }
  bool room = false;
  for (const Candidate* c : stopped) {
    for (const NodeShare& s : c->placement->shares) {
      room = room || free.free_gpus(s.node) + CountGpus(released[s.node]) >= fewest;
      released[s.node] = 0;
    }
  }
  return room;
}

void ModularPolicy::ReturnStopped(const ClusterView& view, PlacementWalk* walk, Decisions* out) {
  // A stopped job keeps its GPUs if they are still free (no needless restart).
  for (const Candidate* c : stopped_) {
    if (walk->TryAllocate(*c->placement)) continue;
    Placement p = config_.backfill ? walk->Place(view.Spec(c->order.id)) : Placement();
    if (p.empty()) {
      out->preempt.push_back(c->order.id);
    } else {
      walk->Allocate(p);
      out->start.push_back(StartDecision{c->order.id, std::move(p)});
    }
  }
}

void ModularPolicy::DecidePriority(const ClusterView& view, Frontier* frontier, Decisions* out) {
  // Pass 1: choose by GPU count, walking running and queued jobs merged in key order
  // (from the frontier on: what comes before it is chosen).
  std::vector<Candidate>& running = frontier->running;
  int64_t budget = frontier->budget;
  std::vector<char>& chosen_running = chosen_running_;
  chosen_running.assign(running.size(), 0);
  std::vector<JobId>& chosen_pending = frontier->chosen_pending;
  auto r = running.begin();
  auto q = frontier->next_pending;
  while ((r != running.end() || q != queue_.end()) && budget > 0) {
    const bool take_running =
        q == queue_.end() ||
        (r != running.end() && RunningAhead(view, &r->order, &r->floor, &r->placement, *q));
    // A pending job ahead of a running one stays ahead.
    if (watch_order_ && take_running && q != queue_.end()) KeepsAhead(*r, *q, 0, view.Now());
    const JobId id = take_running ? r->order.id : q->id;
    const int gpus = take_running ? r->order.gpus : q->gpus;
    if (gpus <= budget) {
      budget -= gpus;
      if (take_running) {
        chosen_running[r - running.begin()] = 1;
      } else {
        chosen_pending.push_back(id);
        frontier->fewest_chosen_gpus = std::min(frontier->fewest_chosen_gpus, gpus);
      }
    } else if (!config_.backfill) {
      break;
    }
    if (take_running) ++r; else ++q;
  }
  // Pass 2: stop running jobs that were not chosen.
  std::vector<const Candidate*>& stopped = stopped_;
  stopped.clear();
  for (size_t i = 0; i < running.size(); ++i) {
    if (chosen_running[i]) continue;
    Candidate& c = running[i];
    if (c.placement == nullptr) c.placement = view.PlacementOf(c.order.id);
    stopped.push_back(&c);
  }
  std::vector<JobId>& tried = tried_;
  tried.assign(chosen_pending.begin(), chosen_pending.end());
  std::sort(tried.begin(), tried.end());
  // A try that places no chosen pending job gives every stopped job its own GPUs back
  // when the releases are undone exactly: the free state is then the view's own, and the
  // backfill walks that (copied only once it places a job), without the releases (if
  // nothing is to be placed, or nothing can be: ChosenMayBePlaced) or the re-bookings.
  const bool undone = StopsUndoneExactly(view, stopped);
  if (undone && (chosen_pending.empty() || !ChosenMayBePlaced(view, stopped, chosen_pending,
                                                                  frontier->fewest_chosen_gpus))) {
    if (config_.backfill) PlaceOnView(view, out, tried);
  } else {
    ClusterState& free = *ScratchFree(view);
    for (const Candidate* c : stopped) free.Release(*c->placement);
    // Pass 3: place chosen pending jobs in order.
    PlacementWalk walk(*config_.placement, &free, PlacementWalk::InPlace());
    bool placed = false;
    for (JobId id : chosen_pending) {
      Placement p = walk.Place(view.Spec(id));
      if (p.empty()) {  // Fragmentation: it waits; leftovers are backfilled below.
        if (!config_.backfill) break;
        continue;
      }
      walk.Allocate(p);
      out->start.push_back(StartDecision{id, std::move(p)});
      placed = true;
    }
    if (undone && !placed) {
      if (config_.backfill) PlaceOnView(view, out, tried);
    } else {
      // Pass 4: stopped jobs get first claim on what is left. Then backfill.
      ReturnStopped(view, &walk, out);
      if (config_.backfill) PlacePending(view, &walk, out, tried);
    }
  }
  // The sort's comparisons hold while neighbours keep their order. Only a decision that
  // did nothing needs the bound (BookDecisions).
  if (watch_order_ && out->start.empty() && out->preempt.empty()) {
    for (size_t i = 0; i + 1 < running.size(); ++i) {
      KeepsAhead(running[i], running[i + 1].order, running[i + 1].rate, view.Now());
    }
  }
}

void ModularPolicy::DecideTailPreemption(const ClusterView& view, Decisions* out) {
  const std::vector<Candidate> running = RunningInOrder(view);
  std::vector<char> stopped(running.size(), 0);
  // Victims come from the back: running[tail..] are stopped (or placed again since).
  size_t tail = running.size();
  ClusterState free = view.Resources();
  const bool may_preempt = config_.preemption == PreemptionMode::kPriority;
  auto r = running.begin();
  auto q = queue_.begin();
  while (r != running.end() || q != queue_.end()) {
    const bool take_running = q == queue_.end() || (r != running.end() && r->order < *q);
    const size_t ri = take_running ? static_cast<size_t>(r - running.begin()) : 0;
    const JobId id = take_running ? r->order.id : q->id;
    if (take_running) ++r; else ++q;
    if (take_running && !stopped[ri]) continue;  // A running job keeps its GPUs.
    // The running jobs behind this one in the order: running[behind..].
    const size_t behind = static_cast<size_t>(r - running.begin());
    const JobSpec& spec = view.Spec(id);
    const Placement* old = take_running ? running[ri].placement : nullptr;
    auto place = [&]() {
      if (old != nullptr && free.CanAllocate(*old)) return *old;
      if (spec.gpus > free.total_free_gpus()) return Placement();
      return config_.placement->Place(spec, free);
    };
    Placement p = place();
    while (p.empty() && may_preempt && tail > behind) {
      --tail;
      stopped[tail] = 1;
      free.Release(*running[tail].placement);
      p = place();
    }
    if (p.empty()) break;  // The stops made for it stand; no backfill.
    free.Allocate(p);
    if (old != nullptr) {
      stopped[ri] = 0;
      if (p == *old) continue;  // Placed again where it runs: it just keeps running.
    }
    out->start.push_back(StartDecision{id, std::move(p)});
  }
  for (size_t i = 0; i < running.size(); ++i) {
    if (stopped[i]) out->preempt.push_back(running[i].order.id);
  }
}

void ModularPolicy::DecideReplaceAll(const ClusterView& view, Decisions* out) {
  list_.Sort(
      view.RunningJobs(),
      [&](JobId id) { return config_.scheduling->Key(view.Status(id), view.Now()); },
      config_.queue_discipline == QueueDiscipline::kLevelFifo);
  // Who runs: a fresh greedy placement from an empty cluster, in list order.
  ClusterState fresh = view.Capacity();
  std::vector<StartDecision> fresh_set;
  for (const auto& [id, key] : list_.entries()) {
    if (!fresh.MayFit(1, 1)) break;
    const JobSpec& spec = view.Spec(id);
    Placement p;
    if (fresh.MayFit(spec.gpus, spec.gpu_milli)) p = config_.placement->Place(spec, fresh);
    if (p.empty()) {
      if (!config_.backfill) break;
      continue;
    }
    fresh.Allocate(p);
    fresh_set.push_back(StartDecision{id, std::move(p)});
  }
  std::vector<JobId> chosen;
  for (const StartDecision& s : fresh_set) chosen.push_back(s.job);
  std::sort(chosen.begin(), chosen.end());
  const std::vector<JobId>& running = list_.last_running();  // Sorted by id.
  auto was_running = [&](JobId id) { return std::binary_search(running.begin(), running.end(), id); };
  auto is_chosen = [&](JobId id) { return std::binary_search(chosen.begin(), chosen.end(), id); };
  // Where: keep running jobs on their GPUs if the newcomers fit around them.
  ClusterState sticky = view.Resources();
  for (JobId id : running) {
    if (!is_chosen(id)) {
      sticky.Release(*view.Status(id).placement);
      out->preempt.push_back(id);
    }
  }
  std::vector<StartDecision> starts;
  bool sticky_ok = true;
  for (const StartDecision& s : fresh_set) {
    if (was_running(s.job)) continue;
    Placement p = config_.placement->Place(view.Spec(s.job), sticky);
    if (p.empty()) {
      sticky_ok = false;
      break;
    }
    sticky.Allocate(p);
    starts.push_back(StartDecision{s.job, std::move(p)});
  }
  if (!sticky_ok) {  // Fall back to the fresh placement: running jobs may move.
    starts.clear();
    for (StartDecision& s : fresh_set) {
      if (!was_running(s.job) || !(*view.Status(s.job).placement == s.placement)) {
        starts.push_back(std::move(s));
      }
    }
  }
  out->start = std::move(starts);
  if (config_.queue_discipline == QueueDiscipline::kLevelFifo) list_.RunningAheadInLevel(chosen);
}

void ModularPolicy::BookDecisions(const ClusterView& view, Decisions* out) {
  const Time now = view.Now();
  // kExact: after a decision that may leave someone waiting, the index and the wake-ups
  // are needed (wake_at below), so they are rebuilt before its starts are booked in them.
  // (kLinear keeps them at NextWake.)
  if (running_index_ == RunningIndex::kExact &&
      (!queue_.empty() || !waiting_.empty() || !out->preempt.empty())) {
    KeepIndex(view);
  }
  for (JobId id : out->preempt) Requeue(view, id);
  for (const StartDecision& s : out->start) {
    JobStatus st = view.Status(s.job);
    QueueRemove(s.job, *st.spec);
    st.state = JobState::kRunning;
    st.placement = &s.placement;
    SetWake(st, config_.scheduling->NextKeyChange(st, now), now);
    // kLinear: a job that moves is read again (an elastic job's rate may change).
    if (running_index_ == RunningIndex::kLinear) UntrackRunning(s.job);
    if (running_index_ != RunningIndex::kNone) TrackRunning(view, s.job, st, s.rate);
  }
  // With nobody waiting, a periodic key change reorders nothing: the policy sleeps until
  // the next arrival, completion or interruption (replace_all keeps everyone in its list),
  // and the wake-ups that came meanwhile are caught up only once someone waits.
  const bool periodic = config_.periodic_key_changes;
  // kExact (running_keys_change_at_wakeups) sleeps while nobody waits too; its wake-ups
  // that came meanwhile are caught up at each decision (below), asked late.
  const bool idle = (periodic || running_index_ == RunningIndex::kExact) && !config_.replace_all &&
                    queue_.empty() && waiting_.empty();
  // With running_key_rate, after a decision that started, stopped and rejected nothing,
  // the periodic wake-ups before order_holds_until_ are skipped too: the policy wakes at
  // the first one at or after it (none if it is kNever). Such a skipped wake-up, at t,
  // would have decided nothing either, by induction over them:
  //  - Between the decision and t nothing happened: any arrival, completion,
  //    interruption or membership change is an event, hence a decision of its own, which
  //    computes its own bound. So the view shows the same jobs, placements and free
  //    resources; the queue, the admitted demand and the wake-ups' jobs are the same
  //    (the skipped decisions before t did nothing, the induction's hypothesis), and no
  //    job waits for admission (else the admission module, which may read the clock, is
  //    asked again).
  //  - The decision at t would run the same code on the same data but for the clock,
  //    which it reads only through keys (SchedulingModule::Key; pending keys never change,
  //    running ones grow by their rate) and the placement module, which must place by
  //    shape on a one-type cluster (a pure function of the job and the free resources:
  //    not one that draws random numbers or reads Observe). Its branches on keys are the
  //    comparisons this decision made, and each of those comes out the same way before
  //    order_holds_until_: KeepsAhead bounded every "running job ahead of pending job" and
  //    "running job ahead of running job" outcome that the growth could reverse (step 2's
  //    test of each rate class's greatest running job against the best pending one, which
  //    bounds its class; step 3's walk down the running index, TopFrontier: the order of
  //    the jobs it reads and of the last one against every other class, and its
  //    comparisons with pending jobs; the order of the frontier's running jobs, and their
  //    merge with the queue), with the rounding of the engine's keys and of the clock
  //    accounted for (AheadUntil); a pending job ahead of a running one stays ahead. So it
  //    takes the same path to the same empty result. (The frontier's decisions are the
  //    whole walk's, so those are the same too.)
  //  - A quantum does not change a key (LAS's key is attained service, read whenever
  //    compared, not rounded to the quantum); the quantum only sets the times at which
  //    the policy looks. The skipped wake-ups are caught up from the times they were due
  //    (as the idle ones above), so the times of the wake-ups that remain, and of every
  //    decision after them, are the ones a wake-up at every period gives.
  // After a decision that did something, the next wake-up is not skipped: the decision
  // it is the argument's base case. The engine must decide at the times it is asked to
  // (RegisterOrderingPolicy leaves running_key_rate unset under decision rounds).
  const bool did_nothing = out->start.empty() && out->preempt.empty() && out->reject.empty();
  const bool skip = watch_order_ && did_nothing && waiting_.empty() &&
                    config_.placement->PlacesByShape() && view.Resources().one_gpu_type();
  const bool sleep = idle || (skip && order_holds_until_ == kNever);
  if (running_index_ == RunningIndex::kLinear) {
    UpkeepIndex(idle);
    // The wake-ups that have come are not stepped here: NextWake steps only those that
    // may be the next one.
    out->wake_at = sleep ? kNever : NextWake(view, skip ? order_holds_until_ : now);
    return;
  }
  // Wake-ups that have come: ask the running job for its next key change. A periodic one
  // slept through is caught up from the time it was due, so its times are the ones it
  // would have had: each is the previous one plus the period. kExact ones are asked now,
  // even while sleeping (RekeyWoken has re-read their keys at this decision): the
  // module's answer asked late is the one it would have given at the wake-up.
  const WakeIndex::Set& due_first = wakes_.by_time;
  while ((!sleep || !periodic) && !due_first.empty() && !(due_first.begin()->first > now)) {
    const auto [due, id] = *due_first.begin();
    const JobStatus s = view.Status(id);
    Time next = config_.scheduling->NextKeyChange(s, periodic ? due : now);
    while (periodic && !(next > now)) next = config_.scheduling->NextKeyChange(s, next);
    SetWake(s, next, now);
  }
  out->wake_at = wakes_.by_time.empty() || sleep ? kNever : wakes_.by_time.begin()->first;
  UpkeepIndex(idle);
}

Time ModularPolicy::NextWake(const ClusterView& view, Time from) {
  // Any wake-up after now and up to the first at or after `from` will do (a decision
  // skipped does nothing, so waking for one early is only slower), so `from` is capped at
  // kMaxPeriods periods ahead.
  constexpr double kMaxPeriods = 1024;
  KeepIndex(view);
  if (wakes_.by_time.empty()) return kNever;
  const Time now = view.Now();
  const bool after_now = !(from > now);  // Wanted: the first after now.
  if (after_now) from = now;
  from = std::min(from, now + kMaxPeriods * period_);
  auto wanted = [&](Time t) { return after_now ? t > from : !(t < from); };
  const Time oldest = wakes_.by_time.begin()->first;
  if (wanted(oldest)) return oldest;
  // A job's first wake-up wanted is `from` plus its phase's distance past from's phase
  // (`ahead`), but for the rounding of its steps since the one kept (~1 ulp each: the
  // oldest kept has the most) and of the phases: within `width`. So the jobs are taken by
  // that distance (those within `width` of 0 either side first: they may be at `from` or
  // a period later) and stepped exactly until the distance of the next, less `width`,
  // exceeds the earliest found.
  const double width =
      ((from - oldest) / period_ + 8) * 8 * DBL_EPSILON * (std::abs(from) + period_);
  const double from_phase = ExactFmod(from, period_);
  auto ahead = [&](double phase) {
    double d = phase - from_phase;
    if (d < -width) d += period_;
    if (d >= period_ - width) d -= period_;
    return d;
  };
  double first_phase = from_phase - width;
  if (first_phase < 0) first_phase += period_;
  auto it = wakes_.by_phase.lower_bound({first_phase, std::numeric_limits<JobId>::min()});
  Time best = kNever;
  std::vector<std::pair<JobId, Time>>& stepped = stepped_;  // Each job's first wake-up after now.
  stepped.clear();
  for (size_t n = 0; n < wakes_.by_phase.size(); ++n, ++it) {
    if (it == wakes_.by_phase.end()) it = wakes_.by_phase.begin();
    if (!(from + ahead(it->first) - width < best)) break;
    const JobId id = it->second;
    Time t = wakes_.of.Find(id)->at;
    if (!wanted(t)) {
      const JobStatus s = view.Status(id);
      while (!(t > now)) t = config_.scheduling->NextKeyChange(s, t);
      stepped.emplace_back(id, t);
      while (!wanted(t)) t = config_.scheduling->NextKeyChange(s, t);
    }
    best = std::min(best, t);
  }
  for (const auto& [id, t] : stepped) MoveWake(id, t);
  return best;
}

void ModularPolicy::MoveWake(JobId id, Time at) {
  WakeIndex::At* old = wakes_.of.Find(id);
  // By time a wake-up moves later, often past every other: the end as a hint saves the
  // search (a wrong hint, as for most phases, costs a comparison).
  auto moved = [](WakeIndex::Set* set, WakeIndex::Set::iterator* where, double to) {
    auto node = set->extract(*where);
    node.value().first = to;
    *where = set->insert(set->end(), std::move(node));
  };
  moved(&wakes_.by_time, &old->in_time, at);
  old->at = at;
  const double phase = ExactFmod(at, period_);
  if (phase != old->phase) moved(&wakes_.by_phase, &old->in_phase, phase);
  old->phase = phase;
}

void ModularPolicy::Requeue(const ClusterView& view, JobId id) {
  ForgetWake(id);
  UntrackRunning(id);
  if (config_.replace_all) return;  // It never left the list.
  JobStatus s = view.Status(id);  // Pending once the stop is carried out.
  s.state = JobState::kPending;
  s.placement = nullptr;
  Enqueue(s, view.Now());
}

void ModularPolicy::SetWake(const JobStatus& s, Time at, Time now) {
  const JobId id = s.spec->id;
  const bool wanted = at > now && at != kNever;  // Else already seen, or never.
  if (wanted && running_index_ != RunningIndex::kLinear && index_kept_) {
    // A job asking again (the next key change once one has come): its entries move, the
    // set's node reused.
    auto [old, fresh] = wakes_.of.Insert(id, WakeIndex::At{.at = at});
    // A wake-up asked now is often later than every other: the hint saves the search.
    if (fresh) {
      old->in_time = wakes_.spare.InsertNear(&wakes_.by_time, wakes_.by_time.end(), {at, id});
    } else {
      auto node = wakes_.by_time.extract(old->in_time);
      node.value().first = at;
      old->in_time = wakes_.by_time.insert(wakes_.by_time.end(), std::move(node));
      old->at = at;
    }
    return;
  }
  ForgetWake(id);
  if (!wanted) return;
  double phase = 0;
  if (running_index_ == RunningIndex::kLinear) {
    if (period_ == 0) period_ = config_.scheduling->NextKeyChange(s, 0);
    phase = ExactFmod(at, period_);
  }
  WakeIndex::At w{.at = at, .phase = phase};
  if (index_kept_) {
    if (running_index_ == RunningIndex::kLinear) {
      w.in_phase = wakes_.spare.Insert(&wakes_.by_phase, {phase, id}).first;
    }
    // As above: the end as a hint.
    w.in_time = wakes_.spare.InsertNear(&wakes_.by_time, wakes_.by_time.end(), {at, id});
  }
  wakes_.of.Insert(id, w);  // Forgotten above: inserted afresh.
}

void ModularPolicy::ForgetWake(JobId id) {
  const WakeIndex::At* w = wakes_.of.Find(id);
  if (w == nullptr) return;
  if (index_kept_) {
    if (running_index_ == RunningIndex::kLinear) wakes_.spare.Erase(&wakes_.by_phase, w->in_phase);
    wakes_.spare.Erase(&wakes_.by_time, w->in_time);
  }
  wakes_.of.Erase(id);
}

}  // namespace schedkit
