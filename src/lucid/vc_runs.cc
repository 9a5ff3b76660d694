// RunVirtualClusters: the clean model over VCs, one independent simulation per VC, after
// Lucid's profiler when the policy is lucid with profiler=true.
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>

#include "lucid/profiler.h"
#include "schedkit/experiment.h"
#include "schedkit/lucid.h"
#include "schedkit/registry.h"

namespace schedkit::lucid {
namespace {

struct CleanProfiler {
  ProfilerConfig config;
  ThroughputForecast forecast;  // Its scale-down reads pred_gpu_num.
};

// The profiler's settings from the lucid policy's options, or nullopt when it is off
// (another policy, or profiler=false).
Result<std::optional<CleanProfiler>> CleanProfilerConfig(const PolicyRequest& request) {
  if (request.policy != "lucid") return std::optional<CleanProfiler>();
  const PolicyRegistry::Entry* entry = BuiltinRegistries().policies.Find("lucid");
  if (entry == nullptr) return Status::Internal("lucid policy is not registered");
  std::map<std::string, std::string> own;
  for (const auto& [key, value] : request.options) {
    if (key.find('.') == std::string::npos) own.emplace(key, value);
  }
  auto values = OptionValues::Parse("lucid", entry->options, own);
  if (!values.ok()) return values.status();
  if (!values->Bool("profiler")) return std::optional<CleanProfiler>();
  CleanProfiler p;
  ProfilerConfig& cfg = p.config;
  cfg.donor_vcs.clear();
  std::stringstream donors(values->String("profiler_donors"));
  for (std::string vc; std::getline(donors, vc, ',');) {
    if (!vc.empty()) cfg.donor_vcs.push_back(vc);
  }
  if (cfg.donor_vcs.empty()) {
    return Status::InvalidArgument("lucid: option 'profiler_donors' names no VC");
  }
  cfg.nodes = static_cast<int>(cfg.donor_vcs.size());
  if (const std::string& f = values->String("forecast"); !f.empty()) {
    auto forecast = LoadThroughputForecast(f);
    if (!forecast.ok()) return forecast.status();
    p.forecast = std::move(*forecast);
  }
  return std::optional<CleanProfiler>(std::move(p));
}

MetricSummary SummarizeTimes(const std::vector<double>& jct, std::vector<double> queue) {
  MetricSummary s;
  s.jobs = static_cast<int64_t>(queue.size());
  if (queue.empty()) return s;
  const double n = static_cast<double>(queue.size());
  for (double v : jct) s.avg_jct_s += v;
  for (double v : queue) s.avg_queue_s += v;
  s.avg_jct_s /= n;
  s.avg_queue_s /= n;
  s.p999_queue_s = QuantileLinear(std::move(queue), 0.999);
  return s;
}

// Hands each job to its VC's sub-trace; `profiled` (trace order) says what the profiler
// did with it. Jobs that finished in the profiler never reach their VC; the others enter
// when they leave it, with their full duration: the profiling run measures a job and is
// not progress.
void DistributeJobs(const Trace& trace, const std::vector<ProfiledJob>& profiled,
                    const std::unordered_map<std::string, size_t>& index, VirtualClusterRun* out) {
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobSpec& j = trace.jobs[i];
    const ProfiledJob& p = profiled[i];
    if (p.profiled) {
      out->profiled.push_back({.id = j.id,
                               .vc = j.vc,
                               .gpus = j.gpus,
                               .submit_s = j.submit_s,
                               .start_s = p.start_s,
                               .end_s = p.end_s,
                               .finished = p.finished});
      if (p.finished) continue;
    }
    JobSpec spec = j;
    if (p.profiled) spec.submit_s = p.end_s;
    out->per_vc[index.at(j.vc)].trace.jobs.push_back(std::move(spec));
  }
  for (VcRun& r : out->per_vc) {
    std::stable_sort(r.trace.jobs.begin(), r.trace.jobs.end(),
                     [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  }
}

// Per-VC and cluster-wide metrics from the original submit times: a profiled job's
// queueing delay is its wait for the profiler plus its wait in the VC, its JCT runs from
// submit to its end; jobs that finished in the profiler count in their VC.
void SummarizeVcRuns(const std::unordered_map<std::string, size_t>& index, VirtualClusterRun* out) {
  const size_t vcs = out->per_vc.size();
  std::vector<std::vector<double>> jct(vcs), queue(vcs);
  std::unordered_map<JobId, const ProfiledJobResult*> by_id;
  for (const ProfiledJobResult& p : out->profiled) {
    if (!p.finished) {
      by_id.emplace(p.id, &p);
      continue;
    }
    const size_t v = index.at(p.vc);
    jct[v].push_back(p.end_s - p.submit_s);
    queue[v].push_back(p.start_s - p.submit_s);
  }
  for (size_t v = 0; v < vcs; ++v) {
    const MetricsRecorder& recorder = *out->per_vc[v].run.recorder;
    for (size_t i = 0; i < recorder.num_jobs(); ++i) {
      const RecordedJob rec = recorder.job(i);
      if (rec.outcome != RecordedJob::Outcome::kFinished) continue;
      auto p = by_id.find(rec.id);
      const Time submit = p == by_id.end() ? rec.submit_s : p->second->submit_s;
      const Time profiler_wait = p == by_id.end() ? 0 : p->second->start_s - submit;
      jct[v].push_back(rec.end_s - submit);
      queue[v].push_back(profiler_wait + rec.queue_s());
    }
  }
  std::vector<double> all_jct, all_queue;
  for (size_t v = 0; v < vcs; ++v) {
    all_jct.insert(all_jct.end(), jct[v].begin(), jct[v].end());
    all_queue.insert(all_queue.end(), queue[v].begin(), queue[v].end());
    out->per_vc[v].summary = SummarizeTimes(jct[v], std::move(queue[v]));
  }
  out->all = SummarizeTimes(all_jct, std::move(all_queue));
}

}  // namespace

Result<VirtualClusterRun> RunVirtualClusters(const Trace& trace,
                                             const std::vector<VirtualCluster>& vcs,
                                             const PolicyRequest& request,
                                             const SimulatorOptions& options, int threads) {
  auto profiler_config = CleanProfilerConfig(request);
  if (!profiler_config.ok()) return profiler_config.status();
  VirtualClusterRun out;
  std::unordered_map<std::string, size_t> index;
  std::vector<int> nodes;
  for (const VirtualCluster& vc : vcs) {
    if (vc.nodes < 1) {
      return Status::InvalidArgument("VC '" + vc.name + "' has no node");
    }
    index.emplace(vc.name, nodes.size());
    nodes.push_back(vc.nodes);
  }
  for (const JobSpec& j : trace.jobs) {
    if (!index.count(j.vc)) {
      return Status::InvalidArgument("job " + std::to_string(j.id) + ": VC '" + j.vc +
                                     "' is not in the VC configuration");
    }
  }
  // Profiled jobs: trace index -> what the pool did with it.
  std::vector<ProfiledJob> profiled(trace.jobs.size());
  if (*profiler_config) {
    const CleanProfiler& p = **profiler_config;
    SCHEDKIT_RETURN_IF_ERROR(TakeProfilerNodes(p.config, vcs, &nodes));
    auto pool = RunProfiler(trace, p.config, p.forecast, ProfilerClock::kEvents);
    if (!pool.ok()) return pool.status();
    profiled = std::move(pool->jobs);
    out.profiler_scale_events = static_cast<int64_t>(pool->pool_changes.size());
  }
  for (size_t v = 0; v < vcs.size(); ++v) {
    if (nodes[v] < 1) {
      return Status::InvalidArgument("VC '" + vcs[v].name +
                                     "' has no node left after the profiler");
    }
    VcRun run;
    run.vc = vcs[v].name;
    // Lucid ignores CPUs and memory: nodes get enough for any job on 8 GPUs.
    run.cluster = ClusterSpec::Uniform(1, nodes[v], kGpusPerNode, 1 << 20, 1 << 20);
    run.cluster.source = "vc " + vcs[v].name;
    run.trace.source = trace.source + " [" + vcs[v].name + "]";
    run.trace.epoch_unix_s = trace.epoch_unix_s;
    out.per_vc.push_back(std::move(run));
  }
  DistributeJobs(trace, profiled, index, &out);
  std::vector<Status> status(out.per_vc.size());
  ParallelFor(out.per_vc.size(), std::max(1, threads), [&](size_t v) {
    VcRun& r = out.per_vc[v];
    auto run = RunSimulation(r.trace, r.cluster, request, options);
    if (!run.ok()) {
      status[v] = run.status();
      return;
    }
    r.run = std::move(*run);
  });
  for (size_t v = 0; v < status.size(); ++v) {
    if (!status[v].ok()) {
      return Status::InvalidArgument("VC " + out.per_vc[v].vc + ": " + status[v].message());
    }
  }
  SummarizeVcRuns(index, &out);
  return out;
}

}  // namespace schedkit::lucid
