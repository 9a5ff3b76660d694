#include "runtime/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "schedkit/attained.h"
#include "schedkit/run.h"

namespace schedkit::runtime {
namespace {

double WallNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

constexpr size_t kMaxEventsKept = 100000;

// What the policy sees of a job; times relative to the service's time origin.
JobSpec SpecOf(const JobRecord& r, double origin_unix) {
  JobSpec spec;
  spec.id = r.id;
  spec.submit_s = r.submit_time - origin_unix;
  spec.gpus = r.gpus;
  spec.cpus = r.cpus;
  spec.mem_gb = r.mem_gb;
  spec.duration_s = r.duration_s;
  spec.user = r.user;
  spec.vc = r.vc;
  spec.name = r.name;
  spec.priority = r.priority;
  spec.iteration_time_s = r.iteration_time_s;
  spec.profile.stage_times_s = r.stage_times_s;
  spec.max_gpus = r.max_gpus;
  spec.gpu_milli = r.gpu_milli;
  spec.profile.type_speeds = r.type_speeds;
  return spec;
}

// Books the ending run, on `held_gpus` GPUs: its wall time, the solo work it did at its
// rate, and the GPU-seconds beyond the request a grown elastic run added.
void BookRunEnd(JobRecord* r, int held_gpus, double now_unix) {
  const double wall = std::max(0.0, now_unix - r->last_start_time);
  r->executed_s += wall;
  r->work_done_s += wall * r->rate;
  r->grown_gpu_s += GrownGpuSeconds(wall, held_gpus, r->gpus);
}

}  // namespace

struct Engine::Live {
  JobRecord rec;
  JobSpec spec;  // What the policy sees; submit_s relative to the time origin.
  Placement placement;
  // This policy object has had the job in an EventBatch::arrived. A job re-adopted after
  // a restart has not: if the policy stops it, it is announced then, or it would wait
  // forever in a queue the policy does not know of.
  bool announced = false;
};

// The policy's read-only window on the engine at one decision. REQUIRES: mu_ held.
class Engine::View final : public ClusterView {
 public:
  View(const Engine& e, double now_unix, const ClusterState& resources)
      : e_(e), now_unix_(now_unix), resources_(resources) {}
  Time Now() const override { return now_unix_ - e_.origin_unix_; }
  const ClusterSpec& Cluster() const override { return e_.backend_->Cluster(); }
  const ClusterState& Resources() const override { return resources_; }
  ClusterState Capacity() const override { return e_.applier_.Capacity(); }
  const std::vector<JobId>& RunningJobs() const override { return e_.running_; }
  std::vector<JobId> PendingJobs() const override {
    std::vector<std::pair<Time, JobId>> pending;
    for (const auto& [id, live] : e_.jobs_) {
      if (live->rec.state == RunState::kPending) pending.emplace_back(live->spec.submit_s, id);
    }
    std::sort(pending.begin(), pending.end());
    std::vector<JobId> ids;
    for (const auto& p : pending) ids.push_back(p.second);
    return ids;
  }
  JobStatus Status(JobId id) const override {
    const Live& l = *e_.jobs_.at(id);
    const JobRecord& r = l.rec;
    JobStatus s;
    s.spec = &l.spec;
    const bool running = r.state == RunState::kRunning;
    s.state = running                          ? JobState::kRunning
              : r.state == RunState::kPending  ? JobState::kPending
              : r.state == RunState::kRejected ? JobState::kRejected
                                               : JobState::kFinished;
    s.first_start_s = r.first_start_time > 0 ? r.first_start_time - e_.origin_unix_ : kNever;
    s.last_start_s = r.last_start_time > 0 ? r.last_start_time - e_.origin_unix_ : kNever;
    const double run_wall = running ? std::max(0.0, now_unix_ - r.last_start_time) : 0.0;
    s.executed_s = r.executed_s + run_wall;
    // The simulator's rule: a grown elastic run counts every GPU it holds.
    s.attained_gpu_s = AttainedGpuSeconds(
        s.executed_s, r.gpus, r.grown_gpu_s,
        running ? GrownGpuSeconds(run_wall, l.placement.gpus(), r.gpus) : 0.0);
    s.preemptions = r.preemptions;
    // Solo work left, as the simulator counts it: a run at rate r does r seconds of work
    // per wall second (a co-located or guest job runs slower than alone).
    const double work_done =
        r.work_done_s + (running ? std::max(0.0, now_unix_ - r.last_start_time) * r.rate : 0.0);
    s.remaining_s = r.duration_s > 0 ? std::max(0.0, r.duration_s - work_done) : NAN;
    s.placement = running ? &l.placement : nullptr;
    return s;
  }
  const JobSpec& Spec(JobId id) const override { return e_.jobs_.at(id)->spec; }

 private:
  const Engine& e_;
  double now_unix_;
  const ClusterState& resources_;
};

Engine::Engine(const RuntimeOptions& options, std::unique_ptr<Store> store,
               std::unique_ptr<Backend> backend, std::unique_ptr<Policy> policy)
    : options_(options),
      store_(std::move(store)),
      backend_(std::move(backend)),
      policy_(std::move(policy)),
      backend_name_(backend_->Name()),
      applier_(&backend_->Cluster()) {}

Result<std::unique_ptr<Engine>> Engine::Start(const RuntimeOptions& options,
                                              std::unique_ptr<Store> store,
                                              std::unique_ptr<Backend> backend,
                                              std::unique_ptr<Policy> policy) {
  std::unique_ptr<Engine> e(
      new Engine(options, std::move(store), std::move(backend), std::move(policy)));
  Result<std::shared_ptr<const ScalingModel>> scaling = ShippedScalingModel();
  if (!scaling.ok()) return scaling.status();
  e->scaling_ = std::move(scaling).value();
  SCHEDKIT_RETURN_IF_ERROR(e->Recover());
  e->loop_ = std::thread([raw = e.get()] { raw->Loop(); });
  return e;
}

Engine::~Engine() { Stop(); }

void Engine::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  events_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
}

bool Engine::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

Status Engine::Recover() {
  std::lock_guard<std::mutex> lock(mu_);
  Result<std::string> origin = store_->GetMeta("origin_unix");
  if (!origin.ok()) return origin.status();
  if (origin->empty()) {
    origin_unix_ = WallNow();
    SCHEDKIT_RETURN_IF_ERROR(store_->SetMeta("origin_unix", std::to_string(origin_unix_)));
  } else {
    origin_unix_ = std::atof(origin->c_str());
  }
  Result<std::vector<JobRecord>> all = store_->LoadAll();
  if (!all.ok()) return all.status();
  const double now = WallNow();
  for (JobRecord& rec : *all) {
    auto live = std::make_unique<Live>();
    if (rec.checkpoint_dir.empty())
      rec.checkpoint_dir = JobDir(options_.state_dir, rec.id) + "/checkpoint";
    live->rec = std::move(rec);
    const JobRecord& r = live->rec;
    live->spec = SpecOf(r, origin_unix_);
    Live& l = *live;
    if (!r.idempotency_key.empty()) by_idempotency_key_[r.idempotency_key] = r.id;
    jobs_[r.id] = std::move(live);
    if (l.rec.state == RunState::kPending) {
      arrived_.push_back(l.rec.id);
    } else if (l.rec.state == RunState::kRunning) {
      Readopt(l, now);
    }
  }
  std::set<std::string> recorded;
  for (const auto& [id, live] : jobs_) {
    if (!live->rec.backend_id.empty()) recorded.insert(live->rec.backend_id);
  }
  backend_->EndUnrecorded(recorded);
  // After re-adoption, which books the jobs running on drained nodes.
  const std::vector<std::string>& names = backend_->NodeNames();
  for (size_t i = 0; i < names.size(); ++i) {
    Result<std::string> d = store_->GetMeta("drained:" + names[i]);
    if (!d.ok()) return d.status();
    applier_.HoldBack(static_cast<int>(i), *d == "1");
  }
  dirty_ = true;
  return Status::Ok();
}

void Engine::Readopt(Live& l, double now) {
  JobExit exit;
  const Backend::Liveness alive = backend_->Adopt(l.rec, &exit);
  // Store::LoadAll has checked the text (and converted the pre-1 format).
  Result<Placement> parsed = ParsePlacement(l.rec.placement);
  const Placement p = parsed.ok() ? std::move(parsed).value() : Placement();
  Status booked = Status::InvalidArgument("not alive");
  if (alive == Backend::Liveness::kAlive) {
    // A group's members rejoin their one booking; one that is gone leaves the others be.
    booked = applier_.Adopt(l.rec.id, p, l.rec.group, l.rec.guest);
  }
  if (booked.ok()) {
    l.placement = p;
    running_.push_back(l.rec.id);
    Transition(l, "adopted", now);
  } else if (alive == Backend::Liveness::kEnded) {
    // Ended while the service was down; it never joins the policy's view as running.
    BookRunEnd(&l.rec, p.gpus(), now);
    l.rec.state = exit.exit_code == 0 ? RunState::kSucceeded : RunState::kFailed;
    l.rec.exit_code = exit.exit_code;
    l.rec.message = exit.message;
    l.rec.finish_time = now;
    l.rec.placement.clear();
    Transition(l, "finished", now);
  } else {
    // Its resources are gone (e.g. fewer --gpus than before): stop it before requeueing.
    if (alive == Backend::Liveness::kAlive) backend_->Preempt(l.rec);
    l.rec.state = RunState::kPending;
    l.rec.placement.clear();
    l.rec.restart_count++;
    if (backend_name_ == "slurm") l.rec.backend_id.clear();  // Adopt cancelled it: submit afresh.
    Transition(l, "requeued", now);
    arrived_.push_back(l.rec.id);
  }
}

Status Engine::Transition(Live& live, const std::string& kind, double unix_time) {
  Status st = store_->Update(live.rec, kind, unix_time);
  if (!st.ok()) std::fprintf(stderr, "schedkit serve: %s\n", st.message().c_str());
  events_.push_back(JobEvent{++event_seq_, unix_time, kind, live.rec});
  if (events_.size() > kMaxEventsKept) events_.pop_front();
  events_cv_.notify_all();
  return st;
}

Result<JobId> Engine::Submit(JobRecord job) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) return Status::Internal("the service is stopping");
  if (auto it = by_idempotency_key_.find(job.idempotency_key);
      !job.idempotency_key.empty() && it != by_idempotency_key_.end()) {
    return it->second;
  }
  if (job.gpu_milli < kMilliPerGpu && !backend_->SharesGpus()) {
    return Status::InvalidArgument("gpu_milli: " + std::to_string(job.gpu_milli) +
                                   " asks for a share of one GPU, but backend '" +
                                   backend_->Name() + "' books GPUs whole");
  }
  job.submit_time = WallNow();
  job.state = RunState::kPending;
  SCHEDKIT_RETURN_IF_ERROR(store_->Insert(&job));
  auto live = std::make_unique<Live>();
  if (job.checkpoint_dir.empty())
    job.checkpoint_dir = JobDir(options_.state_dir, job.id) + "/checkpoint";
  live->spec = SpecOf(job, origin_unix_);
  live->rec = std::move(job);
  const JobId id = live->rec.id;
  if (!live->rec.idempotency_key.empty()) by_idempotency_key_[live->rec.idempotency_key] = id;
  events_.push_back(JobEvent{++event_seq_, live->rec.submit_time, "submitted", live->rec});
  if (events_.size() > kMaxEventsKept) events_.pop_front();
  jobs_[id] = std::move(live);
  arrived_.push_back(id);
  dirty_ = true;
  lock.unlock();
  events_cv_.notify_all();
  wake_.notify_one();
  return id;
}

Result<JobRecord> Engine::Get(JobId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Status::NotFound("job " + std::to_string(id) + ": no such job");
  return it->second->rec;
}

std::vector<JobRecord> Engine::List(const std::vector<RunState>& states, JobId after,
                                    size_t limit) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JobRecord> out;
  for (auto it = jobs_.upper_bound(after); it != jobs_.end() && out.size() < limit; ++it) {
    const Live* live = it->second.get();
    if (states.empty() ||
        std::find(states.begin(), states.end(), live->rec.state) != states.end()) {
      out.push_back(live->rec);
    }
  }
  return out;
}

Result<RunState> Engine::Cancel(JobId id) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Status::NotFound("job " + std::to_string(id) + ": no such job");
  Live& l = *it->second;
  const RunState was = l.rec.state;
  if (IsFinal(was)) return was;
  Status st = backend_->Cancel(l.rec);
  if (!st.ok()) return st;
  Finish(l, RunState::kCancelled, 0, "cancelled by request", WallNow(), "cancelled");
  // The policy forgets it, pending or running; one it has not been told of yet is simply
  // not told (EventBatch: a finished job arrived in an earlier batch).
  if (auto unseen = std::find(arrived_.begin(), arrived_.end(), id); unseen != arrived_.end()) {
    arrived_.erase(unseen);
  } else {
    finished_.push_back(id);
  }
  dirty_ = true;
  lock.unlock();
  wake_.notify_one();
  return was;
}

Status Engine::SetDrained(const std::string& node, bool drained) {
  std::unique_lock<std::mutex> lock(mu_);
  const std::vector<std::string>& names = backend_->NodeNames();
  auto it = std::find(names.begin(), names.end(), node);
  if (it == names.end()) {
    std::string all;
    for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
    return Status::NotFound("node '" + node + "': no such node (nodes: " + all + ")");
  }
  applier_.HoldBack(static_cast<int>(it - names.begin()), drained);
  SCHEDKIT_RETURN_IF_ERROR(store_->SetMeta("drained:" + node, drained ? "1" : "0"));
  dirty_ = true;
  lock.unlock();
  wake_.notify_one();
  return Status::Ok();
}

ClusterSummary Engine::Summary() const {
  std::lock_guard<std::mutex> lock(mu_);
  ClusterSummary s;
  const ClusterSpec& spec = backend_->Cluster();
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    s.nodes.push_back(NodeStatus{backend_->NodeNames()[i], spec.nodes[i].gpus,
                                 applier_.free().free_gpus(static_cast<int>(i)),
                                 applier_.held_back(static_cast<int>(i)), spec.nodes[i].gpu_type});
  }
  for (const auto& [id, live] : jobs_) {
    if (live->rec.state == RunState::kPending)
      ++s.pending;
    else if (live->rec.state == RunState::kRunning)
      ++s.running;
    else
      ++s.finished;
  }
  return s;
}

int64_t Engine::LastEventSeq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return event_seq_;
}

std::vector<JobEvent> Engine::EventsAfter(int64_t after, double timeout_s) const {
  std::unique_lock<std::mutex> lock(mu_);
  events_cv_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                      [&] { return stop_ || event_seq_ > after; });
  std::vector<JobEvent> out;
  for (auto it = events_.rbegin(); it != events_.rend() && it->seq > after; ++it)
    out.push_back(*it);
  std::reverse(out.begin(), out.end());
  return out;
}

void Engine::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    double until = WallNow() + options_.poll_s;
    if (wake_at_unix_ > 0) until = std::min(until, wake_at_unix_);
    const auto deadline = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::duration<double>(until)));
    wake_.wait_until(lock, deadline, [&] { return stop_ || dirty_; });
    if (stop_) break;
    const double now = WallNow();
    PollBackend(now);
    EnforceTimeLimits(now);
    const bool woken = wake_at_unix_ > 0 && now >= wake_at_unix_;
    if (dirty_ || woken) {
      dirty_ = false;
      Decide(now);
    }
  }
}

void Engine::PollBackend(double now_unix) {
  if (running_.empty()) return;
  std::vector<const JobRecord*> running;
  for (JobId id : running_) running.push_back(&jobs_.at(id)->rec);
  for (const JobExit& e : backend_->Poll(running)) {
    Live& l = *jobs_.at(e.id);
    Finish(l, e.exit_code == 0 ? RunState::kSucceeded : RunState::kFailed, e.exit_code, e.message,
           now_unix, e.exit_code == 0 ? "finished" : "failed");
    finished_.push_back(e.id);
    dirty_ = true;
  }
}

void Engine::EnforceTimeLimits(double now_unix) {
  std::vector<JobId> over;
  for (JobId id : running_) {
    const JobRecord& r = jobs_.at(id)->rec;
    if (r.time_limit_s > 0 && TimeLeft(r, now_unix) <= 0) over.push_back(id);
  }
  for (JobId id : over) {
    Live& l = *jobs_.at(id);
    // As cancel: SIGTERM to the whole tree, SIGKILL after --grace-s (Slurm: scancel).
    const Status st = backend_->Cancel(l.rec);
    if (!st.ok())
      std::fprintf(stderr, "schedkit serve: job %lld: %s\n", static_cast<long long>(id),
                   st.message().c_str());
    std::ostringstream why;
    why << "time limit reached: " << l.rec.time_limit_s << " s of run time";
    Finish(l, RunState::kTimeout, 0, why.str(), WallNow(), "timeout");
    finished_.push_back(id);
    dirty_ = true;
  }
}

Status Engine::Resize(JobId id, int gpus, int* previous, std::string* refused) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Status::NotFound("job " + std::to_string(id) + ": no such job");
  Live& l = *it->second;
  const std::string job = "job " + std::to_string(id);
  *previous = l.rec.gpus;
  if (l.rec.state != RunState::kRunning) {
    *refused = job + " is " + RunStateName(l.rec.state) + "; only a running job can be resized";
    return Status::Ok();
  }
  if (std::string why = backend_->ResizeRefusal(); !why.empty()) {
    *refused = why;
    return Status::Ok();
  }
  if (l.rec.gpu_milli < kMilliPerGpu) {
    *refused = job + " runs on a share of one GPU (" + std::to_string(l.rec.gpu_milli) +
               " milli-GPU); only a job on whole GPUs can be resized";
    return Status::Ok();
  }
  if (l.rec.group_size > 1 || l.rec.guest) {
    *refused = job + " shares its GPUs (" +
               (l.rec.guest ? std::string("a guest") : "a co-location group") +
               "); only a job alone on its GPUs can be resized";
    return Status::Ok();
  }
  if (l.placement.shares.size() > 1) {
    *refused = job + " spans " + std::to_string(l.placement.shares.size()) +
               " nodes; only a job on one node can be resized";
    return Status::Ok();
  }
  if (gpus == l.rec.gpus) return Status::Ok();
  // The job keeps its GPUs but the highest ones it gives up, and grows into the lowest free
  // GPUs of its node.
  Placement to = l.placement;
  if (to.shares.empty()) to.shares.push_back(NodeShare{});
  NodeShare& share = to.shares[0];
  const int node = share.node;
  if (applier_.held_back(node)) {
    *refused = job + " runs on drained node '" + backend_->NodeNames()[node] + "'";
    return Status::Ok();
  }
  const uint64_t free_mask = applier_.free().free_gpu_mask(node);
  for (int g = kMaxGpusPerNode - 1; g >= 0 && share.gpus() > gpus; --g) {
    share.gpu_mask &= ~(uint64_t{1} << g);
  }
  for (int g = 0; g < kMaxGpusPerNode && share.gpus() < gpus; ++g) {
    if (free_mask >> g & 1) share.gpu_mask |= uint64_t{1} << g;
  }
  if (share.gpus() < gpus) {
    *refused = job + ": " + std::to_string(gpus - l.rec.gpus) + " more GPUs needed, " +
               std::to_string(applier_.free().free_gpus(node)) + " free on node '" +
               backend_->NodeNames()[node] + "'";
    return Status::Ok();
  }
  if (share.gpu_mask == 0) to.shares.clear();
  const int64_t booking = applier_.BookingOf(id);
  applier_.Release(id);
  if (Status booked = applier_.Adopt(id, to, booking, false); !booked.ok()) {
    applier_.Adopt(id, l.placement, booking, false);  // What it just held is free again.
    return Status::Internal(job + ": " + booked.message());
  }
  const double now = WallNow();
  const bool up = gpus > l.rec.gpus;
  l.rec.gpus = gpus;
  l.spec.gpus = gpus;
  l.placement = to;
  l.rec.placement = to.ToString();
  dirty_ = true;  // Freed GPUs may start a pending job.
  wake_.notify_one();
  SCHEDKIT_RETURN_IF_ERROR(Transition(l, "resized", now));
  return AppendAllocationEvent(options_.state_dir, l.rec, up ? "up" : "down", to,
                               backend_->Cluster(), now);
}

void Engine::RejectUnfittable(double now_unix) {
  std::erase_if(arrived_, [&](JobId id) {
    Live& l = *jobs_.at(id);
    const std::string why = applier_.NeverFits(l.spec);
    if (why.empty()) return false;
    Finish(l, RunState::kRejected, 0, "rejected: " + why, now_unix, "rejected");
    return true;
  });
}

void Engine::Decide(double now_unix) {
  RejectUnfittable(now_unix);
  EventBatch events;
  std::sort(arrived_.begin(), arrived_.end(), [&](JobId a, JobId b) {
    const double sa = jobs_.at(a)->spec.submit_s, sb = jobs_.at(b)->spec.submit_s;
    return sa != sb ? sa < sb : a < b;
  });
  for (JobId id : arrived_) jobs_.at(id)->announced = true;
  events.arrived.swap(arrived_);
  events.finished.swap(finished_);
  events.woken = wake_at_unix_ > 0 && now_unix >= wake_at_unix_;
  // Drained nodes look full to the policy (the applier holds them back); their running
  // jobs carry on.
  View view(*this, now_unix, applier_.free());
  Decisions d;
  policy_->Decide(view, events, &d);
  wake_at_unix_ = d.wake_at == kNever ? 0 : origin_unix_ + d.wake_at;
  Apply(d, now_unix);
}

// All or nothing, like the simulator; but a policy's failure or bug must not take the
// service (and every other user's jobs) down: it is logged, nothing of it applies, and
// the policy is asked again at the next poll (it has been told this batch's events).
void Engine::Apply(const Decisions& d, double now_unix) {
  const std::string policy(policy_->Name());
  const JobLookup facts = [this](JobId id, JobFacts* f) { return Facts(id, f); };
  const Status st =
      d.failed() ? d.error : applier_.Validate(d, now_unix - origin_unix_, facts, &plan_);
  if (!st.ok()) {
    std::fprintf(stderr, "schedkit serve: policy %s: %s; its decisions are ignored\n",
                 policy.c_str(), st.message().c_str());
    wake_at_unix_ = now_unix + options_.poll_s;
    return;
  }
  for (const DecisionPlan::Reject& r : plan_.reject) {
    Finish(*jobs_.at(r.job), RunState::kRejected, 0,
           "rejected by policy " + policy + (r.reason.empty() ? "" : ": " + r.reason), now_unix,
           "rejected");
  }
  for (JobId id : plan_.stop) StopRunning(*jobs_.at(id), now_unix);  // Preempted, then moved.
  applier_.Book(plan_);
  for (const StartAction& s : plan_.start) StartJob(*jobs_.at(s.decision->job), s, now_unix);
}

bool Engine::Facts(JobId id, JobFacts* facts) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  const RunState s = it->second->rec.state;
  facts->state = s == RunState::kPending   ? JobState::kPending
                 : s == RunState::kRunning ? JobState::kRunning
                                           : JobState::kFinished;
  facts->gpus = it->second->rec.gpus;
  facts->max_gpus = it->second->rec.max_gpus;
  // The applier's type check: a start where the job has no speed is a policy bug.
  facts->spec = &it->second->spec;
  return true;
}

void Engine::StopRunning(Live& l, double now_unix) {
  Status st = backend_->Preempt(l.rec);
  if (!st.ok())
    std::fprintf(stderr, "schedkit serve: job %lld: %s\n", static_cast<long long>(l.rec.id),
                 st.message().c_str());
  BookRunEnd(&l.rec, l.placement.gpus(), now_unix);
  l.rec.preemptions++;
  l.rec.restart_count++;
  l.rec.state = RunState::kPending;
  l.rec.placement.clear();
  applier_.Release(l.rec.id);
  l.placement = Placement();
  std::erase(running_, l.rec.id);
  Transition(l, "preempted", now_unix);
  if (!l.announced) {
    arrived_.push_back(l.rec.id);
    dirty_ = true;
  }
}

// At most once: the backend prepares the job held, the store records it as started
// (with the backend's id), and only then is it let run. A service killed in between
// leaves a record whose held job recovery ends and requeues (Backend::Adopt).
void Engine::StartJob(Live& l, const StartAction& start, double now_unix) {
  const StartDecision& s = *start.decision;
  l.rec.group = applier_.BookingOf(l.rec.id);
  l.rec.group_size = start.group_size;
  // Solo work per wall second, the simulator's rule: the policy's rate, times the job's
  // speed on the GPU type it got, times the scaling model's speed-up on more GPUs than it
  // asked for (a grown elastic job).
  l.rec.rate = StartRate(l.spec, s.rate, s.placement, backend_->Cluster(), scaling_.get());
  l.rec.guest = s.guest;
  Result<std::string> id = backend_->Start(l.rec, s.placement);
  if (!id.ok()) {
    applier_.Release(l.rec.id);
    FailStart(l, id.status().message(), now_unix);
    return;
  }
  l.rec.backend_id = *id;
  l.rec.state = RunState::kRunning;
  if (l.rec.first_start_time == 0) l.rec.first_start_time = now_unix;
  l.rec.last_start_time = now_unix;
  l.placement = s.placement;
  l.rec.placement = s.placement.ToString();
  running_.push_back(l.rec.id);
  Status launched = Transition(l, "started", now_unix);
  if (launched.ok()) {
    launched = backend_->Launch(l.rec);
  } else {
    backend_->Cancel(l.rec);  // Not recorded: it must not run.
  }
  if (!launched.ok()) FailStart(l, launched.message(), now_unix);
}

void Engine::FailStart(Live& l, const std::string& message, double now_unix) {
  Finish(l, RunState::kFailed, 127, message, now_unix, "failed");
  finished_.push_back(l.rec.id);  // The policy thinks it started: tell it it ended.
  dirty_ = true;
}

void Engine::Finish(Live& l, RunState state, int exit_code, const std::string& message,
                    double now_unix, const std::string& kind) {
  if (l.rec.state == RunState::kRunning) {
    BookRunEnd(&l.rec, l.placement.gpus(), now_unix);
    applier_.Release(l.rec.id);
    l.placement = Placement();
    std::erase(running_, l.rec.id);
  }
  l.rec.state = state;
  l.rec.exit_code = exit_code;
  l.rec.message = message;
  l.rec.finish_time = now_unix;
  l.rec.placement.clear();
  Transition(l, kind, now_unix);
}

}  // namespace schedkit::runtime
