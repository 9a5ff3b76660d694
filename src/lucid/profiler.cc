// Lucid's profiling pool (profiler.h), run event to event: between arrivals, ends and
// the 10-s / 100-s checks that can change something, nothing does.
#include "lucid/profiler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <string>

#include "lucid/forecast.h"
#include "lucid/vc_nodes.h"

namespace schedkit::lucid {
namespace {

constexpr Time kScaleUpEvery = 10;
constexpr Time kScaleDownEvery = 100;

bool OnGrid(Time t, Time every) { return std::fmod(t, every) == 0; }
Time NextOnGrid(Time t, Time every) { return (std::floor(t / every) + 1) * every; }

class Pool {
 public:
  Pool(const Trace& trace, const ProfilerConfig& cfg, const ThroughputForecast& forecast,
       ProfilerClock clock)
      : trace_(trace), cfg_(cfg), forecast_(forecast), clock_(clock), nodes_(cfg.nodes) {
    out_.jobs.resize(trace.jobs.size());
    shares_.resize(trace.jobs.size());
    for (size_t i = 0; i < trace.jobs.size(); ++i) {
      if (trace.jobs[i].gpus <= cfg.max_gpus) jobs_.push_back(static_cast<int>(i));
    }
  }

  Result<ProfilerRun> Run();

 private:
  const JobSpec& Spec(int i) const { return trace_.jobs[static_cast<size_t>(i)]; }
  void EndAndArrive(Time t);
  void Place(Time t);
  bool Scale(Time t);  // Returns whether the pool grew.
  bool UpArmed() const {
    return static_cast<int>(queue_.size()) > cfg_.scale_up_queue &&
           nodes_.node_count() == cfg_.nodes;
  }
  bool DownArmed() const {
    return static_cast<int>(queue_.size()) < cfg_.scale_down_queue &&
           nodes_.node_count() == cfg_.nodes + 1 && nodes_.NodeIsIdle(VcNodes::kTempNodeName);
  }

  const Trace& trace_;
  const ProfilerConfig& cfg_;
  ForecastView forecast_;
  const ProfilerClock clock_;
  VcNodes nodes_;
  ProfilerRun out_;
  std::vector<int> jobs_;  // Trace indices of the jobs to profile, in submit order.
  std::vector<std::vector<NodeShare>> shares_;
  using Ending = std::pair<Time, int>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> ends_;
  std::vector<int> queue_;  // Least GPUs first; stable among equals.
  size_t next_ = 0, ended_ = 0;
  int64_t last_forecast_call_ = -1;
};

void Pool::EndAndArrive(Time t) {
  while (!ends_.empty() && ends_.top().first <= t) {
    nodes_.Release(shares_[static_cast<size_t>(ends_.top().second)]);
    ends_.pop();
    ++ended_;
  }
  for (; next_ < jobs_.size() && Spec(jobs_[next_]).submit_s <= t; ++next_) {
    const int g = Spec(jobs_[next_]).gpus;
    auto at = std::upper_bound(queue_.begin(), queue_.end(), g,
                               [this](int v, int i) { return v < Spec(i).gpus; });
    queue_.insert(at, jobs_[next_]);
  }
}

void Pool::Place(Time t) {
  size_t placed = 0;
  for (; placed < queue_.size(); ++placed) {
    const int i = queue_[placed];
    if (!nodes_.Place(Spec(i).gpus, &shares_[static_cast<size_t>(i)])) break;
    ProfiledJob& r = out_.jobs[static_cast<size_t>(i)];
    const Time duration = Spec(i).duration_s;
    r.profiled = true;
    r.finished = duration <= cfg_.time_limit_s;
    r.start_s = t;
    r.end_s = t + std::min(duration, static_cast<Time>(cfg_.time_limit_s));
    ends_.emplace(r.end_s, i);
  }
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(placed));
}

bool Pool::Scale(Time t) {
  bool grew = false;
  if (OnGrid(t, kScaleUpEvery) && UpArmed()) {
    nodes_.AddTempNode();
    out_.pool_changes.emplace_back(t, +1);
    grew = true;
  }
  if (OnGrid(t, kScaleDownEvery) && DownArmed()) {
    const int64_t now = static_cast<int64_t>(t);
    const double v = forecast_.Mean(forecast_.data().pred_gpu_num, now, last_forecast_call_, -1.0);
    last_forecast_call_ = now;
    if (v <= cfg_.scale_down_max_gpus) {
      nodes_.RemoveIdleNode();
      out_.pool_changes.emplace_back(t, -1);
    }
  }
  return grew;
}

Result<ProfilerRun> Pool::Run() {
  if (jobs_.empty()) return std::move(out_);
  Time t = Spec(jobs_[0]).submit_s;
  while (true) {
    EndAndArrive(t);
    Place(t);
    const bool grew = Scale(t);
    if (grew && clock_ == ProfilerClock::kEvents) {
      Place(t);  // The new node is usable at once.
    }
    if (ended_ == jobs_.size()) break;
    Time n = next_ < jobs_.size() ? Spec(jobs_[next_]).submit_s : kNever;
    if (!ends_.empty()) n = std::min(n, ends_.top().first);
    if (grew && clock_ == ProfilerClock::kLucidTicks) n = std::min(n, t + 1);
    if (UpArmed()) n = std::min(n, NextOnGrid(t, kScaleUpEvery));
    if (DownArmed()) n = std::min(n, NextOnGrid(t, kScaleDownEvery));
    if (n == kNever) {
      return Status::InvalidArgument("lucid profiler: job " + std::to_string(Spec(queue_[0]).id) +
                                     " does not fit the profiling pool");
    }
    t = n;
  }
  return std::move(out_);
}

}  // namespace

Status TakeProfilerNodes(const ProfilerConfig& cfg, const std::vector<VirtualCluster>& vcs,
                         std::vector<int>* nodes) {
  for (const std::string& donor : cfg.donor_vcs) {
    auto it = std::find_if(vcs.begin(), vcs.end(),
                           [&](const VirtualCluster& vc) { return vc.name == donor; });
    const size_t v = static_cast<size_t>(it - vcs.begin());
    if (it == vcs.end() || (*nodes)[v] < 1) {
      return Status::InvalidArgument("lucid profiler: donor VC '" + donor +
                                     "' is not configured or has no node");
    }
    --(*nodes)[v];
  }
  return Status::Ok();
}

Result<ProfilerRun> RunProfiler(const Trace& trace, const ProfilerConfig& cfg,
                                const ThroughputForecast& forecast, ProfilerClock clock) {
  return Pool(trace, cfg, forecast, clock).Run();
}

}  // namespace schedkit::lucid
