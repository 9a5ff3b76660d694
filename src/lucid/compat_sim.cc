// The `--compat lucid` engine: the Lucid simulator's 1-second tick loop, run event to
// event. A tick where nothing can change is skipped; docs/lucid.md says, policy by
// policy, which ticks those are and why skipping them changes no result.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "lucid/float_steps.h"
#include "lucid/forecast.h"
#include "lucid/profiler.h"
#include "lucid/vc_nodes.h"
#include "schedkit/experiment.h"
#include "schedkit/lucid.h"

namespace schedkit::lucid {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
constexpr double kGpuMemoryLimitMb = 24576;  // Lucid's RTX 3090 memory.
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
  bool has_priority = false;
  // Running state.
  std::vector<NodeShare> shares;
  int group = -1;  // Co-location group (Lucid): GPUs are freed when its last member ends.
  int64_t end = kInf;
  // Tiresias: remaining seconds and attained service as of tick `since`.
  int64_t remain_s = 0, since = 0, ckpt_time = 0;
  // Lucid: remaining work as of the start of tick `since`, decreased by `rate` per tick.
  double remain = 0, rate = 1;
  bool exclusive = true;
  int share_score = 0;
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

// Shared by every policy's VC loop.
class VcSim {
 public:
  VcSim(const Config& config, int nodes, std::vector<SimJob> jobs)
      : config_(config), nodes_(nodes), jobs_(std::move(jobs)) {}

  Status Run();

  void SetLenderSchedule(std::vector<std::pair<int64_t, int>> s) { lender_ = std::move(s); }

 private:
  Status RunNonPreemptive();
  Status RunTiresias();
  Status RunLucid();

  void Start(int j, int64_t t) {
    SimJob& job = jobs_[j];
    job.out->start_s = t;
    job.out->queue_s += t - job.submit;
  }
  Status Stuck(int64_t t) const;
  int64_t NextArrival() const { return next_ < jobs_.size() ? jobs_[next_].submit : kInf; }

  // Lucid helpers.
  void SyncRate(int j, int64_t next_tick, double rate);
  int PickPartner(int j) const;
  PairSpeeds Speeds(const SimJob& guest, const SimJob& host) const;

  const Config& config_;
  VcNodes nodes_;
  std::vector<SimJob> jobs_;
  size_t next_ = 0;  // Next job to arrive.
  std::vector<int> queue_, running_;
  std::vector<int> group_members_;
  std::vector<std::vector<NodeShare>> group_shares_;
  std::vector<std::pair<int64_t, int>> lender_;  // (time, node change) for the lending VC.
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

Status VcSim::Run() {
  switch (config_.policy) {
    case Policy::kFifo:
    case Policy::kSjf:
    case Policy::kQssf:
      return RunNonPreemptive();
    case Policy::kTiresias:
      return RunTiresias();
    case Policy::kLucid:
      return RunLucid();
  }
  return Status::Internal("unhandled policy");
}

// FIFO, SJF, QSSF: end = start + duration, strict head-of-line blocking, a persistent
// queue re-sorted (stably) every tick.
Status VcSim::RunNonPreemptive() {
  using Ending = std::pair<int64_t, int>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ends;
  size_t ended = 0;
  int64_t t = NextArrival();
  const Policy policy = config_.policy;
  while (ended < jobs_.size()) {
    while (!ends.empty() && ends.top().first == t) {
      nodes_.Release(jobs_[ends.top().second].shares);
      ends.pop();
      ++ended;
    }
    size_t arrived = 0;
    for (; next_ < jobs_.size() && jobs_[next_].submit == t; ++next_, ++arrived) {
      queue_.push_back(static_cast<int>(next_));
    }
    auto by = [this](auto key) {
      std::stable_sort(queue_.begin(), queue_.end(),
                       [&](int a, int b) { return key(jobs_[a]) < key(jobs_[b]); });
    };
    bool unassigned = false;
    if (policy == Policy::kFifo) {
      by([](const SimJob& j) { return j.submit; });
    } else if (policy == Policy::kSjf) {
      by([](const SimJob& j) { return j.duration; });
    } else {
      // QSSF assigns priorities lazily: not while the queue holds only this tick's arrivals.
      by([](const SimJob& j) { return j.gpus; });
      if (queue_.size() > arrived) {
        for (int j : queue_) jobs_[j].has_priority = true;
        by([](const SimJob& j) { return j.priority; });
      } else {
        unassigned = !queue_.empty();
      }
    }
    size_t placed = 0;
    for (; placed < queue_.size(); ++placed) {
      SimJob& job = jobs_[queue_[placed]];
      if (!nodes_.Place(job.gpus, &job.shares)) break;
      Start(queue_[placed], t);
      job.out->end_s = t + job.duration;
      ends.emplace(job.out->end_s, queue_[placed]);
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(placed));
    if (ended == jobs_.size()) break;
    int64_t next = std::min(NextArrival(), ends.empty() ? kInf : ends.top().first);
    if (unassigned) next = std::min(next, t + 1);
    if (next == kInf) return Stuck(t);
    t = next;
  }
  return Status::Ok();
}

// Lucid's Tiresias: every 60 s, two queues split at 18,000 attained GPU-seconds (FIFO by
// submit time within each, the high one first) fill a quota of the VC's total GPUs;
// running jobs outside it are preempted (+40/60 s); a chosen job that cannot be placed
// waits. Attained service grows by the GPU count each running second; a job ends at
// start + remaining + 1.
Status VcSim::RunTiresias() {
  size_t ended = 0;
  auto interval_at_or_after = [](int64_t t) {
    return (t + kTiresiasInterval - 1) / kTiresiasInterval * kTiresiasInterval;
  };
  auto attained = [this](int j, int64_t t) {
    const SimJob& job = jobs_[j];
    return job.priority + static_cast<double>(job.gpus) * static_cast<double>(t - job.since);
  };
  int64_t t = interval_at_or_after(NextArrival());
  std::vector<int> high, low, prerun, preempt;
  while (ended < jobs_.size()) {
    // Ends since the last processed tick, in any order (releases commute).
    for (size_t i = 0; i < running_.size();) {
      SimJob& job = jobs_[running_[i]];
      if (job.end <= t) {
        job.out->end_s = job.end;
        nodes_.Release(job.shares);
        running_.erase(running_.begin() + static_cast<long>(i));
        ++ended;
      } else {
        ++i;
      }
    }
    for (; next_ < jobs_.size() && jobs_[next_].submit <= t; ++next_) {
      jobs_[next_].priority = 0;
      jobs_[next_].remain_s = jobs_[next_].duration;
      queue_.push_back(static_cast<int>(next_));
    }
    if (ended == jobs_.size()) break;
    high.clear();
    low.clear();
    for (const std::vector<int>* list : {&running_, &queue_}) {
      for (int j : *list) {
        const bool running = list == &running_;
        const double a = running ? attained(j, t) : jobs_[j].priority;
        (a > kTiresiasThreshold ? low : high).push_back(j);
      }
    }
    auto by_submit = [this](int a, int b) { return jobs_[a].submit < jobs_[b].submit; };
    std::stable_sort(high.begin(), high.end(), by_submit);
    std::stable_sort(low.begin(), low.end(), by_submit);
    int quota = nodes_.total_gpus();
    prerun.clear();
    preempt.clear();
    for (const std::vector<int>* level : {&high, &low}) {
      for (int j : *level) {
        const bool running = jobs_[j].end != kInf;
        if (jobs_[j].gpus <= quota) {
          quota -= jobs_[j].gpus;
          if (!running) prerun.push_back(j);
        } else if (running) {
          preempt.push_back(j);
        }
      }
    }
    for (int j : preempt) {
      SimJob& job = jobs_[j];
      job.priority = attained(j, t);
      job.remain_s -= t - job.since;
      job.remain_s += job.gpus <= kGpusPerNode ? 40 : 60;
      job.out->preemptions++;
      job.ckpt_time = t;
      job.end = kInf;
      nodes_.Release(job.shares);
      queue_.push_back(j);
      running_.erase(std::find(running_.begin(), running_.end(), j));
    }
    for (int j : prerun) {
      SimJob& job = jobs_[j];
      if (!nodes_.Place(job.gpus, &job.shares)) continue;
      if (job.out->preemptions == 0) {
        Start(j, t);
      } else {
        job.out->queue_s += t - job.ckpt_time;
      }
      job.since = t;
      job.end = t + job.remain_s + 1;
      queue_.erase(std::find(queue_.begin(), queue_.end(), j));
      running_.push_back(j);
    }
    // The next tick where the outcome can differ: this one changed something, or a job
    // arrives, ends or crosses the threshold.
    int64_t next;
    if (!prerun.empty() || !preempt.empty()) {
      bool started = false;
      for (int j : prerun) started = started || jobs_[j].end != kInf;
      next = (started || !preempt.empty()) ? t + kTiresiasInterval : kInf;
    } else {
      next = kInf;
    }
    int64_t event = NextArrival();
    for (int j : running_) {
      const SimJob& job = jobs_[j];
      event = std::min(event, job.end);
      if (job.priority <= kTiresiasThreshold) {
        // First tick whose attained service exceeds the threshold.
        const double need = (kTiresiasThreshold - job.priority) / job.gpus;
        event = std::min(event, job.since + static_cast<int64_t>(std::floor(need)) + 1);
      }
    }
    if (event != kInf) next = std::min(next, interval_at_or_after(event));
    if (next == kInf) return Stuck(t);
    t = std::max(next, t + kTiresiasInterval);
  }
  return Status::Ok();
}

void VcSim::SyncRate(int j, int64_t tick, double rate) {
  SimJob& job = jobs_[j];
  job.remain = Advance(job.remain, job.rate, tick - job.since);
  job.since = tick;
  job.rate = rate;
  job.end = tick + TicksToFinish(job.remain, rate);
}

int VcSim::PickPartner(int j) const {
  const SimJob& job = jobs_[j];
  const double mem_limit = kGpuMemoryLimitMb - job.spec->gmem_mb;
  for (int r : running_) {
    const SimJob& other = jobs_[r];
    if (!other.exclusive || other.gpus != job.gpus) continue;
    if (other.spec->gmem_mb < mem_limit && job.share_score + other.share_score <= 2 &&
        job.priority <= other.priority * 2) {
      return r;
    }
  }
  return -1;
}

WorkloadKey KeyOf(const JobSpec& j) { return {j.model, j.dataset, j.batch_size, j.amp}; }

// Lucid has no measurements for pairs with these models and runs them at full speed.
bool Unmeasured(const std::string& model) {
  return model == "NeuMF" || model == "ResNet50" || model == "BERT" || model == "Transformer";
}

PairSpeeds VcSim::Speeds(const SimJob& guest, const SimJob& host) const {
  if (Unmeasured(guest.spec->model) || Unmeasured(host.spec->model)) return {1, 1};
  const WorkloadKey g = KeyOf(*guest.spec), h = KeyOf(*host.spec);
  auto it = config_.colocate_speeds.find({g, h});
  if (it != config_.colocate_speeds.end()) return it->second;
  it = config_.colocate_speeds.find({h, g});
  if (it != config_.colocate_speeds.end()) return {it->second.speed2, it->second.speed1};
  return {0, 0};  // Checked by the caller.
}

// Lucid: queue sorted by priority (estimate x GPUs). Packing off: head-of-line blocking.
// Packing on (re-decided every 100 s from the forecast): every job is tried; one of <= 8
// GPUs first looks for a running exclusive partner to share GPUs with, else is placed.
// remain -= rate every tick; a job ends at the first tick its remain is <= 0.
Status VcSim::RunLucid() {
  ForecastView forecast(config_.forecast);
  auto packing_at = [&](int64_t t) {
    const int64_t m = t / kPackingInterval * kPackingInterval;
    const double v =
        forecast.Mean(forecast.data().pred_gpu_job, m, m == 0 ? -1 : m - kPackingInterval, 10.0);
    return !(v <= 2);
  };
  size_t ended = 0, lend = 0;
  int64_t t = NextArrival();
  if (!lender_.empty()) t = std::min(t, lender_[0].first);
  std::vector<int> started;
  while (ended < jobs_.size()) {
    for (size_t i = 0; i < running_.size();) {
      const int j = running_[i];
      SimJob& job = jobs_[j];
      if (job.end != t) {
        ++i;
        continue;
      }
      job.out->end_s = t;
      // Lucid finds "the other job" as the first one on the node holding the same GPUs:
      // the host itself when the host ends (its guest keeps its shared speed), the host
      // when the guest ends (the host returns to full speed and may share again).
      if (!job.exclusive && job.host >= 0 && jobs_[job.host].end > t &&
          jobs_[job.host].end != kInf) {
        SyncRate(job.host, t + 1, 1.0);
        jobs_[job.host].exclusive = true;
      }
      if (--group_members_[job.group] == 0) nodes_.Release(group_shares_[job.group]);
      job.end = kInf;
      running_.erase(running_.begin() + static_cast<long>(i));
      ++ended;
    }
    for (; next_ < jobs_.size() && jobs_[next_].submit == t; ++next_) {
      const double p = jobs_[next_].priority;
      auto at = std::upper_bound(queue_.begin(), queue_.end(), p,
                                 [this](double v, int j) { return v < jobs_[j].priority; });
      queue_.insert(at, static_cast<int>(next_));
    }
    const bool packing = packing_at(t);
    started.clear();
    for (int j : queue_) {
      SimJob& job = jobs_[j];
      int host = -1;
      if (packing && job.gpus <= kGpusPerNode) host = PickPartner(j);
      if (host >= 0) {
        const PairSpeeds s = Speeds(job, jobs_[host]);
        if (!(s.speed1 > 0 && s.speed2 > 0)) {
          return Status::InvalidArgument("lucid: colocate_info has no speeds for jobs " +
                                         std::to_string(job.spec->id) + " and " +
                                         std::to_string(jobs_[host].spec->id) + " (" +
                                         job.spec->model + ", " + jobs_[host].spec->model + ")");
        }
        SyncRate(host, t + 1, s.speed2);
        jobs_[host].exclusive = false;
        job.exclusive = false;
        job.host = host;
        job.group = jobs_[host].group;
        ++group_members_[job.group];
        job.out->colocated = jobs_[host].out->colocated = true;
        job.rate = s.speed1;
      } else if (nodes_.Place(job.gpus, &job.shares)) {
        job.group = static_cast<int>(group_members_.size());
        group_members_.push_back(1);
        group_shares_.push_back(job.shares);
        job.rate = 1;
      } else {
        if (!packing) break;
        continue;
      }
      Start(j, t);
      job.remain = static_cast<double>(job.duration);
      job.since = t + 1;
      job.end = job.since + TicksToFinish(job.remain, job.rate);
      running_.push_back(j);
      started.push_back(j);
    }
    if (!started.empty()) {
      std::erase_if(queue_, [this](int j) { return jobs_[j].end != kInf; });
    }
    bool grew = false;
    for (; lend < lender_.size() && lender_[lend].first == t; ++lend) {
      if (lender_[lend].second > 0) {
        const int before = nodes_.node_count();
        nodes_.AddTempNode();
        grew = grew || nodes_.node_count() > before;
      } else {
        nodes_.RemoveIdleNode();
      }
    }
    if (ended == jobs_.size()) break;
    int64_t next = NextArrival();
    // A node added after this tick's placement is first used on the next tick.
    if (grew && !queue_.empty()) next = t + 1;
    for (int j : running_) next = std::min(next, jobs_[j].end);
    // Skip lender events that fall at or before the next tick ... they are processed there.
    for (size_t l = lend; l < lender_.size(); ++l) {
      if (lender_[l].first > t) {
        next = std::min(next, lender_[l].first);
        break;
      }
    }
    if (!queue_.empty()) {
      // A waiting job may start when the packing switch flips.
      for (int64_t m = (t / kPackingInterval + 1) * kPackingInterval; m < next;
           m += kPackingInterval) {
        if (packing_at(m) != packing) {
          next = m;
          break;
        }
      }
    }
    if (next == kInf) return Stuck(t);
    t = next;
  }
  return Status::Ok();
}

}  // namespace

double QuantileLinear(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

MetricSummary Summarize(const std::vector<const JobResult*>& jobs) {
  MetricSummary s;
  s.jobs = static_cast<int64_t>(jobs.size());
  if (jobs.empty()) return s;
  std::vector<double> queue;
  queue.reserve(jobs.size());
  double jct = 0, q = 0;
  for (const JobResult* j : jobs) {
    jct += static_cast<double>(j->end_s - j->submit_s);
    q += static_cast<double>(j->queue_s);
    queue.push_back(static_cast<double>(j->queue_s));
  }
  s.avg_jct_s = jct / static_cast<double>(jobs.size());
  s.avg_queue_s = q / static_cast<double>(jobs.size());
  s.p999_queue_s = QuantileLinear(std::move(queue), 0.999);
  return s;
}

Result<Policy> ParsePolicy(const std::string& name) {
  for (Policy p : {Policy::kFifo, Policy::kSjf, Policy::kQssf, Policy::kTiresias, Policy::kLucid}) {
    if (name == PolicyName(p)) return p;
  }
  return Status::InvalidArgument("--compat lucid: unknown policy '" + name +
                                 "' (expected fifo, sjf, qssf, tiresias or lucid)");
}

const char* PolicyName(Policy p) {
  switch (p) {
    case Policy::kFifo:
      return "fifo";
    case Policy::kSjf:
      return "sjf";
    case Policy::kQssf:
      return "qssf";
    case Policy::kTiresias:
      return "tiresias";
    case Policy::kLucid:
      return "lucid";
  }
  return "unknown";
}

Result<RunResult> RunCompat(const Trace& trace, const Config& config) {
  std::unordered_map<std::string, size_t> vc_index;
  std::vector<int> nodes;
  for (const VirtualCluster& vc : config.vcs) {
    vc_index.emplace(vc.name, nodes.size());
    nodes.push_back(vc.nodes);
  }
  RunResult result;
  result.jobs.resize(trace.jobs.size());
  std::vector<std::vector<int>> members(config.vcs.size());
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
    members[it->second].push_back(static_cast<int>(i));
    JobResult& r = result.jobs[i];
    r.id = j.id;
    r.vc = j.vc;
    r.gpus = j.gpus;
    r.submit_s = static_cast<int64_t>(j.submit_s);
  }
  const bool lucid = config.policy == Policy::kLucid;
  const bool uses_estimates = lucid || config.policy == Policy::kQssf;
  std::vector<std::pair<int64_t, int>> lender;
  if (lucid && config.profiler.enabled) {
    SCHEDKIT_RETURN_IF_ERROR(TakeProfilerNodes(config.profiler, config.vcs, &nodes));
    auto profiler =
        RunProfiler(trace, config.profiler, config.forecast, ProfilerClock::kLucidTicks);
    if (!profiler.ok()) return profiler.status();
    for (size_t i = 0; i < trace.jobs.size(); ++i) {
      const ProfiledJob& p = profiler->jobs[i];
      if (!p.profiled) continue;
      JobResult& r = result.jobs[i];
      r.profiled = true;
      r.queue_s = static_cast<int64_t>(p.start_s) - r.submit_s;
      if (p.finished) {
        r.finished_in_profiler = true;
        r.start_s = static_cast<int64_t>(p.start_s);
        r.end_s = static_cast<int64_t>(p.end_s);
      }
    }
    for (const auto& [time, change] : profiler->pool_changes) {
      lender.emplace_back(static_cast<int64_t>(time), change);
    }
    result.profiler_scale_events = static_cast<int64_t>(lender.size());
  }

  std::vector<std::unique_ptr<VcSim>> sims(config.vcs.size());
  for (size_t v = 0; v < config.vcs.size(); ++v) {
    std::vector<SimJob> jobs;
    for (int i : members[v]) {
      if (result.jobs[i].finished_in_profiler) continue;
      const JobSpec& spec = trace.jobs[i];
      SimJob s;
      s.spec = &spec;
      s.out = &result.jobs[i];
      s.submit = static_cast<int64_t>(spec.submit_s);
      s.duration = static_cast<int64_t>(spec.duration_s);
      s.gpus = spec.gpus;
      if (uses_estimates) {
        auto e = config.estimates.find(spec.id);
        if (e == config.estimates.end()) {
          return Status::InvalidArgument("job " + std::to_string(spec.id) +
                                         ": no duration estimate in the estimates file");
        }
        const double estimate = lucid && e->second < 0 ? 1000 : e->second;
        s.priority = estimate * spec.gpus;
      }
      if (lucid) {
        auto sc = config.share_scores.find(KeyOf(spec));
        if (sc == config.share_scores.end()) {
          return Status::InvalidArgument(
              "job " + std::to_string(spec.id) + ": no share score in single_data for (" +
              spec.model + ", " + spec.dataset + ", " + std::to_string(spec.batch_size) + ", " +
              (spec.amp ? "1" : "0") + ")");
        }
        s.share_score = sc->second;
      }
      jobs.push_back(s);
    }
    sims[v] = std::make_unique<VcSim>(config, nodes[v], std::move(jobs));
    if (lucid && config.vcs[v].name == config.profiler.lender_vc) {
      std::vector<std::pair<int64_t, int>> echo;
      for (const auto& [time, change] : lender) echo.emplace_back(time, -change);
      sims[v]->SetLenderSchedule(std::move(echo));
    }
  }
  std::vector<Status> status(sims.size());
  ParallelFor(sims.size(), std::max(1, config.threads),
              [&](size_t v) { status[v] = sims[v]->Run(); });
  for (size_t v = 0; v < sims.size(); ++v) {
    if (!status[v].ok()) {
      return Status::InvalidArgument("VC " + config.vcs[v].name + ": " + status[v].message());
    }
  }

  std::vector<const JobResult*> all;
  for (size_t v = 0; v < config.vcs.size(); ++v) {
    std::vector<const JobResult*> in_vc;
    for (int i : members[v]) in_vc.push_back(&result.jobs[i]);
    all.insert(all.end(), in_vc.begin(), in_vc.end());
    result.per_vc.emplace_back(config.vcs[v].name, Summarize(in_vc));
  }
  for (const JobResult& r : result.jobs) result.colocated_jobs += r.colocated;
  result.all = Summarize(all);
  return result;
}

}  // namespace schedkit::lucid
