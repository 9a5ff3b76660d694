// ModularPolicy: the mechanism behind MakeModularPolicy (schedkit/modular_policy.h, which
// documents its steps). Internal: users build it through the factory.
#ifndef SCHEDKIT_POLICIES_MODULAR_POLICY_H_
#define SCHEDKIT_POLICIES_MODULAR_POLICY_H_

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mechanisms/flat_map.h"
#include "mechanisms/job_queue.h"
#include "mechanisms/placement_walk.h"
#include "mechanisms/spare_nodes.h"
#include "mechanisms/persistent_order.h"
#include "schedkit/modular_policy.h"

namespace schedkit {

class ModularPolicy final : public ClonablePolicy<ModularPolicy> {
 public:
  // REQUIRES: admission, scheduling and placement are set.
  explicit ModularPolicy(ModularPolicyConfig config);
  ~ModularPolicy() override;

  std::string_view Name() const override { return config_.name; }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override;
  Status ModulesCloned() const override;

  // For tests. Whether the running index and the wake-ups are kept now (index_kept_), and
  // a fresh policy made to keep them even while nobody waits: the reference that one
  // dropping them must decide as. REQUIRES for the latter: nothing decided yet.
  bool IndexKept() const { return index_kept_; }
  void KeepIndexWhileIdle() {
    keep_index_while_idle_ = true;
    index_kept_ = true;
  }

 private:
  using QueueEntry = QueuedJob;
  // A running job in step 3's walk. `order` is its entry with its key now, or with an
  // upper bound of it (kUpperBounds, a key not read at this decision) whose key[0] may
  // have fallen as low as `floor` (the other elements are exact): the key is exact iff
  // floor == order.key[0]. `rate`: how fast key[0] grows (kLinear; else 0). `placement`:
  // where it runs, if its status was read at this decision (always for kLinear and
  // without a running index), and for every job DecidePriority stops; else null.
  struct Candidate {
    QueueEntry order;
    double floor;
    double rate;
    const Placement* placement;
  };
  // The part of the merged priority walk (step 3) whose order matters: every running
  // job not in `running` and every pending job in `chosen_pending` comes before it and
  // is chosen whatever the order, since their GPUs together fit the cluster; `budget` is
  // what they leave. The walk goes on over `running` (ascending) and the queue from
  // `next_pending`. One is kept across decisions (frontier_): its vectors keep their storage.
  struct Frontier {
    std::vector<Candidate> running;
    std::vector<JobId> chosen_pending;
    // GPUs of the smallest job of chosen_pending (none: the int maximum).
    int fewest_chosen_gpus = std::numeric_limits<int>::max();
    JobQueue::const_iterator next_pending;
    int64_t budget = 0;
  };
  // How running jobs are indexed by key (ModularPolicyConfig's promises; kNone also
  // when replace_all, tail_preemption or preemption=never make the index useless).
  enum class RunningIndex {
    kNone,
    kUpperBounds,  // running_keys_never_grow: keys as last read bound today's from above.
    kExact,        // running_keys_change_at_wakeups: re-read at each wake-up, exact.
    // running_key_rate: keys grow linearly at a per-job rate, so jobs of one rate keep
    // their order while they run. One ordered set per rate, each by the key as last read
    // moved back along its line to time 0 (key[0] - rate x read time), and merged at the
    // decision's time (RunningWalk).
    kLinear,
  };
  // Where a running job's entry stands in the running index and when its key was read.
  // The entry, *pos, holds the key as last read (kUpperBounds: it bounds the key now from
  // above; kExact: it is the key now; kLinear: key[0] moved back to time 0) and the job's
  // GPUs. Kept small: a walk down the index probes one of these per job it passes.
  struct ReadKey {
    Time at;
    // kLinear: running_key_rate when read. kUpperBounds: how fast key[0] may fall per
    // second since (KeyFallRate; infinite: no bound).
    double rate = 0;
    // The entry in its set (RunningSets::by_key, or its rate class's): found without a
    // search when it moves or leaves.
    std::set<QueueEntry>::iterator pos;
  };
  // The running index: jobs by the key last read (kUpperBounds, kExact: by_key; kLinear:
  // one set per rate, by_rate) and each one's ReadKey, which holds its entry's place in
  // its set. A copy (a cloned policy's) points those places into its own sets.
  struct RunningSets {
    std::set<QueueEntry> by_key;
    std::map<double, std::set<QueueEntry>> by_rate;
    FlatMap<ReadKey> read;
    SpareNodes<std::set<QueueEntry>> spare;  // Nodes of entries erased from any of the sets.

    RunningSets() = default;
    RunningSets(const RunningSets& other);
    RunningSets& operator=(const RunningSets&) = delete;
    // Moved node-based sets keep their nodes: the places stay valid.
    RunningSets(RunningSets&&) = default;
    void Clear();
  };
  // A running job with its key now (kUpperBounds: or an upper bound, down to `floor`, as
  // Candidate's), how fast key[0] grows (0 unless kLinear), and its placement if the walk
  // read its status at this decision (else null).
  struct RunningTop {
    QueueEntry entry;
    double rate = 0;
    double floor = 0;
    const Placement* placement = nullptr;
  };
  // One decision's walk down the running index in exact key order at Now().
  class RunningWalk;
  // kLinear: RunningWalk's rate classes, kept with their buffers from one walk to the next
  // (walks do not overlap; two or three per decision allocated anew were a twentieth of
  // LAS's busy runs). Storage, not state: a copy starts empty.
  struct WalkRead {
    QueueEntry exact;  // Its key now.
    double base;
    const Placement* placement;  // As its status read now says.
  };
  struct WalkClass {
    double rate;
    std::set<QueueEntry>::const_reverse_iterator next, end;  // Not yet read.
    double lowest_base;
    std::vector<WalkRead> read;  // Read, not yet given: ascending exact order.
    // RunningWalk::Fill has read as far as it must since `read` last lost its greatest:
    // until then another Fill would read nothing (it depends on nothing else).
    bool filled = false;
  };
  struct WalkStorage {
    std::vector<WalkClass> classes;  // The first `in_use` serve the walk under way.
    size_t in_use = 0;
    bool walking = false;
    WalkStorage() = default;
    WalkStorage(const WalkStorage&) {}
    WalkStorage& operator=(const WalkStorage&) { return *this; }
  };

  // Admits waiting jobs: into the queue (Enqueue), or into arrivals_ where they may skip it.
  void AdmitArrivals(const ClusterView& view, const EventBatch& events, Decisions* out);
  // A job's entry at `now`, as the view shows it: its key, submit time, id and GPU count
  // (a pending job's place in the queue; a running job's in the running index).
  QueueEntry EntryOf(const JobStatus& job, Time now) const;
  void Enqueue(const JobStatus& pending, Time now);
  // Queues arrivals_ (Enqueue's entries, read at admission) and empties it.
  void FlushArrivals();
  std::vector<Candidate> RunningInOrder(const ClusterView& view) const;
  // The whole walk: every running job re-keyed and sorted. O(running log running).
  void FullFrontier(const ClusterView& view, Frontier* f) const;
  // With a running index only: running jobs from the top down (re-keyed if stale) until
  // one is found that the pending jobs ahead of it cannot push out.
  // O(frontier log running). `*walk`: a walk of this decision that has only peeked at the
  // running jobs (RunningAllAheadOfPending, kLinear), which the frontier goes on from; made
  // here if empty.
  void TopFrontier(const ClusterView& view, std::optional<RunningWalk>* walk, Frontier* f);
  // kLinear: `lo`, running, ahead of `hi` (rate 0: pending). KeepsAhead's bound from the
  // exact keys the walk read.
  void TopKeepsAhead(const RunningTop& lo, const RunningTop& hi, Time now);
  // With a running index only. The greatest running job below `cursor` in exact key
  // order at Now(), re-reading stale keys on the way (kUpperBounds: only those whose fall
  // since their read could reorder them); end() if none. `*placement` and `*floor`: as
  // Candidate's, for the returned job (its placement if its key was re-read here).
  std::set<QueueEntry>::iterator NextExactBelow(const ClusterView& view,
                                                std::set<QueueEntry>::iterator cursor,
                                                const Placement** placement, double* floor);
  // kUpperBounds: a key read earlier, `read`, found below the same job's key `now`: the
  // scheduling module broke running_keys_never_grow. A bug: says so and aborts.
  void AbortIfGrown(const QueueEntry& read, const QueueEntry& now) const;
  // kUpperBounds: the lowest key[0] the entry `e`, read as `read`, may have at `now`.
  static double FloorNow(const QueueEntry& e, const ReadKey& read, Time now);
  // `*order < pending` for a running job's entry from the walk (with its `floor` and
  // `placement`, as Candidate's): decided by the bounds where they can, else the job's
  // key is read now (ReadExact).
  bool RunningAhead(const ClusterView& view, QueueEntry* order, double* floor,
                    const Placement** placement, const QueueEntry& pending) {
    // Its key now is at most order's (same other elements) and key[0] at least `floor`.
    if (*order < pending) return true;
    if (*floor == order->key[0] || *floor > pending.key[0]) return false;
    ReadExact(view, order, floor, placement);
    return *order < pending;
  }
  // kUpperBounds: reads the key now of the job whose entry `*read` holds, into `*exact`
  // (its status into `*status`), and lowers the entry to it (Lower). True iff the entry
  // kept its place.
  bool Reread(const ClusterView& view, ReadKey* read, JobStatus* status, QueueEntry* exact);
  // Reads a running job's key now into `*order` (exact: `*floor` too) and its index
  // entry, and its placement into `*placement`.
  void ReadExact(const ClusterView& view, QueueEntry* order, double* floor,
                 const Placement** placement);
  // kUpperBounds: how fast a job running on `running.placement`, started at
  // `start_rate` (NaN: not known), may see key[0] fall per second
  // (ModularPolicyConfig::running_key_fall); infinite without a bound.
  double KeyFallRate(const ClusterView& view, const JobStatus& running, double start_rate) const;
  // `start_rate`: the StartDecision's, NaN if the job was not started by this policy.
  void TrackRunning(const ClusterView& view, JobId id, const JobStatus& running,
                    double start_rate);
  void UntrackRunning(JobId id);
  // kExact: re-reads the keys of running jobs whose wake-up has come (before the
  // decision; BookDecisions then asks them for the next one).
  void RekeyWoken(const ClusterView& view);
  // At the first decision: running jobs this fresh policy never started (the runtime
  // re-adopting them after a restart, a switch or look-ahead of the `dynamic` policy)
  // count in the admitted GPU demand and get their key-change wake-ups. If such a job is
  // preempted, the runtime announces it as an arrival later: it is already queued and
  // counted, so that arrival is ignored.
  void AdoptRunning(const ClusterView& view);
  // Rebuilds the index of running jobs if the engine's set differs (a runtime may adopt
  // running jobs the policy never started).
  void SyncRunning(const ClusterView& view);
  // kLinear and kExact: the running index and the wake-up sets serve only decisions
  // where someone waits, so they are kept only then (index_kept_): KeepIndex builds them
  // from the view's running jobs (keys read now: exact for kExact, the line through now
  // for kLinear) and wakes_.of when a decision first needs them; UpkeepIndex, after each
  // decision, drops them once nobody has waited for more decisions than jobs run.
  void KeepIndex(const ClusterView& view);
  void UpkeepIndex(bool idle);
  bool IndexDropsWhileIdle() const {
    return running_index_ == RunningIndex::kLinear || running_index_ == RunningIndex::kExact;
  }
  void DecideKeepRunning(const ClusterView& view, Decisions* out);
  // PlacePending on a walk over the view's own free state (copied into the scratch state
  // only once a job is placed), skipping `skip` (sorted).
  void PlaceOnView(const ClusterView& view, Decisions* out, const std::vector<JobId>& skip);
  // Step 3, when no chosen pending job is placed: true iff releasing the `stopped` jobs
  // and booking each on its own placement again (pass 4) leaves exactly the view's free
  // state. Sufficient, checked per share: whole GPUs (their masks and counts are undone
  // exactly) on a node not held (a held node keeps released GPUs), no memory (a float
  // sum is not undone to the bit by a subtraction) on a node whose free memory is not
  // negative (CanAllocate's test passes again). CPU counts are integers and never
  // negative in the view (every booking checked them), so they are undone too.
  static bool StopsUndoneExactly(const ClusterView& view,
                                 const std::vector<const Candidate*>& stopped);
  // Step 3, when StopsUndoneExactly: false only if pass 3 would place none of the
  // `chosen` pending jobs on the state the `stopped` jobs' releases leave: each is one
  // the placement module puts on one node with its GPUs free
  // (PlacementModule::PlacesOnOneNodeWithFreeGpus), and no node would have that many
  // (the view's free GPUs, plus the stopped jobs' on their nodes). Then the try is not
  // made: its copy of the free state, releases and placements change nothing.
  // `fewest`: the GPUs of the smallest of them.
  bool ChosenMayBePlaced(const ClusterView& view, const std::vector<const Candidate*>& stopped,
                         const std::vector<JobId>& chosen, int fewest);
  // Step 3's pass 4 on `walk`: each job of stopped_ keeps its GPUs if they are still
  // free, else moves where it fits (with backfill) or is preempted.
  void ReturnStopped(const ClusterView& view, PlacementWalk* walk, Decisions* out);
  // Places every pending job (the queue and arrivals_, merged in queue order) beside the
  // running ones, and empties arrivals_; false (`out` untouched, arrivals_ flushed into
  // the queue) if one does not fit.
  bool PlaceAllPending(const ClusterView& view, Decisions* out);
  // PlaceAllPending's walk; false on the first job that does not fit.
  bool PlaceAllInOrder(const ClusterView& view, std::vector<StartDecision>* starts);
  // True iff every running job's key is ahead of the best pending job's: then nobody
  // can be preempted (step 2). O(running), no sort; with a running index, only the
  // top of the running jobs is re-keyed. kLinear: the walk it peeks with is left in
  // `*walk` for TopFrontier (its reads are what a new walk would read first).
  bool RunningAllAheadOfPending(const ClusterView& view, std::optional<RunningWalk>* walk);
  // Reads `*frontier` and changes its chosen_pending (a scratch member: frontier_).
  void DecidePriority(const ClusterView& view, Frontier* frontier, Decisions* out);
  void DecideReplaceAll(const ClusterView& view, Decisions* out);
  // Step 7: Blox's walk with preemption from the tail of the order.
  void DecideTailPreemption(const ClusterView& view, Decisions* out);
  // Places pending jobs from the queue, in order, on `walk`'s free state; stops on the
  // first misfit without backfill. Skips jobs in `skip` (sorted).
  void PlacePending(const ClusterView& view, PlacementWalk* walk, Decisions* out,
                    const std::vector<JobId>& skip = {});
  // PlacePending with backfill: the same decisions, walking only the queue's jobs that
  // may fit (queue_by_demand_).
  void BackfillPending(const ClusterView& view, PlacementWalk* walk, Decisions* out,
                       const std::vector<JobId>& skip);
  // Updates the queue and the wake-ups after the decisions; sets out->wake_at.
  void BookDecisions(const ClusterView& view, Decisions* out);
  // Puts a running job that stops now (preempted by this policy, or interrupted by the
  // engine) back in the queue.
  void Requeue(const ClusterView& view, JobId id);
  // kLinear: the earliest periodic wake-up of a running job after now and at or after
  // `from` (after now if `from` is not), or an earlier one after now. Each job's wake-ups
  // follow each other by the period, stepped from the one kept in wakes_.of (which may be
  // past: they are stepped here, only for the jobs whose phase may give the answer).
  Time NextWake(const ClusterView& view, Time from);
  // `s`: the job's status (kLinear: fixes the period at the first wake-up).
  void SetWake(const JobStatus& s, Time at, Time now);
  // kLinear, index kept: `id`'s wake-up moves to `at`, in both sets by moving its nodes
  // (no lookup: wakes_.of says where they are); its phase entry stays if the phase is the same (a
  // step by the period usually keeps it exactly).
  void MoveWake(JobId id, Time at);
  void ForgetWake(JobId id);
  // kLinear: the decision compared `lo`, a running job whose key[0] grows at `lo_rate`,
  // and found it ahead of `hi` (growing at `hi_rate`: 0 if pending); `lo_abs` >= |lo|
  // (a bound covering a whole rate class). Brings order_holds_until_ down to when that
  // could come out the other way.
  void KeepsAhead(double lo, double lo_abs, double lo_rate, double hi, double hi_rate, Time now);
  // The same for two of step 3's candidates, or a candidate and a pending job (rate 0).
  void KeepsAhead(const Candidate& lo, const QueueEntry& hi, double hi_rate, Time now) {
    KeepsAhead(lo.order.key[0], std::abs(lo.order.key[0]), lo.rate, hi.key[0], hi_rate, now);
  }

  ModularPolicyConfig config_;
  bool adopted_ = false;  // AdoptRunning has run.
  std::unordered_set<JobId> adopted_ids_;  // Adopted, neither finished nor announced since.
  std::vector<JobId> waiting_;  // Arrived, not yet admitted, in arrival order.
  int64_t admitted_gpu_demand_ = 0;
  JobQueue queue_;  // Admitted pending jobs (but arrivals_).
  // Jobs admitted at this decision, with their queue entries, not queued yet: below
  // saturation most arrivals start at once, and then never touch the queue. Kept only
  // where PlaceAllPending is the decision's first step (arrivals_may_skip_queue_); every
  // other path flushes them into the queue before reading it. Empty between decisions.
  struct Arrival {
    QueueEntry entry;
    const JobSpec* spec;
  };
  std::vector<Arrival> arrivals_;
  const bool arrivals_may_skip_queue_;
  // The same jobs split by what ClusterState::MayFit reads of them: their GPU count and
  // whether they are fractional. The backfill walk (PlacePending) walks only the parts
  // whose jobs may fit, merged in queue order. A part that empties stays, empty, for its
  // class's next job (a busy queue empties and refills a class at many events).
  using DemandClass = std::pair<int, bool>;
  static DemandClass DemandOf(const JobSpec& spec) {
    return {spec.gpus, spec.gpu_milli < kMilliPerGpu};
  }
  // A part is found from the queue (QueueRemove reads the entry there), so it needs no
  // index by id of its own.
  struct DemandPart {
    std::set<QueueEntry> jobs;
    SpareNodes<std::set<QueueEntry>> spare;  // Nodes of `jobs`' erased entries.
    // The shape of the part's first job, and how many of `jobs` have it. When all do, a
    // by-shape module's misfit for one of them is a misfit for all of them until the
    // walk's next allocation. (A part whose first shape left and whose jobs now share
    // another counts as of many shapes until it empties: never wrong, at times slower.)
    PlacementWalk::Shape shape{};
    int64_t of_shape = 0;
    bool one_shape() const { return static_cast<size_t>(of_shape) == jobs.size(); }
  };
  std::map<DemandClass, DemandPart> queue_by_demand_;
  // The GPUs the queue's whole-GPU jobs ask for in all: PlaceAllPending cannot succeed
  // when more than are free.
  int64_t queued_whole_gpus_ = 0;
  void QueueInsert(const QueueEntry& e, const JobSpec& spec);
  void QueueRemove(JobId id, const JobSpec& spec);
  // replace_all only: every admitted unfinished job, in the persistent list order.
  PersistentOrder list_;
  // Running jobs' next key changes (SchedulingModule::NextKeyChange). `of` always holds
  // each job's; the sets only while index_kept_, built from `of` (which may then hold past
  // wake-ups: caught up by the next decision that keeps the index). Each entry of `of` says
  // where its job is in the sets, so that moving or forgetting a wake-up walks no tree
  // (the sets' lookups were a fifth of LAS at 89 %, their nodes rarely in cache).
  struct WakeIndex {
    using Set = std::set<std::pair<double, JobId>>;
    struct At {
      Time at = kNever;
      // kLinear: fmod(at, period_), by ExactFmod (mechanisms/exact_fmod.h), kept rather
      // than computed again (fmod was 3 % of LAS at 89 %).
      double phase = 0;
      Set::iterator in_time{}, in_phase{};  // While the sets are kept (in_phase: kLinear).
    };
    Set by_time;   // (at, id): earliest first (kLinear: a wake-up of each job's chain,
                   // maybe past, stepped on by NextWake).
    Set by_phase;  // kLinear: (phase, id). A job's later wake-ups keep its phase, up to
                   // rounding; the period is NextKeyChange(s, 0).
    FlatMap<At> of;
    SpareNodes<Set> spare;  // Nodes erased from either set (one type: Time is double).

    WakeIndex() = default;
    WakeIndex(const WakeIndex& other);  // The copy's entries name the copy's sets.
    WakeIndex& operator=(const WakeIndex&) = delete;
    WakeIndex(WakeIndex&&) = default;  // Moved node-based sets keep their nodes.
  };
  WakeIndex wakes_;
  Time period_ = 0;
  // Whether the running index (running_.by_key, running_.by_rate, running_.read,
  // running_gpus_) and the wake-up sets are kept (wakes_.of always is): always but for
  // kLinear and kExact, which drop them while nobody waits (UpkeepIndex); and for how many
  // decisions in a row nobody has waited since.
  bool index_kept_;
  int64_t index_idle_ = 0;
  bool keep_index_while_idle_ = false;  // KeepIndexWhileIdle.
  // kLinear, during a decision of step 3 or 2: whether comparisons are watched
  // (KeepsAhead), and until when every comparison made so far comes out the same way
  // (kNever: for ever).
  bool watch_order_ = false;
  Time order_holds_until_ = kNever;
  // With a running index only: running jobs by the key last read, and the GPUs they
  // ask for in all.
  const RunningIndex running_index_;
  RunningSets running_;
  int64_t running_gpus_ = 0;

  // Per-decision scratch, kept so that its storage is not allocated at every decision:
  // a free state to place on (ScratchFree), step 3's frontier and what builds it.
  // The walks' storage (one walk at a time): its state is also ScratchFree's.
  PlacementWalk::Scratch walk_scratch_;
  WalkStorage running_walk_;  // RunningWalk's.
  // walk_scratch_.state, holding a copy of the view's free resources.
  ClusterState* ScratchFree(const ClusterView& view);
  Frontier frontier_;
  std::vector<std::pair<JobQueue::const_iterator, int>> frontier_before_;
  std::vector<RunningTop> frontier_top_;
  std::vector<char> chosen_running_;
  std::vector<const Candidate*> stopped_;
  std::vector<uint64_t> released_gpus_;  // ChosenMayBePlaced's: GPUs per node, zero between calls.
  std::vector<JobId> tried_;
  std::vector<std::pair<JobId, Time>> stepped_;  // NextWake's: each job's first wake-up after now.
  std::vector<StartDecision> all_starts_;  // PlaceAllPending's, until they all fit.
  std::vector<JobId> admitted_, admitted_sorted_;  // AdmitArrivals': what the module admits.
  // One demand class of the queue in BackfillPending's walk: its jobs not yet read.
  struct BackfillPart {
    JobQueue::const_iterator next, end;
    int gpus;
    int gpu_milli;  // Any milli-GPU of the class: MayFit reads only whether it is whole.
    bool one_shape;  // Every job of the part has one shape (DemandPart::one_shape).
    // Whether the part's next job may fit, and walk->allocations() when that was read:
    // the answer holds while no allocation changed the free state. MayFit's answer, or
    // false once a job of a one-shape part found no place on a by-shape walk.
    bool may_fit = false;
    int64_t checked_at = -1;
  };
  std::vector<BackfillPart> backfill_parts_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_POLICIES_MODULAR_POLICY_H_
