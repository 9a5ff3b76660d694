// `schedkit simulate|compare --compat lucid`: the Lucid simulator's semantics over
// virtual clusters (docs/lucid.md). Outputs are documented in docs/outputs.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "commands.h"
#include "schedkit/lucid.h"
#include "schedkit/metrics.h"
#include "schedkit/trace.h"

namespace schedkit::cli {
namespace {

namespace lc = schedkit::lucid;

Status WriteOutputs(const lc::RunResult& r, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create directory: " + ec.message());
  {
    std::ofstream f(dir + "/jobs.csv");
    f << "job_id,vc,gpus,submit_s,start_s,end_s,queue_s,jct_s,preemptions,profiled,"
         "finished_in_profiler,colocated\n";
    for (const lc::JobResult& j : r.jobs) {
      f << j.id << ',' << j.vc << ',' << j.gpus << ',' << j.submit_s << ',' << j.start_s << ','
        << j.end_s << ',' << j.queue_s << ',' << (j.end_s - j.submit_s) << ',' << j.preemptions
        << ',' << j.profiled << ',' << j.finished_in_profiler << ',' << j.colocated << '\n';
    }
    if (!f) return Status::IoError(dir + "/jobs.csv: write failed");
  }
  std::ofstream f(dir + "/vcs.csv");
  f << "vc,jobs,avg_jct_s,avg_queue_s,p999_queue_s\n";
  auto row = [&f](const std::string& name, const lc::MetricSummary& s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s,%lld,%.3f,%.3f,%.3f\n", name.c_str(),
                  static_cast<long long>(s.jobs), s.avg_jct_s, s.avg_queue_s, s.p999_queue_s);
    f << buf;
  };
  for (const auto& [name, s] : r.per_vc) row(name, s);
  row("all", r.all);
  if (!f) return Status::IoError(dir + "/vcs.csv: write failed");
  return Status::Ok();
}

}  // namespace

int RunLucidCompat(const std::string& trace_path, const std::string& format,
                   const std::vector<std::string>& policies, const std::vector<std::string>& opts,
                   const std::string& out) {
  auto parsed = ParseOpts(opts);
  if (!parsed.ok()) return Fail(parsed.status().message());
  auto fmt = ParseTraceFormat(format);
  if (!fmt.ok()) return Fail(fmt.status().message());
  bool first = true;
  Trace trace;
  for (const std::string& name : policies) {
    auto policy = lc::ParsePolicy(name);
    if (!policy.ok()) return Fail(policy.status().message());
    auto config = lc::ConfigFromOptions(*policy, *parsed);
    if (!config.ok()) return Fail(config.status().message());
    if (first) {
      // Lucid drops jobs of unconfigured VCs before it anchors the log's times.
      TraceOptions to;
      to.format = *fmt;
      for (const lc::VirtualCluster& vc : config->vcs) to.lucid_vcs.push_back(vc.name);
      auto loaded = LoadTrace(trace_path, to);
      if (!loaded.ok()) return Fail(loaded.status().message());
      trace = std::move(*loaded);
      first = false;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto run = lc::RunCompat(trace, *config);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!run.ok()) return Fail(run.status().message());
    int gpus = 0;
    for (const lc::VirtualCluster& vc : config->vcs) gpus += vc.nodes * lc::kGpusPerNode;
    std::printf("policy %s (compat lucid) on %s (%zu jobs), %zu VCs (%d GPUs)\n", name.c_str(),
                trace.source.c_str(), trace.jobs.size(), config->vcs.size(), gpus);
    std::printf("  JCT avg (s)                     %.3f\n", run->all.avg_jct_s);
    std::printf("  queueing delay avg / p99.9 (s)  %.3f / %.3f\n", run->all.avg_queue_s,
                run->all.p999_queue_s);
    if (*policy == lc::Policy::kLucid) {
      std::printf("  co-located jobs                 %lld\n",
                  static_cast<long long>(run->colocated_jobs));
      std::printf("  profiler node lendings          %lld\n",
                  static_cast<long long>(run->profiler_scale_events));
    }
    std::printf("  simulator run time (s)          %.4f\n", wall);
    if (!out.empty()) {
      const std::string dir = policies.size() == 1 ? out : out + "/" + name;
      Status st = WriteOutputs(*run, dir);
      if (!st.ok()) return Fail(st.message());
    }
  }
  return 0;
}

}  // namespace schedkit::cli

namespace schedkit::cli {

int RunVirtualClusterSimulation(const std::string& trace_path, const std::string& format,
                                const std::string& vc_config, const PolicyRequest& request,
                                const SimulatorOptions& options, int threads,
                                const std::string& out) {
  auto vcs = lucid::LoadVcConfig(vc_config);
  if (!vcs.ok()) return Fail(vcs.status().message());
  auto fmt = ParseTraceFormat(format);
  if (!fmt.ok()) return Fail(fmt.status().message());
  TraceOptions to;
  to.format = *fmt;
  for (const lucid::VirtualCluster& vc : *vcs) to.lucid_vcs.push_back(vc.name);
  auto trace = LoadTrace(trace_path, to);
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
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return Fail(out + ": cannot create directory: " + ec.message());
  std::ofstream f(out + "/vcs.csv");
  f << "vc,jobs,gpus,avg_jct_s,avg_queue_s,p999_queue_s,preemptions\n";
  for (const lucid::VcRun& r : run->per_vc) {
    const lucid::MetricSummary& s = r.summary;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s,%lld,%d,%.3f,%.3f,%.3f,%lld\n", r.vc.c_str(),
                  static_cast<long long>(s.jobs), r.cluster.TotalGpus(), s.avg_jct_s, s.avg_queue_s,
                  s.p999_queue_s, static_cast<long long>(r.run.summary.preemptions));
    f << buf;
    const std::string dir = out + "/" + r.vc;
    std::filesystem::create_directories(dir, ec);
    Status st = WriteJobsCsv(*r.run.recorder, dir + "/jobs.csv");
    if (!st.ok()) return Fail(st.message());
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "all,%lld,,%.3f,%.3f,%.3f,\n",
                static_cast<long long>(run->all.jobs), run->all.avg_jct_s, run->all.avg_queue_s,
                run->all.p999_queue_s);
  f << buf;
  if (!f) return Fail(out + "/vcs.csv: write failed");
  if (run->profiled.empty()) return 0;
  std::ofstream p(out + "/profiler.csv");
  p << "job_id,vc,gpus,submit_s,start_s,end_s,finished\n";
  for (const lucid::ProfiledJobResult& j : run->profiled) {
    p << j.id << ',' << j.vc << ',' << j.gpus << ',' << j.submit_s << ',' << j.start_s << ','
      << j.end_s << ',' << j.finished << '\n';
  }
  if (!p) return Fail(out + "/profiler.csv: write failed");
  return 0;
}

}  // namespace schedkit::cli
