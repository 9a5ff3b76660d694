// The DAG engine. The rules follow spark-sched-sim (HEAD 2ba8d80) step by step; where they
// are subtle the comment says which rule it is. Nothing here draws a random number except
// the job sequence and task-duration sampling, both from the run's own generator.
#include "dag/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace schedkit::dag {
namespace {

constexpr int kLevels[] = {5, 10, 20, 40, 50, 60, 80, 100};
constexpr int kNumLevels = sizeof(kLevels) / sizeof(kLevels[0]);

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "schedkit: dag engine invariant violated: %s\n", what);
  std::abort();
}

const std::vector<double>* FindLevel(const std::vector<DagDurations>& wave, int level) {
  for (const DagDurations& d : wave) {
    if (d.level == level) return &d.ms;
  }
  return nullptr;
}

bool NonEmpty(const std::vector<double>* v) { return v != nullptr && !v->empty(); }

}  // namespace

bool ExecutorLevelNeedsDraw(int n) {
  if (n <= kLevels[0] || n >= kLevels[kNumLevels - 1]) return false;
  return std::find(std::begin(kLevels), std::end(kLevels), n) == std::end(kLevels);
}

int SampleExecutorLevel(int n, double u) {
  if (n <= kLevels[0]) return kLevels[0];
  if (n >= kLevels[kNumLevels - 1]) return kLevels[kNumLevels - 1];
  for (int i = 0; i + 1 < kNumLevels; ++i) {
    const int l = kLevels[i], r = kLevels[i + 1];
    if (n == r) return r;
    if (n > l && n < r) {
      const int point = 1 + static_cast<int>(u * (r - l));
      return point <= n - l ? l : r;
    }
  }
  return kLevels[kNumLevels - 1];
}

double SampleTaskDuration(const DagStageProfile& p, int local_execs, PriorTask prior,
                          double warmup_ms, DagRng& rng, DagTaskRecord::Kind* kind) {
  if (local_execs < 1) Die("a task on a job with no executor");
  int level = SampleExecutorLevel(local_execs,
                                  ExecutorLevelNeedsDraw(local_execs) ? rng.Uniform() : 0.0);
  if (FindLevel(p.first_wave, level) == nullptr) level = p.first_wave.back().level;
  const std::vector<double>* fresh = FindLevel(p.fresh_durations, level);
  const std::vector<double>* first = FindLevel(p.first_wave, level);
  const std::vector<double>* rest = FindLevel(p.rest_wave, level);
  auto pick = [&](const std::vector<double>* v) { return (*v)[rng.Index(v->size())]; };
  if (prior == PriorTask::kNone) {
    // An executor without a task (idle, just moved or arrived) is fresh.
    if (NonEmpty(fresh)) {
      *kind = DagTaskRecord::Kind::kFresh;
      return pick(fresh);
    }
    if (NonEmpty(first)) {
      *kind = DagTaskRecord::Kind::kFirstWave;
      return pick(first) + warmup_ms;
    }
  } else {
    if (prior == PriorTask::kSameStage && NonEmpty(rest)) {
      *kind = DagTaskRecord::Kind::kRestWave;
      return pick(rest);
    }
    if (NonEmpty(first)) {
      *kind = DagTaskRecord::Kind::kFirstWave;
      return pick(first);
    }
    if (NonEmpty(fresh)) {
      *kind = DagTaskRecord::Kind::kFresh;
      return pick(fresh);
    }
  }
  // The profile has nothing at this level where spark-sched-sim would fail: use the stage's
  // mean duration (docs/dag.md).
  *kind = DagTaskRecord::Kind::kFallback;
  return p.rough_duration_ms;
}

Engine::Engine(const DagConfig& config, const DagWorkload* workload)
    : config_(config), workload_(workload) {}

int Engine::PoolJob(int pool) const {
  if (pool == kCommon || pool == kNone) return kNone;
  if (pool <= num_jobs()) return pool - 1;
  return stages_[PoolStage(pool)].job;
}

void Engine::RemoveFromPool(int e) {
  ExecState& x = execs_[e];
  if (x.pool == kNone) return;
  std::vector<int>& members = pools_[x.pool];
  const int last = members.back();
  members[x.pos] = last;
  execs_[last].pos = x.pos;
  members.pop_back();
  x.pool = kNone;
}

void Engine::PlaceInPool(int e, int pool) {
  RemoveFromPool(e);
  execs_[e].pool = pool;
  execs_[e].pos = static_cast<int>(pools_[pool].size());
  pools_[pool].push_back(e);
}

int Engine::NumCommittable() const {
  if (source_ == kNone) return 0;
  const int n = static_cast<int>(pools_[source_].size()) - commitments_from_[source_];
  if (n < 0) Die("more commitments than executors at the source");
  return n;
}

void Engine::AddCommitment(int n, int dst) {
  if (source_ == kNone) Die("commitment without a source");
  std::vector<Commitment>& list = commitments_[source_];
  auto it = std::find_if(list.begin(), list.end(), [&](const Commitment& c) { return c.dst == dst; });
  if (it == list.end()) {
    list.push_back({dst, n});
  } else {
    it->count += n;
  }
  commitments_from_[source_] += n;
  if (IsStagePool(dst)) stages_[PoolStage(dst)].committed += n;
  const int dst_job = PoolJob(dst);
  if (dst_job != kNone && dst_job != PoolJob(source_)) jobs_[dst_job].supply += n;
}

int Engine::RemoveCommitment(int e, int dst) {
  const int src = execs_[e].pool;
  if (src == kNone) Die("fulfilling a commitment of a moving executor");
  std::vector<Commitment>& list = commitments_[src];
  auto it = std::find_if(list.begin(), list.end(), [&](const Commitment& c) { return c.dst == dst; });
  if (it == list.end()) Die("no such commitment");
  --commitments_from_[src];
  if (IsStagePool(dst)) --stages_[PoolStage(dst)].committed;
  const int dst_job = PoolJob(dst);
  if (dst_job != kNone && dst_job != PoolJob(src)) {
    if (--jobs_[dst_job].supply < 0) Die("negative executor supply");
  }
  if (--it->count == 0) list.erase(it);  // Keeps insertion order, as Python's dict does.
  return src;
}

int Engine::PeekCommitment(int pool) const {
  return commitments_[pool].empty() ? kNone : commitments_[pool].front().dst;
}

void Engine::Reset(uint64_t seed, const std::vector<DagArrival>* arrivals) {
  rng_.Seed(seed);
  std::vector<DagArrival> sequence;
  if (arrivals != nullptr) {
    sequence = *arrivals;
  } else {
    const double mean_gap = 1.0 / config_.job_arrival_rate;
    double t = 0;
    const uint64_t n = workload_->dags.size();
    for (int i = 0; i < config_.job_arrival_cap; ++i) {
      sequence.push_back({t, static_cast<int>(rng_.Index(n))});
      t += rng_.Exponential(mean_gap);
    }
  }
  jobs_.clear();
  stages_.clear();
  children_.clear();
  std::vector<std::vector<int>> parents;
  for (const DagArrival& a : sequence) {
    const DagTemplate& dag = workload_->dags[a.dag];
    JobState job;
    job.dag = a.dag;
    job.first = static_cast<int>(stages_.size());
    job.num_stages = static_cast<int>(dag.stages.size());
    job.active_stages = job.num_stages;
    job.arrival = a.time_ms;
    const int j = static_cast<int>(jobs_.size());
    for (int s = 0; s < job.num_stages; ++s) {
      StageState st;
      st.job = j;
      st.id = s;
      st.profile = &dag.stages[s];
      st.num_tasks = st.remaining = dag.stages[s].num_tasks;
      st.recent_ms = dag.stages[s].rough_duration_ms;
      st.incomplete_parents = static_cast<int>(dag.parents[s].size());
      stages_.push_back(st);
      children_.emplace_back();
    }
    for (int s = 0; s < job.num_stages; ++s) {
      for (int p : dag.parents[s]) children_[job.first + p].push_back(job.first + s);
    }
    jobs_.push_back(job);
  }
  const int num_pools = 1 + num_jobs() + static_cast<int>(stages_.size());
  pools_.assign(num_pools, {});
  commitments_.assign(num_pools, {});
  commitments_from_.assign(num_pools, 0);
  execs_.assign(config_.num_executors, ExecState{});
  for (int e = 0; e < config_.num_executors; ++e) {
    execs_[e].pool = kNone;
    PlaceInPool(e, kCommon);
  }
  queue_ = {};
  seq_ = 0;
  active_jobs_.clear();
  schedulable_.clear();
  selected_.clear();
  stalled_ = false;
  source_ = kCommon;
  now_ = 0;
  completed_jobs_ = 0;
  jobs_in_system_ = 0;
  job_time_ms_ = 0;
  events_ = steps_ = 0;
  task_log_.clear();
  node_of_stage_.assign(stages_.size(), -1);
  for (int j = 0; j < num_jobs(); ++j) Push(jobs_[j].arrival, EventType::kJobArrival, j, 0);
  // Jobs arriving at t = 0 are loaded before the first observation.
  while (!queue_.empty() && queue_.top().time <= 0) {
    const Event ev = queue_.top();
    queue_.pop();
    HandleEvent(ev);
  }
  FindSchedulable(active_jobs_.data(), static_cast<int>(active_jobs_.size()), SourceJob(),
                  &schedulable_);
  BuildObservation();
}

bool Engine::StageReady(const StageState& s) const {
  // Ready: unsaturated, and every parent saturated (its tasks are all launched or covered).
  if (Saturated(s)) return false;
  const DagTemplate& dag = workload_->dags[jobs_[s.job].dag];
  const int first = jobs_[s.job].first;
  for (int p : dag.parents[s.id]) {
    if (!Saturated(stages_[first + p])) return false;
  }
  return true;
}

void Engine::FindSchedulable(const int* jobs, int n, int source_job, std::vector<int>* out) const {
  // A job at or above N executors of supply gains none, except the source job, which is
  // not gaining executors but redistributing its own.
  for (int i = 0; i < n; ++i) {
    const int j = jobs[i];
    const JobState& job = jobs_[j];
    if (j != source_job && job.supply >= config_.num_executors) continue;
    for (int g = job.first; g < job.first + job.num_stages; ++g) {
      const StageState& s = stages_[g];
      if (s.completed == s.num_tasks || s.selected) continue;
      if (StageReady(s)) out->push_back(g);
    }
  }
}

void Engine::BuildObservation() {
  DagObservation& o = obs_;
  o.now_ms = now_;
  o.num_executors = config_.num_executors;
  o.nodes.clear();
  o.edges.clear();
  o.job_ptr.assign(1, 0);
  o.job_ids.clear();
  o.exec_supply.clear();
  o.schedulable.clear();
  o.num_committable = NumCommittable();
  const int source_job = SourceJob();
  o.source_job = static_cast<int>(active_jobs_.size());
  for (int i = 0; i < static_cast<int>(active_jobs_.size()); ++i) {
    const int j = active_jobs_[i];
    const JobState& job = jobs_[j];
    if (j == source_job) o.source_job = i;
    o.job_ids.push_back(j);
    o.exec_supply.push_back(job.supply);
    for (int g = job.first; g < job.first + job.num_stages; ++g) {
      const StageState& s = stages_[g];
      if (s.completed == s.num_tasks) continue;
      node_of_stage_[g] = static_cast<int>(o.nodes.size());
      DagNode node;
      node.job = i;
      node.stage = s.id;
      node.remaining_tasks = s.remaining;
      node.recent_duration_ms = s.recent_ms;
      o.nodes.push_back(node);
    }
    o.job_ptr.push_back(static_cast<int>(o.nodes.size()));
  }
  for (int node = 0; node < static_cast<int>(o.nodes.size()); ++node) {
    const int g = jobs_[active_jobs_[o.nodes[node].job]].first + o.nodes[node].stage;
    for (int c : children_[g]) {
      if (stages_[c].completed == stages_[c].num_tasks) continue;
      const int child = node_of_stage_[c];
      o.edges.push_back({node, child});
      ++o.nodes[child].active_parents;
    }
  }
  for (int g : schedulable_) {
    const int node = node_of_stage_[g];
    o.nodes[node].schedulable_index = static_cast<int>(o.schedulable.size());
    o.schedulable.push_back(node);
  }
}

Result<StepOutcome> Engine::Step(const DagAction& action) {
  if (done()) return Status::InvalidArgument("dag: step after the episode ended");
  if (stalled_) return Status::InvalidArgument("dag: the episode stalled; Reset to start again");
  const int committable = NumCommittable();
  if (action.stage != -1) {
    if (action.stage < 0 || action.stage >= static_cast<int>(schedulable_.size())) {
      return Status::InvalidArgument("dag: action stage " + std::to_string(action.stage) +
                                     " is not -1 or an index of the " +
                                     std::to_string(schedulable_.size()) + " schedulable stages");
    }
    if (action.num_exec < 1 || action.num_exec > committable) {
      return Status::InvalidArgument("dag: action num_exec " + std::to_string(action.num_exec) +
                                     " is not in 1.." + std::to_string(committable) +
                                     " (committable executors)");
    }
  }
  ++steps_;
  if (action.stage == -1) {
    CommitRemaining();
  } else {
    const int g = schedulable_[action.stage];
    StageState& s = stages_[g];
    const int n = std::min(action.num_exec, Demand(s));
    if (n <= 0) Die("a schedulable stage without demand");
    AddCommitment(n, 1 + num_jobs() + g);
    s.selected = true;
    selected_.push_back(g);
    // Only this job's schedulable stages can have changed: splice them.
    const int j = s.job;
    auto begin = std::find_if(schedulable_.begin(), schedulable_.end(),
                              [&](int x) { return stages_[x].job == j; });
    auto end = std::find_if(begin, schedulable_.end(), [&](int x) { return stages_[x].job != j; });
    scratch_.clear();
    FindSchedulable(&j, 1, SourceJob(), &scratch_);
    const auto at = schedulable_.erase(begin, end);
    schedulable_.insert(at, scratch_.begin(), scratch_.end());
  }
  StepOutcome out;
  if (NumCommittable() > 0 && !schedulable_.empty()) {
    BuildObservation();  // The round goes on: same time, reward 0.
    return out;
  }
  // The round is over: leftover executors go to the common pool, idle ones leave now.
  CommitRemaining();
  FulfillFromSource();
  source_ = kNone;
  for (int g : selected_) stages_[g].selected = false;
  selected_.clear();
  const double before = job_time_ms_;
  Resume();
  out.reward = -(job_time_ms_ - before);
  out.done = done();
  if (!out.done && (NumCommittable() == 0 || schedulable_.empty())) {
    // Only a scheduler that keeps executors away from runnable work gets here (spark-sched-sim
    // fails an assertion): the episode cannot go on.
    stalled_ = true;
    char at[64];
    std::snprintf(at, sizeof(at), "%.3f", now_);
    return Status::InvalidArgument(std::string("dag: no event left at t=") + at + " ms with " +
                                   std::to_string(num_jobs() - completed_jobs_) +
                                   " jobs unfinished: the scheduler left their stages without "
                                   "executors; Reset to start again");
  }
  BuildObservation();  // Empty once done.
  return out;
}

void Engine::Push(double t, EventType type, int a, int b) {
  queue_.push(Event{t, seq_++, type, a, b});
}

void Engine::Advance(double t) {
  if (t < now_) Die("time went backwards");
  job_time_ms_ += jobs_in_system_ * (t - now_);
  now_ = t;
}

void Engine::HandleEvent(const Event& ev) {
  Advance(ev.time);
  ++events_;
  switch (ev.type) {
    case EventType::kJobArrival:
      OnJobArrival(ev.a);
      break;
    case EventType::kExecutorReady:
      OnExecutorReady(ev.a, ev.b);
      break;
    case EventType::kTaskFinished:
      OnTaskFinished(ev.a, ev.b);
      break;
  }
}

void Engine::Resume() {
  // Runs events until a pool has committable executors and some stage is schedulable.
  scratch_.clear();
  while (!queue_.empty()) {
    const Event ev = queue_.top();
    queue_.pop();
    HandleEvent(ev);
    if (NumCommittable() == 0) continue;
    scratch_.clear();
    FindSchedulable(active_jobs_.data(), static_cast<int>(active_jobs_.size()), SourceJob(),
                    &scratch_);
    if (!scratch_.empty()) break;
    MoveIdle(source_, nullptr);
    source_ = kNone;
  }
  schedulable_.swap(scratch_);
}

void Engine::OnJobArrival(int j) {
  active_jobs_.push_back(j);
  ++jobs_in_system_;
  // Free executors might want to go to the new job: start a round at the common pool.
  if (!pools_[kCommon].empty()) source_ = kCommon;
}

void Engine::OnExecutorReady(int e, int g) {
  StageState& s = stages_[g];
  ExecState& x = execs_[e];
  if (x.last_stage != -1 || x.job != kNone) Die("an arriving executor still holds a task");
  ++jobs_[s.job].local_execs;
  x.job = s.job;
  if (--s.moving < 0) Die("negative moving count");
  PlaceInPool(e, job_pool(s.job));
  MoveToStage(e, g);
}

void Engine::OnTaskFinished(int e, int g) {
  StageState& s = stages_[g];
  const int j = s.job;
  --s.executing;
  ++s.completed;
  execs_[e].executing = false;
  if (s.remaining > 0) {
    ExecuteNextTask(e, g);  // More work here: keep going.
    return;
  }
  bool frontier_changed = false;
  if (s.completed == s.num_tasks) {
    --jobs_[j].active_stages;
    for (int c : children_[g]) {
      if (--stages_[c].incomplete_parents == 0) frontier_changed = true;
    }
  }
  if (jobs_[j].active_stages == 0) CompleteJob(j);
  const int pool = 1 + num_jobs() + g;
  const int commitment = PeekCommitment(pool);
  const bool had_commitment = commitment != kNone;
  if (had_commitment) {
    FulfillCommitment(e, commitment);
  } else {
    execs_[e].last_stage = -1;  // Nowhere to go: idle.
    if (frontier_changed) {
      std::vector<int> one{e};
      MoveIdle(pool, &one);
    }
  }
  // New stages in this job: a round at the job's pool; an idle executor: at the stage's pool.
  if (frontier_changed) {
    source_ = job_pool(j);
  } else if (!had_commitment) {
    source_ = pool;
  }
}

void Engine::CompleteJob(int j) {
  if (!pools_[job_pool(j)].empty()) MoveIdle(job_pool(j), nullptr);
  if (!pools_[job_pool(j)].empty()) Die("executors left at a completed job");
  active_jobs_.erase(std::find(active_jobs_.begin(), active_jobs_.end(), j));
  jobs_[j].completion = now_;
  ++completed_jobs_;
  --jobs_in_system_;
}

void Engine::CommitRemaining() {
  const int n = NumCommittable();
  if (n > 0) AddCommitment(n, kCommon);
}

void Engine::FulfillFromSource() {
  std::vector<int> idle;
  for (int e : pools_[source_]) {
    if (!execs_[e].executing) idle.push_back(e);
  }
  std::sort(idle.begin(), idle.end());
  const std::vector<Commitment> commitments = commitments_[source_];
  size_t next = 0;
  for (const Commitment& c : commitments) {
    for (int k = 0; k < c.count && next < idle.size(); ++k) FulfillCommitment(idle[next++], c.dst);
  }
  if (next != idle.size()) Die("idle executors left at the source after a round");
}

void Engine::FulfillCommitment(int e, int dst) {
  const int src = RemoveCommitment(e, dst);
  if (dst == kCommon) {
    std::vector<int> one{e};
    MoveIdle(src, &one);
    return;
  }
  MoveToStage(e, PoolStage(dst));
}

void Engine::MoveIdle(int src, const std::vector<int>* execs) {
  // Idle at a stage: back to the job's pool, or to the common pool if every stage of the job
  // is saturated; idle at an unsaturated job's pool: stays.
  if (src == kCommon || src == kNone) return;
  std::vector<int> idle;
  if (execs == nullptr) {
    for (int e : pools_[src]) {
      if (!execs_[e].executing) idle.push_back(e);
    }
    std::sort(idle.begin(), idle.end());
    execs = &idle;
  }
  if (execs->empty()) return;
  const int j = PoolJob(src);
  const bool saturated = JobSaturated(j);
  if (!IsStagePool(src) && !saturated) return;
  const int dst = saturated ? kCommon : job_pool(j);
  for (int e : *execs) {
    PlaceInPool(e, dst);
    if (dst == kCommon) {
      --jobs_[j].local_execs;
      execs_[e].job = kNone;
      execs_[e].last_stage = -1;
    }
  }
}

void Engine::MoveToStage(int e, int g) {
  StageState& s = stages_[g];
  ExecState& x = execs_[e];
  if (s.remaining == 0) {
    TryBackup(e);  // Saturated meanwhile.
    return;
  }
  if (x.job != s.job) {
    Send(e, g);
    return;
  }
  if (s.incomplete_parents > 0) {
    x.last_stage = -1;  // Not ready yet: wait idle in the job's pool.
    PlaceInPool(e, job_pool(s.job));
    return;
  }
  PlaceInPool(e, 1 + num_jobs() + g);
  ExecuteNextTask(e, g);
}

void Engine::Send(int e, int g) {
  StageState& s = stages_[g];
  ExecState& x = execs_[e];
  if (x.executing) Die("sending a busy executor");
  const int old_job = PoolJob(x.pool);
  RemoveFromPool(e);
  ++s.moving;
  ++jobs_[s.job].supply;
  if (old_job != kNone) {
    if (--jobs_[old_job].supply < 0) Die("negative executor supply");
  }
  if (x.job != kNone) {
    --jobs_[x.job].local_execs;
    x.job = kNone;
  }
  x.last_stage = -1;
  Push(now_ + config_.moving_delay_ms, EventType::kExecutorReady, e, g);
}

void Engine::TryBackup(int e) {
  const int backup = FindBackup(e);
  if (backup != -1) {
    MoveToStage(e, backup);
    return;
  }
  std::vector<int> one{e};
  MoveIdle(execs_[e].pool, &one);
}

int Engine::FindBackup(int e) const {
  // First a schedulable stage of the executor's own job, then one of any other job.
  const int j = execs_[e].job;
  std::vector<int> found;
  if (j != kNone) {
    FindSchedulable(&j, 1, j, &found);
    if (!found.empty()) return found.front();
  }
  std::vector<int> others;
  for (int a : active_jobs_) {
    if (a != j) others.push_back(a);
  }
  FindSchedulable(others.data(), static_cast<int>(others.size()), j, &found);
  return found.empty() ? -1 : found.front();
}

void Engine::ExecuteNextTask(int e, int g) {
  StageState& s = stages_[g];
  JobState& job = jobs_[s.job];
  ExecState& x = execs_[e];
  --s.remaining;
  ++s.executing;
  if (s.remaining == 0) ++job.saturated_stages;
  DagTaskRecord::Kind kind;
  const double duration = SampleDuration(e, g, &kind);
  x.last_stage = g;
  x.executing = true;
  s.recent_ms = duration;
  if (record_tasks_) {
    DagTaskRecord r;
    r.job = s.job;
    r.stage = s.id;
    r.task = s.num_tasks - s.remaining - 1;
    r.executor = e;
    r.start_ms = now_;
    r.end_ms = now_ + duration;
    r.kind = kind;
    task_log_.push_back(r);
  }
  Push(now_ + duration, EventType::kTaskFinished, e, g);
}

double Engine::SampleDuration(int e, int g, DagTaskRecord::Kind* kind) {
  const StageState& s = stages_[g];
  const int last = execs_[e].last_stage;
  const PriorTask prior = last == -1  ? PriorTask::kNone
                          : last == g ? PriorTask::kSameStage
                                      : PriorTask::kOtherStage;
  return SampleTaskDuration(*s.profile, jobs_[s.job].local_execs, prior, config_.warmup_delay_ms,
                            rng_, kind);
}

std::vector<DagJobResult> Engine::JobResults() const {
  std::vector<DagJobResult> out;
  for (int j = 0; j < num_jobs(); ++j) {
    const JobState& job = jobs_[j];
    const DagTemplate& dag = workload_->dags[job.dag];
    DagJobResult r;
    r.id = j;
    r.dag = dag.name;
    r.arrival_ms = job.arrival;
    r.completion_ms = job.completion;
    r.num_stages = job.num_stages;
    for (const DagStageProfile& s : dag.stages) r.num_tasks += s.num_tasks;
    out.push_back(r);
  }
  return out;
}

}  // namespace schedkit::dag
