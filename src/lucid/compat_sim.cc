// The `--compat lucid` engine: the Lucid simulator's 1-second tick loop, run event to
// event. A tick where nothing can change is skipped; docs/lucid.md says, policy by
// policy, which ticks those are and why skipping them changes no result.
//
// Each policy is one VcSim subclass whose Run() reads as Lucid's tick: end jobs, queue
// arrivals, order, place, lend; then jump to the next tick that can change something.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "lucid/float_steps.h"
#include "lucid/forecast.h"
#include "lucid/profiler.h"
#include "lucid/rules.h"
#include "lucid/vc_nodes.h"
#include "schedkit/experiment.h"
#include "schedkit/lucid.h"

namespace schedkit::lucid {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kTiresiasThreshold = 18000;
constexpr int64_t kTiresiasInterval = 60;
constexpr int64_t kPackingInterval = 100;

// One job as a VC simulation sees it.
struct SimJob {
  const JobSpec* spec = nullptr;
  JobResult* out = nullptr;
  int64_t submit = 0, duration = 0;
  int gpus = 0;
  double priority = 0;  // QSSF / Lucid: estimate x GPUs. Tiresias: attained GPU-seconds.
  // Running state.
  std::vector<NodeShare> shares;
  int group = -1;  // Co-location group (Lucid): GPUs are freed when its last member ends.
  int64_t end = kInf;
  // Tiresias: remaining seconds and attained service as of tick `since`.
  int64_t remain_s = 0, since = 0, ckpt_time = 0;
  // Lucid: remaining work as of the start of tick `since`, decreased by `rate` per tick.
  double remain = 0, rate = 1;
  bool exclusive = true;
  int share_score = kNeverShares;
  int host = -1;  // Lucid guest: index of the job whose GPUs it shares.
};

int64_t CeilTicks(double remain) {
  if (remain <= 0) return 0;
  return static_cast<int64_t>(std::ceil(remain));
}

// Ticks until `remain` (decreased by `rate` once per tick, as Lucid's float loop does)
// reaches <= 0; and the value after `ticks` decrements.
int64_t TicksToFinish(double remain, double rate) {
  if (rate == 1.0) return CeilTicks(remain);
  return SubtractRepeatedly(remain, rate, kInf, /*stop_at_nonpositive=*/true).taken;
}
double Advance(double remain, double rate, int64_t ticks) {
  if (rate == 1.0) return remain - static_cast<double>(ticks);
  return SubtractRepeatedly(remain, rate, ticks, /*stop_at_nonpositive=*/false).value;
}

// What every policy's VC loop shares: the VC's nodes, its jobs in submit order, the queue
// and running lists (indices into jobs_), and the run's accounting.
class VcSim {
 public:
  VcSim(int nodes, std::vector<SimJob> jobs) : nodes_(nodes), jobs_(std::move(jobs)) {}
  virtual ~VcSim() = default;

  virtual Status Run() = 0;

  int64_t busy_gpu_s() const { return busy_gpu_s_; }
  int64_t ticks() const { return ticks_; }

 protected:
  bool AllEnded() const { return ended_ == jobs_.size(); }
  int64_t NextArrival() const { return next_ < jobs_.size() ? jobs_[next_].submit : kInf; }
  // Books the first start's queueing delay (a resumed job books its own).
  void RecordStart(int j, int64_t t) {
    SimJob& job = jobs_[j];
    job.out->start_s = t;
    job.out->queue_s += t - job.submit;
  }
  void BookGpus(int gpus, int64_t from, int64_t to) { busy_gpu_s_ += gpus * (to - from); }
  // The error when no tick is left with jobs unfinished.
  Status Stuck(int64_t t) const;

  VcNodes nodes_;
  std::vector<SimJob> jobs_;
  size_t next_ = 0;   // Next job to arrive.
  size_t ended_ = 0;  // Jobs ended.
  std::vector<int> queue_, running_;
  int64_t ticks_ = 0;

 private:
  int64_t busy_gpu_s_ = 0;
};

Status VcSim::Stuck(int64_t t) const {
  for (int j : queue_) {
    if (jobs_[j].gpus > nodes_.total_gpus()) {
      return Status::InvalidArgument("job " + std::to_string(jobs_[j].spec->id) + " asks for " +
                                     std::to_string(jobs_[j].gpus) + " GPUs; its VC '" +
                                     jobs_[j].spec->vc + "' has " +
                                     std::to_string(nodes_.total_gpus()));
    }
  }
  return Status::Internal("lucid compat: no event after t=" + std::to_string(t) +
                          " with jobs unfinished");
}

// FIFO, SJF, QSSF: end = start + duration, strict head-of-line blocking, a persistent
// queue re-sorted (stably) every tick.
class NonPreemptiveSim final : public VcSim {
 public:
  NonPreemptiveSim(CompatPolicy policy, int nodes, std::vector<SimJob> jobs)
      : VcSim(nodes, std::move(jobs)), policy_(policy) {}

  Status Run() override {
    int64_t t = NextArrival();
    while (!AllEnded()) {
      ++ticks_;
      EndJobs(t);
      const size_t arrived = QueueArrivals(t);
      const bool unassigned = SortQueue(arrived);
      StartInOrder(t);
      if (AllEnded()) break;
      int64_t next = std::min(NextArrival(), ends_.empty() ? kInf : ends_.top().first);
      if (unassigned) next = std::min(next, t + 1);
      if (next == kInf) return Stuck(t);
      t = next;
    }
    return Status::Ok();
  }

 private:
  void EndJobs(int64_t t) {
    for (; !ends_.empty() && ends_.top().first == t; ends_.pop(), ++ended_) {
      nodes_.Release(jobs_[ends_.top().second].shares);
    }
  }

  size_t QueueArrivals(int64_t t) {
    size_t arrived = 0;
    for (; next_ < jobs_.size() && jobs_[next_].submit == t; ++next_, ++arrived) {
      queue_.push_back(static_cast<int>(next_));
    }
    return arrived;
  }

  template <typename Key>
  void StableSortQueueBy(Key key) {
    std::stable_sort(queue_.begin(), queue_.end(),
                     [&](int a, int b) { return key(jobs_[a]) < key(jobs_[b]); });
  }

  // Returns whether QSSF left the queue without priorities (to be assigned next tick).
  bool SortQueue(size_t arrived) {
    switch (policy_) {
      case CompatPolicy::kFifo:
        StableSortQueueBy([](const SimJob& j) { return j.submit; });
        return false;
      case CompatPolicy::kSjf:
        StableSortQueueBy([](const SimJob& j) { return j.duration; });
        return false;
      default:
        // QSSF assigns priorities lazily: not while the queue holds only this tick's
        // arrivals. Its priorities are known up front, so assigning is sorting by them.
        StableSortQueueBy([](const SimJob& j) { return j.gpus; });
        if (queue_.size() == arrived) return !queue_.empty();
        StableSortQueueBy([](const SimJob& j) { return j.priority; });
        return false;
    }
  }

  void StartInOrder(int64_t t) {
    size_t placed = 0;
    for (; placed < queue_.size(); ++placed) {
      const int j = queue_[placed];
      SimJob& job = jobs_[j];
      if (!nodes_.Place(job.gpus, &job.shares)) break;
      RecordStart(j, t);
      job.out->end_s = t + job.duration;
      BookGpus(job.gpus, t, job.out->end_s);
      ends_.emplace(job.out->end_s, j);
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(placed));
  }

  const CompatPolicy policy_;
  using Ending = std::pair<int64_t, int>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ends_;
};

// Lucid's Tiresias: every 60 s, two queues split at 18,000 attained GPU-seconds (FIFO by
// submit time within each, the high one first) fill a quota of the VC's total GPUs;
// running jobs outside it are preempted (+40/60 s); a chosen job that cannot be placed
// waits. Attained service grows by the GPU count each running second; a job ends at
// start + remaining + 1.
class TiresiasSim final : public VcSim {
 public:
  using VcSim::VcSim;

  Status Run() override {
    int64_t t = IntervalAtOrAfter(NextArrival());
    while (!AllEnded()) {
      ++ticks_;
      EndJobs(t);
      QueueArrivals(t);
      if (AllEnded()) break;
      FillQuota(t);
      for (int j : preempt_) Preempt(j, t);
      bool started = false;
      for (int j : chosen_) started = TryStart(j, t) || started;
      // This tick's walk repeats itself at the next interval unless it started or
      // preempted a job; otherwise only an arrival, an end or a demotion changes it.
      int64_t next = started || !preempt_.empty() ? t + kTiresiasInterval : kInf;
      const int64_t event = NextEvent();
      if (event != kInf) next = std::min(next, IntervalAtOrAfter(event));
      if (next == kInf) return Stuck(t);
      t = std::max(next, t + kTiresiasInterval);
    }
    return Status::Ok();
  }

 private:
  static int64_t IntervalAtOrAfter(int64_t t) {
    return (t + kTiresiasInterval - 1) / kTiresiasInterval * kTiresiasInterval;
  }

  double Attained(int j, int64_t t) const {
    const SimJob& job = jobs_[j];
    if (job.end == kInf) return job.priority;
    return job.priority + static_cast<double>(job.gpus) * static_cast<double>(t - job.since);
  }

  // Ends since the last visited tick, in any order (releases commute).
  void EndJobs(int64_t t) {
    std::erase_if(running_, [&](int j) {
      SimJob& job = jobs_[j];
      if (job.end > t) return false;
      job.out->end_s = job.end;
      BookGpus(job.gpus, job.since, job.end);
      nodes_.Release(job.shares);
      ++ended_;
      return true;
    });
  }

  void QueueArrivals(int64_t t) {
    for (; next_ < jobs_.size() && jobs_[next_].submit <= t; ++next_) {
      jobs_[next_].priority = 0;
      jobs_[next_].remain_s = jobs_[next_].duration;
      queue_.push_back(static_cast<int>(next_));
    }
  }

  // The walk: running jobs then pending ones, split by the threshold, each level by
  // submit time; fills chosen_ (pending jobs within the quota) and preempt_ (running
  // jobs outside it).
  void FillQuota(int64_t t) {
    high_.clear();
    low_.clear();
    for (const std::vector<int>* list : {&running_, &queue_}) {
      for (int j : *list) (Attained(j, t) > kTiresiasThreshold ? low_ : high_).push_back(j);
    }
    auto by_submit = [this](int a, int b) { return jobs_[a].submit < jobs_[b].submit; };
    std::stable_sort(high_.begin(), high_.end(), by_submit);
    std::stable_sort(low_.begin(), low_.end(), by_submit);
    int quota = nodes_.total_gpus();
    chosen_.clear();
    preempt_.clear();
    for (const std::vector<int>* level : {&high_, &low_}) {
      for (int j : *level) {
        const bool running = jobs_[j].end != kInf;
        if (jobs_[j].gpus <= quota) {
          quota -= jobs_[j].gpus;
          if (!running) chosen_.push_back(j);
        } else if (running) {
          preempt_.push_back(j);
        }
      }
    }
  }

  void Preempt(int j, int64_t t) {
    SimJob& job = jobs_[j];
    job.priority = Attained(j, t);
    job.remain_s -= t - job.since;
    job.remain_s += job.gpus <= kGpusPerNode ? 40 : 60;
    job.out->preemptions++;
    job.ckpt_time = t;
    job.end = kInf;
    BookGpus(job.gpus, job.since, t);
    nodes_.Release(job.shares);
    queue_.push_back(j);
    running_.erase(std::find(running_.begin(), running_.end(), j));
  }

  // Starts or resumes a chosen job if it can be placed; returns whether it did.
  bool TryStart(int j, int64_t t) {
    SimJob& job = jobs_[j];
    if (!nodes_.Place(job.gpus, &job.shares)) return false;
    if (job.out->preemptions == 0) {
      RecordStart(j, t);
    } else {
      job.out->queue_s += t - job.ckpt_time;
    }
    job.since = t;
    job.end = t + job.remain_s + 1;
    queue_.erase(std::find(queue_.begin(), queue_.end(), j));
    running_.push_back(j);
    return true;
  }

  // The first second at which a job arrives, ends or crosses the threshold.
  int64_t NextEvent() const {
    int64_t event = NextArrival();
    for (int j : running_) {
      const SimJob& job = jobs_[j];
      event = std::min(event, job.end);
      if (job.priority <= kTiresiasThreshold) {
        const double need = (kTiresiasThreshold - job.priority) / job.gpus;
        event = std::min(event, job.since + static_cast<int64_t>(std::floor(need)) + 1);
      }
    }
    return event;
  }

  std::vector<int> high_, low_, chosen_, preempt_;  // Scratch of one tick.
};

// Lucid: queue sorted by priority (estimate x GPUs). Packing off: head-of-line blocking.
// Packing on (re-decided every 100 s from the forecast): every job is tried; one that
// the partner rule lets share a running exclusive job's GPUs does, the others are
// placed. remain -= rate every tick; a job ends at the first tick its remain is <= 0.
class LucidSim final : public VcSim {
 public:
  // `lending`: (time, node change) for the VC that lends the profiling pool a node.
  LucidSim(const Config& config, int nodes, std::vector<SimJob> jobs,
           std::vector<std::pair<int64_t, int>> lending)
      : VcSim(nodes, std::move(jobs)),
        config_(config),
        forecast_(config.forecast),
        lending_(std::move(lending)) {}

  Status Run() override {
    int64_t t = NextArrival();
    if (!lending_.empty()) t = std::min(t, lending_[0].first);
    while (!AllEnded()) {
      ++ticks_;
      EndJobs(t);
      QueueArrivals(t);
      const bool packing = PackingAt(t);
      SCHEDKIT_RETURN_IF_ERROR(StartQueued(t, packing));
      const bool grew = Lend(t);
      if (AllEnded()) break;
      const int64_t next = NextTick(t, grew, packing);
      if (next == kInf) return Stuck(t);
      t = next;
    }
    return Status::Ok();
  }

 private:
  // Jobs sharing one allocation.
  struct Group {
    int members = 0;
    std::vector<NodeShare> shares;
    int gpus = 0;
    int64_t since = 0;
  };

  // Lucid checks the forecast every 100 s, each check filtering its table further.
  bool PackingAt(int64_t t) const {
    const int64_t check = t / kPackingInterval * kPackingInterval;
    return PackingAllowed(forecast_, check, check == 0 ? -1 : check - kPackingInterval);
  }

  Sharer AsSharer(const SimJob& job) const {
    return {.gpus = job.gpus,
            .gmem_mb = job.spec->profile.gmem_mb,
            .share_score = job.share_score,
            .priority = job.priority};
  }

  void SyncRate(int j, int64_t tick, double rate) {
    SimJob& job = jobs_[j];
    job.remain = Advance(job.remain, job.rate, tick - job.since);
    job.since = tick;
    job.rate = rate;
    job.end = tick + TicksToFinish(job.remain, rate);
  }

  void EndJobs(int64_t t) {
    std::erase_if(running_, [&](int j) {
      if (jobs_[j].end != t) return false;
      EndJob(j, t);
      return true;
    });
  }

  void EndJob(int j, int64_t t) {
    SimJob& job = jobs_[j];
    job.out->end_s = t;
    // Lucid finds "the other job" as the first one on the node holding the same GPUs:
    // the host itself when the host ends (its guest keeps its shared speed), the host
    // when the guest ends (the host returns to full speed and may share again).
    if (!job.exclusive && job.host >= 0 && jobs_[job.host].end > t && jobs_[job.host].end != kInf) {
      SyncRate(job.host, t + 1, 1.0);
      jobs_[job.host].exclusive = true;
    }
    Group& group = groups_[job.group];
    if (--group.members == 0) {
      nodes_.Release(group.shares);
      BookGpus(group.gpus, group.since, t);
    }
    job.end = kInf;
    ++ended_;
  }

  void QueueArrivals(int64_t t) {
    for (; next_ < jobs_.size() && jobs_[next_].submit == t; ++next_) {
      const double p = jobs_[next_].priority;
      auto at = std::upper_bound(queue_.begin(), queue_.end(), p,
                                 [this](double v, int j) { return v < jobs_[j].priority; });
      queue_.insert(at, static_cast<int>(next_));
    }
  }

  // The first running exclusive job (run-list order) the partner rule lets `j` share.
  int FindPartner(int j) const {
    const Sharer guest = AsSharer(jobs_[j]);
    for (int r : running_) {
      if (jobs_[r].exclusive && MayShare(guest, AsSharer(jobs_[r]))) return r;
    }
    return -1;
  }

  Status ShareGpus(int j, int host, int64_t t) {
    SimJob& job = jobs_[j];
    SimJob& other = jobs_[host];
    const std::optional<PairSpeeds> s =
        LookupPairSpeeds(config_.colocate_speeds, *job.spec, *other.spec);
    if (!s || !(s->speed1 > 0 && s->speed2 > 0)) {
      return Status::InvalidArgument(
          "lucid: colocate_info has no speeds for jobs " + std::to_string(job.spec->id) + " and " +
          std::to_string(other.spec->id) + " (" + job.spec->profile.model + ", " +
          other.spec->profile.model + ")");
    }
    SyncRate(host, t + 1, s->speed2);
    other.exclusive = false;
    job.exclusive = false;
    job.host = host;
    job.group = other.group;
    ++groups_[job.group].members;
    job.out->colocated = other.out->colocated = true;
    job.rate = s->speed1;
    return Status::Ok();
  }

  bool PlaceAlone(int j, int64_t t) {
    SimJob& job = jobs_[j];
    if (!nodes_.Place(job.gpus, &job.shares)) return false;
    job.group = static_cast<int>(groups_.size());
    groups_.push_back({.members = 1, .shares = job.shares, .gpus = job.gpus, .since = t});
    job.rate = 1;
    return true;
  }

  void Launch(int j, int64_t t) {
    SimJob& job = jobs_[j];
    RecordStart(j, t);
    job.remain = static_cast<double>(job.duration);
    job.since = t + 1;
    job.end = job.since + TicksToFinish(job.remain, job.rate);
    running_.push_back(j);
  }

  Status StartQueued(int64_t t, bool packing) {
    bool started = false;
    for (int j : queue_) {
      const int host = packing ? FindPartner(j) : -1;
      if (host >= 0) {
        SCHEDKIT_RETURN_IF_ERROR(ShareGpus(j, host, t));
      } else if (!PlaceAlone(j, t)) {
        if (!packing) break;
        continue;
      }
      Launch(j, t);
      started = true;
    }
    if (started) std::erase_if(queue_, [this](int j) { return jobs_[j].end != kInf; });
    return Status::Ok();
  }

  // This tick's lending events; returns whether the VC gained a node.
  bool Lend(int64_t t) {
    bool grew = false;
    for (; lent_ < lending_.size() && lending_[lent_].first == t; ++lent_) {
      if (lending_[lent_].second > 0) {
        const int before = nodes_.node_count();
        nodes_.AddTempNode();
        grew = grew || nodes_.node_count() > before;
      } else {
        nodes_.RemoveIdleNode();
      }
    }
    return grew;
  }

  int64_t NextTick(int64_t t, bool grew, bool packing) const {
    int64_t next = NextArrival();
    // A node added after this tick's placement is first used on the next tick.
    if (grew && !queue_.empty()) next = t + 1;
    for (int j : running_) next = std::min(next, jobs_[j].end);
    for (size_t l = lent_; l < lending_.size(); ++l) {
      if (lending_[l].first > t) {
        next = std::min(next, lending_[l].first);
        break;
      }
    }
    if (queue_.empty()) return next;
    // A waiting job may start when the packing switch flips.
    for (int64_t m = (t / kPackingInterval + 1) * kPackingInterval; m < next;
         m += kPackingInterval) {
      if (PackingAt(m) != packing) return m;
    }
    return next;
  }

  const Config& config_;
  ForecastView forecast_;
  std::vector<Group> groups_;
  std::vector<std::pair<int64_t, int>> lending_;
  size_t lent_ = 0;  // Lending events done.
};

// The run's VCs and their jobs, with every job's result row started.
struct VcPartition {
  std::vector<int> nodes;                 // Per VC, config order.
  std::vector<std::vector<int>> members;  // Per VC: trace indices.
};

Result<VcPartition> PartitionByVc(const Trace& trace, const Config& config, RunResult* result) {
  std::unordered_map<std::string, size_t> vc_index;
  VcPartition p;
  for (const VirtualCluster& vc : config.vcs) {
    vc_index.emplace(vc.name, p.nodes.size());
    p.nodes.push_back(vc.nodes);
    result->total_gpus += vc.nodes * kGpusPerNode;
  }
  p.members.resize(config.vcs.size());
  result->jobs.resize(trace.jobs.size());
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobSpec& j = trace.jobs[i];
    auto it = vc_index.find(j.vc);
    if (it == vc_index.end()) {
      return Status::InvalidArgument("job " + std::to_string(j.id) + ": VC '" + j.vc +
                                     "' is not in the VC configuration");
    }
    if (j.submit_s != std::floor(j.submit_s) || j.duration_s != std::floor(j.duration_s) ||
        j.duration_s < 1) {
      return Status::InvalidArgument("job " + std::to_string(j.id) +
                                     ": --compat lucid needs whole-second submit times and "
                                     "durations >= 1 s");
    }
    p.members[it->second].push_back(static_cast<int>(i));
    JobResult& r = result->jobs[i];
    r.id = j.id;
    r.vc = j.vc;
    r.gpus = j.gpus;
    r.submit_s = static_cast<int64_t>(j.submit_s);
  }
  return p;
}

// Runs Lucid's profiler over the whole trace on nodes taken from the donor VCs; records
// each profiled job's profiler queue (and its whole run if it finished there). Returns
// the pool's changes, which the lender VC mirrors.
Result<std::vector<std::pair<int64_t, int>>> ProfileFirst(const Trace& trace, const Config& config,
                                                          std::vector<int>* nodes,
                                                          RunResult* result) {
  SCHEDKIT_RETURN_IF_ERROR(TakeProfilerNodes(config.profiler, config.vcs, nodes));
  auto profiler = RunProfiler(trace, config.profiler, config.forecast, ProfilerClock::kLucidTicks);
  if (!profiler.ok()) return profiler.status();
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const ProfiledJob& p = profiler->jobs[i];
    if (!p.profiled) continue;
    JobResult& r = result->jobs[i];
    r.profiled = true;
    r.queue_s = static_cast<int64_t>(p.start_s) - r.submit_s;
    result->busy_gpu_s += static_cast<int64_t>(p.end_s - p.start_s) * r.gpus;
    if (p.finished) {
      r.finished_in_profiler = true;
      r.start_s = static_cast<int64_t>(p.start_s);
      r.end_s = static_cast<int64_t>(p.end_s);
    }
  }
  std::vector<std::pair<int64_t, int>> changes;
  for (const auto& [time, change] : profiler->pool_changes) {
    changes.emplace_back(static_cast<int64_t>(time), change);
  }
  result->profiler_scale_events = static_cast<int64_t>(changes.size());
  return changes;
}

// One VC's jobs that did not finish in the profiler, with the side data their policy
// reads. Errors name a job the side data lacks.
Result<std::vector<SimJob>> VcJobs(const Trace& trace, const Config& config,
                                   const std::vector<int>& members, RunResult* result) {
  const bool lucid = config.policy == CompatPolicy::kLucid;
  const bool uses_estimates = lucid || config.policy == CompatPolicy::kQssf;
  std::vector<SimJob> jobs;
  for (int i : members) {
    if (result->jobs[i].finished_in_profiler) continue;
    const JobSpec& spec = trace.jobs[i];
    SimJob s;
    s.spec = &spec;
    s.out = &result->jobs[i];
    s.submit = static_cast<int64_t>(spec.submit_s);
    s.duration = static_cast<int64_t>(spec.duration_s);
    s.gpus = spec.gpus;
    if (uses_estimates) {
      auto e = config.estimates.find(spec.id);
      if (e == config.estimates.end()) {
        return Status::InvalidArgument("job " + std::to_string(spec.id) +
                                       ": no duration estimate in the estimates file");
      }
      // Lucid's priority rule; QSSF takes its estimates as they are.
      s.priority = lucid ? Priority(e->second, spec.gpus) : e->second * spec.gpus;
    }
    if (lucid) {
      auto sc = config.share_scores.find(KeyOf(spec));
      if (sc == config.share_scores.end()) {
        return Status::InvalidArgument(
            "job " + std::to_string(spec.id) + ": no share score in single_data for (" +
            spec.profile.model + ", " + spec.profile.dataset + ", " +
            std::to_string(spec.profile.batch_size) + ", " + (spec.profile.amp ? "1" : "0") + ")");
      }
      s.share_score = sc->second;
    }
    jobs.push_back(s);
  }
  return jobs;
}

std::unique_ptr<VcSim> MakeVcSim(const Config& config, size_t vc, int nodes,
                                 std::vector<SimJob> jobs,
                                 const std::vector<std::pair<int64_t, int>>& pool_changes) {
  switch (config.policy) {
    case CompatPolicy::kTiresias:
      return std::make_unique<TiresiasSim>(nodes, std::move(jobs));
    case CompatPolicy::kLucid: {
      // The lender gives a node up when the pool grows and gets one back when it shrinks.
      std::vector<std::pair<int64_t, int>> lending;
      if (config.vcs[vc].name == config.profiler.lender_vc) {
        for (const auto& [time, change] : pool_changes) lending.emplace_back(time, -change);
      }
      return std::make_unique<LucidSim>(config, nodes, std::move(jobs), std::move(lending));
    }
    default:
      return std::make_unique<NonPreemptiveSim>(config.policy, nodes, std::move(jobs));
  }
}

void SummarizeVcs(const Config& config, const VcPartition& partition, RunResult* result) {
  std::vector<const JobResult*> all;
  for (size_t v = 0; v < config.vcs.size(); ++v) {
    std::vector<const JobResult*> in_vc;
    for (int i : partition.members[v]) in_vc.push_back(&result->jobs[i]);
    all.insert(all.end(), in_vc.begin(), in_vc.end());
    result->per_vc.emplace_back(config.vcs[v].name, Summarize(in_vc));
  }
  for (const JobResult& r : result->jobs) result->colocated_jobs += r.colocated;
  result->all = Summarize(all);
}

}  // namespace

Result<RunResult> RunCompat(const Trace& trace, const Config& config) {
  RunResult result;
  auto partition = PartitionByVc(trace, config, &result);
  if (!partition.ok()) return partition.status();
  std::vector<std::pair<int64_t, int>> pool_changes;
  if (config.policy == CompatPolicy::kLucid && config.profiler.enabled) {
    auto changes = ProfileFirst(trace, config, &partition->nodes, &result);
    if (!changes.ok()) return changes.status();
    pool_changes = std::move(*changes);
  }
  std::vector<std::unique_ptr<VcSim>> sims;
  for (size_t v = 0; v < config.vcs.size(); ++v) {
    auto jobs = VcJobs(trace, config, partition->members[v], &result);
    if (!jobs.ok()) return jobs.status();
    sims.push_back(MakeVcSim(config, v, partition->nodes[v], std::move(*jobs), pool_changes));
  }
  std::vector<Status> status(sims.size());
  ParallelFor(sims.size(), std::max(1, config.threads),
              [&](size_t v) { status[v] = sims[v]->Run(); });
  for (size_t v = 0; v < sims.size(); ++v) {
    if (!status[v].ok()) {
      return Status::InvalidArgument("VC " + config.vcs[v].name + ": " + status[v].message());
    }
    result.busy_gpu_s += sims[v]->busy_gpu_s();
    result.ticks += sims[v]->ticks();
  }
  SummarizeVcs(config, *partition, &result);
  return result;
}

}  // namespace schedkit::lucid
