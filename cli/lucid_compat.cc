// `schedkit simulate|compare --compat lucid`: the Lucid simulator's semantics over
// virtual clusters (docs/lucid.md). Outputs are documented in docs/outputs.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "schedkit/lucid.h"
#include "schedkit/trace.h"

namespace schedkit::cli {

namespace lc = schedkit::lucid;

int RunLucidCompat(const std::string& trace_path, const TraceOptions& trace_options,
                   const std::vector<std::string>& policies, const std::vector<std::string>& opts,
                   const std::string& out) {
  auto parsed = ParseOpts(opts);
  if (!parsed.ok()) return Fail(parsed.status().message());
  bool first = true;
  Trace trace;
  for (const std::string& name : policies) {
    auto policy = lc::ParseCompatPolicy(name);
    if (!policy.ok()) return Fail(policy.status().message());
    auto config = lc::ConfigFromOptions(*policy, *parsed);
    if (!config.ok()) return Fail(config.status().message());
    if (first) {
      auto loaded = lc::LoadExperimentTrace(trace_path, trace_options, config->vcs);
      if (!loaded.ok()) return Fail(loaded.status().message());
      trace = std::move(*loaded);
      first = false;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto run = lc::RunCompat(trace, *config);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!run.ok()) return Fail(run.status().message());
    std::printf("policy %s (compat lucid) on %s (%zu jobs), %zu VCs (%d GPUs)\n", name.c_str(),
                trace.source.c_str(), trace.jobs.size(), config->vcs.size(), run->total_gpus);
    std::printf("  JCT avg (s)                     %.3f\n", run->all.avg_jct_s);
    std::printf("  queueing delay avg / p99.9 (s)  %.3f / %.3f\n", run->all.avg_queue_s,
                run->all.p999_queue_s);
    if (*policy == lc::CompatPolicy::kLucid) {
      std::printf("  co-located jobs                 %lld\n",
                  static_cast<long long>(run->colocated_jobs));
      std::printf("  profiler node lendings          %lld\n",
                  static_cast<long long>(run->profiler_scale_events));
    }
    std::printf("  simulator run time (s)          %.4f\n", wall);
    if (!out.empty()) {
      const std::string dir = policies.size() == 1 ? out : out + "/" + name;
      Status st = lc::WriteCompatOutputs(*run, lc::SummarizeRun(*run, wall),
                                         lc::CompatRunBlock(*policy, trace_path, *parsed), dir);
      if (!st.ok()) return Fail(st.message());
    }
  }
  return 0;
}

int RunVirtualClusterSimulation(const std::string& trace_path, const TraceOptions& trace_options,
                                const std::string& vc_config, const PolicyRequest& request,
                                const SimulatorOptions& options, int threads,
                                const std::string& out) {
  auto vcs = lucid::LoadVcConfig(vc_config);
  if (!vcs.ok()) return Fail(vcs.status().message());
  auto trace = lucid::LoadExperimentTrace(trace_path, trace_options, *vcs);
  if (!trace.ok()) return Fail(trace.status().message());
  const auto t0 = std::chrono::steady_clock::now();
  auto run = lucid::RunVirtualClusters(*trace, *vcs, request, options, threads);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok()) return Fail(run.status().message());
  std::printf("policy %s on %s (%zu jobs), %zu virtual clusters\n", request.policy.c_str(),
              trace->source.c_str(), trace->jobs.size(), vcs->size());
  std::printf("  %-10s %6s %5s %12s %12s %14s %6s\n", "vc", "jobs", "GPUs", "JCT avg", "queue avg",
              "queue p99.9", "preempt");
  for (const lucid::VcRun& r : run->per_vc) {
    const lucid::MetricSummary& s = r.summary;
    std::printf("  %-10s %6lld %5d %12.1f %12.1f %14.1f %6lld\n", r.vc.c_str(),
                static_cast<long long>(s.jobs), r.cluster.TotalGpus(), s.avg_jct_s, s.avg_queue_s,
                s.p999_queue_s, static_cast<long long>(r.run.summary.preemptions));
  }
  std::printf("  %-10s %6lld %5s %12.1f %12.1f %14.1f\n", "all",
              static_cast<long long>(run->all.jobs), "", run->all.avg_jct_s, run->all.avg_queue_s,
              run->all.p999_queue_s);
  if (!run->profiled.empty()) {
    const auto finished =
        std::count_if(run->profiled.begin(), run->profiled.end(),
                      [](const lucid::ProfiledJobResult& p) { return p.finished; });
    std::printf("  profiler: %zu jobs profiled, %lld finished there, %lld pool changes\n",
                run->profiled.size(), static_cast<long long>(finished),
                static_cast<long long>(run->profiler_scale_events));
  }
  std::printf("  simulator run time (s)  %.4f\n", wall);
  if (out.empty()) return 0;
  Status st = lucid::WriteVirtualClusterOutputs(*run, out);
  return st.ok() ? 0 : Fail(st.message());
}

}  // namespace schedkit::cli
