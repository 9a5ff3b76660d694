#include "schedkit/simulator.h"

#include "schedkit/job_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "engine/decision_applier.h"
#include "engine/event_queue.h"
#include "engine/job_index.h"
#include "engine/job_store.h"
#include "engine/progress_model.h"
#include "schedkit/attained.h"

namespace schedkit {

double RestartOverheads::For(std::string_view model, int gpus) const {
  auto by_model = table_.find(model);
  if (by_model == table_.end()) return default_s_;
  auto it = by_model->second.find(gpus);
  return it == by_model->second.end() ? default_s_ : it->second;
}

namespace {

// Engine-side state of one job. Progress is lazy: `remaining_s` (Work, booked by the
// run's progress model) and `executed_s` are exact at `last_update` and extrapolated from
// there, so an event touches only the jobs it concerns.
//
// Layout: three cache lines, aligned. The first holds what every event reads of a job it
// does not otherwise touch (the event queue's staleness check, the swap-remove of another
// job's list slot, the applier's look-up): Work, spec, generation, list_pos, state.
struct alignas(64) JobRun : Work {
  const JobSpec* spec = nullptr;
  uint32_t generation = 0;  // Bumped whenever the pending completion event becomes stale.
  int32_t list_pos = -1;    // Index in pending_ or running_.
  JobState state = JobState::kPending;
  bool arrived = false;
  bool retired = false;  // Streamed runs: counted in the retired totals, never read again.
  // Second line.
  int32_t index = -1;  // Its own index in the engine's JobStore.
  double work_s = 0;       // Solo seconds of work in all.
  double executed_s = 0;   // Wall seconds run, at last_update.
  Time first_start = kNever;
  Time last_start = kNever;
  int preemptions = 0;
  int run_gpus = 0;          // GPUs of its current (or last) run: spec->gpus unless grown.
  double own_overhead_s = 0;  // Its restart overhead when it runs alone.
  double max_rate = 1;    // Highest rate it ever ran at (for the solo-runtime invariant).
  double gpu_share = 1;   // 1 / members of its group at start: its share of the GPUs.
  double charged_gpu_s = 0;  // executed_s x GPUs x gpu_share, summed over intervals.
  double grown_gpu_s = 0;    // Wall seconds x GPUs it ran on beyond spec->gpus (elastic).
  Placement placement;
};
static_assert(sizeof(JobRun) == 192, "JobRun: three cache lines");

// The pending or the running jobs, unordered: their ids (what the view returns) and, in
// the same order, their engine indices (the swap-remove finds the job it moves without
// the id index).
struct JobList {
  std::vector<JobId> ids;
  std::vector<int32_t> idx;
  size_t size() const { return ids.size(); }
};

// Relative tolerance for "the job's work is done": completion times are computed from
// remaining/rate, so the remainder at that instant may be a few ulps (of the work or of
// the clock) off zero.
constexpr double kDoneEpsilon = 1e-9;

// The clock is a double of seconds: below 2^32 s (about 136 years) its resolution is
// 2^-20 s, under the microsecond the invariants and the JCTs rely on. A later submit
// time, solo runtime or membership change is refused: past it a one-second job could
// finish in zero seconds (issue 21: submit times of 1e15 s tripped an invariant).
constexpr double kMaxTimeS = 4294967296.0;

std::string TimeLimitError(const std::string& what, double value) {
  char text[160];
  std::snprintf(text, sizeof(text),
                "%s %.17g s is past %.0f s (2^32 s, about 136 years), the latest time the "
                "simulator's clock resolves to a microsecond",
                what.c_str(), value, kMaxTimeS);
  return text;
}

}  // namespace

class Simulator::Impl final : public ClusterView {
 public:
  Impl(const Trace* trace, const ClusterSpec* cluster, SimulatorOptions options)
      : cluster_(cluster),
        options_(std::move(options)),
        progress_(MakeProgressRules(options_.progress)),
        applier_(cluster),
        index_(trace->jobs) {
    for (const JobSpec& spec : trace->jobs) SetUp(jobs_.Add(&spec));
    CheckOptions();
  }

  // A streamed run: jobs are read from `source` as the clock reaches them, and freed once
  // finished or rejected.
  Impl(JobSource* source, const ClusterSpec* cluster, SimulatorOptions options)
      : cluster_(cluster),
        options_(std::move(options)),
        progress_(MakeProgressRules(options_.progress)),
        applier_(cluster),
        source_(source),
        streamed_(true) {
    CheckOptions();
    ReadNextJob();
  }

  // A new job's engine state, from its spec; the first invalid job sets input_error_.
  void SetUp(int32_t index) {
    JobRun& run = jobs_[index];
    const JobSpec& spec = *run.spec;
    run.index = index;
    run.work_s = spec.SoloRuntime() * options_.runtime_factor.value_or(1.0);
    run.remaining_s = run.work_s;
    run.own_overhead_s = options_.overheads.For(spec.profile.model, spec.gpus);
    run.overhead_s = run.own_overhead_s;
    run.run_gpus = spec.gpus;
    if (!input_error_.ok()) return;
    auto who = [&] { return "job " + std::to_string(spec.id) + ": "; };  // Only for an error.
    if (spec.max_gpus != 0 && spec.max_gpus < spec.gpus) {
      input_error_ = schedkit::Status::InvalidArgument(
          who() + "max_gpus " + std::to_string(spec.max_gpus) + " is below its gpus " +
          std::to_string(spec.gpus) + " (0 = rigid)");
    } else if (spec.Elastic() && !options_.scaling) {
      input_error_ = schedkit::Status::InvalidArgument(
          who() + "elastic (max_gpus " + std::to_string(spec.max_gpus) +
          ") but the run has no scaling model (SimulatorOptions::scaling)");
    } else if (!(spec.submit_s <= kMaxTimeS)) {
      input_error_ = schedkit::Status::InvalidArgument(TimeLimitError(who() + "submit_s", spec.submit_s));
    } else if (!(run.work_s + run.own_overhead_s <= kMaxTimeS)) {
      input_error_ = schedkit::Status::InvalidArgument(
          TimeLimitError(who() + "solo runtime (with its restart overhead)", run.work_s + run.own_overhead_s));
    }
  }

  // Streamed runs: the next job of the source joins the store, not yet arrived (its
  // submit time is the next arrival's). At the end of the source, or on a bad job (out of
  // order, an id seen before, or one SetUp refuses), no more jobs are read; the error, if
  // any, ends the run (input_error_).
  void ReadNextJob() {
    if (source_ == nullptr || !input_error_.ok()) return;
    JobSpec& spec = *jobs_.NextSpec();  // Read in place; dropped unless it is added below.
    if (!source_->Next(&spec)) {
      jobs_.DropNextSpec();
      input_error_ = source_->status();
      source_ = nullptr;
      return;
    }
    if (jobs_.size() > 0 && (spec.submit_s < last_read_submit_s_ ||
                             (spec.submit_s == last_read_submit_s_ && spec.id <= last_read_id_))) {
      input_error_ = schedkit::Status::InvalidArgument(
          "job " + std::to_string(spec.id) + ": out of (submit time, id) order in the job stream");
      PlaceInputError();
      jobs_.DropNextSpec();
      return;
    }
    if (jobs_.size() >= static_cast<size_t>(INT32_MAX)) {
      input_error_ = schedkit::Status::InvalidArgument("more than 2^31 - 1 jobs in one run");
      jobs_.DropNextSpec();
      return;
    }
    if (index_.Find(spec.id) >= 0) {
      input_error_ = schedkit::Status::InvalidArgument("job " + std::to_string(spec.id) + ": id given twice");
      PlaceInputError();
      jobs_.DropNextSpec();
      return;
    }
    last_read_submit_s_ = spec.submit_s;
    last_read_id_ = spec.id;
    const JobId id = spec.id;
    const int32_t index = jobs_.AddNextSpec();
    index_.Add(id, index);
    SetUp(index);
    if (!input_error_.ok()) PlaceInputError();
  }

  // Prefixes the error about the job last read with where the source read it ("FILE:LINE").
  void PlaceInputError() {
    const std::string where = source_->Where();
    if (!where.empty()) input_error_ = schedkit::Status::InvalidArgument(where + ": " + input_error_.message());
  }

  // The checks of the options (membership times, rounds) and the held-back nodes.
  void CheckOptions() {
    for (const MembershipEvent& e : options_.membership) {
      if (input_error_.ok() && !(e.time_s <= kMaxTimeS)) {
        input_error_ = schedkit::Status::InvalidArgument(
            TimeLimitError("membership change of node " + std::to_string(e.node) + ": time_s", e.time_s));
      }
    }
    if (input_error_.ok() && !(round_s_ >= 0 && round_s_ <= kMaxTimeS)) {
      input_error_ = schedkit::Status::InvalidArgument(
          "decision_round_s must be a number of seconds in [0, 2^32], got " + std::to_string(round_s_));
    }
    // A node whose first change is a join is absent until then.
    std::vector<bool> seen(cluster_->nodes.size(), false);
    for (const MembershipEvent& e : options_.membership) {
      if (seen[e.node]) continue;
      seen[e.node] = true;
      if (e.change == MembershipChange::kJoin) applier_.HoldBack(e.node, true);
    }
  }

  bool streamed() const { return streamed_; }

  // A copy for Simulator::Fork: everything but the observers, which the caller drops.
  Impl(const Impl&) = default;

  // The engine at `view`'s point, for SimulateFrom: `snapshot` holds the specs of the
  // view's unfinished jobs (its first `in_view` jobs), then the arrivals after the view's
  // time, in (submit, id) order, and must outlive the engine.
  Impl(const ClusterView& view, const Trace* snapshot, size_t in_view, SimulatorOptions options)
      : Impl(snapshot, &view.Cluster(), WithoutMembership(std::move(options))) {
    now_ = view.Now();
    const ClusterState capacity = view.Capacity();
    for (int node = 0; node < capacity.num_nodes(); ++node) {
      if (capacity.held(node)) applier_.HoldBack(node, true);
    }
    for (int32_t i = 0; i < static_cast<int32_t>(in_view); ++i) {
      JobRun& j = jobs_[i];
      const JobStatus s = view.Status(j.spec->id);
      const std::string who = "job " + std::to_string(j.spec->id);
      if (!std::isfinite(s.remaining_s)) {
        input_error_ = schedkit::Status::InvalidArgument(who + ": remaining work unknown");
        return;
      }
      j.arrived = true;
      j.work_s = s.remaining_s;  // What the invariants can check from here.
      j.remaining_s = s.remaining_s;
      j.executed_s = s.executed_s;
      j.first_start = s.first_start_s;
      j.last_start = s.last_start_s;
      j.preemptions = s.preemptions;
      j.last_update = now_;
      if (!s.running()) {
        AddTo(&pending_, j);
        announce_.push_back(j.spec->id);
        continue;
      }
      schedkit::Status st = applier_.Adopt(j.spec->id, *s.placement, 0, false);
      if (!st.ok()) {
        input_error_ = schedkit::Status::InvalidArgument(who + ": cannot adopt its placement: " +
                                                         st.message());
        return;
      }
      AddTo(&running_, j);
      j.state = JobState::kRunning;
      j.placement = *s.placement;
      j.rate = PlacementSpeed(*j.spec, j.placement, *cluster_);
      j.max_rate = std::max(j.max_rate, j.rate);
      progress_->OnStart(&j, j.last_start);  // What is left of its overhead.
      events_.Push(PredictCompletion(j), j.index, ++j.generation);
    }
    next_arrival_ = in_view;  // The rest arrive as a trace's jobs do, at their submit times.
  }

  void DropObservers() { observers_.clear(); }
  bool awaiting_apply() const { return awaiting_apply_; }

  // ClusterView.
  Time Now() const override { return now_; }
  const ClusterSpec& Cluster() const override { return *cluster_; }
  const ClusterState& Resources() const override { return applier_.free(); }
  ClusterState Capacity() const override { return applier_.Capacity(); }
  const std::vector<JobId>& RunningJobs() const override { return running_.ids; }
  std::vector<JobId> PendingJobs() const override {
    std::vector<int32_t> idx = pending_.idx;
    std::sort(idx.begin(), idx.end());  // Trace order is (submit, id).
    std::vector<JobId> out;
    out.reserve(idx.size());
    for (int32_t i : idx) out.push_back(jobs_[i].spec->id);
    return out;
  }
  const JobSpec& Spec(JobId id) const override { return *jobs_[index_.At(id)].spec; }
  const ThroughputTable* Throughputs() const override { return options_.throughputs.get(); }
  JobStatus Status(JobId id) const override {
    const JobRun& j = jobs_[index_.At(id)];
    JobStatus s;
    s.spec = j.spec;
    s.state = j.state;
    s.first_start_s = j.first_start;
    s.last_start_s = j.last_start;
    s.preemptions = j.preemptions;
    s.executed_s = j.executed_s;
    s.remaining_s = j.remaining_s;
    double current_grown = 0;  // The current run's GPU-seconds beyond the request.
    if (j.state == JobState::kRunning) {
      s.executed_s += now_ - j.last_update;
      s.remaining_s = RemainingAt(j, now_);
      s.placement = &j.placement;
      current_grown = GrownGpuSeconds(now_ - j.last_update, j.run_gpus, j.spec->gpus);
    }
    s.attained_gpu_s = AttainedGpuSeconds(s.executed_s, j.spec->gpus, j.grown_gpu_s, current_grown);
    return s;
  }
  const Placement* PlacementOf(JobId id) const override {
    const JobRun& j = jobs_[index_.At(id)];
    return j.state == JobState::kRunning ? &j.placement : nullptr;
  }

  void AddObserver(SimulationObserver* o) { observers_.push_back(o); }
  const SimulationStats& stats() const { return stats_; }

  bool NextDecisionPoint(EventBatch* batch) {
    batch->arrived.clear();  // A new batch, keeping the vectors' storage.
    batch->finished.clear();
    batch->interrupted.clear();
    batch->woken = false;
    RetireDoneJobs();
    DropStaleEvents();
    Time t = kNever;
    if (next_arrival_ < jobs_.size()) t = DecisionTime(jobs_[next_arrival_].spec->submit_s);
    if (!events_.empty()) t = std::min(t, DecisionTime(events_.top().time));
    if (next_change_ < options_.membership.size()) {
      t = std::min(t, DecisionTime(options_.membership[next_change_].time_s));
    }
    t = std::min(t, DecisionTime(wake_at_));
    if (!announce_.empty()) t = std::min(t, now_);
    if (t == kNever) return false;
    awaiting_apply_ = true;
    // Rounds: completions before the round's end are booked at their own times (their
    // GPUs fall idle); the policy hears of them at the end. Event-driven, t is the
    // earliest event and this never runs.
    while (!events_.empty() && events_.top().time < t) {
      now_ = events_.top().time;
      ProcessCompletions(batch);
      DropStaleEvents();
    }
    now_ = t;
    stats_.end_time = std::max(stats_.end_time, now_);
    ProcessCompletions(batch);
    ProcessMembership(batch);
    while (next_arrival_ < jobs_.size() && DecisionTime(jobs_[next_arrival_].spec->submit_s) == now_) {
      JobRun& j = jobs_[next_arrival_++];
      ReadNextJob();  // Streamed: the one after it (the store never moves `j`).
      j.arrived = true;
      j.last_update = now_;
      AddTo(&pending_, j);
      ++stats_.events;
      if (!applier_.NeverFits(*j.spec).empty()) {
        Reject(j);  // Never reaches the policy (EventBatch).
        continue;
      }
      batch->arrived.push_back(j.spec->id);
    }
    batch->arrived.insert(batch->arrived.begin(), announce_.begin(), announce_.end());
    announce_.clear();
    if (progress_->BooksEveryJobAtEveryEvent()) AdvanceAllRunning();
    if (DecisionTime(wake_at_) == now_) {
      batch->woken = true;
      wake_at_ = kNever;
      ++stats_.events;
    }
    PrefetchNextEvent();
    return true;
  }

  // All or nothing: decisions are validated in full before any is applied.
  schedkit::Status Apply(const Decisions& d) {
    if (!input_error_.ok()) return input_error_;  // Not the macro: no copy of an Ok status.
    ++stats_.decisions;
    if (d.failed()) return d.error;
    SCHEDKIT_RETURN_IF_ERROR(applier_.Validate(d, now_, Lookup(), &plan_));
    awaiting_apply_ = false;
    for (const DecisionPlan::Reject& r : plan_.reject) Reject(jobs_[index_.At(r.job)]);
    for (JobId id : plan_.stop) Preempt(jobs_[index_.At(id)]);  // Moves stop, then restart.
    applier_.Book(plan_);
    StartAll(plan_);
    wake_at_ = d.wake_at;
    if (progress_->BooksEveryJobAtEveryEvent()) RepredictAllRunning();
    NotifyClusterState();
    return schedkit::Status::Ok();
  }

  schedkit::Status Run(Policy* policy) {
    SCHEDKIT_RETURN_IF_ERROR(input_error_);
    EventBatch batch;
    Decisions decisions;
    while (NextDecisionPoint(&batch)) {
      decisions.Clear();
      policy->Decide(*this, batch, &decisions);
      schedkit::Status st = Apply(decisions);
      if (!st.ok()) {
        SCHEDKIT_RETURN_IF_ERROR(input_error_);  // A bad job read from the stream.
        return schedkit::Status::InvalidArgument(std::string(policy->Name()) + ": " + st.message());
      }
    }
    SCHEDKIT_RETURN_IF_ERROR(input_error_);
    Finish();
    return schedkit::Status::Ok();
  }

 private:
  static SimulatorOptions WithoutMembership(SimulatorOptions o) {
    o.membership.clear();
    return o;
  }

  JobLookup Lookup() const {
    return [this](JobId id, JobFacts* facts) {
      const int32_t i = index_.Find(id);
      if (i < 0 || jobs_.retired(i) || !jobs_[i].arrived) return false;
      *facts = JobFacts{jobs_[i].state, jobs_[i].spec->gpus, jobs_[i].spec->max_gpus, jobs_[i].spec};
      return true;
    };
  }

  double RemainingAt(const JobRun& j, Time t) const { return progress_->RemainingAt(j, t); }

  // When the policy sees something that happens at `t`: at once, or with rounds
  // (decision_round_s), at the first round boundary at or after t.
  Time DecisionTime(Time t) const {
    if (round_s_ <= 0 || t == kNever) return t;
    return std::ceil(t / round_s_) * round_s_;
  }

  // Books progress of running job `j` up to `now_`.
  void Advance(JobRun& j) {
    progress_->Book(&j, now_);
    ChargeGpuTime(j, now_ - j.last_update);
    j.executed_s = progress_->ExecutedAt(j.executed_s, j.last_update, now_);
    j.last_update = now_;
  }

  void AddExecuted(JobRun& j, double dt) {
    j.executed_s += dt;
    ChargeGpuTime(j, dt);
  }

  // A fractional job is charged its share of the GPU (JobSpec::gpu_milli).
  void ChargeGpuTime(JobRun& j, double dt) {
    const double fraction = static_cast<double>(j.spec->gpu_milli) / kMilliPerGpu;
    j.charged_gpu_s += dt * j.run_gpus * j.gpu_share * fraction;
    if (j.run_gpus != j.spec->gpus) j.grown_gpu_s += GrownGpuSeconds(dt, j.run_gpus, j.spec->gpus);
  }

  void AdvanceAllRunning() {
    for (int32_t i : running_.idx) Advance(jobs_[i]);
  }

  // Every event changed every running job's remaining work (BooksEveryJobAtEveryEvent).
  void RepredictAllRunning() {
    for (int32_t idx : running_.idx) {
      JobRun& j = jobs_[idx];
      events_.Push(PredictCompletion(j), idx, ++j.generation);
    }
  }

  // When running job `j` finishes if nothing changes.
  Time PredictCompletion(const JobRun& j) const { return progress_->PredictCompletion(j, now_); }

  // The earliest pending event's job, whose state the next decision point reads first (a
  // cache miss on a job last touched when it started): its lines are fetched while the
  // policy decides (called as the decision point is handed to the policy; a start the
  // decision makes may come first, and the hint is then wasted). Nothing is read.
  void PrefetchNextEvent() const {
    if (events_.empty() || jobs_.retired(events_.top().job)) return;
    const char* run = reinterpret_cast<const char*>(&jobs_[events_.top().job]);
    for (size_t line = 0; line < sizeof(JobRun); line += 64) __builtin_prefetch(run + line);
  }

  // A retired job's events are all stale (it finished or was rejected).
  bool Stale(const TimedEvent& e) const {
    return jobs_.retired(e.job) || e.generation != jobs_[e.job].generation;
  }

  // Stale events at the top are dropped as they come. Those further down would wait there
  // until their time: a job preempted (or re-predicted) long before it would have finished
  // leaves one each time, which a policy that swaps jobs at every decision turns into tens
  // of millions. So once the queue holds more than twice the running jobs (each has at
  // most one live event) and some slack, every stale event goes: O(queue) at most once per
  // that many pushes. Events pop in the same order either way (EventQueue).
  void DropStaleEvents() {
    while (!events_.empty() && Stale(events_.top())) events_.Pop();
    constexpr size_t kSlack = 1024;
    if (events_.size() > 2 * running_.idx.size() + kSlack) {
      events_.DropIf([this](const TimedEvent& e) { return Stale(e); });
    }
  }

  // Streamed runs: the jobs that finished or were rejected before the current decision
  // point are freed. The policy could still read them in the decision that heard of them,
  // never later (docs/architecture.md, "Streamed runs").
  void RetireDoneJobs() {
    for (int32_t i : done_) {
      JobRun& j = jobs_[i];
      j.retired = true;  // Its chunk may outlive it: Finish must not count it twice.
      retired_gpu_s_ += j.charged_gpu_s;
      if (j.state != JobState::kFinished) ++retired_unfinished_;
      jobs_.Retire(i);
    }
    done_.clear();
  }

  // Every event is at now_ or later (the decision point dropped the stale ones at the top
  // first). An event's time is read before its job's state: the first event after now_ is
  // left, unread, to the next decision point, and PrefetchNextEvent fetches its job's state
  // meanwhile (a stale one is dropped there: events pop in (time, seq) order whenever the
  // stale ones around them are dropped).
  void ProcessCompletions(EventBatch* batch) {
    while (!events_.empty() && events_.top().time == now_) {
      const TimedEvent event = events_.top();
      events_.Pop();
      if (Stale(event)) continue;
      const int32_t idx = event.job;
      ++stats_.events;
      JobRun& j = jobs_[idx];
      // The event was predicted from remaining/rate at an earlier time; the clock's
      // rounding at `now` bounds how far from zero the remainder can be.
      if (progress_->RemainingAtCompletion(j, now_) >
          kDoneEpsilon * std::max({1.0, j.work_s, now_})) {
        Die("job " + std::to_string(j.spec->id) + " has work left at its completion event");
      }
      AddExecuted(j, now_ - j.last_update);
      j.last_update = now_;
      j.remaining_s = 0;
      Complete(j);
      batch->finished.push_back(j.spec->id);
    }
  }

  void ProcessMembership(EventBatch* batch) {
    const std::vector<MembershipEvent>& changes = options_.membership;
    for (; next_change_ < changes.size() && DecisionTime(changes[next_change_].time_s) == now_;
         ++next_change_) {
      const MembershipEvent& e = changes[next_change_];
      ++stats_.events;
      const bool up = e.change == MembershipChange::kJoin || e.change == MembershipChange::kRecover;
      applier_.HoldBack(e.node, !up);
      if (e.change == MembershipChange::kFail) InterruptJobsOn(e.node, batch);
    }
  }

  // Stops every job running on `node` (guests and group members too): pending again.
  void InterruptJobsOn(int node, EventBatch* batch) {
    std::vector<JobId> victims;
    for (int32_t i : running_.idx) {
      for (const NodeShare& share : jobs_[i].placement.shares) {
        if (share.node == node) victims.push_back(jobs_[i].spec->id);
      }
    }
    std::sort(victims.begin(), victims.end());  // running_ order is unspecified.
    for (JobId id : victims) {
      Preempt(jobs_[index_.At(id)]);
      batch->interrupted.push_back(id);
    }
  }

  void Complete(JobRun& j) {
    applier_.Release(j.spec->id);
    RemoveFrom(&running_, j);
    j.state = JobState::kFinished;
    ++j.generation;
    if (options_.check_invariants) CheckFinishedJob(j);
    for (SimulationObserver* o : observers_) {
      o->OnJobFinish(*j.spec, now_, j.first_start, j.executed_s, j.preemptions, j.placement);
    }
    if (streamed_) done_.push_back(j.index);
  }

  void Reject(JobRun& j) {
    RemoveFrom(&pending_, j);
    j.state = JobState::kRejected;
    for (SimulationObserver* o : observers_) o->OnJobReject(*j.spec, now_);
    if (streamed_) done_.push_back(j.index);
  }

  void Preempt(JobRun& j) {
    Advance(j);
    applier_.Release(j.spec->id);
    j.placement.shares.clear();
    RemoveFrom(&running_, j);
    AddTo(&pending_, j);
    j.state = JobState::kPending;
    ++j.preemptions;
    ++j.generation;
    ++stats_.preemptions;
    for (SimulationObserver* o : observers_) o->OnJobPreempt(*j.spec, now_);
  }

  // The applier has booked every start. Each member of a group pays the overhead the
  // progress model charges a member (its own, or the group's sum).
  void StartAll(const DecisionPlan& plan) {
    for (const StartAction& a : plan.start) {
      const StartDecision& s = *a.decision;
      JobRun& j = jobs_[index_.At(s.job)];
      // The one throughput model (co-location, GPU type, elastic speed-up), shared with
      // the runtime: exactly the policy's rate on one-type clusters of rigid jobs.
      j.rate = StartRate(*j.spec, s.rate, s.placement, *cluster_, options_.scaling.get());
      j.run_gpus = s.placement.gpus();
      j.max_rate = std::max(j.max_rate, j.rate);
      j.overhead_s = j.own_overhead_s;
      if (a.group >= 0) {
        j.overhead_s =
            progress_->MemberOverhead(j.own_overhead_s, GroupOverhead(plan.groups[a.group]));
      }
      j.gpu_share = s.guest ? 0.0 : 1.0 / a.group_size;  // A guest's GPU time is its hosts'.
      Start(j, s.placement);
    }
  }

  double GroupOverhead(const std::vector<JobId>& members) const {
    double sum = 0;
    for (JobId id : members) sum += jobs_[index_.At(id)].own_overhead_s;
    return sum;
  }

  void Start(JobRun& j, const Placement& p) {
    RemoveFrom(&pending_, j);
    AddTo(&running_, j);
    j.state = JobState::kRunning;
    j.placement = p;  // One node: held inline, no malloc.
    j.last_update = now_;
    j.last_start = now_;
    if (j.first_start == kNever) j.first_start = now_;
    progress_->OnStart(&j, now_);
    events_.Push(PredictCompletion(j), j.index, ++j.generation);
    for (SimulationObserver* o : observers_) o->OnJobStart(*j.spec, now_, p);
  }

  void Finish() {
    RetireDoneJobs();
    int64_t unfinished = retired_unfinished_;
    double gpu_seconds = retired_gpu_s_;
    jobs_.ForEachLive([&](const JobRun& j) {
      if (j.retired) return;
      if (j.state != JobState::kFinished) ++unfinished;
      gpu_seconds += j.charged_gpu_s;  // Co-located jobs split their GPUs.
    });
    stats_.unfinished = unfinished;
    if (options_.check_invariants) {
      // Work conservation: no more GPU-time was used than the cluster had.
      const double capacity = static_cast<double>(cluster_->TotalGpus()) * stats_.end_time;
      if (gpu_seconds > capacity * (1 + 1e-9) + 1e-6) {
        Die("used " + std::to_string(gpu_seconds) + " GPU-seconds of a capacity of " +
            std::to_string(capacity));
      }
      // Fractional bookings never over-commit a GPU (ClusterState::CheckShares).
      const std::string shares = applier_.free().CheckShares();
      if (!shares.empty()) Die("GPU shares: " + shares);
    }
  }

  void CheckFinishedJob(const JobRun& j) const {
    auto who = [&] { return "job " + std::to_string(j.spec->id); };  // Built only to die.
    if (j.first_start < j.spec->submit_s) Die(who() + " started before it was submitted");
    if (now_ - j.spec->submit_s + 1e-6 < j.work_s / std::max(1.0, j.max_rate) * (1 - 1e-12)) {
      Die(who() + " finished faster than its solo runtime");
    }
    if (j.executed_s > now_ - j.first_start + 1e-6) Die(who() + " ran longer than it existed");
  }

  [[noreturn]] static void Die(const std::string& what) {
    std::fprintf(stderr, "schedkit: engine invariant violated: %s\n", what.c_str());
    std::abort();
  }

  void AddTo(JobList* list, JobRun& j) {
    j.list_pos = static_cast<int32_t>(list->size());
    list->ids.push_back(j.spec->id);
    list->idx.push_back(j.index);
  }
  // O(1) swap-remove: lists are unordered; policies get order from keys, not positions.
  void RemoveFrom(JobList* list, JobRun& j) {
    const int32_t last = list->idx.back();
    list->ids[j.list_pos] = list->ids.back();
    list->idx[j.list_pos] = last;
    jobs_[last].list_pos = j.list_pos;
    list->ids.pop_back();
    list->idx.pop_back();
    j.list_pos = -1;
  }

  void NotifyClusterState() {
    const int pending = static_cast<int>(pending_.size());
    const int running = static_cast<int>(running_.size());
    const int busy = applier_.free().total_gpus() - applier_.free().total_free_gpus();
    if (pending == last_pending_ && running == last_running_ && busy == last_busy_) return;
    last_pending_ = pending;
    last_running_ = running;
    last_busy_ = busy;
    for (SimulationObserver* o : observers_) o->OnClusterState(now_, pending, running, busy);
  }

  const ClusterSpec* cluster_;
  SimulatorOptions options_;
  double round_s_ = options_.decision_round_s;  // 0: event-driven.
  // Set by the constructor when an input is past kMaxTimeS; Run and Apply return it.
  schedkit::Status input_error_ = schedkit::Status::Ok();
  std::shared_ptr<const ProgressRules> progress_;  // Stateless: forks share it.
  DecisionApplier applier_;  // Bookings and validation.
  DecisionPlan plan_;        // Of the decision being applied; reused.
  JobStore<JobRun> jobs_;  // In trace (arrival) order.
  JobIndex index_;
  // Streamed runs: where jobs come from (null once it ends), the last job read (its order
  // is checked), the jobs to retire at the next decision point, and what the retired
  // jobs add to Finish's totals.
  JobSource* source_ = nullptr;
  bool streamed_ = false;
  Time last_read_submit_s_ = 0;
  JobId last_read_id_ = 0;
  std::vector<int32_t> done_;
  double retired_gpu_s_ = 0;
  int64_t retired_unfinished_ = 0;
  JobList pending_;
  JobList running_;
  size_t next_arrival_ = 0;
  size_t next_change_ = 0;  // Next of options_.membership.
  EventQueue events_;
  Time now_ = 0;
  Time wake_at_ = kNever;
  // SimulateFrom: the pending jobs the first EventBatch announces as arrivals.
  std::vector<JobId> announce_;
  bool awaiting_apply_ = false;  // Between NextDecisionPoint and a successful Apply.
  std::vector<SimulationObserver*> observers_;
  SimulationStats stats_;
  int last_pending_ = -1, last_running_ = -1, last_busy_ = -1;
};

Simulator::Simulator(const Trace* trace, const ClusterSpec* cluster, SimulatorOptions options)
    : impl_(std::make_unique<Impl>(trace, cluster, std::move(options))) {}
Simulator::Simulator(JobSource* jobs, const ClusterSpec* cluster, SimulatorOptions options)
    : impl_(std::make_unique<Impl>(jobs, cluster, std::move(options))) {}
Simulator::Simulator() = default;
Simulator::~Simulator() = default;
void Simulator::AddObserver(SimulationObserver* observer) { impl_->AddObserver(observer); }
Status Simulator::Run(Policy* policy) { return impl_->Run(policy); }
bool Simulator::NextDecisionPoint(EventBatch* events) { return impl_->NextDecisionPoint(events); }
Status Simulator::Apply(const Decisions& decisions) { return impl_->Apply(decisions); }
const ClusterView& Simulator::view() const { return *impl_; }
const SimulationStats& Simulator::stats() const { return impl_->stats(); }

Result<SimulationFork> Simulator::Fork(const Policy& policy) const {
  if (impl_->awaiting_apply()) {
    return Status::InvalidArgument("cannot fork between NextDecisionPoint and Apply");
  }
  if (impl_->streamed()) {
    return Status::InvalidArgument("cannot fork a streamed run (its job source cannot be copied)");
  }
  Result<std::unique_ptr<Policy>> copy = policy.Clone();
  if (!copy.ok()) return copy.status();
  SimulationFork fork;
  fork.simulator.reset(new Simulator());  // Private constructor: no make_unique.
  fork.simulator->impl_ = std::make_unique<Impl>(*impl_);
  fork.simulator->impl_->DropObservers();
  fork.policy = std::move(copy).value();
  return fork;
}

namespace {

// Records each job's finish time for SimulateFrom.
class FinishTimes final : public SimulationObserver {
 public:
  explicit FinishTimes(std::unordered_map<JobId, Time>* at) : at_(at) {}
  void OnJobFinish(const JobSpec& job, Time now, Time, double, int, const Placement&) override {
    (*at_)[job.id] = now;
  }

 private:
  std::unordered_map<JobId, Time>* at_;
};

}  // namespace

Result<std::vector<PredictedFinish>> SimulateFrom(const ClusterView& view, Policy* policy,
                                                 const SimulatorOptions& options) {
  return SimulateFrom(view, policy, options, {});
}

Result<std::vector<PredictedFinish>> SimulateFrom(const ClusterView& view, Policy* policy,
                                                 const SimulatorOptions& options,
                                                 std::vector<JobSpec> arrivals) {
  auto by_submit_then_id = [](const JobSpec& a, const JobSpec& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  };
  Trace snapshot;
  std::vector<JobId> ids = view.PendingJobs();
  ids.insert(ids.end(), view.RunningJobs().begin(), view.RunningJobs().end());
  snapshot.jobs.reserve(ids.size() + arrivals.size());
  for (JobId id : ids) snapshot.jobs.push_back(view.Spec(id));
  std::sort(snapshot.jobs.begin(), snapshot.jobs.end(), by_submit_then_id);
  const size_t in_view = snapshot.jobs.size();
  std::sort(arrivals.begin(), arrivals.end(), by_submit_then_id);
  std::unordered_map<JobId, bool> seen;  // Id -> one of the arrivals.
  for (JobId id : ids) seen.emplace(id, false);
  for (JobSpec& a : arrivals) {
    const std::string who = "arrival job " + std::to_string(a.id) + ": ";
    if (!(a.submit_s > view.Now())) {
      char text[128];
      std::snprintf(text, sizeof(text), "submit_s %.17g is not after the view's time %.17g",
                    a.submit_s, view.Now());
      return Status::InvalidArgument(who + text);
    }
    auto [it, fresh] = seen.emplace(a.id, true);
    if (!fresh) {
      return Status::InvalidArgument(who + (it->second ? "id given twice"
                                                       : "id of a job in the system"));
    }
    snapshot.jobs.push_back(std::move(a));
  }
  Simulator sim;
  sim.impl_ = std::make_unique<Simulator::Impl>(view, &snapshot, in_view, options);
  std::unordered_map<JobId, Time> finish;
  FinishTimes recorder(&finish);
  sim.AddObserver(&recorder);
  SCHEDKIT_RETURN_IF_ERROR(sim.Run(policy));
  std::vector<PredictedFinish> out;
  out.reserve(snapshot.jobs.size());
  for (size_t i = 0; i < snapshot.jobs.size(); ++i) {
    const JobSpec& j = snapshot.jobs[i];
    auto it = finish.find(j.id);
    out.push_back(PredictedFinish{j.id, j.submit_s, it == finish.end() ? kNever : it->second,
                                  i >= in_view});
  }
  return out;
}

}  // namespace schedkit
